package io.kinformer.testing;

import io.kinformer.cache.ShardSelector;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The HTTP front of the embedded server, on Jetty's core Handler API: authentication, routing,
 * faults, list/watch/CRUD and discovery, with the response shapes of kube-apiserver.
 *
 * <p>Runs on Jetty's pool threads ({@code kinformer-apiserver-N}); a watch occupies its thread
 * until it ends. Blocking is fine there: the handler is a blocking handler.
 *
 * <p>Thread safety: thread-safe.
 */
final class ApiHandler extends Handler.Abstract {

  private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);
  private static final int BUFFER = 64 * 1024;
  private static final long GZIP_THRESHOLD = 128 * 1024;
  private static final String JSON = "application/json";
  private static final String META_LIST = "as=partialobjectmetadatalist";
  private static final String META_OBJECT = "as=partialobjectmetadata";

  /** Settings the handler needs from the server. */
  record Settings(
      @Nullable String bearerToken,
      Duration bookmarkInterval,
      int maxPendingEvents,
      Scheduler scheduler,
      long maxRequestBodyBytes) {}

  private final ApiOps ops;
  private final Store store;
  private final Registry registry;
  private final Faults faults;
  private final Set<WatchSession> watches;
  private final Settings settings;
  private final Executor executor;
  private final OpenApiDocuments openApi;
  private volatile String serverAddress = "127.0.0.1:0";

  ApiHandler(ApiOps ops, Faults faults, Set<WatchSession> watches, Settings settings,
      Executor executor) {
    this.ops = ops;
    this.store = ops.store();
    this.registry = ops.registry();
    this.faults = faults;
    this.watches = watches;
    this.settings = settings;
    this.executor = executor;
    this.openApi = new OpenApiDocuments(registry);
  }

  void serverAddress(String hostPort) {
    this.serverAddress = hostPort;
  }

  // ---- routing -------------------------------------------------------------------------------

  private enum Kind {
    VERSION, API, APIS, GROUP, GROUP_VERSION, COLLECTION, OBJECT, NOT_FOUND_PLAIN,
    NOT_FOUND_RESOURCE, REVIEW
  }

  private record Route(
      Kind kind, String group, String version, @Nullable ServedResource type,
      @Nullable String namespace, @Nullable String name, boolean status, boolean legacyWatch,
      boolean scale) {
    Route(Kind kind, String group, String version, @Nullable ServedResource type,
        @Nullable String namespace, @Nullable String name, boolean status, boolean legacyWatch) {
      this(kind, group, version, type, namespace, name, status, legacyWatch, false);
    }

    static Route of(Kind k) {
      return new Route(k, "", "", null, null, null, false, false);
    }
  }

  private Route route(String path) {
    if (path.equals("/version") || path.equals("/version/")) {
      return Route.of(Kind.VERSION);
    }
    List<String> segs = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        segs.add(s);
      }
    }
    if (segs.isEmpty()) {
      return Route.of(Kind.NOT_FOUND_PLAIN);
    }
    String group;
    String version;
    int restAt;
    if (segs.get(0).equals("api")) {
      if (segs.size() == 1) {
        return Route.of(Kind.API);
      }
      group = "";
      version = segs.get(1);
      restAt = 2;
    } else if (segs.get(0).equals("apis")) {
      if (segs.size() == 1) {
        return Route.of(Kind.APIS);
      }
      group = segs.get(1);
      if (!registry.hasGroup(group)) {
        return Route.of(Kind.NOT_FOUND_PLAIN);
      }
      if (segs.size() == 2) {
        return new Route(Kind.GROUP, group, "", null, null, null, false, false);
      }
      version = segs.get(2);
      restAt = 3;
    } else {
      return Route.of(Kind.NOT_FOUND_PLAIN);
    }
    if (!registry.hasGroupVersion(group, version)) {
      return Route.of(Kind.NOT_FOUND_PLAIN);
    }
    List<String> rest = segs.subList(restAt, segs.size());
    if (rest.isEmpty()) {
      return new Route(Kind.GROUP_VERSION, group, version, null, null, null, false, false);
    }
    boolean legacyWatch = false;
    if (rest.get(0).equals("watch")) {
      legacyWatch = true;
      rest = rest.subList(1, rest.size());
      if (rest.isEmpty()) {
        return Route.of(Kind.NOT_FOUND_RESOURCE);
      }
    }
    if (AccessReviews.serves(group, version, rest)) {
      return new Route(Kind.REVIEW, group, version, null, null, rest.get(0), false, false);
    }
    String namespace = null;
    if (rest.get(0).equals("namespaces") && rest.size() >= 3
        && !(rest.size() == 3
            && (rest.get(2).equals("status") || rest.get(2).equals("finalize")))) {
      namespace = rest.get(1);
      rest = rest.subList(2, rest.size());
    }
    if (rest.size() > 3) {
      return Route.of(Kind.NOT_FOUND_RESOURCE);
    }
    ServedResource type = registry.byPath(group, version, rest.get(0)).orElse(null);
    if (type == null || (!type.namespaced() && namespace != null)
        || (type.namespaced() && namespace == null && rest.size() > 1)) {
      return Route.of(Kind.NOT_FOUND_RESOURCE);
    }
    String name = rest.size() > 1 ? rest.get(1) : null;
    boolean status = false;
    boolean scale = false;
    if (rest.size() == 3) {
      if (rest.get(2).equals("scale") && Scales.supports(type) && !legacyWatch) {
        scale = true;
      } else if (!rest.get(2).equals("status") || !type.statusSubresource()) {
        return Route.of(Kind.NOT_FOUND_RESOURCE);
      } else {
        status = true;
      }
    }
    return new Route(name == null ? Kind.COLLECTION : Kind.OBJECT, group, version, type,
        namespace, name, status, legacyWatch, scale);
  }

  private static Verb verbOf(Route r, String method, Fields query) {
    switch (r.kind()) {
      case COLLECTION:
        switch (method) {
          case "GET":
            return r.legacyWatch() || isWatch(query.getValue("watch")) ? Verb.WATCH : Verb.LIST;
          case "POST":
            return Verb.CREATE;
          case "DELETE":
            return Verb.DELETECOLLECTION;
          default:
            return null;
        }
      case OBJECT:
        switch (method) {
          case "GET":
            return r.legacyWatch() || (!r.status() && !r.scale()
                && isWatch(query.getValue("watch"))) ? Verb.WATCH : Verb.GET;
          case "PUT":
            return Verb.UPDATE;
          case "PATCH":
            return Verb.PATCH;
          case "DELETE":
            return r.status() || r.scale() ? null : Verb.DELETE;
          default:
            return null;
        }
      case REVIEW:
        return method.equals("POST") ? Verb.CREATE : null;
      default:
        return Verb.DISCOVERY;
    }
  }

  private static boolean isWatch(@Nullable String v) {
    return v != null && !v.equals("false") && !v.equals("0");
  }

  // ---- entry ---------------------------------------------------------------------------------

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    try {
      if (health(request, response, callback)) {
        return true;
      }
      if (!authorized(request)) {
        writeStatus(response, callback, ApiError.of(401, "Unauthorized", "Unauthorized", null),
            false);
        return true;
      }
      if (openApi(request, response, callback)) {
        return true;
      }
      Route route = route(Request.getPathInContext(request));
      Fields query = Request.extractQueryParameters(request);
      Verb verb = verbOf(route, request.getMethod(), query);
      String resource = route.type() == null ? null : route.type().plural();
      if (verb != null) {
        faults.count(verb, resource);
      }
      Duration delay = verb == null ? Duration.ZERO : faults.latencyFor(verb);
      if (delay.isZero()) {
        process(request, response, callback, route, query, verb);
      } else {
        settings.scheduler().schedule(() -> {
          try {
            executor.execute(() -> process(request, response, callback, route, query, verb));
          } catch (RejectedExecutionException stopping) {
            callback.failed(stopping);
          }
        }, delay);
      }
    } catch (RuntimeException e) {
      log.warn("request {} {} failed", request.getMethod(), request.getHttpURI(), e);
      callback.failed(e);
    }
    return true;
  }

  /** The checks kube-apiserver lists for each health endpoint with {@code ?verbose}. */
  private static final List<String> LIVE_CHECKS = List.of("ping", "log", "etcd");
  private static final List<String> READY_CHECKS =
      List.of("ping", "log", "etcd", "etcd-readiness", "informer-sync", "shutdown");

  /**
   * Answers {@code /healthz}, {@code /livez} and {@code /readyz} (and their {@code /ping}) as
   * kube-apiserver does: {@code ok}, or with {@code ?verbose} one {@code [+]check ok} line per
   * check and {@code <endpoint> check passed}. They are open to anonymous clients, as the
   * default {@code system:public-info-viewer} role makes them on a real cluster.
   */
  private boolean health(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String[] parts = path.substring(1).split("/", -1);
    String endpoint = parts[0];
    List<String> checks;
    switch (endpoint) {
      case "healthz":
      case "livez":
        checks = LIVE_CHECKS;
        break;
      case "readyz":
        checks = READY_CHECKS;
        break;
      default:
        return false;
    }
    if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
      return false;
    }
    String body;
    if (parts.length == 1 || (parts.length == 2 && parts[1].isEmpty())) {
      Fields query = Request.extractQueryParameters(request);
      if (query.get("verbose") != null) {
        StringBuilder sb = new StringBuilder();
        for (String c : checks) {
          sb.append("[+]").append(c).append(" ok\n");
        }
        body = sb.append(endpoint).append(" check passed\n").toString();
      } else {
        body = "ok";
      }
    } else if (parts.length == 2 && checks.contains(parts[1])) {
      body = "ok";
    } else {
      return false;
    }
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    headers(response, false);
    response.write(true, utf8(body), callback);
    return true;
  }

  private boolean authorized(Request request) {
    String token = settings.bearerToken();
    if (token == null) {
      return true;
    }
    String h = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(h.substring(7).trim().getBytes(StandardCharsets.UTF_8),
        token.getBytes(StandardCharsets.UTF_8));
  }

  private void process(Request request, Response response, Callback callback, Route route,
      Fields query, @Nullable Verb verb) {
    try {
      ApiError cutOff =
          faults.partitionFailure(request.getHeaders().get(HttpHeader.USER_AGENT), verb);
      if (cutOff != null) {
        throw cutOff;
      }
      if (verb != null) {
        ApiError injected = faults.takeFailure(verb,
            route.type() == null ? null : route.type().plural());
        if (injected != null) {
          throw injected;
        }
      }
      dispatch(request, response, callback, route, query, verb);
    } catch (ApiError e) {
      writeStatus(response, callback, e, true);
    } catch (RuntimeException e) {
      log.warn("request {} {} failed", request.getMethod(), request.getHttpURI(), e);
      writeStatus(response, callback,
          ApiError.of(500, "InternalError", "Internal error occurred: " + e, null), true);
    } catch (IOException e) {
      log.debug("request {} {}: client went away", request.getMethod(), request.getHttpURI(), e);
      callback.failed(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    }
  }

  private void dispatch(Request request, Response response, Callback callback, Route route,
      Fields query, @Nullable Verb verb) throws IOException, InterruptedException {
    switch (route.kind()) {
      case NOT_FOUND_PLAIN:
        response.setStatus(404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        headers(response, true);
        response.write(true, utf8("404 page not found\n"), callback);
        return;
      case NOT_FOUND_RESOURCE:
        throw ApiError.resourceNotFound();
      case VERSION:
        writeJson(response, callback, 200, Json.bytes(Discovery.version()));
        return;
      case API:
      case APIS: {
        boolean core = route.kind() == Kind.API;
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        if (accept != null && Discovery.wantsAggregated(accept)) {
          byte[] doc = Json.bytes(Discovery.aggregated(registry, core));
          String etag = Discovery.etag(doc);
          response.getHeaders().put(HttpHeader.VARY, "Accept");
          response.getHeaders().put(HttpHeader.ETAG, etag);
          if (etag.equals(request.getHeaders().get(HttpHeader.IF_NONE_MATCH))) {
            response.setStatus(304);
            headers(response, true);
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "public");
            response.write(true, ByteBuffer.allocate(0), callback);
            return;
          }
          writeJson(response, callback, 200, doc, Discovery.AGGREGATED, "public");
          return;
        }
        writeJson(response, callback, 200, Json.bytes(core
            ? Discovery.apiVersions(serverAddress) : Discovery.groupList(registry)));
        return;
      }
      case GROUP:
        writeJson(response, callback, 200, Json.bytes(Discovery.group(route.group(),
            registry.namedGroups().get(route.group()), true)));
        return;
      case GROUP_VERSION:
        writeJson(response, callback, 200,
            Json.bytes(Discovery.resourceList(registry, route.group(), route.version())));
        return;
      case REVIEW:
        if (verb != Verb.CREATE) {
          throw ApiError.methodNotAllowed();
        }
        String reviewType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        byte[] review = body(request);
        if (reviewType != null && ProtobufBodies.isProtobuf(reviewType)) {
          // kubectl's typed client posts reviews as protobuf; the answer is JSON, which it
          // accepts too.
          review = ProtobufBodies.toJson(review, AccessReviews.GROUP, AccessReviews.VERSION,
              AccessReviews.kind(route.name()));
        } else {
          checkBodyType(request);
        }
        writeResult(response, callback, AccessReviews.create(route.name(), review));
        return;
      default:
        break;
    }
    if (verb == null) {
      throw ApiError.methodNotAllowed();
    }
    checkAcceptable(request);
    ServedResource type = route.type();
    String ns = route.namespace() == null ? "" : route.namespace();
    if (route.scale()) {
      scale(request, response, callback, route, query, verb);
      return;
    }
    switch (verb) {
      case LIST:
        list(request, response, callback, type, route.namespace(), query);
        return;
      case WATCH:
        watch(request, response, callback, route, query);
        return;
      case GET:
        get(request, response, callback, type, ns, route.name(), query);
        return;
      case CREATE: {
        byte[] createBody = objectBody(request, type);
        ObjectNode created = ApiOps.parseObject(createBody, type);
        warn(response, FieldValidation.check(fieldValidation(query), openApi, type, createBody,
            false, FieldValidation.decodePrefix(type)));
        String rv = created.path("metadata").path("resourceVersion").asString("");
        if (!rv.isEmpty() && !rv.equals("0") && rv.chars().allMatch(Character::isDigit)) {
          // The storage layer's plain error, which the real server turns into a 500.
          throw ApiError.unknown("resourceVersion should not be set on objects to be created");
        }
        writeResult(response, callback,
            writer(query, "CreateOptions", NO_BODY).create(type, route.namespace(), created));
        return;
      }
      case UPDATE: {
        byte[] updateBody = objectBody(request, type);
        ObjectNode updated = ApiOps.parseObject(updateBody, type);
        warn(response, FieldValidation.check(fieldValidation(query), openApi, type, updateBody,
            false, FieldValidation.decodePrefix(type)));
        writeResult(response, callback, writer(query, "UpdateOptions", NO_BODY).update(type,
            ns, route.name(), updated, route.status()));
        return;
      }
      case PATCH: {
        String ct = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        byte[] patchBody = body(request);
        warn(response, patchProblems(query, type, ct, patchBody));
        writeResult(response, callback, writer(query, "PatchOptions", NO_BODY).patch(type,
            ns, route.name(), ct == null ? "" : ct, patchBody, route.status()));
        return;
      }
      case DELETE: {
        byte[] options = body(request);
        writeResult(response, callback, writer(query, "DeleteOptions", options).delete(type, ns,
            route.name(), ApiOps.DeleteOptions.parse(options, query.getValue("gracePeriodSeconds")))
            .result());
        return;
      }
      case DELETECOLLECTION: {
        Filter filter = Filter.parse(type, route.namespace(), query.getValue("labelSelector"),
            query.getValue("fieldSelector"));
        long rv = store.currentRv();
        byte[] options = body(request);
        List<StoredObject> deleted = writer(query, "DeleteOptions", options).deleteCollection(
            type, filter,
            ApiOps.DeleteOptions.parse(options, query.getValue("gracePeriodSeconds")));
        writeList(request, response, callback, type, rv, null, -1, deleted, null, null);
        return;
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  private static final byte[] NO_BODY = new byte[0];

  /** {@code .../NAME/scale}: the autoscaling/v1 Scale view of a workload. */
  private void scale(Request request, Response response, Callback callback, Route route,
      Fields query, Verb verb) throws IOException {
    ServedResource type = route.type();
    String ns = route.namespace() == null ? "" : route.namespace();
    switch (verb) {
      case GET:
        writeResult(response, callback, Scales.get(store, type, ns, route.name()));
        return;
      case UPDATE:
        writeResult(response, callback, Scales.update(writer(query, "UpdateOptions", NO_BODY),
            type, ns, route.name(), objectBody(request, "autoscaling", "v1", "Scale")));
        return;
      case PATCH: {
        String ct = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        writeResult(response, callback, Scales.patch(writer(query, "PatchOptions", NO_BODY),
            type, ns, route.name(), ct == null ? "" : ct, body(request)));
        return;
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  /** The operations that run the write: {@link ApiOps#dryRun() dry} when the request asks. */
  private ApiOps writer(Fields query, String optionsKind, byte[] deleteBody) {
    return DryRun.requested(query, optionsKind, deleteBody) ? ops.dryRun() : ops;
  }

  // ---- OpenAPI and field validation ----------------------------------------------------------

  private static FieldValidation.Directive fieldValidation(Fields query) {
    return FieldValidation.Directive.of(query.getValue("fieldValidation"));
  }

  /** The unknown and duplicate fields of a merge, strategic merge or apply patch. */
  private List<String> patchProblems(Fields query, ServedResource type, @Nullable String ct,
      byte[] body) {
    String media = ct == null ? "" : ct.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    FieldValidation.Directive d = fieldValidation(query);
    return switch (media) {
      case "application/merge-patch+json", "application/strategic-merge-patch+json" ->
          FieldValidation.check(d, openApi, type, body, true, "");
      case "application/apply-patch+yaml" ->
          FieldValidation.check(d, openApi, type, FieldValidation.yamlToJson(body), true, "");
      default -> List.of(); // a JSON patch names paths, not fields
    };
  }

  /** One {@code Warning} header (RFC 7234 form, code 299) for each field validation warning. */
  private static void warn(Response response, List<String> warnings) {
    for (String w : warnings) {
      response.getHeaders().add("Warning",
          "299 - \"" + w.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
  }

  /**
   * Serves {@code /openapi/v2} (JSON or protobuf), {@code /openapi/v3} and {@code
   * /openapi/v3/<group version>} (redirecting a stale {@code ?hash=} to the current one, as
   * kube-apiserver does).
   */
  private boolean openApi(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    if (!path.startsWith("/openapi/") || !request.getMethod().equals("GET")) {
      return false;
    }
    OpenApiDocuments.Doc doc;
    String cacheControl = "no-cache, private";
    String sub = path.substring("/openapi/".length());
    if (sub.equals("v2")) {
      if (acceptOf(request).contains("com.github.proto-openapi.spec.v2")) {
        response.setStatus(200);
        headers(response, true);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, OpenApiV2Proto.CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(openApi.v2Proto()), callback);
        return true;
      }
      doc = openApi.v2();
    } else if (sub.equals("v3") || sub.equals("v3/")) {
      doc = openApi.discoveryV3();
    } else if (sub.startsWith("v3/")) {
      String gv = sub.substring(3);
      doc = openApi.v3(gv).orElse(null);
      if (doc == null) {
        response.setStatus(404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        headers(response, true);
        response.write(true, utf8("404 page not found\n"), callback);
        return true;
      }
      String hash = Request.extractQueryParameters(request).getValue("hash");
      if (hash != null && !hash.equals(doc.hash())) {
        response.setStatus(301);
        response.getHeaders().put(HttpHeader.LOCATION,
            "/openapi/v3/" + gv + "?hash=" + doc.hash());
        headers(response, true);
        response.write(true, ByteBuffer.allocate(0), callback);
        return true;
      }
      if (hash != null) {
        cacheControl = "public, immutable";
      }
    } else {
      return false;
    }
    String etag = "\"" + doc.hash() + "\"";
    response.getHeaders().put(HttpHeader.ETAG, etag);
    if (etag.equals(request.getHeaders().get(HttpHeader.IF_NONE_MATCH))) {
      response.setStatus(304);
      headers(response, true);
      response.write(true, ByteBuffer.allocate(0), callback);
      return true;
    }
    writeJson(response, callback, 200, doc.body(), JSON, cacheControl);
    return true;
  }

  /** The body of a create or update of {@code type}, as JSON. */
  private byte[] objectBody(Request request, ServedResource type) throws IOException {
    return objectBody(request, type.group(), type.version(), type.kind());
  }

  /**
   * The body of a write of a {@code group/version kind} object: JSON (or YAML) as sent, Kubernetes
   * protobuf of a built-in kind as its JSON ({@link ProtobufBodies}); any other type gets 415.
   */
  private byte[] objectBody(Request request, String group, String version, String kind)
      throws IOException {
    String ct = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (ct != null && ProtobufBodies.isProtobuf(ct)) {
      return ProtobufBodies.toJson(body(request), group, version, kind);
    }
    checkBodyType(request);
    return body(request);
  }

  /**
   * Bodies must be JSON (or YAML) but where {@link #objectBody} or a review reads protobuf; CBOR
   * and other protobuf get 415, which clients fall back from.
   */
  private static void checkBodyType(Request request) {
    String ct = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (ct == null) {
      return;
    }
    String c = ct.toLowerCase(Locale.ROOT);
    if (c.contains("protobuf") || c.contains("cbor")) {
      throw ApiError.unsupportedMediaType();
    }
  }

  private static void checkAcceptable(Request request) {
    String accept = request.getHeaders().get(HttpHeader.ACCEPT);
    if (accept == null || accept.isBlank()) {
      return;
    }
    String a = accept.toLowerCase(Locale.ROOT);
    if (a.contains("json") || a.contains("*/*") || a.contains("application/*")) {
      return;
    }
    throw ApiError.of(406, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: "
        + "application/json, application/yaml, application/vnd.kubernetes.protobuf, "
        + "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch",
        Json.MAPPER.createObjectNode());
  }

  /**
   * The PartialObjectMetadata apiVersion the client asked for: {@code meta.k8s.io/v1beta1} when
   * the first metadata media range in {@code accept} (as from {@link #acceptOf}) says
   * {@code v=v1beta1}, else {@code meta.k8s.io/v1} (transcript 09 §9.11).
   */
  static String metaApiVersion(String accept) {
    for (String range : accept.split(",")) {
      if (range.contains(META_OBJECT)) {
        for (String param : range.split(";")) {
          if (param.equals("v=v1beta1")) {
            return "meta.k8s.io/v1beta1";
          }
        }
        break;
      }
    }
    return StoredObject.META_V1;
  }

  /**
   * The Go type the real server names in its 406 messages (transcript 09 §9.14):
   * {@code *core.Pod}, {@code *core.PodList}; custom resources are unstructured there.
   */
  private static String goType(ServedResource type, boolean list) {
    String suffix = list ? "List" : "";
    if (!Registry.builtIns().contains(type)) {
      return "*unstructured.Unstructured" + suffix;
    }
    String pkg = type.group().isEmpty() ? "core" : type.group().split("\\.", 2)[0];
    return "*" + pkg + "." + type.kind() + suffix;
  }

  private static String acceptOf(Request request) {
    String a = request.getHeaders().get(HttpHeader.ACCEPT);
    return a == null ? "" : a.toLowerCase(Locale.ROOT).replace(" ", "");
  }

  // ---- reads ---------------------------------------------------------------------------------

  private void get(Request request, Response response, Callback callback, ServedResource type,
      String ns, String name, Fields query) {
    String rvParam = query.getValue("resourceVersion");
    if (rvParam != null && !rvParam.isEmpty()) {
      long n = parseRv(rvParam);
      long current = store.currentRv();
      if (n > current) {
        throw ApiError.tooLargeResourceVersion(n, current);
      }
    }
    String accept = acceptOf(request);
    if (accept.contains(META_LIST)) {
      throw ApiError.of(406, "NotAcceptable", "you requested PartialObjectMetadataList, but the "
          + "requested object is not a list (" + goType(type, false) + ")", null);
    }
    StoredObject o = store.get(type, StoredObject.key(type.namespaced() ? ns : "", name));
    if (o == null) {
      throw ApiError.notFound(type.plural(), name);
    }
    Tables.Request table = Tables.requested(accept, query.getValue("includeObject"));
    if (table != null) {
      writeJson(response, callback, 200,
          new Tables(type, table, ops.clock()).single(o, true));
      return;
    }
    writeJson(response, callback, 200,
        accept.contains(META_OBJECT) ? o.partialMetadata(metaApiVersion(accept)) : o.json);
  }

  private record ContinueToken(long rv, String startAfter) {}

  static String encodeContinue(long rv, String lastKey) {
    ObjectNode t = Json.MAPPER.createObjectNode();
    t.put("v", "meta.k8s.io/v1");
    t.put("rv", rv);
    t.put("start", lastKey + "\u0000");
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.bytes(t));
  }

  private static ContinueToken decodeContinue(String token) {
    try {
      byte[] raw = Base64.getUrlDecoder().decode(token.replace('+', '-').replace('/', '_')
          .replace("=", ""));
      JsonNode n = Json.MAPPER.readTree(raw);
      if (!n.isObject() || !n.path("rv").isNumber() || !n.path("start").isString()) {
        throw new IllegalArgumentException("continue key is not valid: missing fields");
      }
      String start = n.get("start").asString();
      if (start.endsWith("\u0000")) {
        start = start.substring(0, start.length() - 1);
      }
      return new ContinueToken(n.get("rv").asLong(), start);
    } catch (IllegalArgumentException | JacksonException e) {
      throw ApiError.badRequest("invalid continue token: continue key is not valid: "
          + e.getMessage());
    }
  }

  private static long parseRv(String rv) {
    try {
      return Long.parseUnsignedLong(rv);
    } catch (NumberFormatException e) {
      throw ApiError.badRequest("invalid resource version: resourceVersion: Invalid value: \""
          + rv + "\": strconv.ParseUint: parsing \"" + rv + "\": invalid syntax");
    }
  }

  private void list(Request request, Response response, Callback callback, ServedResource type,
      @Nullable String namespace, Fields query) throws IOException {
    String rvParam = nonEmpty(query.getValue("resourceVersion"));
    String match = nonEmpty(query.getValue("resourceVersionMatch"));
    String cont = nonEmpty(query.getValue("continue"));
    List<ApiError.Cause> causes = new ArrayList<>();
    if (match != null && rvParam == null) {
      causes.add(new ApiError.Cause("FieldValueForbidden",
          "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
          "resourceVersionMatch"));
    }
    if (match != null && cont != null) {
      // The continue token pins the RV itself; ValidateListOptions rejects both together.
      causes.add(new ApiError.Cause("FieldValueForbidden",
          "Forbidden: resourceVersionMatch is forbidden when continue is provided",
          "resourceVersionMatch"));
    }
    if (match != null && !match.equals("Exact") && !match.equals("NotOlderThan")) {
      causes.add(new ApiError.Cause("FieldValueNotSupported", "Unsupported value: \"" + match
          + "\": supported values: \"Exact\", \"NotOlderThan\"", "resourceVersionMatch"));
    }
    if ("Exact".equals(match) && "0".equals(rvParam)) {
      causes.add(new ApiError.Cause("FieldValueForbidden",
          "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
          "resourceVersionMatch"));
    }
    if (query.getValue("sendInitialEvents") != null) {
      causes.add(new ApiError.Cause("FieldValueForbidden",
          "Forbidden: sendInitialEvents is forbidden for list", "sendInitialEvents"));
    }
    if (!causes.isEmpty()) {
      throw ApiError.invalidListOptions(causes);
    }
    if (cont != null && rvParam != null && !rvParam.equals("0")) {
      throw ApiError.badRequest("specifying resource version is not allowed when using continue");
    }
    long limit = 0;
    String limitParam = nonEmpty(query.getValue("limit"));
    if (limitParam != null) {
      try {
        limit = Long.parseLong(limitParam);
      } catch (NumberFormatException e) {
        throw ApiError.badRequest("strconv.ParseInt: parsing \"" + limitParam
            + "\": invalid syntax");
      }
    }
    Filter filter = shardFilter(Filter.parse(type, namespace, query.getValue("labelSelector"),
        query.getValue("fieldSelector")), query);
    String accept = acceptOf(request);
    boolean meta = accept.contains(META_LIST);
    if (!meta && accept.contains(META_OBJECT)) {
      throw ApiError.of(406, "NotAcceptable", "you requested PartialObjectMetadata, but the "
          + "requested object is a list (" + goType(type, true) + ")", null);
    }
    long atRv = -1;
    String startAfter = null;
    if (cont != null) {
      ContinueToken t = decodeContinue(cont);
      startAfter = t.startAfter();
      atRv = t.rv() < 0 ? -1 : t.rv();
    } else if (rvParam != null) {
      long n = parseRv(rvParam);
      if (n == 0) {
        limit = 0; // served from the watch cache: limit is ignored (transcript 01)
      } else {
        long current = store.currentRv();
        if (n > current) {
          throw ApiError.tooLargeResourceVersion(n, current);
        }
        boolean exact = "Exact".equals(match) || (match == null && limit > 0);
        if (exact) {
          atRv = n;
        }
      }
    }
    Store.Snapshot snap = store.snapshot(type, namespace, startAfter, atRv);
    if (snap == null) {
      if (cont != null) {
        ObjectNode status = ApiError.status(410, "Expired", "The provided continue parameter is "
            + "too old to display a consistent list result. You can start a new list without the "
            + "continue parameter, or use the continue token in this response to retrieve the "
            + "remainder of the results. Continuing with the provided token results in an "
            + "inconsistent list - objects that were created, modified, or deleted between the "
            + "time the first chunk was returned and now may show up in the list.", null);
        ((ObjectNode) status.get("metadata")).put("continue", encodeContinue(-1, startAfter));
        writeJson(response, callback, 410, Json.bytes(status));
        return;
      }
      throw ApiError.expired("The resourceVersion for the provided list is too old.");
    }
    List<StoredObject> page = new ArrayList<>();
    List<StoredObject> items = snap.items();
    int i = 0;
    for (; i < items.size(); i++) {
      if (limit > 0 && page.size() == limit) {
        break;
      }
      StoredObject o = items.get(i);
      if (filter.matches(o)) {
        page.add(o);
      }
    }
    String next = null;
    long remaining = -1;
    if (limit > 0 && page.size() == limit) {
      boolean more = false;
      for (int j = i; j < items.size() && !more; j++) {
        more = filter.matches(items.get(j));
      }
      if (more) {
        next = encodeContinue(snap.rv(), page.get(page.size() - 1).key);
        if (!filter.selective) {
          remaining = items.size() - i;
        }
      }
    }
    Tables.Request table = Tables.requested(accept, query.getValue("includeObject"));
    if (table != null) {
      writeJson(response, callback, 200,
          new Tables(type, table, ops.clock()).list(page, snap.rv(), next, remaining));
      return;
    }
    writeList(request, response, callback, type, snap.rv(), next, remaining, page,
        meta ? metaApiVersion(accept) : null, filter.shard);
  }

  /**
   * {@code filter} restricted to the query's {@code shardSelector}, unless the server plays one
   * without the {@code ShardedListAndWatch} gate ({@link Faults#ignoreShardSelectors}).
   */
  private Filter shardFilter(Filter filter, Fields query) {
    return faults.ignoreShardSelectors() ? filter
        : filter.withShardSelector(query.getValue("shardSelector"));
  }

  /** gzip at level 1, as kube-apiserver's defaultGzipContentEncodingLevel. */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, BUFFER);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  private static @Nullable String nonEmpty(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /**
   * Streams a list: the envelope from Jackson, the items as their stored bytes. Like the real
   * server, a list over 128 KiB is gzipped (level 1) when the client accepts gzip.
   */
  private void writeList(Request request, Response response, Callback callback,
      ServedResource type, long rv, @Nullable String next, long remaining,
      List<StoredObject> items, @Nullable String metaApiVersion, @Nullable ShardSelector shard)
      throws IOException {
    boolean meta = metaApiVersion != null;
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    headers(response, true);
    long size = 0;
    for (StoredObject o : items) {
      size += meta ? o.partialMetadata(metaApiVersion).length : o.json.length;
      if (size > GZIP_THRESHOLD) {
        break;
      }
    }
    String acceptEncoding = request.getHeaders().get(HttpHeader.ACCEPT_ENCODING);
    boolean gzip = size > GZIP_THRESHOLD && acceptEncoding != null
        && acceptEncoding.toLowerCase(Locale.ROOT).contains("gzip");
    if (gzip) {
      response.getHeaders().put(HttpHeader.CONTENT_ENCODING, "gzip");
      response.getHeaders().put(HttpHeader.VARY, "Accept-Encoding");
    }
    ObjectNode head = Json.MAPPER.createObjectNode();
    head.put("kind", meta ? "PartialObjectMetadataList" : type.kind() + "List");
    head.put("apiVersion", meta ? metaApiVersion : type.apiVersion());
    ObjectNode md = head.putObject("metadata");
    md.put("resourceVersion", Long.toString(rv));
    if (next != null) {
      md.put("continue", next);
      if (remaining >= 0) {
        md.put("remainingItemCount", remaining);
      }
    }
    if (shard != null) {
      // kube-apiserver's SetShardInfoOnList: the selector as the server re-prints it.
      md.putObject("shardInfo").put("selector", shard.toString());
    }
    byte[] h = Json.bytes(head);
    boolean pretty = PrettyJson.wanted(request);
    java.io.ByteArrayOutputStream whole = pretty ? new java.io.ByteArrayOutputStream() : null;
    try (OutputStream out = pretty ? whole
        : gzip ? new FastGzip(new ResponseOutput(response, BUFFER))
        : new ResponseOutput(response, BUFFER)) {
      out.write(h, 0, h.length - 1);
      out.write(",\"items\":[".getBytes(StandardCharsets.UTF_8));
      boolean first = true;
      for (StoredObject o : items) {
        if (!first) {
          out.write(',');
        }
        first = false;
        if (meta) {
          out.write(o.partialMetadata(metaApiVersion));
        } else {
          out.write('{');
          out.write(o.json, o.bodyOffset, o.json.length - o.bodyOffset);
        }
      }
      out.write("]}\n".getBytes(StandardCharsets.UTF_8));
    }
    if (whole != null) {
      try (OutputStream out = gzip ? new FastGzip(new ResponseOutput(response, BUFFER))
          : new ResponseOutput(response, BUFFER)) {
        out.write(PrettyJson.indent(whole.toByteArray()));
        out.write('\n');
      }
    }
    callback.succeeded();
  }

  // ---- watch ---------------------------------------------------------------------------------

  private void watch(Request request, Response response, Callback callback, Route route,
      Fields query) throws IOException, InterruptedException {
    ServedResource type = route.type();
    String rvParam = nonEmpty(query.getValue("resourceVersion"));
    String match = nonEmpty(query.getValue("resourceVersionMatch"));
    String sie = query.getValue("sendInitialEvents");
    Boolean sendInitialEvents = sie == null ? null : Boolean.valueOf(sie.equals("true")
        || sie.equals("1"));
    boolean allowBookmarks = "true".equals(query.getValue("allowWatchBookmarks"))
        || "1".equals(query.getValue("allowWatchBookmarks"));
    if (Boolean.TRUE.equals(sendInitialEvents)) {
      faults.countStreamingList(type.plural());
    }
    List<ApiError.Cause> causes = new ArrayList<>();
    if (sendInitialEvents != null && faults.refuseStreamingLists()) {
      // A server whose WatchList feature gate is off (the default before 1.34) forbids the field.
      causes.add(new ApiError.Cause("FieldValueForbidden", "Forbidden: sendInitialEvents is "
          + "forbidden for watch unless the WatchList feature gate is enabled",
          "sendInitialEvents"));
    }
    // The causes and their order of the real server's watch validation (transcript 04).
    if (sendInitialEvents != null && !"NotOlderThan".equals(match)) {
      causes.add(new ApiError.Cause("FieldValueForbidden", "Forbidden: sendInitialEvents "
          + "requires setting resourceVersionMatch to NotOlderThan", "resourceVersionMatch"));
    }
    if (match != null) {
      if (sendInitialEvents == null) {
        causes.add(new ApiError.Cause("FieldValueForbidden", "Forbidden: resourceVersionMatch is "
            + "forbidden for watch unless sendInitialEvents is provided", "resourceVersionMatch"));
      }
      if (!match.equals("NotOlderThan")) {
        causes.add(new ApiError.Cause("FieldValueNotSupported", "Unsupported value: \"" + match
            + "\": supported values: \"NotOlderThan\"", "resourceVersionMatch"));
      }
      if (nonEmpty(query.getValue("continue")) != null) {
        causes.add(new ApiError.Cause("FieldValueForbidden", "Forbidden: resourceVersionMatch is "
            + "forbidden when continue is provided", "resourceVersionMatch"));
      }
    }
    if (!causes.isEmpty()) {
      throw ApiError.invalidListOptions(causes);
    }
    long rv = rvParam == null ? 0 : parseRv(rvParam);
    long timeoutSeconds = -1;
    String ts = nonEmpty(query.getValue("timeoutSeconds"));
    if (ts != null) {
      try {
        timeoutSeconds = Long.parseLong(ts);
      } catch (NumberFormatException e) {
        throw ApiError.badRequest("strconv.ParseInt: parsing \"" + ts + "\": invalid syntax");
      }
    }
    Filter filter = Filter.parse(type, route.namespace(), query.getValue("labelSelector"),
        query.getValue("fieldSelector"));
    if (route.name() != null) {
      filter = Filter.parse(type, route.namespace(), query.getValue("labelSelector"),
          joinFieldSelector(query.getValue("fieldSelector"), route.name()));
    }
    filter = shardFilter(filter, query);
    String accept = acceptOf(request);
    boolean metaList = accept.contains(META_LIST);
    boolean meta = !metaList && accept.contains(META_OBJECT);

    boolean initialState;
    long fromRv;
    if (Boolean.TRUE.equals(sendInitialEvents)) {
      long current = store.currentRv();
      if (rv > current) {
        ApiError e = ApiError.tooLargeResourceVersion(rv, current);
        streamSingle(response, callback, WatchSession.errorLine(Json.bytes(e.status)));
        return;
      }
      initialState = true;
      fromRv = -1;
    } else if (Boolean.FALSE.equals(sendInitialEvents)) {
      initialState = false;
      fromRv = rv == 0 ? -1 : rv;
    } else {
      initialState = rv == 0;
      fromRv = rv == 0 ? -1 : rv;
    }

    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    headers(response, true);
    if (metaList) {
      // The real server fails to encode each event and ends the stream at once (transcript 09).
      try (ResponseOutput out = new ResponseOutput(response, 16)) {
        out.commit();
      }
      callback.succeeded();
      return;
    }
    WatchSession watcher = new WatchSession(type, filter,
        meta ? metaApiVersion(accept) : null, allowBookmarks,
        settings.maxPendingEvents());
    Tables.Request table = Tables.requested(accept, query.getValue("includeObject"));
    if (table != null) {
      watcher.renderAsTable(new Tables(type, table, ops.clock()));
    }
    Store.WatchStart start = store.watch(type, watcher, initialState, fromRv);
    if (start.tooOldFloor() >= 0) {
      ApiError e = ApiError.expired("too old resource version: " + rv + " ("
          + start.tooOldFloor() + ")");
      if (faults.tooOldWatchAsHttp410()) {
        throw e;
      }
      streamSingle(response, callback, WatchSession.errorLine(Json.bytes(e.status)));
      return;
    }
    watches.add(watcher);
    request.addFailureListener(t -> watcher.stop(false));
    // As the real server: no (or a zero) timeoutSeconds means a random 30 to 60 minutes.
    Duration deadline = timeoutSeconds > 0 ? Duration.ofSeconds(timeoutSeconds)
        : Duration.ofSeconds(1800 + ops.randomLong(1800));
    watcher.startTimers(settings.scheduler(), store, settings.bookmarkInterval(), deadline);
    boolean clean = false;
    try {
      clean = watcher.run(new ResponseOutput(response, BUFFER), start,
          initialState && allowBookmarks);
    } finally {
      store.unwatch(type, watcher);
      watches.remove(watcher);
      synchronized (watches) {
        watches.notifyAll();
      }
    }
    if (clean) {
      callback.succeeded();
    } else {
      callback.failed(new IOException("watch reset by fault injection"));
    }
  }

  private static String joinFieldSelector(@Nullable String fieldSelector, String name) {
    String byName = "metadata.name=" + name;
    return fieldSelector == null || fieldSelector.isBlank() ? byName
        : fieldSelector + "," + byName;
  }

  /** A 200 watch response carrying one line, then a clean end. */
  private void streamSingle(Response response, Callback callback, byte[] line)
      throws IOException {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    headers(response, true);
    try (ResponseOutput out = new ResponseOutput(response, BUFFER)) {
      out.commit();
      out.write(line);
    }
    callback.succeeded();
  }

  // ---- responses -----------------------------------------------------------------------------

  /**
   * The request body, refused with 413 as kube-apiserver's {@code limitedReadBody} refuses one
   * over its {@code MaxRequestBodyBytes}.
   */
  private byte[] body(Request request) throws IOException {
    long limit = settings.maxRequestBodyBytes();
    if (request.getLength() > limit) {
      throw ApiError.requestEntityTooLarge(limit);
    }
    ByteBuffer b = Content.Source.asByteBuffer(request);
    if (b.remaining() > limit) {
      throw ApiError.requestEntityTooLarge(limit);
    }
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private void headers(Response response, boolean flowControl) {
    response.getHeaders().put("Audit-Id", ops.uid());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache, private");
    if (flowControl) {
      response.getHeaders().put("X-Kubernetes-Pf-Flowschema-Uid",
          "4cfb6af7-bb76-4743-8263-0de48461d5fd");
      response.getHeaders().put("X-Kubernetes-Pf-Prioritylevel-Uid",
          "7ffa443a-142c-4a5a-b3e8-563eafcd2d10");
    }
  }

  private void writeResult(Response response, Callback callback, ApiOps.Result result) {
    writeJson(response, callback, result.code(), result.body());
  }

  private void writeJson(Response response, Callback callback, int code, byte[] json) {
    writeJson(response, callback, code, json, JSON, "no-cache, private");
  }

  private void writeJson(Response response, Callback callback, int code, byte[] json,
      String contentType, String cacheControl) {
    if (PrettyJson.wanted(response.getRequest())) {
      json = PrettyJson.indent(json);
    }
    response.setStatus(code);
    headers(response, true);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, cacheControl);
    ByteBuffer buf = ByteBuffer.allocate(json.length + 1);
    buf.put(json).put((byte) '\n').flip();
    response.write(true, buf, callback);
  }

  private void writeStatus(Response response, Callback callback, ApiError e,
      boolean flowControl) {
    if (response.isCommitted()) {
      callback.failed(e);
      return;
    }
    response.setStatus(e.code);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    headers(response, flowControl);
    if (e.retryAfterSeconds > 0) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(e.retryAfterSeconds));
    }
    byte[] json = Json.bytes(e.status);
    if (PrettyJson.wanted(response.getRequest())) {
      json = PrettyJson.indent(json);
    }
    ByteBuffer buf = ByteBuffer.allocate(json.length + 1);
    buf.put(json).put((byte) '\n').flip();
    response.write(true, buf, callback);
  }

  private static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}

package io.kinformer.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI documents of the served kinds, as kube-apiserver publishes them for kubectl's
 * {@code explain}, its field-validation check and its strategic merge patches:
 *
 * <ul>
 *   <li>{@code /openapi/v3}: the group versions, each with the URL of its document and the hash
 *       of its content;
 *   <li>{@code /openapi/v3/api/v1}, {@code /openapi/v3/apis/<group>/<version>}: the schemas of
 *       the kinds served there (and everything they reference) and their paths, whose write
 *       operations declare the {@code dryRun}, {@code fieldManager} and {@code fieldValidation}
 *       query parameters;
 *   <li>{@code /openapi/v2}: every served kind in one Swagger 2.0 document, as JSON or as
 *       gnostic's protobuf.
 * </ul>
 *
 * <p>Built-in kinds take their schemas from {@link OpenApiDefinitions}; a custom resource from the
 * openAPIV3Schema it was registered with (or a schema preserving unknown fields), with {@code
 * apiVersion}, {@code kind} and {@code metadata} added as the apiextensions server adds them.
 *
 * <p>Thread safety: thread-safe; documents are built on demand and cached until the served kinds
 * of their group version change.
 */
final class OpenApiDocuments {

  /** A document and the hash it is addressed by (SHA-512, upper-case hex). */
  record Doc(byte[] body, String hash) {}

  private record Cached(List<Object> key, Doc doc) {}

  private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
  private static final String LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
  private static final List<String> COMMON = List.of(
      "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
      "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
      "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
      "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
      "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList");

  private final Registry registry;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  OpenApiDocuments(Registry registry) {
    this.registry = registry;
  }

  private static OpenApiDefinitions defs() {
    return OpenApiDefinitions.get();
  }

  /** {@code api/v1} and {@code apis/<group>/<version>} of every served group version. */
  List<String> groupVersionPaths() {
    List<String> out = new ArrayList<>();
    if (registry.hasGroupVersion("", "v1")) {
      out.add("api/v1");
    }
    registry.namedGroups().forEach((g, versions) -> versions.forEach(v ->
        out.add("apis/" + g + "/" + v)));
    return out;
  }

  /** {@code /openapi/v3}: every group version's document URL with its hash. */
  Doc discoveryV3() {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode paths = root.putObject("paths");
    for (String gv : groupVersionPaths()) {
      Doc d = v3(gv).orElseThrow();
      paths.putObject(gv).put("serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + d.hash());
    }
    return doc(root);
  }

  /** The v3 document of {@code api/v1} or {@code apis/<group>/<version>}, if served. */
  Optional<Doc> v3(String gvPath) {
    String[] p = gvPath.split("/");
    String group;
    String version;
    if (p.length == 2 && p[0].equals("api")) {
      group = "";
      version = p[1];
    } else if (p.length == 3 && p[0].equals("apis")) {
      group = p[1];
      version = p[2];
    } else {
      return Optional.empty();
    }
    if (!registry.hasGroupVersion(group, version)) {
      return Optional.empty();
    }
    List<ServedResource> resources = registry.resources(group, version);
    List<Object> key = cacheKey(resources);
    Cached c = cache.get(gvPath);
    if (c == null || !c.key().equals(key)) {
      c = new Cached(key, doc(buildV3(group, version, resources)));
      cache.put(gvPath, c);
    }
    return Optional.of(c.doc());
  }

  /** {@code /openapi/v2}: every served kind in one Swagger 2.0 document. */
  Doc v2() {
    List<ServedResource> all = new ArrayList<>(registry.all());
    all.sort((a, b) -> (a.apiVersion() + "/" + a.plural()).compareTo(b.apiVersion() + "/"
        + b.plural()));
    List<Object> key = cacheKey(all);
    Cached c = cache.get("v2");
    if (c == null || !c.key().equals(key)) {
      c = new Cached(key, doc(buildV2(all)));
      cache.put("v2", c);
    }
    return c.doc();
  }

  private record ProtoCache(Doc json, byte[] proto) {}

  private volatile @Nullable ProtoCache v2Proto;

  /** {@code /openapi/v2} as gnostic's protobuf {@code Document} (see {@link OpenApiV2Proto}). */
  byte[] v2Proto() {
    Doc json = v2();
    ProtoCache c = v2Proto;
    if (c == null || c.json() != json) {
      c = new ProtoCache(json, OpenApiV2Proto.encode(Json.MAPPER.readTree(json.body())));
      v2Proto = c;
    }
    return c.proto();
  }

  private List<Object> cacheKey(List<ServedResource> resources) {
    List<Object> key = new ArrayList<>();
    for (ServedResource r : resources) {
      key.add(r);
      key.add(registry.schema(r).map(Object::toString).orElse(""));
    }
    return key;
  }

  private static Doc doc(ObjectNode root) {
    byte[] body = Json.bytes(root);
    String etag = Discovery.etag(body);
    return new Doc(body, etag.substring(1, etag.length() - 1));
  }

  // ---- schemas -------------------------------------------------------------------------------

  /** The definition name of a served kind: kube-apiserver's, or {@code com.example.v1.Widget}. */
  static String definitionName(ServedResource type, String kind) {
    Optional<String> builtIn = defs().nameOf(type.group(), type.version(), kind);
    if (builtIn.isPresent()) {
      return builtIn.get();
    }
    String[] parts = type.group().split("\\.");
    StringBuilder sb = new StringBuilder();
    for (int i = parts.length - 1; i >= 0; i--) {
      sb.append(parts[i]).append('.');
    }
    return sb.append(type.version()).append('.').append(kind).toString();
  }

  /** Whether {@code type} is a kind with a generated definition (else a custom resource). */
  static boolean isBuiltIn(ServedResource type) {
    return defs().nameOf(type.group(), type.version(), type.kind()).isPresent();
  }

  /**
   * The v3 schema of a custom resource: its registered openAPIV3Schema (or one preserving every
   * field) with {@code apiVersion}, {@code kind} and {@code metadata}.
   */
  ObjectNode customResourceSchema(ServedResource type) {
    ObjectNode s = registry.schema(type).map(ObjectNode::deepCopy).orElseGet(() -> {
      ObjectNode free = Json.MAPPER.createObjectNode();
      free.put("type", "object");
      free.put("x-kubernetes-preserve-unknown-fields", true);
      return free;
    });
    ObjectNode builtIn = defs().v3().get("io.k8s.api.core.v1.Pod");
    ObjectNode props = Json.objectOrEmpty(s, "properties");
    props.set("apiVersion", builtIn.path("properties").path("apiVersion").deepCopy());
    props.set("kind", builtIn.path("properties").path("kind").deepCopy());
    ObjectNode meta = props.putObject("metadata");
    meta.putArray("allOf").addObject().put("$ref", OpenApiDefinitions.V3_PREFIX + OBJECT_META);
    meta.put("description", builtIn.path("properties").path("metadata").path("description")
        .asString(""));
    s.put("type", "object");
    s.set(OpenApiDefinitions.GVK, gvk(type.group(), type.version(), type.kind()));
    return s;
  }

  private ObjectNode customResourceListSchema(ServedResource type) {
    ObjectNode s = Json.MAPPER.createObjectNode();
    s.put("description", type.kind() + "List is a list of " + type.kind());
    s.put("type", "object");
    s.putArray("required").add("items");
    ObjectNode props = s.putObject("properties");
    ObjectNode pod = defs().v3().get("io.k8s.api.core.v1.PodList");
    props.set("apiVersion", pod.path("properties").path("apiVersion").deepCopy());
    props.set("kind", pod.path("properties").path("kind").deepCopy());
    ObjectNode items = props.putObject("items");
    items.put("description", "List of " + type.plural() + ". More info:"
        + " https://git.k8s.io/community/contributors/devel/api-conventions.md");
    items.put("type", "array");
    items.putObject("items").put("$ref", OpenApiDefinitions.V3_PREFIX
        + definitionName(type, type.kind()));
    ObjectNode meta = props.putObject("metadata");
    meta.putArray("allOf").addObject().put("$ref", OpenApiDefinitions.V3_PREFIX + LIST_META);
    meta.put("description", "Standard list metadata.");
    s.set(OpenApiDefinitions.GVK, gvk(type.group(), type.version(), type.kind() + "List"));
    return s;
  }

  private static ArrayNode gvk(String group, String version, String kind) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    a.addObject().put("group", group).put("kind", kind).put("version", version);
    return a;
  }

  /** The schemas of the kinds in {@code resources}, their lists and what they reference. */
  private Map<String, JsonNode> schemas(List<ServedResource> resources, boolean v3) {
    Map<String, ObjectNode> source = v3 ? defs().v3() : defs().v2();
    String prefix = v3 ? OpenApiDefinitions.V3_PREFIX : OpenApiDefinitions.V2_PREFIX;
    Map<String, JsonNode> out = new TreeMap<>();
    COMMON.forEach(n -> closure(n, source, prefix, out));
    for (ServedResource r : resources) {
      if (isBuiltIn(r)) {
        closure(definitionName(r, r.kind()), source, prefix, out);
        String list = definitionName(r, r.kind() + "List");
        if (source.containsKey(list)) {
          closure(list, source, prefix, out);
        }
      } else {
        ObjectNode s = customResourceSchema(r);
        ObjectNode l = customResourceListSchema(r);
        out.put(definitionName(r, r.kind()), v3 ? s : OpenApiDefinitions.toV2(s));
        out.put(definitionName(r, r.kind() + "List"), v3 ? l : OpenApiDefinitions.toV2(l));
        closure(OBJECT_META, source, prefix, out);
        closure(LIST_META, source, prefix, out);
      }
    }
    return out;
  }

  private static void closure(String name, Map<String, ObjectNode> source, String prefix,
      Map<String, JsonNode> out) {
    if (out.containsKey(name)) {
      return;
    }
    ObjectNode d = source.get(name);
    if (d == null) {
      return;
    }
    out.put(name, d);
    List<String> refs = new ArrayList<>();
    collectRefs(d, prefix, refs);
    refs.forEach(r -> closure(r, source, prefix, out));
  }

  private static void collectRefs(JsonNode n, String prefix, List<String> out) {
    if (n.isObject()) {
      JsonNode ref = n.get("$ref");
      if (ref != null && ref.asString("").startsWith(prefix)) {
        out.add(ref.asString().substring(prefix.length()));
      }
    }
    if (n.isContainer()) {
      n.forEach(c -> collectRefs(c, prefix, out));
    }
  }

  // ---- documents -----------------------------------------------------------------------------

  private ObjectNode buildV3(String group, String version, List<ServedResource> resources) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("openapi", "3.0.0");
    root.putObject("info").put("title", "Kubernetes").put("version", "v1.36.4");
    ObjectNode paths = root.putObject("paths");
    for (ServedResource r : resources) {
      addPaths(paths, r, true);
    }
    ObjectNode components = root.putObject("components");
    ObjectNode schemas = components.putObject("schemas");
    schemas(resources, true).forEach(schemas::set);
    components.putObject("securitySchemes").putObject("BearerToken")
        .put("type", "apiKey").put("description", "Bearer Token authentication")
        .put("name", "authorization").put("in", "header");
    return root;
  }

  private ObjectNode buildV2(List<ServedResource> resources) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("swagger", "2.0");
    root.putObject("info").put("title", "Kubernetes").put("version", "v1.36.4");
    ObjectNode paths = root.putObject("paths");
    for (ServedResource r : resources) {
      addPaths(paths, r, false);
    }
    ObjectNode definitions = root.putObject("definitions");
    schemas(resources, false).forEach(definitions::set);
    root.putObject("securityDefinitions").putObject("BearerToken")
        .put("type", "apiKey").put("description", "Bearer Token authentication")
        .put("name", "authorization").put("in", "header");
    root.putArray("security").addObject().putArray("BearerToken");
    return root;
  }

  /** {@code CoreV1}, {@code AppsV1}, {@code CoordinationV1}, {@code ComExampleV1}. */
  private static String groupVersionId(ServedResource r) {
    String g = r.group();
    StringBuilder sb = new StringBuilder();
    if (g.isEmpty()) {
      sb.append("Core");
    } else if (g.endsWith(".k8s.io") || !g.contains(".")) {
      for (String part : g.replace(".k8s.io", "").split("\\.")) {
        sb.append(capitalize(part));
      }
    } else {
      String[] parts = g.split("\\.");
      for (int i = parts.length - 1; i >= 0; i--) {
        sb.append(capitalize(parts[i].replace("-", "")));
      }
    }
    return sb.append(capitalize(r.version())).toString();
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  private void addPaths(ObjectNode paths, ServedResource r, boolean v3) {
    String base = (r.group().isEmpty() ? "/api/" : "/apis/" + r.group() + "/") + r.version();
    String scope = r.namespaced() ? "/namespaces/{namespace}/" : "/";
    String collection = base + scope + r.plural();
    String id = groupVersionId(r) + (r.namespaced() ? "Namespaced" : "") + r.kind();
    String tag = (r.group().isEmpty() ? "core" : r.group().replace(".k8s.io", "")
        .replace('.', '_')) + "_" + r.version();
    String prefix = v3 ? OpenApiDefinitions.V3_PREFIX : OpenApiDefinitions.V2_PREFIX;
    String kindRef = prefix + definitionName(r, r.kind());
    String listRef = prefix + definitionName(r, r.kind() + "List");
    String statusRef = prefix + "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
    String deleteRef = prefix + "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

    ObjectNode col = paths.putObject(collection);
    col.set("get", op(v3, r, "list", "list or watch objects of kind " + r.kind(),
        "list" + id, tag, listRef, null, List.of("labelSelector", "fieldSelector", "limit",
            "continue", "resourceVersion", "resourceVersionMatch", "watch",
            "allowWatchBookmarks", "sendInitialEvents", "timeoutSeconds"), false));
    col.set("post", op(v3, r, "post", "create " + articled(r.kind()), "create" + id, tag,
        kindRef, kindRef, List.of("dryRun", "fieldManager", "fieldValidation"), false));
    col.set("delete", op(v3, r, "deletecollection", "delete collection of " + r.kind(),
        "deletecollection" + id, tag, statusRef, deleteRef, List.of("dryRun",
            "gracePeriodSeconds", "labelSelector", "fieldSelector", "propagationPolicy"),
        false));
    col.set("parameters", pathParams(v3, r.namespaced(), false));

    ObjectNode item = paths.putObject(collection + "/{name}");
    item.set("get", op(v3, r, "get", "read the specified " + r.kind(), "read" + id, tag,
        kindRef, null, List.of(), false));
    item.set("put", op(v3, r, "put", "replace the specified " + r.kind(), "replace" + id, tag,
        kindRef, kindRef, List.of("dryRun", "fieldManager", "fieldValidation"), false));
    item.set("patch", op(v3, r, "patch", "partially update the specified " + r.kind(),
        "patch" + id, tag, kindRef, prefix + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        List.of("dryRun", "fieldManager", "fieldValidation", "force"), true));
    item.set("delete", op(v3, r, "delete", "delete " + articled(r.kind()), "delete" + id, tag,
        statusRef, deleteRef, List.of("dryRun", "gracePeriodSeconds", "propagationPolicy"),
        false));
    item.set("parameters", pathParams(v3, r.namespaced(), true));

    if (r.statusSubresource()) {
      ObjectNode status = paths.putObject(collection + "/{name}/status");
      String sid = id + "Status";
      status.set("get", op(v3, r, "get", "read status of the specified " + r.kind(),
          "read" + sid, tag, kindRef, null, List.of(), false));
      status.set("put", op(v3, r, "put", "replace status of the specified " + r.kind(),
          "replace" + sid, tag, kindRef, kindRef,
          List.of("dryRun", "fieldManager", "fieldValidation"), false));
      status.set("patch", op(v3, r, "patch",
          "partially update status of the specified " + r.kind(), "patch" + sid, tag, kindRef,
          prefix + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
          List.of("dryRun", "fieldManager", "fieldValidation", "force"), true));
      status.set("parameters", pathParams(v3, r.namespaced(), true));
    }
  }

  private static String articled(String kind) {
    return ("AEIOU".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ") + kind;
  }

  private static final Map<String, String[]> QUERY = Map.ofEntries(
      Map.entry("dryRun", new String[] {"string", "When present, indicates that modifications"
          + " should not be persisted. An invalid or unrecognized dryRun directive will result in"
          + " an error response and no further processing of the request. Valid values are:"
          + " - All: all dry run stages will be processed"}),
      Map.entry("fieldManager", new String[] {"string", "fieldManager is a name associated with"
          + " the actor or entity that is making these changes."}),
      Map.entry("fieldValidation", new String[] {"string", "fieldValidation instructs the server"
          + " on how to handle objects in the request (POST/PUT/PATCH) containing unknown or"
          + " duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields"
          + " that are silently dropped from the object, and will ignore all but the last"
          + " duplicate field that the decoder encounters. - Warn: This will send a warning via"
          + " the standard warning response header for each unknown field that is dropped from"
          + " the object, and for each duplicate field that is encountered. The request will"
          + " still succeed if there are no other errors, and will only persist the last of any"
          + " duplicate fields. This is the default in v1.23+ - Strict: This will fail the"
          + " request with a BadRequest error if any unknown fields would be dropped from the"
          + " object, or if any duplicate fields are present. The error returned from the server"
          + " will contain all unknown and duplicate fields encountered."}),
      Map.entry("force", new String[] {"boolean", "Force is going to \"force\" Apply requests."}),
      Map.entry("gracePeriodSeconds", new String[] {"integer", "The duration in seconds before"
          + " the object should be deleted."}),
      Map.entry("propagationPolicy", new String[] {"string", "Whether and how garbage collection"
          + " will be performed."}),
      Map.entry("labelSelector", new String[] {"string", "A selector to restrict the list of"
          + " returned objects by their labels. Defaults to everything."}),
      Map.entry("fieldSelector", new String[] {"string", "A selector to restrict the list of"
          + " returned objects by their fields. Defaults to everything."}),
      Map.entry("limit", new String[] {"integer", "limit is a maximum number of responses to"
          + " return for a list call."}),
      Map.entry("continue", new String[] {"string", "The continue option should be set when"
          + " retrieving more results from the server."}),
      Map.entry("resourceVersion", new String[] {"string", "resourceVersion sets a constraint on"
          + " what resource versions a request may be served from."}),
      Map.entry("resourceVersionMatch", new String[] {"string", "resourceVersionMatch determines"
          + " how resourceVersion is applied to list calls."}),
      Map.entry("watch", new String[] {"boolean", "Watch for changes to the described resources"
          + " and return them as a stream of add, update, and remove notifications."}),
      Map.entry("allowWatchBookmarks", new String[] {"boolean", "allowWatchBookmarks requests"
          + " watch events with type \"BOOKMARK\"."}),
      Map.entry("sendInitialEvents", new String[] {"boolean", "`sendInitialEvents=true` may be"
          + " set together with `watch=true`."}),
      Map.entry("timeoutSeconds", new String[] {"integer", "Timeout for the list/watch call."}));

  private static ObjectNode param(boolean v3, String name, String in, String type,
      String description) {
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("name", name);
    p.put("in", in);
    p.put("description", description);
    if (in.equals("path")) {
      p.put("required", true);
    }
    if (v3) {
      ObjectNode s = p.putObject("schema");
      s.put("type", type);
      s.put("uniqueItems", true);
    } else {
      p.put("type", type);
      p.put("uniqueItems", true);
    }
    return p;
  }

  private static ArrayNode pathParams(boolean v3, boolean namespaced, boolean named) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    if (named) {
      a.add(param(v3, "name", "path", "string", "name of the resource"));
    }
    if (namespaced) {
      a.add(param(v3, "namespace", "path", "string",
          "object name and auth scope, such as for teams and projects"));
    }
    a.add(param(v3, "pretty", "query", "string",
        "If 'true', then the output is pretty printed."));
    return a;
  }

  private static ObjectNode op(boolean v3, ServedResource r, String action, String description,
      String operationId, String tag, String responseRef, @Nullable String bodyRef,
      List<String> query, boolean patch) {
    ObjectNode op = Json.MAPPER.createObjectNode();
    op.putArray("tags").add(tag);
    op.put("description", description);
    op.put("operationId", operationId);
    ArrayNode params = op.putArray("parameters");
    if (bodyRef != null && !v3) {
      ObjectNode body = params.addObject();
      body.put("name", "body");
      body.put("in", "body");
      body.put("required", !action.equals("delete") && !action.equals("deletecollection"));
      body.putObject("schema").put("$ref", bodyRef);
    }
    for (String q : query) {
      String[] t = QUERY.get(q);
      params.add(param(v3, q, "query", t[0], t[1]));
    }
    // Custom resources take no strategic merge patch; kubectl apply reads that from here.
    List<String> consumes = !patch ? List.of("application/json")
        : isBuiltIn(r) ? List.of("application/json-patch+json", "application/merge-patch+json",
            "application/strategic-merge-patch+json", "application/apply-patch+yaml")
        : List.of("application/json-patch+json", "application/merge-patch+json",
            "application/apply-patch+yaml");
    if (bodyRef != null && v3) {
      ObjectNode content = op.putObject("requestBody").putObject("content");
      for (String c : consumes) {
        content.putObject(c).putObject("schema").put("$ref", bodyRef);
      }
      ((ObjectNode) op.get("requestBody")).put("required",
          !action.equals("delete") && !action.equals("deletecollection"));
    }
    List<String> produces = List.of("application/json", "application/yaml");
    ObjectNode responses = op.putObject("responses");
    List<String> codes = switch (action) {
      case "post" -> List.of("200", "201", "202");
      case "put", "patch" -> List.of("200", "201");
      case "delete" -> List.of("200", "202");
      default -> List.of("200");
    };
    for (String code : codes) {
      ObjectNode resp = responses.putObject(code);
      resp.put("description", code.equals("200") ? "OK"
          : code.equals("201") ? "Created" : "Accepted");
      if (v3) {
        ObjectNode content = resp.putObject("content");
        for (String c : produces) {
          content.putObject(c).putObject("schema").put("$ref", responseRef);
        }
      } else {
        resp.putObject("schema").put("$ref", responseRef);
      }
    }
    responses.putObject("401").put("description", "Unauthorized");
    if (!v3) {
      ArrayNode c = op.putArray("consumes");
      (bodyRef == null ? List.of("*/*") : consumes).forEach(c::add);
      ArrayNode p = op.putArray("produces");
      produces.forEach(p::add);
      op.putArray("schemes").add("https");
    }
    op.put("x-kubernetes-action", action);
    op.putObject("x-kubernetes-group-version-kind")
        .put("group", r.group()).put("kind", r.kind()).put("version", r.version());
    return op;
  }
}

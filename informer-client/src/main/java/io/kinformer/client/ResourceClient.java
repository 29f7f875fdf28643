package io.kinformer.client;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.ShardSelector;
import io.kinformer.cache.Watch;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.UndecodableObjects;
import io.kinformer.client.internal.http.HttpCalls;
import io.kinformer.client.internal.http.HttpListerWatcher;
import io.kinformer.client.internal.http.HttpPaths;
import io.kinformer.client.internal.http.HttpTimeouts;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small REST client for one resource, for the writes a controller makes and for the {@link
 * ListerWatcher} an informer needs: get, list (all pages), create, update, updateStatus, patch,
 * server-side apply and delete, typed ({@code ResourceClient<Pod>}), dynamic ({@code
 * GenericKubernetesResource}) or metadata-only ({@code PartialObjectMetadata}, reads and deletes
 * only).
 *
 * <p>Clients are immutable: {@link #inNamespace(String)}, {@link #withLabelSelector(String)},
 * {@link #withFieldManager(String)}, {@link #withDryRun(boolean)} and friends return a new client
 * sharing the same connection pool. A namespaced resource with no
 * namespace chosen lists and watches all namespaces, and takes the namespace of single-object
 * requests from the object ({@code create}, {@code update}) or refuses them ({@code get}, {@code
 * patch}, {@code delete} by name).
 *
 * <p>Errors: a refusal by the server is an {@link ApiException} carrying the HTTP code and the
 * Status's reason and message (409 {@code Conflict}, 422 {@code Invalid}, ...); an I/O failure or
 * an undecodable response is an {@link InformerException} naming the method and URL (without the
 * query).
 *
 * <p>Objects returned are new and owned by the caller. Objects passed in are not modified.
 *
 * <p>Thread safety: immutable and thread-safe; every call blocks on the caller's thread.
 *
 * @param <T> the object type
 */
public final class ResourceClient<T extends HasMetadata> {

  private static final MediaType JSON = MediaType.get("application/json");

  /** The page size of {@link #list(ListOptions)} when the options set none (client-go's). */
  static final long DEFAULT_PAGE_SIZE = 500;

  private final HttpCalls calls;
  private final ResourceType<T> type;
  private final @Nullable String namespace;
  private final @Nullable String labelSelector;
  private final @Nullable String fieldSelector;
  private final @Nullable String fieldManager;
  private final boolean dryRun;
  private final @Nullable ShardSelector shardSelector;
  /** The whole-call limit of get and the writes; null for the client's default. */
  private final @Nullable Duration requestTimeout;

  private ResourceClient(
      HttpCalls calls,
      ResourceType<T> type,
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      @Nullable String fieldManager,
      boolean dryRun,
      @Nullable ShardSelector shardSelector,
      @Nullable Duration requestTimeout) {
    this.calls = calls;
    this.type = type;
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.fieldSelector = fieldSelector;
    this.fieldManager = fieldManager;
    this.dryRun = dryRun;
    this.shardSelector = shardSelector;
    this.requestTimeout = requestTimeout;
  }

  /**
   * The reader of single objects, made when a call needs it, not with the client: binding a type
   * the first time builds Jackson's deserializers for its whole object graph (a few hundred
   * milliseconds for {@code Pod} on a cold JVM), and a client made only for an informer's lister
   * and watcher never reads a single object with this mapper. Jackson caches the deserializers,
   * so later readers are cheap.
   */
  private ObjectReader objectReader() {
    return calls.reader().forType(type.javaType());
  }

  /**
   * A client for {@code type} over {@code httpClient} (which carries authentication and TLS), with
   * the default timeouts. For {@code KubeClient}.
   *
   * @param baseUrl the API server, for example {@code https://10.0.0.1:6443} (a path prefix is
   *     kept)
   */
  static <T extends HasMetadata> ResourceClient<T> create(
      OkHttpClient httpClient, HttpUrl baseUrl, ResourceType<T> type, JsonMapper mapper) {
    return create(httpClient, baseUrl, type, mapper, HttpTimeouts.DEFAULT);
  }

  /** As {@link #create(OkHttpClient, HttpUrl, ResourceType, JsonMapper)}, with given timeouts. */
  static <T extends HasMetadata> ResourceClient<T> create(
      OkHttpClient httpClient,
      HttpUrl baseUrl,
      ResourceType<T> type,
      JsonMapper mapper,
      HttpTimeouts timeouts) {
    return create(new HttpCalls(httpClient, baseUrl, mapper, timeouts), type);
  }

  /**
   * A client for {@code type} over shared {@link HttpCalls}: a {@code KubeClient} that serves many
   * resources should hold one {@code HttpCalls} (it derives the watch variant of the OkHttp client
   * once) and create every resource's client with this.
   */
  static <T extends HasMetadata> ResourceClient<T> create(HttpCalls calls, ResourceType<T> type) {
    return new ResourceClient<>(
        Objects.requireNonNull(calls, "calls"), Objects.requireNonNull(type, "type"), null, null,
        null, null, false, null, null);
  }

  /** The resource this client talks to. */
  public ResourceType<T> type() {
    return type;
  }

  /** The namespace chosen with {@link #inNamespace(String)}, if any. */
  public Optional<String> namespace() {
    return Optional.ofNullable(namespace);
  }

  /**
   * A client for namespace {@code ns}.
   *
   * @throws IllegalArgumentException if the resource is cluster-scoped or {@code ns} is empty
   */
  public ResourceClient<T> inNamespace(String ns) {
    Objects.requireNonNull(ns, "ns");
    if (ns.isEmpty()) {
      throw new IllegalArgumentException("namespace must not be empty for " + type.gvr());
    }
    if (!type.namespaced()) {
      throw new IllegalArgumentException(
          "resource " + type.gvr() + " is cluster-scoped; cannot use namespace " + ns);
    }
    return new ResourceClient<>(calls, type, ns, labelSelector, fieldSelector, fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /** A client for all namespaces (lists and watches span them). */
  public ResourceClient<T> inAnyNamespace() {
    return new ResourceClient<>(
        calls, type, null, labelSelector, fieldSelector, fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /**
   * A client whose lists and watches carry this label selector (ANDed with one given per call);
   * null removes it.
   */
  public ResourceClient<T> withLabelSelector(@Nullable String selector) {
    return new ResourceClient<>(
        calls, type, namespace, emptyToNull(selector), fieldSelector, fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /**
   * A client whose lists and watches carry this field selector (ANDed with one given per call);
   * null removes it.
   */
  public ResourceClient<T> withFieldSelector(@Nullable String selector) {
    return new ResourceClient<>(
        calls, type, namespace, labelSelector, emptyToNull(selector), fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /**
   * A client whose lists and watches carry this shard selector ({@code shardSelector}, alpha:
   * the API server's {@code ShardedListAndWatch} feature gate); null removes it. Where the server
   * does not apply it (a list response without {@code metadata.shardInfo}), and on every watch
   * event, the {@link #listerWatcher()} applies it itself, so an informer caches only the shard's
   * objects either way; without server support every object still crosses the wire. A selector
   * in the options of one call takes precedence.
   *
   * <p>Thread safety: returns a new immutable client; this one is unchanged.
   */
  public ResourceClient<T> withShardSelector(@Nullable ShardSelector selector) {
    return new ResourceClient<>(calls, type, namespace, labelSelector, fieldSelector, fieldManager,
        dryRun, selector, requestTimeout);
  }

  /**
   * A client whose get, create, update, updateStatus, patch, apply and delete calls each fail
   * after {@code timeout} (whole call, body included) instead of the client's request timeout
   * (30 s by default); lists and watches keep their inactivity limits. For calls that must not
   * outlive a deadline of their own, such as a Lease renewal.
   *
   * <p>Thread safety: returns a new immutable client; this one is unchanged.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public ResourceClient<T> withRequestTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("request timeout must be positive: " + timeout);
    }
    return new ResourceClient<>(calls, type, namespace, labelSelector, fieldSelector, fieldManager,
        dryRun, shardSelector, timeout);
  }

  private Duration requestTimeout() {
    return requestTimeout != null ? requestTimeout : calls.timeouts().request();
  }

  /**
   * A client whose create, update, updateStatus and patch calls name {@code fieldManager} as the
   * manager of the fields they set (the {@code fieldManager} query parameter of client-go's {@code
   * CreateOptions}, {@code UpdateOptions} and {@code PatchOptions}); null removes it. The {@code
   * apply} calls keep the manager they are given.
   *
   * <p>Thread safety: returns a new immutable client; this one is unchanged.
   *
   * @throws IllegalArgumentException if {@code fieldManager} is empty
   */
  public ResourceClient<T> withFieldManager(@Nullable String fieldManager) {
    if (fieldManager != null && fieldManager.isEmpty()) {
      throw new IllegalArgumentException("fieldManager must not be empty (null removes it)");
    }
    return new ResourceClient<>(
        calls, type, namespace, labelSelector, fieldSelector, fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /**
   * A client whose writes (create, update, updateStatus, patch, apply, delete) are dry runs when
   * {@code dryRun} is true: the server validates and admits them and answers as if it had written,
   * but persists nothing ({@code dryRun=All}, client-go's {@code metav1.DryRunAll}). Reads,
   * lists and watches are unaffected.
   *
   * <p>Thread safety: returns a new immutable client; this one is unchanged.
   */
  public ResourceClient<T> withDryRun(boolean dryRun) {
    return new ResourceClient<>(
        calls, type, namespace, labelSelector, fieldSelector, fieldManager, dryRun, shardSelector, requestTimeout);
  }

  /**
   * The {@link ListerWatcher} of this client's namespace and selectors, for an informer. Its
   * objects are decoded for a cache, which shares them read-only: their empty collections are
   * immutable (adding to one throws); {@link #list()} and {@link #watch(ListOptions)} return
   * objects the caller may modify.
   */
  public ListerWatcher<T> listerWatcher() {
    return listerWatcher(UnaryOperator.identity());
  }

  /**
   * The {@link ListerWatcher} of this client's namespace and selectors, with {@code tweak} applied
   * to the options of every list and watch after the selectors are merged in (client-go's {@code
   * TweakListOptionsFunc}).
   */
  public ListerWatcher<T> listerWatcher(UnaryOperator<ListOptions> tweak) {
    return listerWatcher(tweak, UndecodableObjects.logOnly());
  }

  /** As {@link #listerWatcher(UnaryOperator)}, reporting objects that do not bind. */
  ListerWatcher<T> listerWatcher(UnaryOperator<ListOptions> tweak, UndecodableObjects undecodable) {
    return listerWatcher(tweak, undecodable, n -> { });
  }

  /** As above, telling {@code bytesDecoded} how many bytes of bodies were decoded. */
  ListerWatcher<T> listerWatcher(UnaryOperator<ListOptions> tweak, UndecodableObjects undecodable,
      LongConsumer bytesDecoded) {
    return new HttpListerWatcher<>(calls.forCache(), type, namespace, labelSelector,
        fieldSelector, shardSelector, tweak, undecodable, bytesDecoded);
  }

  /** As {@link #listerWatcher()}, with objects decoded for the caller (modifiable). */
  private ListerWatcher<T> callerListerWatcher() {
    return new HttpListerWatcher<>(calls, type, namespace, labelSelector, fieldSelector,
        shardSelector, UnaryOperator.identity(), UndecodableObjects.logOnly(), n -> { });
  }

  /**
   * Opens a watch of this client's namespace and selectors (as {@code
   * listerWatcher().watch(options, Cancellation.none())}, but its objects are the caller's to
   * modify); read it with {@link Watch#next()} and close it.
   *
   * @throws ApiException if the server refused the watch
   */
  public Watch<T> watch(ListOptions options) {
    return callerListerWatcher().watch(options, Cancellation.none());
  }

  /**
   * Reads one object.
   *
   * @return the object, or empty if the server answered 404 (reason {@code NotFound} or none)
   * @throws IllegalStateException if the resource is namespaced and no namespace was chosen
   */
  public Optional<T> get(String name) {
    Request request = newRequest(objectUrl(requireNamespace("get"), name, null)).get().build();
    try (Response response = calls.execute(request, requestTimeout())) {
      return Optional.of(decode(response, request));
    } catch (ApiException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Lists every object (all pages) of this client's namespace and selectors. */
  public List<T> list() {
    return list(ListOptions.none()).items();
  }

  /**
   * Lists every object matching {@code options}, following continue tokens until the last page
   * (pages of 500 unless {@code options} sets a limit).
   *
   * @return all items, with the list's resourceVersion and no continue token
   * @throws ApiException if a page is refused (410 if a continue token expired: list again)
   */
  public ListResult<T> list(ListOptions options) {
    ListOptions page = options.limit() == null
        ? options.toBuilder().limit(DEFAULT_PAGE_SIZE).build() : options;
    ListerWatcher<T> lw = callerListerWatcher();
    List<T> items = new ArrayList<>();
    while (true) {
      ListResult<T> result = lw.list(page, Cancellation.none());
      items.addAll(result.items());
      if (!result.hasMore()) {
        return new ListResult<>(items, result.resourceVersion(), null, null);
      }
      page = page.toBuilder().continueToken(result.continueToken()).build();
    }
  }

  /**
   * Creates an object (POST) in this client's namespace, or the object's when none was chosen.
   *
   * @return the object as the server stored it
   */
  public T create(T object) {
    requireWritable("create");
    String ns = namespaceFor(object);
    HttpUrl url = writeQuery(HttpPaths.collection(calls.baseUrl(), type, ns), true).build();
    return send(newRequest(url).post(jsonBody(object)).build());
  }

  /**
   * Replaces an object (PUT). The server refuses it with 409 {@code Conflict} if {@code
   * metadata.resourceVersion} is not the stored one.
   *
   * @return the object as the server stored it
   */
  public T update(T object) {
    requireWritable("update");
    HttpUrl url = writeUrl(namespaceFor(object), nameOf(object), null, true);
    return send(newRequest(url).put(jsonBody(object)).build());
  }

  /** Replaces an object's {@code status} subresource (PUT {@code .../status}). */
  public T updateStatus(T object) {
    requireWritable("updateStatus");
    HttpUrl url = writeUrl(namespaceFor(object), nameOf(object), "status", true);
    return send(newRequest(url).put(jsonBody(object)).build());
  }

  /**
   * Patches an object.
   *
   * @param patchType JSON merge, JSON patch or strategic merge; for server-side apply use {@link
   *     #apply(String, String, String, boolean)}
   * @param patch the patch document
   * @return the patched object
   * @throws IllegalArgumentException for {@link PatchType#APPLY}, which needs a field manager
   */
  public T patch(String name, PatchType patchType, String patch) {
    return patch(name, patchType, patch, null);
  }

  /** As {@link #patch(String, PatchType, String)}, for a subresource such as {@code status}. */
  public T patch(String name, PatchType patchType, String patch, @Nullable String subresource) {
    Objects.requireNonNull(patchType, "patchType");
    Objects.requireNonNull(patch, "patch");
    if (patchType == PatchType.APPLY) {
      throw new IllegalArgumentException(
          "server-side apply needs a field manager: use apply(name, body, fieldManager, force)");
    }
    HttpUrl url = writeUrl(requireNamespace("patch"), name, subresource, true);
    RequestBody body = RequestBody.create(patch, MediaType.get(patchType.contentType()));
    return send(newRequest(url).patch(body).build());
  }

  /**
   * Server-side apply of {@code object} (PATCH {@code application/apply-patch+yaml}; JSON is YAML),
   * in this client's namespace or the object's.
   *
   * @param fieldManager the manager owning the fields set
   * @param force take over fields owned by other managers instead of failing with 409
   */
  public T apply(T object, String fieldManager, boolean force) {
    requireWritable("apply");
    HttpUrl.Builder url = HttpPaths.object(
        calls.baseUrl(), type, namespaceFor(object), nameOf(object), null);
    return send(applyRequest(url, calls.mapper().writeValueAsString(object), fieldManager, force));
  }

  /**
   * Server-side apply of a YAML or JSON document to the object {@code name}.
   *
   * @param fieldManager the manager owning the fields set
   * @param force take over fields owned by other managers instead of failing with 409
   */
  public T apply(String name, String document, String fieldManager, boolean force) {
    HttpUrl.Builder url = HttpPaths.object(
        calls.baseUrl(), type, requireNamespace("apply"), requireName(name), null);
    return send(applyRequest(url, document, fieldManager, force));
  }

  /**
   * Deletes an object.
   *
   * @return true if the server accepted the deletion (the object may linger while finalizers or
   *     a grace period run), false if there was no such object (404, reason {@code NotFound} or
   *     none)
   */
  public boolean delete(String name) {
    return delete(name, null);
  }

  /**
   * Deletes an object with options: preconditions ({@code uid}, {@code resourceVersion}; a
   * mismatch is a 409 {@code Conflict}), {@code propagationPolicy}, {@code gracePeriodSeconds}.
   *
   * @return true if the server accepted the deletion, false if there was no such object (404)
   */
  public boolean delete(String name, @Nullable DeleteOptions options) {
    HttpUrl url = writeUrl(requireNamespace("delete"), name, null, false);
    Request.Builder b = newRequest(url);
    if (options == null) {
      b.delete();
    } else {
      b.delete(RequestBody.create(calls.mapper().writeValueAsBytes(options), JSON));
    }
    try {
      calls.execute(b.build(), requestTimeout()).close();
      return true;
    } catch (ApiException e) {
      if (isNotFound(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * A 404 whose reason is {@code NotFound} or absent, as client-go's {@code apierrors.IsNotFound}.
   * (An absent reason includes the plain-text {@code 404 page not found} of an unknown API group:
   * a get then finds nothing, while lists and watches fail with the ApiException.)
   */
  private static boolean isNotFound(ApiException e) {
    return e.code() == 404 && e.reason().map("NotFound"::equals).orElse(true);
  }

  private Request applyRequest(
      HttpUrl.Builder url, String document, String fieldManager, boolean force) {
    Objects.requireNonNull(document, "document");
    if (fieldManager == null || fieldManager.isEmpty()) {
      throw new IllegalArgumentException("server-side apply needs a field manager: "
          + fieldManager);
    }
    url.addQueryParameter("fieldManager", fieldManager);
    if (force) {
      url.addQueryParameter("force", "true");
    }
    writeQuery(url, false);
    RequestBody body =
        RequestBody.create(document, MediaType.get(PatchType.APPLY.contentType()));
    return newRequest(url.build()).patch(body).build();
  }

  private T send(Request request) {
    try (Response response = calls.execute(request, requestTimeout())) {
      return decode(response, request);
    }
  }

  private T decode(Response response, Request request) {
    try (InputStream in = response.body().byteStream()) {
      T object = objectReader().readValue(in);
      type.fillTypeMeta(object);
      return object;
    } catch (JacksonIOException e) {
      throw new InformerException(
          HttpCalls.describe(request) + " failed reading the response: " + e.getCause(),
          e.getCause());
    } catch (JacksonException e) {
      throw new InformerException(HttpCalls.describe(request) + " returned an undecodable "
          + type.kind() + ": " + Codecs.shorten(e.getOriginalMessage(), 160), e);
    } catch (java.io.IOException e) {
      throw new InformerException(
          HttpCalls.describe(request) + " failed reading the response: " + e, e);
    }
  }

  private Request.Builder newRequest(HttpUrl url) {
    return new Request.Builder().url(url).header("Accept", type.objectAccept());
  }

  private RequestBody jsonBody(T object) {
    return RequestBody.create(calls.mapper().writeValueAsBytes(object), JSON);
  }

  /** The URL of a write to one object, with this client's dry-run and field manager. */
  private HttpUrl writeUrl(
      @Nullable String ns, String name, @Nullable String subresource, boolean withFieldManager) {
    return writeQuery(
            HttpPaths.object(calls.baseUrl(), type, ns, requireName(name), subresource),
            withFieldManager)
        .build();
  }

  private HttpUrl.Builder writeQuery(HttpUrl.Builder url, boolean withFieldManager) {
    if (dryRun) {
      url.addQueryParameter("dryRun", "All");
    }
    if (withFieldManager && fieldManager != null) {
      url.addQueryParameter("fieldManager", fieldManager);
    }
    return url;
  }

  private HttpUrl objectUrl(@Nullable String ns, String name, @Nullable String subresource) {
    return HttpPaths.object(calls.baseUrl(), type, ns, requireName(name), subresource).build();
  }

  private void requireWritable(String verb) {
    if (type.isMetadataOnly()) {
      throw new UnsupportedOperationException(
          verb + " is not possible on a metadata-only client of " + type.gvr());
    }
  }

  private @Nullable String requireNamespace(String verb) {
    if (type.namespaced() && namespace == null) {
      throw new IllegalStateException(verb + " of a namespaced resource (" + type.gvr()
          + ") needs a namespace: use inNamespace(ns)");
    }
    return namespace;
  }

  private @Nullable String namespaceFor(T object) {
    Objects.requireNonNull(object, "object");
    if (!type.namespaced()) {
      return null;
    }
    ObjectMeta meta = object.getMetadata();
    String own = meta == null ? null : emptyToNull(meta.getNamespace());
    if (namespace != null && own != null && !namespace.equals(own)) {
      throw new IllegalArgumentException("object namespace " + own
          + " differs from the client's namespace " + namespace);
    }
    String ns = namespace != null ? namespace : own;
    if (ns == null) {
      throw new IllegalArgumentException("no namespace for a " + type.kind()
          + ": set metadata.namespace or use inNamespace(ns)");
    }
    return ns;
  }

  private static String nameOf(HasMetadata object) {
    ObjectMeta meta = object.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      throw new IllegalArgumentException("object has no metadata.name: " + object.getKind());
    }
    return meta.getName();
  }

  private static String requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("invalid object name: '" + name + "'");
    }
    return name;
  }

  private static @Nullable String emptyToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  @Override
  public String toString() {
    return "ResourceClient[" + type + (namespace == null ? "" : " in " + namespace) + "]";
  }
}

package io.kinformer.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.ApiException;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An in-process Kubernetes API server over real HTTP, for tests, examples and benchmarks.
 *
 * <p>It reproduces what kube-apiserver does for list, watch and CRUD (as recorded from a real
 * kube-apiserver; see informer-testing/README.md): one cluster-wide resourceVersion, paging with
 * continue tokens at a consistent RV, the RV semantics of list and watch, bookmarks, streaming
 * lists, finalizers, Status error bodies and discovery good enough for kubectl. Objects are stored
 * generically, so any resource works once registered.
 *
 * <pre>{@code
 * try (EmbeddedApiServer server =
 *     EmbeddedApiServer.builder().tls(true).bearerToken("t0k3n").start()) {
 *   server.create("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
 *       + "\"namespace\":\"default\"},\"spec\":{\"containers\":[]}}");
 *   Path kubeconfig = server.kubeConfig();   // point kubectl or any client at it
 * }
 * }</pre>
 *
 * <p>Threads: a Jetty pool ({@code kinformer-apiserver-N}, daemon) serves requests; each open
 * watch holds one of its threads. Jetty's own timer thread is {@code kinformer-apiserver-timer}.
 * Bookmarks, watch deadlines and injected latency use the injected {@link Scheduler}. {@link
 * #close()} ends every watch and stops every thread the server started.
 *
 * <p>Thread safety: thread-safe.
 */
public final class EmbeddedApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedApiServer.class);

  /** The namespaces every cluster starts with. */
  public static final List<String> INITIAL_NAMESPACES =
      List.of("default", "kube-system", "kube-public", "kube-node-lease");

  private final @Nullable String bearerToken;
  private final Registry registry = new Registry();
  private final Store store;
  /** What the server started with, which {@link #reset()} keeps. */
  private final Set<String> initialObjects;
  private final ApiOps ops;
  private final Faults faults;
  private final Set<WatchSession> watches = ConcurrentHashMap.newKeySet();
  private final @Nullable Certificates certificates;
  private final Server server;
  private final ServerConnector connector;
  private final Path tempDir;
  private final Path kubeConfigFile;
  private final String kubeConfigYaml;
  private final URI url;
  private final Object lifecycle = new Object();
  private boolean closed;

  private final long maxRequestBodyBytes;

  private EmbeddedApiServer(Builder b) {
    this.bearerToken = b.bearerToken;
    this.maxRequestBodyBytes = b.maxRequestBodyBytes;
    this.store = new Store(b.watchHistorySize, 0, b.maxObjectBytes);
    this.ops = new ApiOps(registry, store, b.clock, b.random);
    this.faults = new Faults(watches, store, registry);
    if (b.builtInResources) {
      Registry.builtIns().forEach(this::registerQuietly);
    } else {
      registerQuietly(ApiOps.NAMESPACES);
    }
    b.resources.forEach(this::registerQuietly);
    ops.bootstrap(INITIAL_NAMESPACES);
    this.initialObjects = store.allKeys();
    this.certificates = b.tls
        ? Certificates.selfSigned(b.clock.now(), ops.randomLong(Long.MAX_VALUE), ops.uid())
        : null;

    QueuedThreadPool pool = new QueuedThreadPool(b.maxThreads, 2);
    pool.setName("kinformer-apiserver");
    pool.setDaemon(true);
    this.server = new Server(pool,
        new ScheduledExecutorScheduler("kinformer-apiserver-timer", true), null);
    // Watches are ended first (close()); then connections close at once, without a graceful wait
    // for idle keep-alive clients.
    server.setStopTimeout(0);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setOutputBufferSize(64 * 1024);
    List<ConnectionFactory> factories = new ArrayList<>();
    if (certificates != null) {
      SecureRequestCustomizer src = new SecureRequestCustomizer();
      src.setSniHostCheck(false);
      http.addCustomizer(src);
      SslContextFactory.Server ssl = new SslContextFactory.Server();
      ssl.setKeyStore(certificates.keyStore);
      ssl.setKeyStorePassword(certificates.password);
      ssl.setSniRequired(false);
      HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(http);
      h2.setMaxConcurrentStreams(100);
      ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
      alpn.setDefaultProtocol("http/1.1");
      factories.add(new SslConnectionFactory(ssl, alpn.getProtocol()));
      factories.add(alpn);
      factories.add(h2);
      factories.add(new HttpConnectionFactory(http));
    } else {
      HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http);
      h2c.setMaxConcurrentStreams(100);
      factories.add(new HttpConnectionFactory(http));
      factories.add(h2c);
    }
    this.connector = new ServerConnector(server, 1, 1,
        factories.toArray(new ConnectionFactory[0]));
    connector.setHost("127.0.0.1");
    connector.setPort(b.port);
    // Watches may be silent for long; the real server has no idle timeout on them.
    connector.setIdleTimeout(Duration.ofHours(2).toMillis());
    server.addConnector(connector);
    ApiHandler handler = new ApiHandler(ops, faults, watches,
        new ApiHandler.Settings(b.bearerToken, b.bookmarkInterval, b.maxPendingWatchEvents,
            b.scheduler, b.maxRequestBodyBytes),
        pool);
    server.setHandler(handler);
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly();
      throw new IllegalStateException("cannot start the embedded API server on port " + b.port,
          e);
    }
    int port = connector.getLocalPort();
    handler.serverAddress("127.0.0.1:" + port);
    this.url = URI.create((b.tls ? "https" : "http") + "://127.0.0.1:" + port);
    this.kubeConfigYaml = buildKubeConfig();
    try {
      this.tempDir = Files.createTempDirectory("kinformer-apiserver-");
      this.kubeConfigFile = tempDir.resolve("kubeconfig");
      Files.writeString(kubeConfigFile, kubeConfigYaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      stopQuietly();
      throw new UncheckedIOException("cannot write the kubeconfig", e);
    }
    log.info("embedded API server started at {}", url);
  }

  private void registerQuietly(ServedResource type) {
    registry.register(type);
    store.register(type);
  }

  /** A builder with the defaults: plain HTTP (HTTP/1.1 and h2c), no auth, a free port. */
  public static Builder builder() {
    return new Builder();
  }

  /** Starts a server with the defaults; see {@link #builder()}. */
  public static EmbeddedApiServer start() {
    return builder().start();
  }

  /** Serves {@code type} from now on (idempotent for an identical type). */
  public void register(ServedResource type) {
    Objects.requireNonNull(type, "type");
    registerQuietly(type);
  }

  /**
   * Serves the custom resource {@code type} from now on with the schema of its CRD version, the
   * {@code openAPIV3Schema} (JSON or YAML) under {@code spec.versions[].schema}: it is published
   * at {@code /openapi/v3} and {@code /openapi/v2} (for {@code kubectl explain}) and checked by
   * server-side field validation (see {@code fieldValidation} on create, update and patch).
   * Registering the same type again replaces its schema.
   *
   * @throws IllegalArgumentException if the schema is not a JSON or YAML object
   */
  public void register(ServedResource type, String openApiV3Schema) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(openApiV3Schema, "openApiV3Schema");
    tools.jackson.databind.JsonNode schema;
    try {
      schema = Json.YAML.readTree(openApiV3Schema);
    } catch (tools.jackson.core.JacksonException e) {
      throw new IllegalArgumentException("the openAPIV3Schema of " + type.qualifiedName()
          + " is neither JSON nor YAML: " + e.getOriginalMessage(), e);
    }
    if (!(schema instanceof tools.jackson.databind.node.ObjectNode object)) {
      throw new IllegalArgumentException("the openAPIV3Schema of " + type.qualifiedName()
          + " must be an object, such as {\"type\":\"object\",\"properties\":{...}}");
    }
    registerQuietly(type);
    registry.schema(type, object);
  }

  /** The base URL, for example {@code http://127.0.0.1:41231}. */
  public URI url() {
    return url;
  }

  /** The port the server listens on (on 127.0.0.1). */
  public int port() {
    return connector.getLocalPort();
  }

  /** Whether the server speaks TLS (h2 and HTTP/1.1 by ALPN) rather than plain HTTP and h2c. */
  public boolean isTls() {
    return certificates != null;
  }

  /** The bearer token clients must send, if the server requires one. */
  public Optional<String> bearerToken() {
    return Optional.ofNullable(bearerToken);
  }

  /** The server's self-signed certificate (also its own CA), when it speaks TLS. */
  public Optional<X509Certificate> certificate() {
    return certificates == null ? Optional.empty() : Optional.of(certificates.certificate);
  }

  /** The certificate in PEM form, when the server speaks TLS. */
  public Optional<String> certificatePem() {
    return certificates == null ? Optional.empty() : Optional.of(certificates.pem());
  }

  /**
   * A kubeconfig file (context {@code kinformer}) that kubectl or any client can use as is: the
   * server URL, the CA data when TLS is on and the bearer token when one is required (clients that
   * follow client-go, kinformer among them, send a kubeconfig's token only over TLS). Deleted by
   * {@link #close()}.
   */
  public Path kubeConfig() {
    return kubeConfigFile;
  }

  /** The content of {@link #kubeConfig()}. */
  public String kubeConfigYaml() {
    return kubeConfigYaml;
  }

  private String buildKubeConfig() {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: v1\nkind: Config\nclusters:\n- name: kinformer\n  cluster:\n");
    y.append("    server: ").append(url).append('\n');
    if (certificates != null) {
      y.append("    certificate-authority-data: ").append(Base64.getEncoder()
          .encodeToString(certificates.pem().getBytes(StandardCharsets.US_ASCII))).append('\n');
    }
    y.append("users:\n- name: kinformer\n  user:");
    if (bearerToken != null) {
      y.append("\n    token: ").append(bearerToken).append('\n');
    } else {
      y.append(" {}\n");
    }
    y.append("contexts:\n- name: kinformer\n  context:\n    cluster: kinformer\n"
        + "    user: kinformer\n    namespace: default\ncurrent-context: kinformer\n");
    return y.toString();
  }

  /** Fault injection and request counters. */
  public Faults faults() {
    return faults;
  }

  /** The cluster's current resourceVersion (the RV of the latest write). */
  public long resourceVersion() {
    return store.currentRv();
  }

  // ---- direct access, same semantics as over HTTP --------------------------------------------

  /**
   * Creates an object (its {@code apiVersion} and {@code kind} pick the resource) as a POST
   * would, and returns it as stored.
   *
   * @throws ApiException with the status a POST would get (404, 409, 422...)
   * @throws IllegalArgumentException if the JSON is malformed or its kind unknown
   */
  public String create(String json) {
    ObjectNode o = parseBody(json);
    ServedResource t = typeOf(o);
    String ns = o.path("metadata").path("namespace").asString("");
    return call(() -> ops.create(t, t.namespaced() ? (ns.isEmpty() ? "default" : ns) : null, o));
  }

  /** Replaces an object as a PUT would (with optimistic concurrency if it carries an RV). */
  public String update(String json) {
    return replace(json, false);
  }

  /**
   * Creates a fabric8 model object as a POST would, and returns it as stored (with its uid,
   * resourceVersion and timestamps), as a new object of the same class.
   *
   * @throws ApiException with the status a POST would get (404, 409, 422...)
   */
  public <T extends HasMetadata> T create(T object) {
    return decode(create(encode(object)), object);
  }

  /**
   * Replaces a fabric8 model object as a PUT would (with optimistic concurrency if it carries a
   * resourceVersion), and returns it as stored.
   */
  public <T extends HasMetadata> T update(T object) {
    return decode(update(encode(object)), object);
  }

  private static String encode(HasMetadata object) {
    try {
      return Json.MAPPER.writeValueAsString(object);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("cannot serialize " + object.getClass().getName(), e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata> T decode(String json, T like) {
    return (T) Json.MAPPER.readValue(json, like.getClass());
  }

  /** Replaces an object's status as a PUT to {@code /status} would. */
  public String updateStatus(String json) {
    return replace(json, true);
  }

  private String replace(String json, boolean status) {
    ObjectNode o = parseBody(json);
    ServedResource t = typeOf(o);
    JsonNode meta = o.path("metadata");
    return call(() -> ops.update(t, meta.path("namespace").asString("default"),
        meta.path("name").asString(""), o, status));
  }

  /** The object as stored, if it exists. */
  public Optional<String> get(String apiVersion, String kind, @Nullable String namespace,
      String name) {
    ServedResource t = type(apiVersion, kind);
    StoredObject o = store.get(t, StoredObject.key(t.namespaced()
        ? Objects.requireNonNullElse(namespace, "default") : "", name));
    return o == null ? Optional.empty()
        : Optional.of(new String(o.json, StandardCharsets.UTF_8));
  }

  /** Every object of a kind in a namespace (all namespaces if null), in key order. */
  public List<String> list(String apiVersion, String kind, @Nullable String namespace) {
    ServedResource t = type(apiVersion, kind);
    Store.Snapshot s = Objects.requireNonNull(store.snapshot(t, namespace, null, -1));
    List<String> out = new ArrayList<>(s.items().size());
    for (StoredObject o : s.items()) {
      out.add(new String(o.json, StandardCharsets.UTF_8));
    }
    return out;
  }

  /**
   * Deletes an object as a DELETE without options would (pods and objects with finalizers may
   * stay, marked for deletion).
   *
   * @throws ApiException 404 if it does not exist
   */
  public void delete(String apiVersion, String kind, @Nullable String namespace, String name) {
    ServedResource t = type(apiVersion, kind);
    call(() -> ops.delete(t, Objects.requireNonNullElse(namespace, "default"), name,
        new ApiOps.DeleteOptions(null, null, null)).result());
  }

  /**
   * The object of fabric8 model class {@code type} as stored, if it exists (its kind and
   * apiVersion from the class, as fabric8 names them).
   *
   * @param namespace the namespace of a namespaced kind (null: {@code default}); ignored for a
   *     cluster-scoped one
   * @throws IllegalArgumentException if the server does not serve the class's kind
   */
  public <T extends HasMetadata> Optional<T> get(
      Class<T> type, @Nullable String namespace, String name) {
    return get(HasMetadata.getApiVersion(type), HasMetadata.getKind(type), namespace, name)
        .map(json -> Json.MAPPER.readValue(json, type));
  }

  /** Every object of model class {@code type} in a namespace (all if null), in key order. */
  public <T extends HasMetadata> List<T> list(Class<T> type, @Nullable String namespace) {
    List<String> json = list(HasMetadata.getApiVersion(type), HasMetadata.getKind(type), namespace);
    List<T> out = new ArrayList<>(json.size());
    for (String j : json) {
      out.add(Json.MAPPER.readValue(j, type));
    }
    return out;
  }

  /**
   * Makes the server as it was when it started, for tests that share one: every object created
   * since (in any resource, finalizers or not) is deleted, each as a {@code DELETED} event its
   * watchers see, the initial namespaces stay, and {@link #faults()} are cleared ({@link
   * Faults#reset()}). Resource versions go on increasing, as they would on a real server, and
   * resources registered since start stay served.
   *
   * @return how many objects were deleted
   */
  public int reset() {
    faults.reset();
    return store.deleteAllExcept(initialObjects);
  }

  /**
   * Deletes {@code object} (by its kind, namespace and name) as a DELETE without options would.
   *
   * @throws ApiException 404 if it does not exist
   */
  public void delete(HasMetadata object) {
    Objects.requireNonNull(object.getMetadata(), "object has no metadata");
    delete(
        HasMetadata.getApiVersion(object.getClass()),
        HasMetadata.getKind(object.getClass()),
        object.getMetadata().getNamespace(),
        object.getMetadata().getName());
  }

  private ServedResource type(String apiVersion, String kind) {
    return registry.byKind(apiVersion, kind).orElseThrow(() ->
        new IllegalArgumentException("no resource registered for " + apiVersion + " " + kind));
  }

  private ServedResource typeOf(ObjectNode o) {
    return type(o.path("apiVersion").asString(""), o.path("kind").asString(""));
  }

  /** A write's body: refused as over-large exactly as the same body sent over HTTP would be. */
  private ObjectNode parseBody(String json) {
    if (json.getBytes(StandardCharsets.UTF_8).length > maxRequestBodyBytes) {
      call(() -> {
        throw ApiError.requestEntityTooLarge(maxRequestBodyBytes);
      });
    }
    return parse(json);
  }

  private static ObjectNode parse(String json) {
    try {
      JsonNode n = Json.MAPPER.readTree(json);
      if (n instanceof ObjectNode o) {
        return o;
      }
    } catch (JacksonException e) {
      throw new IllegalArgumentException("malformed JSON object: " + e.getOriginalMessage(), e);
    }
    throw new IllegalArgumentException("not a JSON object: " + json);
  }

  private interface Op {
    ApiOps.Result run();
  }

  private static String call(Op op) {
    try {
      return new String(op.run().body(), StandardCharsets.UTF_8);
    } catch (ApiError e) {
      List<String> causes = new ArrayList<>();
      for (JsonNode c : e.status.path("details").path("causes")) {
        causes.add(c.path("reason").asString(""));
      }
      throw new ApiException(e.code, e.status.path("reason").asString(null),
          e.status.path("message").asString(null), null, causes, false);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedApiServer[" + url + "]";
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Ends every watch, stops the server and its threads, and deletes the kubeconfig. Idempotent. */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    faults.closeAllWatches();
    awaitWatchesEnded();
    stopQuietly();
    try {
      Files.deleteIfExists(kubeConfigFile);
      Files.deleteIfExists(tempDir);
    } catch (IOException e) {
      log.warn("could not delete {}", tempDir, e);
    }
    log.info("embedded API server at {} stopped", url);
  }

  /** Waits (boundedly) for the watch threads to write their terminating chunks. */
  private void awaitWatchesEnded() {
    synchronized (watches) {
      for (int i = 0; i < 50 && !watches.isEmpty(); i++) {
        try {
          watches.wait(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void stopQuietly() {
    try {
      server.stop();
    } catch (Exception e) {
      log.warn("error stopping the embedded API server", e);
    }
  }

  /**
   * Options for {@link EmbeddedApiServer}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    /** kube-apiserver's default {@code MaxRequestBodyBytes}: 3 MiB. */
    public static final long DEFAULT_MAX_REQUEST_BODY_BYTES = 3L * 1024 * 1024;
    /** etcd's default {@code --max-request-bytes}: 1.5 MiB. */
    public static final int DEFAULT_MAX_OBJECT_BYTES = 3 * 1024 * 1024 / 2;

    private int port;
    private boolean tls;
    private @Nullable String bearerToken;
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private RandomGenerator random = new SplittableRandom();
    private int watchHistorySize = 10_000;
    private Duration bookmarkInterval = Duration.ofSeconds(60);
    private int maxPendingWatchEvents = 1_000_000;
    private boolean builtInResources = true;
    private int maxThreads = 512;
    private long maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;
    private int maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES;
    private final List<ServedResource> resources = new ArrayList<>();

    private Builder() {}

    /** The port on 127.0.0.1; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("invalid port: " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Serve HTTPS (h2 and HTTP/1.1 by ALPN) with a self-signed certificate generated at start,
     * instead of plain HTTP/1.1 and h2c.
     */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Require {@code Authorization: Bearer <token>}; other requests get 401. Use it with {@link
     * #tls(boolean) tls(true)} when clients are made from {@link EmbeddedApiServer#kubeConfig()}:
     * kinformer, like kubectl, does not send a kubeconfig's credentials to a plain-HTTP server.
     */
    public Builder bearerToken(String token) {
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("token must not be blank");
      }
      this.bearerToken = token;
      return this;
    }

    /** The clock for timestamps (creationTimestamp, deletionTimestamp). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The scheduler for bookmarks, watch deadlines and injected latency. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** The randomness for uids, generated names and default watch deadlines. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * How many changes per resource the server remembers (its "watch cache"): a watch or continue
     * token from an RV older than that window gets 410 Expired. Default 10,000.
     */
    public Builder watchHistorySize(int events) {
      if (events < 1) {
        throw new IllegalArgumentException("watchHistorySize must be positive: " + events);
      }
      this.watchHistorySize = events;
      return this;
    }

    /** The period of the periodic BOOKMARK events (the real server's is about 60 s). */
    public Builder bookmarkInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("bookmarkInterval must be positive: " + interval);
      }
      this.bookmarkInterval = interval;
      return this;
    }

    /** A watch this many events behind its client is closed. Default 1,000,000. */
    public Builder maxPendingWatchEvents(int events) {
      if (events < 1) {
        throw new IllegalArgumentException("maxPendingWatchEvents must be positive: " + events);
      }
      this.maxPendingWatchEvents = events;
      return this;
    }

    /** Whether to serve the common built-in resources (default true; namespaces always). */
    public Builder builtInResources(boolean enabled) {
      this.builtInResources = enabled;
      return this;
    }

    /** Also serve {@code type} (a custom resource). */
    public Builder resource(ServedResource type) {
      resources.add(Objects.requireNonNull(type, "type"));
      return this;
    }

    /** The most request threads; each open watch holds one. Default 512. */
    public Builder maxThreads(int threads) {
      if (threads < 8) {
        throw new IllegalArgumentException("maxThreads must be at least 8: " + threads);
      }
      this.maxThreads = threads;
      return this;
    }

    /**
     * The largest request body accepted (default {@value #DEFAULT_MAX_REQUEST_BODY_BYTES}, 3 MiB,
     * kube-apiserver's {@code MaxRequestBodyBytes}); a larger one gets 413
     * RequestEntityTooLarge.
     */
    public Builder maxRequestBodyBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxRequestBodyBytes must be positive: " + bytes);
      }
      this.maxRequestBodyBytes = bytes;
      return this;
    }

    /**
     * The largest stored encoding of an object (default {@value #DEFAULT_MAX_OBJECT_BYTES},
     * 1.5 MiB, etcd's default request limit); a write of a larger object stores nothing and gets
     * 500 "etcdserver: request is too large", as from a real cluster.
     */
    public Builder maxObjectBytes(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxObjectBytes must be positive: " + bytes);
      }
      this.maxObjectBytes = bytes;
      return this;
    }

    /** Starts the server; it is listening when this returns. */
    public EmbeddedApiServer start() {
      return new EmbeddedApiServer(this);
    }
  }
}

package io.kinformer.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.StringPool;
import io.kinformer.client.internal.config.AuthInterceptor;
import io.kinformer.client.internal.http.Discovery;
import io.kinformer.client.internal.http.EnvironmentProxySelector;
import io.kinformer.client.internal.http.HttpCalls;
import io.kinformer.client.internal.http.HttpTimeouts;
import io.kinformer.client.internal.tls.RotatingClientKeyManager;
import io.kinformer.client.internal.tls.TlsSetup;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import okhttp3.Authenticator;
import okhttp3.ConnectionPool;
import okhttp3.Credentials;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection to one Kubernetes API server: the transport that every informer, watch and REST
 * call created from this client shares.
 *
 * <pre>{@code
 * try (KubeClient client = KubeClient.create(KubeConfig.load())) {
 *   ...
 * }
 * }</pre>
 *
 * <p>It owns exactly one OkHttp client: one connection pool, so informers multiplex over shared
 * HTTP/2 connections (negotiated by ALPN when the server offers it, HTTP/1.1 otherwise), and one
 * dispatcher whose limits are raised far above OkHttp's default of five requests per host, because
 * every running watch holds a request. There is no read timeout, so a quiet but healthy watch is
 * never cut; HTTP/2 pings ({@link ClientOptions#pingInterval()}) detect dead connections, and the
 * informer layer has its own watch deadline. Credentials (bearer token, rotating token file, basic
 * auth, exec plugin, client certificate) and TLS settings come from the {@link KubeConfig}.
 *
 * <p>Proxy, as in client-go: the kubeconfig cluster's {@code proxy-url} ({@link
 * KubeConfig#proxyUrl()}) if set; else the {@code HTTPS_PROXY}/{@code HTTP_PROXY}/{@code NO_PROXY}
 * environment variables (read when the client is created) if either proxy variable is set; else
 * the JVM's default {@link java.net.ProxySelector} ({@code https.proxyHost}, {@code
 * http.nonProxyHosts}, ... system properties). See {@link KubeConfig#proxyUrl()} for the rules.
 *
 * <p>Threads: the dispatcher runs asynchronous calls on daemon threads named {@code
 * kinformer-http-N}, created on demand and ended after a minute idle. OkHttp's process-wide task
 * runner (threads named {@code OkHttp ...}) reads HTTP/2 frames and cleans the pool; after {@link
 * #close()} it runs no task for this client.
 *
 * <p>Thread safety: thread-safe.
 */
public final class KubeClient implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeClient.class);

  private final KubeConfig config;
  private final ClientOptions options;
  private final OkHttpClient httpClient;
  private final HttpUrl baseUrl;
  /** Created lazily: one per client, shared by all its resource clients (it derives the watch client). */
  private volatile @Nullable HttpCalls calls;
  private volatile @Nullable Discovery discovery;
  private final ExecutorService dispatcherExecutor;
  private final ThreadLocal<Boolean> onDispatcherThread = ThreadLocal.withInitial(() -> false);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final @Nullable AuthInterceptor auth;

  private KubeClient(
      KubeConfig config, ClientOptions options, Function<String, @Nullable String> env) {
    this.config = config;
    this.options = options;
    this.baseUrl = Objects.requireNonNull(HttpUrl.parse(config.server().toString()));
    AuthInterceptor auth =
        AuthInterceptor.create(config, options.clock(), options.execTimeout());
    this.auth = auth;
    TlsSetup tls =
        TlsSetup.create(config, options.clock(), auth == null ? null : auth.execPlugin());
    this.dispatcherExecutor =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            threadFactory());
    // Every call is synchronous (execute()), which the dispatcher tracks for cancelAll() but does
    // not limit: a watch never waits behind its maxRequests(PerHost) (WatchConcurrencyTest).
    Dispatcher dispatcher = new Dispatcher(dispatcherExecutor);
    String userAgent = userAgent(options);
    OkHttpClient.Builder b =
        new OkHttpClient.Builder()
            .dispatcher(dispatcher)
            .connectionPool(new ConnectionPool(5, 5, TimeUnit.MINUTES))
            .protocols(List.of(Protocol.HTTP_2, Protocol.HTTP_1_1))
            .connectTimeout(options.connectTimeout())
            .readTimeout(Duration.ZERO)
            .pingInterval(options.pingInterval())
            .sslSocketFactory(tls.socketFactory(), tls.trustManager())
            .addInterceptor(
                chain -> {
                  if (closed.get()) {
                    throw new IOException("KubeClient for " + config.server() + " is closed");
                  }
                  return chain.proceed(chain.request());
                })
            .addInterceptor(
                chain -> {
                  Request r = chain.request();
                  return chain.proceed(
                      r.header("User-Agent") != null
                          ? r
                          : r.newBuilder().header("User-Agent", userAgent).build());
                });
    if (tls.hostnameVerifier() != null) {
      b.hostnameVerifier(tls.hostnameVerifier());
    }
    RotatingClientKeyManager rotatingKeys = tls.rotatingKeys();
    if (rotatingKeys != null) {
      // Connections are reused for as long as they stay open (one HTTP/2 connection may carry
      // everything), so the certificate files are also checked before requests, not only when a
      // connection is made.
      b.addInterceptor(
          chain -> {
            rotatingKeys.maybeReload();
            return chain.proceed(chain.request());
          });
    }
    if (auth != null) {
      b.addInterceptor(auth).authenticator(auth);
    }
    if (config.proxyUrl().isPresent()) {
      URI proxy = config.proxyUrl().get();
      configureProxy(b, proxy);
      log.debug("{} goes through proxy-url {}:{}", config.server(), proxy.getHost(),
          proxyPort(proxy));
    } else {
      configureEnvironmentProxy(b, env, config.server());
    }
    this.httpClient = b.build();
  }

  /**
   * A client for the configuration, with default {@link ClientOptions}.
   *
   * @throws KubeConfigException if a file the configuration names cannot be read or a certificate
   *     or key does not parse
   */
  public static KubeClient create(KubeConfig config) {
    return create(config, ClientOptions.defaults());
  }

  /**
   * A client for the configuration and options.
   *
   * @throws KubeConfigException if a file the configuration names cannot be read or a certificate
   *     or key does not parse
   */
  public static KubeClient create(KubeConfig config, ClientOptions options) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(options, "options");
    return create(config, options, System::getenv);
  }

  /** Test seam: the environment to read proxy variables from instead of the process's. */
  static KubeClient create(
      KubeConfig config, ClientOptions options, Function<String, @Nullable String> env) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(env, "env");
    KubeClient client = new KubeClient(config, options, env);
    log.debug("created client for {} ({})", config.server(), config.source());
    return client;
  }

  /** The configuration this client was created from. */
  public KubeConfig config() {
    return config;
  }

  /** The default namespace: the kubeconfig context's, or {@code "default"}. */
  public String namespace() {
    return config.namespace();
  }

  /**
   * The shared OkHttp client. Derive per-call variants with {@code httpClient().newBuilder()},
   * which keeps the connection pool and dispatcher.
   */
  OkHttpClient httpClient() {
    return httpClient;
  }

  /** The API server's base URL (may carry a path prefix). */
  HttpUrl baseUrl() {
    return baseUrl;
  }

  ClientOptions options() {
    return options;
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed() {
    return closed.get();
  }

  /**
   * Cancels every call in flight (watches included), stops the dispatcher's threads and closes all
   * pooled connections. Idempotent. Returns once the dispatcher's threads have finished (bounded
   * at five seconds; a call must not block after its cancellation), unless called from one of
   * them.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (auth != null) {
      auth.close(); // first: a call waiting for a credential plugin holds a dispatcher thread
    }
    httpClient.dispatcher().cancelAll();
    dispatcherExecutor.shutdown();
    httpClient.connectionPool().evictAll();
    if (!onDispatcherThread.get()) {
      try {
        if (!dispatcherExecutor.awaitTermination(5, TimeUnit.SECONDS)) {
          log.warn("HTTP dispatcher threads of {} still running 5 s after close", config.server());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // Connections are released by cancelled calls asynchronously (an HTTP/2 stream is freed
      // once its reset is processed), so evict until the pool is empty, for at most a second.
      for (int i = 0; i < 100; i++) {
        httpClient.connectionPool().evictAll();
        if (httpClient.connectionPool().connectionCount() == 0) {
          break;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      if (httpClient.connectionPool().connectionCount() > 0) {
        log.debug("{} connections of {} still busy after close", httpClient.connectionPool().connectionCount(), config.server());
      }
    }
    log.debug("closed client for {}", config.server());
  }

  /**
   * A REST client (get, list, create, update, patch, delete, list-and-watch) for a fabric8 model
   * class, in all namespaces; narrow it with {@link ResourceClient#inNamespace}.
   *
   * @throws IllegalStateException if this client is closed
   */
  public <T extends HasMetadata> ResourceClient<T> resources(Class<T> modelClass) {
    return resources(ResourceType.of(modelClass));
  }

  /**
   * A REST client for any resource type (typed, dynamic or metadata-only), in all namespaces.
   *
   * @throws IllegalStateException if this client is closed
   */
  public <T extends HasMetadata> ResourceClient<T> resources(ResourceType<T> type) {
    if (closed.get()) {
      throw new IllegalStateException("client for " + config.server() + " is closed");
    }
    return ResourceClient.create(calls(), type);
  }

  /**
   * A dynamic REST client for any resource, objects as {@link GenericKubernetesResource}; its kind
   * and scope are looked up by API discovery (once per group-version, again for a resource the
   * cached answer lacks).
   *
   * @throws io.kinformer.cache.ApiException if discovery fails or finds no such resource
   */
  public ResourceClient<GenericKubernetesResource> resources(Gvr gvr) {
    Discovery.Resource r = discovery().resource(gvr);
    return resources(ResourceType.dynamic(gvr, r.kind(), r.namespaced()));
  }

  /** The HTTP plumbing shared by every resource client of this client. */
  HttpCalls calls() {
    HttpCalls c = calls;
    if (c == null) {
      synchronized (this) {
        c = calls;
        if (c == null) {
          if (options.decodingOptimizations()) {
            // One string pool for both mappers: the REST and the informer objects share values.
            StringPool pool = new StringPool();
            c = new HttpCalls(httpClient, baseUrl, Codecs.newMapper(pool),
                Codecs.newCacheMapper(pool), HttpTimeouts.DEFAULT);
          } else {
            c = HttpCalls.plain(httpClient, baseUrl, HttpTimeouts.DEFAULT);
          }
          calls = c;
        }
      }
    }
    return c;
  }

  /** The discovery cache of this client. */
  Discovery discovery() {
    Discovery d = discovery;
    if (d == null) {
      synchronized (this) {
        d = discovery;
        if (d == null) {
          d = new Discovery(calls());
          discovery = d;
        }
      }
    }
    return d;
  }

  @Override
  public String toString() {
    return "KubeClient{" + config + (closed.get() ? ", closed" : "") + "}";
  }

  private ThreadFactory threadFactory() {
    ThreadFactory base = Executors.defaultThreadFactory();
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t =
          base.newThread(
              () -> {
                onDispatcherThread.set(true);
                r.run();
              });
      t.setName("kinformer-http-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * With no kubeconfig {@code proxy-url}: the proxies of {@code HTTPS_PROXY}/{@code
   * HTTP_PROXY}/{@code NO_PROXY}, per request URL, if either proxy variable is set; else nothing
   * changes and OkHttp asks the JVM's default {@link java.net.ProxySelector}.
   */
  private static void configureEnvironmentProxy(
      OkHttpClient.Builder b, Function<String, @Nullable String> env, URI server) {
    EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env);
    if (selector == null) {
      return;
    }
    b.proxySelector(selector);
    Authenticator authenticator = selector.authenticator();
    if (authenticator != null) {
      b.proxyAuthenticator(authenticator);
    }
    if (log.isDebugEnabled()) {
      EnvironmentProxySelector.Target target = selector.targetFor(server);
      log.debug(
          "{} {}",
          server,
          target == null
              ? "is reached directly (NO_PROXY, loopback, or no proxy variable for its scheme)"
              : "goes through proxy " + target.address() + " from " + target.variable());
    }
  }

  private static int proxyPort(URI proxy) {
    return proxy.getPort() != -1 ? proxy.getPort() : proxy.getScheme().equals("socks5") ? 1080 : 80;
  }

  private static void configureProxy(OkHttpClient.Builder b, URI proxy) {
    boolean socks = proxy.getScheme().equals("socks5");
    int port = proxyPort(proxy);
    b.proxy(
        new Proxy(
            socks ? Proxy.Type.SOCKS : Proxy.Type.HTTP,
            InetSocketAddress.createUnresolved(proxy.getHost(), port)));
    String userInfo = proxy.getUserInfo();
    if (userInfo != null && socks) {
      // The JDK asks only the JVM-wide java.net.Authenticator for SOCKS credentials, which a
      // library must not set.
      log.warn("proxy-url: SOCKS proxy credentials are not supported and are not sent; connecting"
          + " to {}:{} without them", proxy.getHost(), port);
    }
    if (userInfo != null && !socks) {
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
      String password = colon < 0 ? "" : userInfo.substring(colon + 1);
      String credential = Credentials.basic(user, password, StandardCharsets.UTF_8);
      b.proxyAuthenticator(
          (route, response) ->
              response.request().header("Proxy-Authorization") != null
                  ? null
                  : response.request().newBuilder()
                      .header("Proxy-Authorization", credential)
                      .build());
    }
  }

  /** {@code kinformer/<version> (<os>/<arch>) java/<version>[ suffix]}. */
  static String userAgent(ClientOptions options) {
    String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT).replace(' ', '-');
    String arch = System.getProperty("os.arch", "unknown");
    String ua =
        "kinformer/" + Version.VALUE + " (" + os + "/" + arch + ") java/"
            + System.getProperty("java.version", "unknown");
    String suffix = options.userAgentSuffix();
    return suffix == null ? ua : ua + " " + suffix;
  }

  /** The library version, from a resource Maven filters at build time. */
  private static final class Version {
    static final String VALUE = read();

    private static String read() {
      try (InputStream in = KubeClient.class.getResourceAsStream("kinformer-client.properties")) {
        if (in != null) {
          Properties p = new Properties();
          p.load(in);
          String v = p.getProperty("version", "");
          if (!v.isEmpty() && !v.startsWith("${")) {
            return v;
          }
        }
      } catch (IOException e) {
        log.debug("cannot read kinformer-client.properties", e);
      }
      return "unknown";
    }
  }
}

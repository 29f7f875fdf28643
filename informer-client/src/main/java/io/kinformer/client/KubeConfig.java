package io.kinformer.client;

import io.kinformer.client.internal.config.AuthConfig;
import io.kinformer.client.internal.config.ExecConfig;
import io.kinformer.client.internal.config.KubeConfigAccess;
import io.kinformer.client.internal.config.KubeConfigLoader;
import io.kinformer.client.internal.config.PemSource;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where the API server is and how to authenticate to it: one resolved kubeconfig context (or the
 * in-cluster service account, or an explicit configuration).
 *
 * <p>Obtain one the way kubectl does:
 *
 * <pre>{@code
 * KubeConfig config = KubeConfig.load();       // KUBECONFIG, ~/.kube/config, in-cluster
 * KubeConfig staging = KubeConfig.loader().context("staging").load();
 * KubeConfig file = KubeConfig.load(Path.of("/etc/kubeconfig"));
 * KubeConfig explicit = KubeConfig.builder()
 *     .server("https://10.0.0.1:6443").token(token).caCertPem(caPem).build();
 * }</pre>
 *
 * <p>{@link #load()} follows client-go's {@code clientcmd} loading rules: the files listed in
 * {@code KUBECONFIG} (separated by the platform's path separator; missing files skipped; merged so
 * that the first file to define a cluster, user or context name wins that name whole, and the
 * first file that sets {@code current-context} sets it; relative paths resolved against the
 * directory of the file that holds them), else {@code ~/.kube/config}, else, when neither yields
 * any configuration (or none selects a context) and the process runs in a pod, the in-cluster
 * service account ({@code KUBERNETES_SERVICE_HOST}/{@code
 * _PORT}, the token, CA and namespace under {@code
 * /var/run/secrets/kubernetes.io/serviceaccount/}).
 *
 * <p>As in client-go, a kubeconfig user's credentials (token, token file, basic auth, client
 * certificate, exec plugin) are used only when the server URL is {@code https}; with an {@code
 * http://} server they are not sent, and a WARN says so. {@link #builder()} sends whatever
 * credentials the caller sets, whatever the scheme.
 *
 * <p>Files named by the configuration (CA, client certificate and key) are read when a {@link
 * KubeClient} is created; a token file is re-read while the client runs, so a rotated token is
 * picked up, and so are client certificate and key files when they change on disk (checked at
 * most every 5 s, before requests and when a connection is made). After such a reload the
 * connections made with the previous certificate are closed, as client-go does: requests in
 * flight on them fail with an I/O error (an informer's watch reconnects at once), and new
 * connections present the new certificate. Errors are {@link KubeConfigException}s that name the
 * file and field at fault.
 *
 * <p>{@link #toString()} never shows a token, password or key.
 *
 * <p>Thread safety: immutable.
 */
public final class KubeConfig {

  static {
    KubeConfigAccess.install(
        new KubeConfigAccess() {
          @Override
          protected KubeConfig newConfig(
              URI server,
              String namespace,
              @Nullable String context,
              String source,
              @Nullable PemSource certificateAuthority,
              boolean insecureSkipTlsVerify,
              @Nullable String tlsServerName,
              @Nullable URI proxyUrl,
              AuthConfig auth) {
            return new KubeConfig(server, namespace, context, source, certificateAuthority,
                insecureSkipTlsVerify, tlsServerName, proxyUrl, auth);
          }

          @Override
          protected @Nullable PemSource certificateAuthorityOf(KubeConfig config) {
            return config.certificateAuthority();
          }

          @Override
          protected AuthConfig authOf(KubeConfig config) {
            return config.auth();
          }

          @Override
          protected URI server(String label, String server) {
            return KubeConfig.parseServer(label, server);
          }

          @Override
          protected URI proxy(String label, String proxy) {
            return KubeConfig.parseProxy(label, proxy);
          }
        });
  }

  private final URI server;
  private final String namespace;
  private final @Nullable String context;
  private final String source;
  private final @Nullable PemSource certificateAuthority;
  private final boolean insecureSkipTlsVerify;
  private final @Nullable String tlsServerName;
  private final @Nullable URI proxyUrl;
  private final AuthConfig auth;

  KubeConfig(
      URI server,
      String namespace,
      @Nullable String context,
      String source,
      @Nullable PemSource certificateAuthority,
      boolean insecureSkipTlsVerify,
      @Nullable String tlsServerName,
      @Nullable URI proxyUrl,
      AuthConfig auth) {
    this.server = Objects.requireNonNull(server, "server");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.context = context;
    this.source = Objects.requireNonNull(source, "source");
    this.certificateAuthority = certificateAuthority;
    this.insecureSkipTlsVerify = insecureSkipTlsVerify;
    this.tlsServerName = tlsServerName;
    this.proxyUrl = proxyUrl;
    this.auth = Objects.requireNonNull(auth, "auth");
    if (insecureSkipTlsVerify && certificateAuthority != null) {
      // client-go: "specifying a root certificates file with the insecure flag is not allowed".
      throw new KubeConfigException(
          source
              + ": insecure-skip-tls-verify and a certificate authority cannot both be set"
              + " (" + certificateAuthority.label() + ")");
    }
  }

  /**
   * Loads the configuration as kubectl does (see the class comment), using the current context.
   *
   * @throws KubeConfigException if no configuration is found or the one found is invalid
   */
  public static KubeConfig load() {
    return loader().load();
  }

  /**
   * Loads the current context of exactly this file (like {@code kubectl --kubeconfig}); the file
   * must exist.
   *
   * @throws KubeConfigException if the file cannot be read or is invalid
   */
  public static KubeConfig load(Path file) {
    return loader().file(file).load();
  }

  /**
   * The in-cluster configuration of a pod's service account, ignoring any kubeconfig.
   *
   * @throws KubeConfigException if not running in a cluster (no {@code KUBERNETES_SERVICE_HOST} or
   *     {@code _PORT}, or no token file)
   */
  public static KubeConfig inCluster() {
    return loader().inCluster();
  }

  /** A loader for a non-default file or context. */
  public static Loader loader() {
    return new Loader(System.getenv(), KubeConfigLoader.IN_CLUSTER_DIRECTORY);
  }

  /** A builder for an explicit configuration. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration, to change some of it. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.server = server.toString();
    b.namespace = namespace;
    b.context = context;
    b.source = source;
    b.certificateAuthority = certificateAuthority;
    b.insecureSkipTlsVerify = insecureSkipTlsVerify;
    b.tlsServerName = tlsServerName;
    b.proxyUrl = proxyUrl == null ? null : proxyUrl.toString();
    b.token = auth.token();
    b.tokenFile = auth.tokenFile();
    b.username = auth.username();
    b.password = auth.password();
    b.clientCertificate = auth.clientCertificate();
    b.clientKey = auth.clientKey();
    b.exec = auth.exec();
    b.authOrigin = auth.origin();
    return b;
  }

  /** The API server's base URL, e.g. {@code https://10.0.0.1:6443}. */
  public URI server() {
    return server;
  }

  /** The default namespace: the context's, or {@code "default"} if it names none. */
  public String namespace() {
    return namespace;
  }

  /** The kubeconfig context this configuration came from; empty for in-cluster and built ones. */
  public Optional<String> context() {
    return Optional.ofNullable(context);
  }

  /**
   * Where this configuration came from, for messages: the kubeconfig file(s), {@code in-cluster} or
   * {@code KubeConfig.builder()}.
   */
  public String source() {
    return source;
  }

  /** Whether the server's certificate is not verified at all (insecure-skip-tls-verify). */
  public boolean insecureSkipTlsVerify() {
    return insecureSkipTlsVerify;
  }

  /** The name to send as SNI and to verify the server certificate against, if not the host. */
  public Optional<String> tlsServerName() {
    return Optional.ofNullable(tlsServerName);
  }

  /**
   * The proxy to reach the server through ({@code http} or {@code socks5}), if the kubeconfig
   * cluster sets {@code proxy-url} or {@link Builder#proxyUrl} was called. Credentials in it
   * ({@code http://user:password@host:port}) are sent as basic {@code Proxy-Authorization} to an
   * http proxy. Credentials for a {@code socks5} proxy are not supported (the JDK takes them only
   * from the JVM-wide {@code java.net.Authenticator}): they are not sent, with a WARN.
   *
   * <p>When empty, a {@link KubeClient} does what client-go's {@code http.ProxyFromEnvironment}
   * does, reading the environment when the client is created:
   *
   * <ul>
   *   <li>{@code https} servers go through {@code HTTPS_PROXY} (else {@code https_proxy}), {@code
   *       http} servers through {@code HTTP_PROXY} (else {@code http_proxy}); the upper-case name
   *       wins, an empty value counts as unset, and neither stands in for the other;
   *   <li>a value without a scheme ({@code proxy.corp:3128}) is an {@code http://} proxy; {@code
   *       socks5://} works too; an {@code https://} proxy (or a value that is not a URL) is not
   *       supported and is ignored with a WARN: servers of that scheme are then reached directly,
   *       not through the JVM's default selector; credentials are handled as for {@code
   *       proxy-url};
   *   <li>{@code NO_PROXY} (else {@code no_proxy}), a comma-separated list, names what is reached
   *       directly: {@code *} (everything), IP addresses, CIDR ranges ({@code 10.0.0.0/8}), and
   *       domains: {@code example.com} matches it and its subdomains, {@code .example.com} (or
   *       {@code *.example.com}) only its subdomains; {@code host:port} restricts an entry to one
   *       port; case does not matter. No name is resolved to match an IP entry;
   *   <li>{@code localhost} and loopback addresses ({@code 127.0.0.0/8}, {@code ::1}) are never
   *       proxied.
   * </ul>
   *
   * <p>When neither {@code HTTPS_PROXY} nor {@code HTTP_PROXY} is set, OkHttp uses the JVM's
   * default {@link java.net.ProxySelector} (the {@code https.proxyHost}, {@code http.proxyHost},
   * {@code http.nonProxyHosts} system properties), as before. Which proxy a client uses is logged
   * at DEBUG by {@code io.kinformer.client.KubeClient}, as {@code host:port} only.
   */
  public Optional<URI> proxyUrl() {
    return Optional.ofNullable(proxyUrl);
  }

  @Nullable PemSource certificateAuthority() {
    return certificateAuthority;
  }

  AuthConfig auth() {
    return auth;
  }

  @Override
  public String toString() {
    return "KubeConfig{server="
        + server
        + ", namespace="
        + namespace
        + (context != null ? ", context=" + context : "")
        + ", source="
        + source
        + ", auth="
        + auth.describe()
        + (certificateAuthority != null ? ", ca=" + certificateAuthority.label() : "")
        + (insecureSkipTlsVerify ? ", insecureSkipTlsVerify" : "")
        + (tlsServerName != null ? ", tlsServerName=" + tlsServerName : "")
        + (proxyUrl != null ? ", proxyUrl=" + redactUserInfo(proxyUrl) : "")
        + "}";
  }

  static String redactUserInfo(URI uri) {
    if (uri.getRawUserInfo() == null) {
      return uri.toString();
    }
    return uri.getScheme() + "://***@" + uri.getRawAuthority().replaceFirst(".*@", "")
        + Objects.requireNonNullElse(uri.getRawPath(), "");
  }

  /**
   * A server URL as given, for an error message, with everything between the scheme and the last
   * {@code @} replaced by {@code ***}: user info may hold a password. Works on the raw string, as
   * the URL may not parse (and an unparsed or opaque URI reports no user info at all).
   */
  static String redactForMessage(String url) {
    int at = url.lastIndexOf('@');
    if (at < 0) {
      return url;
    }
    int scheme = url.indexOf("://");
    int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
    return url.substring(0, start) + "***" + url.substring(at);
  }

  /** Validates an API server URL: http or https, with a host. */
  static URI parseServer(String label, String server) {
    URI uri;
    try {
      uri = new URI(server.trim());
    } catch (URISyntaxException e) {
      throw new KubeConfigException(label + ": not a valid URL: " + redactForMessage(server));
    }
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw new KubeConfigException(
          label + ": must be an http or https URL: " + redactForMessage(server));
    }
    if (uri.getHost() == null) {
      throw new KubeConfigException(label + ": has no host: " + redactForMessage(server));
    }
    if (uri.getRawUserInfo() != null) {
      throw new KubeConfigException(label + ": must not contain user info");
    }
    return uri;
  }

  /** Validates a proxy URL: http, or socks5, with a host. */
  static URI parseProxy(String label, String proxy) {
    URI uri;
    try {
      uri = new URI(proxy.trim());
    } catch (URISyntaxException e) {
      throw new KubeConfigException(label + ": not a valid URL");
    }
    String scheme = uri.getScheme();
    if ("https".equals(scheme)) {
      throw new KubeConfigException(
          label + ": https proxies are not supported (OkHttp speaks plain HTTP to a proxy);"
              + " use an http:// or socks5:// proxy");
    }
    if (scheme == null || !(scheme.equals("http") || scheme.equals("socks5"))) {
      throw new KubeConfigException(label + ": scheme must be http or socks5");
    }
    if (uri.getHost() == null) {
      throw new KubeConfigException(label + ": has no host");
    }
    return uri;
  }

  /**
   * Loads a kubeconfig file or the default chain, for a chosen context.
   *
   * <p>Thread safety: confine to one thread; the {@code KubeConfig} it loads is immutable.
   */
  public static final class Loader {

    private Map<String, String> environment;
    private Path inClusterDirectory;
    private @Nullable Path file;
    private @Nullable String context;

    Loader(Map<String, String> environment, Path inClusterDirectory) {
      this.environment = Map.copyOf(environment);
      this.inClusterDirectory = inClusterDirectory;
    }

    /** Test seam: the environment to read instead of the process's (KUBECONFIG, HOME, ...). */
    Loader environment(Map<String, String> env) {
      this.environment = Map.copyOf(env);
      return this;
    }

    /** Test seam: where the service-account files are instead of the standard directory. */
    Loader inClusterDirectory(Path dir) {
      this.inClusterDirectory = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Reads only this file (like {@code kubectl --kubeconfig}), which must exist, instead of the
     * KUBECONFIG / ~/.kube/config chain.
     */
    public Loader file(Path file) {
      this.file = Objects.requireNonNull(file, "file");
      return this;
    }

    /** Uses this context instead of the file's {@code current-context}. */
    public Loader context(String context) {
      Objects.requireNonNull(context, "context");
      if (context.isBlank()) {
        throw new IllegalArgumentException("context must not be blank: '" + context + "'");
      }
      this.context = context;
      return this;
    }

    /**
     * Loads the configuration.
     *
     * @throws KubeConfigException if none is found or the one found is invalid
     */
    public KubeConfig load() {
      return new KubeConfigLoader(environment, inClusterDirectory).load(file, context);
    }

    KubeConfig inCluster() {
      return new KubeConfigLoader(environment, inClusterDirectory).inCluster();
    }
  }

  /**
   * Builds an explicit configuration. {@link #server(String)} is required; everything else is
   * optional. Without a CA the system trust store verifies the server.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private static final String ORIGIN = "KubeConfig.builder()";

    private @Nullable String server;
    private String namespace = "default";
    private @Nullable String context;
    private String source = ORIGIN;
    private String authOrigin = ORIGIN;
    private @Nullable PemSource certificateAuthority;
    private boolean insecureSkipTlsVerify;
    private @Nullable String tlsServerName;
    private @Nullable String proxyUrl;
    private @Nullable String token;
    private @Nullable Path tokenFile;
    private @Nullable String username;
    private @Nullable String password;
    private @Nullable PemSource clientCertificate;
    private @Nullable PemSource clientKey;
    private @Nullable ExecConfig exec;

    private Builder() {}

    /** The API server URL, {@code https://host:port} (or http). */
    public Builder server(String url) {
      this.server = Objects.requireNonNull(url, "url");
      return this;
    }

    /** The API server URL. */
    public Builder server(URI url) {
      return server(url.toString());
    }

    /** The default namespace ({@code "default"} unless set). */
    public Builder namespace(String namespace) {
      Objects.requireNonNull(namespace, "namespace");
      if (namespace.isBlank()) {
        throw new IllegalArgumentException("namespace must not be blank: '" + namespace + "'");
      }
      this.namespace = namespace;
      return this;
    }

    /** A bearer token, sent as {@code Authorization: Bearer ...}. */
    public Builder token(String token) {
      this.token = Objects.requireNonNull(token, "token");
      return this;
    }

    /** A file holding a bearer token, re-read every minute so a rotated token is used. */
    public Builder tokenFile(Path tokenFile) {
      this.tokenFile = Objects.requireNonNull(tokenFile, "tokenFile");
      return this;
    }

    /** HTTP basic authentication. */
    public Builder basicAuth(String username, String password) {
      this.username = Objects.requireNonNull(username, "username");
      this.password = Objects.requireNonNull(password, "password");
      return this;
    }

    /** The CA bundle (PEM) to verify the server with; only these CAs are then trusted. */
    public Builder caCertPem(String pem) {
      this.certificateAuthority = PemSource.ofData(ORIGIN + ": caCertPem", bytes(pem));
      return this;
    }

    /** A file with the CA bundle (PEM); only these CAs are then trusted. */
    public Builder caCertFile(Path file) {
      this.certificateAuthority = PemSource.ofFile(ORIGIN + ": caCertFile", file);
      return this;
    }

    /** The client certificate (PEM, chain allowed) for mutual TLS; needs a client key. */
    public Builder clientCertPem(String pem) {
      this.clientCertificate = PemSource.ofData(ORIGIN + ": clientCertPem", bytes(pem));
      return this;
    }

    /** A file with the client certificate (PEM). */
    public Builder clientCertFile(Path file) {
      this.clientCertificate = PemSource.ofFile(ORIGIN + ": clientCertFile", file);
      return this;
    }

    /** The client private key (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC). */
    public Builder clientKeyPem(String pem) {
      this.clientKey = PemSource.ofData(ORIGIN + ": clientKeyPem", bytes(pem));
      return this;
    }

    /** A file with the client private key (PEM). */
    public Builder clientKeyFile(Path file) {
      this.clientKey = PemSource.ofFile(ORIGIN + ": clientKeyFile", file);
      return this;
    }

    /** Skips verifying the server certificate. For development clusters only. */
    public Builder insecureSkipTlsVerify(boolean insecure) {
      this.insecureSkipTlsVerify = insecure;
      return this;
    }

    /** The name for SNI and certificate verification when it differs from the server's host. */
    public Builder tlsServerName(String name) {
      this.tlsServerName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * A proxy, {@code http://host:port} or {@code socks5://host:port}; it takes precedence over
     * the {@code HTTPS_PROXY}/{@code HTTP_PROXY} environment variables (see {@link
     * KubeConfig#proxyUrl()}).
     */
    public Builder proxyUrl(String url) {
      this.proxyUrl = Objects.requireNonNull(url, "url");
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @throws IllegalStateException if no server was set
     * @throws KubeConfigException if the settings contradict each other (two auth methods, a
     *     client certificate without key, a CA with insecure-skip-tls-verify, a bad URL) or the
     *     token has a character an HTTP header cannot carry (a line break, say)
     */
    public KubeConfig build() {
      if (server == null) {
        throw new IllegalStateException("server(...) must be set");
      }
      AuthConfig auth =
          new AuthConfig(
              authOrigin, token, tokenFile, username, password, clientCertificate, clientKey,
              exec);
      return new KubeConfig(
          parseServer(source + ": server", server),
          namespace,
          context,
          source,
          certificateAuthority,
          insecureSkipTlsVerify,
          tlsServerName,
          proxyUrl == null ? null : parseProxy(source + ": proxyUrl", proxyUrl),
          auth);
    }

    private static byte[] bytes(String pem) {
      return Objects.requireNonNull(pem, "pem").getBytes(StandardCharsets.US_ASCII);
    }
  }
}

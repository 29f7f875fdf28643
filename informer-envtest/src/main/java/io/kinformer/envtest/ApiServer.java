package io.kinformer.envtest;

import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd and a real Kubernetes API server, started as child processes on loopback for tests.
 *
 * <p>{@link #start()} (or {@link #builder()}) generates a CA, a serving certificate for
 * 127.0.0.1, a client certificate and a bearer token of a {@code system:masters} user, starts
 * etcd with its own data directory and the API server on free loopback ports, waits until
 * {@code /healthz} answers {@code ok}, and writes two kubeconfig files into its work directory
 * (one with the token, one with the client certificate). TLS is verified against the generated
 * CA; the credentials are written to files readable by the owner only and never logged. The
 * processes' output goes to {@code etcd.log} and {@code apiserver.log} in the work directory.
 *
 * <pre>{@code
 * try (ApiServer server = ApiServer.start()) {
 *   KubeClient client = server.client();
 *   client.resources(Namespace.class).create(...);
 * }
 * }</pre>
 *
 * <p>{@link #restart()} kills the API server (as a crash would: open watches break) and starts
 * it again on the same port and etcd; {@link #compact()} compacts etcd's history at its current
 * revision. {@link #close()} closes the client, stops both processes and deletes the work
 * directory; a shutdown hook kills the processes if the JVM exits first.
 *
 * <p>Thread safety: thread-safe. {@link #restart()}, {@link #compact()} and {@link #close()}
 * are serialised on this object; {@link #client()} may be called from any thread (the client is
 * shared, see {@link KubeClient}).
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
  private static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*\"?(\\d+)");

  private final ApiServerBinaries binaries;
  private final Path workDir;
  private final boolean ownsWorkDir;
  private final List<String> extraArgs;
  private final List<String> extraEtcdArgs;
  private final Duration startTimeout;
  private final Pki pki;
  private final SSLSocketFactory tls;
  private final int etcdPort;
  private final int port;
  private final Path kubeconfig;
  private final Path certificateKubeconfig;
  private final KubeConfig kubeConfig;
  private final Thread shutdownHook;

  private final Object lock = new Object();
  // Guarded by lock; each is replaced on restart and null once closed.
  private @Nullable ChildProcess etcd;
  private @Nullable ChildProcess apiServer;
  private @Nullable KubeClient client;
  private boolean closed;

  private ApiServer(Builder b, ApiServerBinaries binaries) throws IOException {
    this.binaries = binaries;
    this.ownsWorkDir = b.workDir == null;
    this.workDir = b.workDir != null
        ? Files.createDirectories(b.workDir)
        : Files.createTempDirectory("kinformer-envtest-");
    this.extraArgs = List.copyOf(b.args);
    this.extraEtcdArgs = List.copyOf(b.etcdArgs);
    this.startTimeout = b.startTimeout;
    this.pki = Pki.generate(Files.createDirectories(workDir.resolve("pki")), Instant.now());
    this.tls = sslSocketFactory(pki.caPem);
    this.etcdPort = freePort();
    this.port = freePort();
    this.kubeconfig = workDir.resolve("kubeconfig");
    this.certificateKubeconfig = workDir.resolve("kubeconfig-client-certificate");
    writeKubeconfigs();
    this.kubeConfig = KubeConfig.load(kubeconfig);
    this.shutdownHook = new Thread(this::killProcesses, "kinformer-envtest-shutdown");
  }

  /**
   * Starts etcd and the API server found by {@link ApiServerBinaries#locate()}, with default
   * settings.
   *
   * @throws IllegalStateException when no binaries are found, or the processes do not become
   *     healthy (the message then quotes the end of the process's log)
   */
  public static ApiServer start() {
    return builder().start();
  }

  /** A builder for an API server with chosen binaries, flags or work directory. */
  public static Builder builder() {
    return new Builder();
  }

  /** The binaries this server runs. */
  public ApiServerBinaries binaries() {
    return binaries;
  }

  /** The server's URL, {@code https://127.0.0.1:<port>}. */
  public URI url() {
    return URI.create("https://127.0.0.1:" + port);
  }

  /** A kubeconfig file that authenticates with a bearer token as a {@code system:masters} user. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** A kubeconfig file that authenticates with a client certificate instead of a token. */
  public Path clientCertificateKubeconfig() {
    return certificateKubeconfig;
  }

  /** The configuration read from {@link #kubeconfig()}. */
  public KubeConfig kubeConfig() {
    return kubeConfig;
  }

  /** This server's work directory: credentials, etcd's data and the processes' logs. */
  public Path workDir() {
    return workDir;
  }

  /**
   * A client of this server, created on first use and closed by {@link #close()}; callers must
   * not close it. It survives {@link #restart()}.
   */
  public KubeClient client() {
    synchronized (lock) {
      requireOpen();
      if (client == null) {
        client = KubeClient.create(kubeConfig);
      }
      return client;
    }
  }

  /**
   * Kills the API server (SIGKILL: open watches break without a clean end, as in a crash) and
   * starts it again on the same port and etcd, returning once it is healthy. Every
   * resourceVersion a watch held is then too old for the new watch cache.
   */
  public void restart() {
    synchronized (lock) {
      requireOpen();
      if (apiServer != null) {
        apiServer.kill();
      }
      apiServer = null;
      apiServer = startApiServer();
    }
  }

  /**
   * Compacts etcd's history at its current revision (physically), and returns that revision.
   * Lists with a continue token or an exact resourceVersion older than it then fail with 410
   * where they reach etcd; what the watch cache still holds is served as before.
   */
  public long compact() {
    synchronized (lock) {
      requireOpen();
      String range = etcdPost("/v3/kv/range", "{\"key\":\"AA==\",\"limit\":1,\"keys_only\":true}");
      long revision = revisionOf(range);
      etcdPost("/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
      log.debug("compacted etcd at revision {}", revision);
      return revision;
    }
  }

  /** etcd's current revision (the cluster-wide resourceVersion). */
  public long etcdRevision() {
    synchronized (lock) {
      requireOpen();
      return revisionOf(etcdPost("/v3/kv/range", "{\"key\":\"AA==\",\"limit\":1,\"keys_only\":true}"));
    }
  }

  /**
   * Closes the client, stops the API server and etcd, and deletes the work directory if this
   * server created it. Idempotent; returns once both processes have ended.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (client != null) {
        client.close();
        client = null;
      }
      killProcesses();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // The JVM is already exiting; the hook runs or has run.
      }
      if (ownsWorkDir) {
        deleteRecursively(workDir);
      }
      log.debug("closed the API server at {}", url());
    }
  }

  @Override
  public String toString() {
    return "ApiServer{" + binaries.flavor() + " at " + url() + "}";
  }

  /** TLS that trusts this server's CA only; for tests speaking HTTP to it directly. */
  SSLSocketFactory tls() {
    return tls;
  }

  /** The bearer token of {@link #kubeconfig()}; for tests speaking HTTP to it directly. */
  String token() {
    return pki.token;
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("this API server is closed");
    }
  }

  private void startAll() {
    synchronized (lock) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
      try {
        etcd = startEtcd();
        apiServer = startApiServer();
      } catch (RuntimeException e) {
        close();
        throw e;
      }
      log.info("started {} (etcd on 127.0.0.1:{}, work dir {})", this, etcdPort, workDir);
    }
  }

  // Runs on close and from the shutdown hook; a ChildProcess tolerates concurrent stops.
  private void killProcesses() {
    ChildProcess a = apiServer;
    ChildProcess e = etcd;
    if (a != null) {
      a.kill();
    }
    if (e != null) {
      e.stop(5);
    }
  }

  private ChildProcess startEtcd() {
    String client = "http://127.0.0.1:" + etcdPort;
    int peerPort = freePort();
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> cmd = new ArrayList<>(List.of(binaries.etcd().toString(),
        "--name=envtest",
        "--data-dir=" + workDir.resolve("etcd-data"),
        "--listen-client-urls=" + client,
        "--advertise-client-urls=" + client,
        "--listen-peer-urls=" + peer,
        "--initial-advertise-peer-urls=" + peer,
        "--initial-cluster=envtest=" + peer,
        "--listen-metrics-urls=http://127.0.0.1:" + freePort(),
        "--unsafe-no-fsync=true"));
    cmd.addAll(extraEtcdArgs);
    ChildProcess p = launch("etcd", cmd, "etcd.log");
    awaitHealthy(p, () -> {
      String body = get(URI.create(client + "/health"), false);
      return body.contains("\"health\":\"true\"");
    });
    return p;
  }

  private ChildProcess startApiServer() {
    List<String> cmd = apiServerCommand(binaries, etcdPort, port, pki, workDir, extraArgs);
    ChildProcess p = launch("apiserver", cmd, "apiserver.log");
    awaitHealthy(p, () -> "ok".equals(get(url().resolve("/healthz"), true).trim()));
    return p;
  }

  /**
   * The API server's command line: the flags both flavors take, then for a stock kube-apiserver
   * those it needs besides (as envtest gives it: service accounts, a service IP range, and every
   * request allowed), then the user's.
   */
  static List<String> apiServerCommand(ApiServerBinaries binaries, int etcdPort, int port,
      Pki pki, Path workDir, List<String> extraArgs) {
    List<String> cmd = new ArrayList<>(List.of(binaries.apiServer().toString(),
        "--etcd-servers=http://127.0.0.1:" + etcdPort,
        "--bind-address=127.0.0.1",
        "--secure-port=" + port,
        "--tls-cert-file=" + pki.serverCert,
        "--tls-private-key-file=" + pki.serverKey,
        "--client-ca-file=" + pki.caCert,
        "--token-auth-file=" + pki.tokenFile,
        "--cert-dir=" + workDir.resolve("apiserver-certs")));
    if (binaries.flavor() == ApiServerBinaries.Flavor.KUBE_APISERVER) {
      cmd.addAll(List.of(
          "--advertise-address=127.0.0.1",
          "--authorization-mode=AlwaysAllow",
          "--service-account-issuer=https://127.0.0.1:" + port,
          "--service-account-key-file=" + pki.serviceAccountPublicKey,
          "--service-account-signing-key-file=" + pki.serviceAccountKey,
          "--service-cluster-ip-range=10.0.0.0/24",
          "--allow-privileged=true",
          "--disable-admission-plugins=ServiceAccount"));
    }
    cmd.addAll(extraArgs);
    return cmd;
  }

  private ChildProcess launch(String name, List<String> cmd, String logName) {
    try {
      return ChildProcess.start(name, cmd, workDir, workDir.resolve(logName));
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + cmd.get(0), e);
    }
  }

  private interface Probe {
    boolean healthy() throws IOException;
  }

  /**
   * Polls {@code probe} until it passes, the process ends or {@link Builder#startTimeout}
   * passes. A child process announces readiness only through its endpoints, so polling is the
   * only way; the interval grows from 20 ms to 250 ms.
   */
  private void awaitHealthy(ChildProcess p, Probe probe) {
    long deadline = System.nanoTime() + startTimeout.toNanos();
    long pauseMillis = 20;
    IOException last = null;
    while (true) {
      if (!p.isAlive()) {
        throw new IllegalStateException(p.name() + " exited during start-up; its log ends with:\n"
            + tail(p.logFile()));
      }
      try {
        if (probe.healthy()) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        p.kill();
        IllegalStateException failure = new IllegalStateException(p.name() + " not healthy within "
            + startTimeout + "; its log ends with:\n" + tail(p.logFile()));
        if (last != null) {
          failure.addSuppressed(last);
        }
        throw failure;
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.kill();
        throw new IllegalStateException("interrupted while starting " + p.name(), e);
      }
      pauseMillis = Math.min(250, pauseMillis * 2);
    }
  }

  private static String tail(Path logFile) {
    try {
      List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  /** GET over TLS verified against our CA (with the token), or plain HTTP to etcd. */
  private String get(URI uri, boolean authenticated) throws IOException {
    HttpURLConnection c = open(uri, authenticated);
    try {
      int code = c.getResponseCode();
      try (InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream()) {
        String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return code == 200 ? body : "";
      }
    } finally {
      c.disconnect();
    }
  }

  private String etcdPost(String path, String json) {
    try {
      HttpURLConnection c = open(URI.create("http://127.0.0.1:" + etcdPort + path), false);
      try {
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        try (OutputStream out = c.getOutputStream()) {
          out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        int code = c.getResponseCode();
        try (InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream()) {
          String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
          if (code != 200) {
            throw new IllegalStateException("etcd " + path + ": HTTP " + code + ": " + body);
          }
          return body;
        }
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("etcd " + path, e);
    }
  }

  private static long revisionOf(String etcdResponse) {
    Matcher m = REVISION.matcher(etcdResponse);
    if (!m.find()) {
      throw new IllegalStateException("no revision in etcd's answer: " + etcdResponse);
    }
    return Long.parseLong(m.group(1));
  }

  private HttpURLConnection open(URI uri, boolean authenticated) throws IOException {
    URL url = uri.toURL();
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    if (c instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls);
    }
    if (authenticated) {
      c.setRequestProperty("Authorization", "Bearer " + pki.token);
    }
    c.setRequestProperty("Connection", "close");
    c.setConnectTimeout(2_000);
    c.setReadTimeout(10_000);
    return c;
  }

  private static SSLSocketFactory sslSocketFactory(String caPem) {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx.getSocketFactory();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot trust the generated CA", e);
    }
  }

  private void writeKubeconfigs() throws IOException {
    String common = "apiVersion: v1\nkind: Config\n"
        + "clusters:\n- name: envtest\n  cluster:\n    server: " + url() + "\n"
        + "    certificate-authority: " + pki.caCert + "\n"
        + "contexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: envtest\n"
        + "    namespace: default\n"
        + "current-context: envtest\n";
    writeOwnerOnly(kubeconfig, common
        + "users:\n- name: envtest\n  user:\n    token: " + pki.token + "\n");
    writeOwnerOnly(certificateKubeconfig, common
        + "users:\n- name: envtest\n  user:\n"
        + "    client-certificate: " + pki.clientCert + "\n"
        + "    client-key: " + pki.clientKey + "\n");
  }

  private static void writeOwnerOnly(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    try {
      Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, content);
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.debug("cannot delete {}", dir, e);
    }
  }

  /**
   * Settings of an {@link ApiServer}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private @Nullable ApiServerBinaries binaries;
    private @Nullable Path workDir;
    private final List<String> args = new ArrayList<>();
    private final List<String> etcdArgs = new ArrayList<>();
    private Duration startTimeout = Duration.ofSeconds(90);

    private Builder() {}

    /** The binaries to run; by default those {@link ApiServerBinaries#locate()} finds. */
    public Builder binaries(ApiServerBinaries binaries) {
      this.binaries = Objects.requireNonNull(binaries, "binaries");
      return this;
    }

    /**
     * A work directory to use (and keep) instead of a fresh temporary one that {@link #close()}
     * deletes.
     */
    public Builder workDir(Path dir) {
      this.workDir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Adds flags for the API server, after the launcher's own (so they win where a flag may be
     * repeated), for example {@code --feature-gates=ListFromCacheSnapshot=false} or
     * {@code --watch-cache=false}.
     */
    public Builder args(String... flags) {
      for (String f : flags) {
        args.add(Objects.requireNonNull(f, "flag"));
      }
      return this;
    }

    /** Adds flags for etcd, for example {@code --auto-compaction-retention=...}. */
    public Builder etcdArgs(String... flags) {
      for (String f : flags) {
        etcdArgs.add(Objects.requireNonNull(f, "flag"));
      }
      return this;
    }

    /** How long each process may take to become healthy; 90 s by default. */
    public Builder startTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive: " + timeout);
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Starts etcd and the API server and returns once both are healthy.
     *
     * @throws IllegalStateException when no binaries are given or found, or a process fails
     *     to become healthy
     */
    public ApiServer start() {
      ApiServerBinaries b = binaries != null
          ? binaries
          : ApiServerBinaries.locate().orElseThrow(
              () -> new IllegalStateException(ApiServerBinaries.notFoundReason()));
      ApiServer server;
      try {
        server = new ApiServer(this, b);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot prepare the API server's work directory", e);
      }
      server.startAll();
      return server;
    }
  }
}

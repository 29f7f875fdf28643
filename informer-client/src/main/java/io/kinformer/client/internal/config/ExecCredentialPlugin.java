package io.kinformer.client.internal.config;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs a client-go credential plugin ({@code user.exec}) and caches its token, after client-go's
 * {@code plugin/pkg/client/auth/exec/exec.go}:
 *
 * <ul>
 *   <li>the command runs with the inherited environment plus the configured {@code env} and {@code
 *       KUBERNETES_EXEC_INFO}, an {@code ExecCredential} of the configured apiVersion ({@code
 *       client.authentication.k8s.io/v1} or {@code v1beta1}) whose {@code spec.interactive} is
 *       false (kinformer never hands the plugin a terminal; stdin is closed at once) and, with
 *       {@code provideClusterInfo}, whose {@code spec.cluster} describes the server;
 *   <li>the plugin's stdout must be an {@code ExecCredential} of the same apiVersion with {@code
 *       status.token}; the token is cached until {@code status.expirationTimestamp} (for ever
 *       without one) and fetched anew after a 401 unless another caller already did;
 *   <li>stderr passes through to the process's stderr, as in client-go;
 *   <li>a plugin may return a client certificate and key ({@code status.clientCertificateData}
 *       and {@code clientKeyData}, PEM) instead of a token, or beside one: the client's TLS
 *       handshakes then present them ({@code ExecClientKeyManager}), fetched anew once they
 *       expire, as client-go's {@code GetClientCertificate} callback does; a certificate without
 *       its key, or the reverse, is refused.
 * </ul>
 *
 * <p>A plugin that has not finished within {@link ClientOptions#execTimeout()} (60 s by default;
 * client-go waits for ever) is killed, with whatever it started, and logged at WARN; the request
 * that needed it fails, so an informer reports it to its watch error handler and retries after its
 * backoff. A plugin still running when the client is closed is killed by {@code close()}, and one
 * still running when the JVM exits is killed by a shutdown hook, so that none outlives the
 * process.
 *
 * <p>Errors name the kubeconfig field and the command, include the {@code installHint} and never
 * the plugin's output (it holds the token).
 *
 * <p>Thread safety: thread-safe. {@link #lock} guards the cache and is held while the plugin runs,
 * so concurrent callers wait for one run instead of starting several (client-go's mutex does the
 * same).
 */
public final class ExecCredentialPlugin implements AuthTokenSource {

  private static final Logger log = LoggerFactory.getLogger(ExecCredentialPlugin.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ExecConfig config;
  private final KubeConfig cluster;
  private final Clock clock;
  /** The most a plugin may print: an ExecCredential is a few KiB; anything far larger is a bug. */
  static final int MAX_OUTPUT_BYTES = 1024 * 1024;

  private final ReentrantLock lock = new ReentrantLock();
  private final Duration timeout;
  private volatile boolean closed;
  /** The plugin run in progress, for close(). */
  private volatile @Nullable Process running;

  // @GuardedBy("lock"): null until the first successful run.
  private @Nullable String token;
  // @GuardedBy("lock"): null when the token does not expire.
  private @Nullable Instant expiry;
  // @GuardedBy("lock"): the client certificate and key (PEM) of the last run, or null.
  private @Nullable String certificatePem;
  // @GuardedBy("lock")
  private @Nullable String keyPem;
  // @GuardedBy("lock"): whether the last successful run answered at all (with either kind).
  private boolean answered;
  // @GuardedBy("lock"): a run replaced the certificate; certificateChanged is to be told.
  private boolean certificateReplaced;
  /** Told, with no lock held, after a run replaced the client certificate. */
  private volatile Runnable certificateChanged = () -> { };

  ExecCredentialPlugin(ExecConfig config, KubeConfig cluster, Clock clock, Duration timeout) {
    this.config = config;
    this.cluster = cluster;
    this.clock = clock;
    this.timeout = timeout;
  }

  /** Kills a plugin that is running; later calls fail. */
  @Override
  public void close() {
    closed = true;
    Process p = running;
    if (p != null) {
      kill(p);
    }
  }

  /**
   * Who is told after a run replaced the client certificate (the TLS setup, which must then stop
   * new connections from resuming sessions of the old one).
   */
  public void onCertificateChange(Runnable listener) {
    this.certificateChanged = listener;
  }

  /** Releases the lock, then tells the listener if a run replaced the certificate. */
  private void unlockAndNotify() {
    boolean replaced = certificateReplaced;
    certificateReplaced = false;
    lock.unlock();
    if (replaced) {
      certificateChanged.run();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new KubeConfigException(
          config.origin() + ": exec: the client is closed; " + config.command() + " is not run");
    }
  }

  @Override
  public @Nullable String token() {
    lockInterruptibly();
    try {
      requireOpen();
      if (!answered || expired()) {
        runLocked();
      }
      return token;
    } finally {
      unlockAndNotify();
    }
  }

  /**
   * The client certificate and key (PEM) to present now, running the plugin if it has not answered
   * or its credential expired; null if it answers with a token only.
   *
   * @throws KubeConfigException if the plugin fails
   */
  @Nullable
  public ClientCertificate clientCertificate() {
    lockInterruptibly();
    try {
      requireOpen();
      if (!answered || expired()) {
        runLocked();
      }
      return certificatePem == null || keyPem == null
          ? null : new ClientCertificate(certificatePem, keyPem);
    } finally {
      unlockAndNotify();
    }
  }

  /** A certificate chain and its private key, in PEM. */
  public record ClientCertificate(String certificatePem, String keyPem) {
    @Override
    public String toString() {
      return "ClientCertificate[key withheld]";
    }
  }

  private boolean expired() {
    assert lock.isHeldByCurrentThread();
    return expiry != null && !clock.now().isBefore(expiry);
  }

  @Override
  public boolean refreshAfterUnauthorized(String rejected) {
    lockInterruptibly();
    try {
      requireOpen();
      if (token != null && !token.equals(rejected)) {
        return true; // someone else rotated it already
      }
      runLocked();
      return token != null && !token.equals(rejected);
    } finally {
      unlockAndNotify();
    }
  }

  /**
   * Waits for another thread's run of the plugin, but gives up when interrupted (a reflector being
   * closed interrupts its thread): a plugin that hangs must not pin every caller.
   */
  private void lockInterruptibly() {
    try {
      lock.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeConfigException(
          config.origin() + ": exec: interrupted while waiting for another run of "
              + config.command(), e);
    }
  }

  /** Runs the plugin and caches what it answered. */
  private void runLocked() {
    assert lock.isHeldByCurrentThread();
    List<String> commandLine = new ArrayList<>();
    commandLine.add(config.command());
    commandLine.addAll(config.args());
    ProcessBuilder builder = new ProcessBuilder(commandLine);
    builder.environment().putAll(config.env());
    builder.environment().put("KUBERNETES_EXEC_INFO", execInfo());
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    log.debug("{}: running credential plugin {}", config.origin(), config.command());
    byte[] stdout;
    int exit;
    Process process;
    try {
      process = LiveProcesses.start(builder);
    } catch (IOException e) {
      throw new KubeConfigException(
          config.origin() + ": exec: executable " + config.command() + " not found or not"
              + " runnable (" + e.getClass().getSimpleName() + ")" + hint(),
          e);
    }
    running = process;
    try {
      if (closed) {
        kill(process); // closed between the check and the start
      }
      // Nothing to say on stdin: the plugin is never interactive here.
      process.getOutputStream().close();
      // Read on a thread of its own, so that this thread waits interruptibly: a stream read
      // ignores interrupts, and a plugin that hangs would then pin this thread (and, through the
      // lock, every other caller) even while its reflector is being closed.
      CompletableFuture<byte[]> output = readOutput(process);
      long deadline = System.nanoTime() + timeout.toNanos();
      if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw timedOut(process);
      }
      // Its output may be held open by a process it started: wait for that only until the end.
      stdout = output.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      exit = process.exitValue();
    } catch (TimeoutException e) {
      throw timedOut(process);
    } catch (IOException e) {
      kill(process);
      throw new KubeConfigException(
          config.origin() + ": exec: reading the output of " + config.command() + " failed", e);
    } catch (ExecutionException e) {
      kill(process);
      Throwable cause = e.getCause();
      if (cause instanceof KubeConfigException k) {
        throw k;
      }
      throw new KubeConfigException(
          config.origin() + ": exec: reading the output of " + config.command() + " failed",
          cause);
    } catch (InterruptedException e) {
      kill(process);
      Thread.currentThread().interrupt();
      throw new KubeConfigException(
          config.origin() + ": exec: interrupted while waiting for " + config.command(), e);
    } finally {
      running = null;
      LiveProcesses.remove(process);
    }
    if (closed) {
      throw new KubeConfigException(config.origin() + ": exec: the client was closed while "
          + config.command() + " ran; it was killed");
    }
    if (exit != 0) {
      throw new KubeConfigException(
          config.origin() + ": exec: executable " + config.command() + " failed with exit code "
              + exit + hint());
    }
    accept(stdout);
  }

  /** Reads the plugin's standard output, at most {@link #MAX_OUTPUT_BYTES}, on a new thread. */
  private CompletableFuture<byte[]> readOutput(Process process) {
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (InputStream in = process.getInputStream()) {
        byte[] bytes = in.readNBytes(MAX_OUTPUT_BYTES + 1);
        if (bytes.length > MAX_OUTPUT_BYTES) {
          kill(process);
          result.completeExceptionally(new KubeConfigException(
              config.origin() + ": exec: " + config.command() + " printed more than "
                  + MAX_OUTPUT_BYTES / 1024 + " KiB; an ExecCredential is far smaller"));
          return;
        }
        result.complete(bytes);
      } catch (IOException | RuntimeException e) {
        result.completeExceptionally(e);
      }
    }, "kinformer-exec-plugin-output");
    reader.setDaemon(true);
    reader.start();
    return result;
  }

  /** Kills a plugin that ran out of time, and says so. */
  private KubeConfigException timedOut(Process process) {
    kill(process);
    String message = config.origin() + ": exec: " + config.command() + " did not finish within "
        + describe(timeout) + " and was killed; requests that need its credentials fail until"
        + " it answers in time. Check that it runs without a terminal and can reach what it needs,"
        + " or raise ClientOptions.execTimeout" + hint();
    log.warn("{}", message);
    return new KubeConfigException(message);
  }

  private static String describe(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /**
   * The plugins running in this JVM, killed by a shutdown hook: a child process otherwise outlives
   * the JVM that started it.
   */
  private static final class LiveProcesses {
    private static final Set<Process> LIVE = new HashSet<>();
    /** Set by the shutdown hook; no plugin starts after it. */
    private static boolean exiting;

    static {
      Runtime.getRuntime().addShutdownHook(
          new Thread(LiveProcesses::killAll, "kinformer-exec-plugin-reaper"));
    }

    /**
     * Starts the plugin and records it in one step, so that a JVM exit between the two cannot
     * leave it running: the hook waits for a start in progress, then kills what was recorded.
     */
    static synchronized Process start(ProcessBuilder builder) throws IOException {
      if (exiting) {
        throw new IOException("the JVM is exiting");
      }
      Process p = builder.start();
      LIVE.add(p);
      return p;
    }

    static synchronized void remove(Process p) {
      LIVE.remove(p);
    }

    private static synchronized void killAll() {
      exiting = true;
      LIVE.forEach(ExecCredentialPlugin::kill);
    }
  }


  /** Ends the plugin and whatever it started, which could otherwise hold its output open. */
  private static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private void accept(byte[] stdout) {
    assert lock.isHeldByCurrentThread();
    String what = config.origin() + ": exec: " + config.command();
    JsonNode root;
    try {
      root = JSON.readTree(stdout);
    } catch (JacksonException e) {
      // Never the output itself nor the parser's message: both may quote the token.
      throw new KubeConfigException(what + ": output is not a JSON ExecCredential");
    }
    if (root == null || !root.isObject()) {
      throw new KubeConfigException(what + ": output is not a JSON ExecCredential");
    }
    String apiVersion = root.path("apiVersion").asString("");
    if (!apiVersion.equals(config.apiVersion())) {
      throw new KubeConfigException(
          what + ": exec plugin is configured to use API version " + config.apiVersion()
              + ", plugin returned version " + (apiVersion.isEmpty() ? "(none)" : apiVersion));
    }
    if (!root.path("kind").asString("").equals("ExecCredential")) {
      throw new KubeConfigException(what + ": output kind is not ExecCredential");
    }
    JsonNode status = root.get("status");
    if (status == null || !status.isObject()) {
      throw new KubeConfigException(what + ": exec plugin didn't return a status field");
    }
    String newToken = status.path("token").asString("");
    String cert = status.path("clientCertificateData").asString("");
    String key = status.path("clientKeyData").asString("");
    if (cert.isEmpty() != key.isEmpty()) {
      throw new KubeConfigException(what + ": exec plugin returned "
          + (cert.isEmpty() ? "clientKeyData without clientCertificateData"
              : "clientCertificateData without clientKeyData"));
    }
    if (newToken.isEmpty() && cert.isEmpty()) {
      throw new KubeConfigException(what + ": exec plugin didn't return a token or certificate");
    }
    if (!newToken.isEmpty()) {
      String problem = AuthConfig.headerValueProblem(newToken);
      if (problem != null) {
        // client-go would pass it on and Go's HTTP client refuse it; say which plugin is at fault.
        throw new KubeConfigException(what + ": status.token " + problem);
      }
    }
    Instant newExpiry = null;
    String exp = status.path("expirationTimestamp").asString("");
    if (!exp.isEmpty()) {
      try {
        newExpiry = OffsetDateTime.parse(exp).toInstant();
      } catch (DateTimeParseException e) {
        throw new KubeConfigException(
            what + ": status.expirationTimestamp is not an RFC 3339 time: " + exp);
      }
    }
    token = newToken.isEmpty() ? null : newToken;
    if (certificatePem != null && !certificatePem.equals(cert)) {
      certificateReplaced = true;
    }
    certificatePem = cert.isEmpty() ? null : cert;
    keyPem = key.isEmpty() ? null : key;
    expiry = newExpiry;
    answered = true;
    log.debug("{}: got {}{}", what,
        token != null && certificatePem != null ? "a token and a client certificate"
            : token != null ? "a token" : "a client certificate",
        newExpiry == null ? " without expiry" : " expiring at " + newExpiry);
  }

  private String hint() {
    String h = config.installHint();
    return h == null || h.isBlank() ? "" : "\n\n" + h.strip();
  }

  /** The {@code KUBERNETES_EXEC_INFO} ExecCredential: spec.interactive and maybe spec.cluster. */
  private String execInfo() {
    ObjectNode info = JSON.createObjectNode();
    info.put("apiVersion", config.apiVersion());
    info.put("kind", "ExecCredential");
    ObjectNode spec = info.putObject("spec");
    spec.put("interactive", false);
    if (config.provideClusterInfo()) {
      ObjectNode c = spec.putObject("cluster");
      c.put("server", cluster.server().toString());
      cluster.tlsServerName().ifPresent(n -> c.put("tls-server-name", n));
      if (cluster.insecureSkipTlsVerify()) {
        c.put("insecure-skip-tls-verify", true);
      }
      PemSource ca = KubeConfigAccess.certificateAuthority(cluster);
      if (ca != null) {
        c.put("certificate-authority-data", Base64.getEncoder().encodeToString(ca.read()));
      }
      cluster.proxyUrl().ifPresent(p -> c.put("proxy-url", p.toString()));
    }
    return JSON.writeValueAsString(info);
  }

  @Override
  public String toString() {
    return "ExecCredentialPlugin{" + config.origin() + ": " + Objects.toString(config.command())
        + "}";
  }
}

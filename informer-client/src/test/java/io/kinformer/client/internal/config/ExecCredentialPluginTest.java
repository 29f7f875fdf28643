package io.kinformer.client.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.ReflectorException;
import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeClientTest;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.client.LogCapture;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.client.TlsFixtures;
import io.kinformer.client.internal.tls.PemReaderTest;
import io.kinformer.time.Backoff;
import io.kinformer.time.testing.FakeClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import okhttp3.tls.HeldCertificate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Runs a real credential plugin: a small shell script the test writes. */
@DisabledOnOs(OS.WINDOWS)
class ExecCredentialPluginTest {

  static final String HINT = "Install plugin.sh from https://example.invalid/plugin";

  /**
   * Counts its runs in $STATE_DIR/count, records KUBERNETES_EXEC_INFO and its arguments, and
   * answers as $MODE says with token exec-secret-token-<run>.
   */
  static final String PLUGIN =
      """
      #!/bin/sh
      dir="$STATE_DIR"
      n=$(cat "$dir/count" 2>/dev/null || echo 0)
      n=$((n+1))
      echo "$n" > "$dir/count"
      printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/exec-info.json"
      printf '%s\\n' "$@" > "$dir/args"
      if [ -n "$EXPIRY" ]; then exp=",\\"expirationTimestamp\\":\\"$EXPIRY\\""; else exp=""; fi
      case "$MODE" in
        fail) echo "plugin: you must log in first" >&2; exit 3 ;;
        cert) printf '{"apiVersion":"%s","kind":"ExecCredential",\
      "status":{"clientCertificateData":"c","clientKeyData":"k"}}' "$API" ;;
        garbage) echo "not json exec-secret-token-$n" ;;
        hang) echo $$ > "$dir/pid"; exec sleep 120 ;;
        big) head -c 2000000 /dev/zero | tr '\\0' a ;;
        newline) printf '{"apiVersion":"%s","kind":"ExecCredential",\
      "status":{"token":"exec-secret-token-%s\\\\n"}}' "$API" "$n" ;;
        wrongversion) printf '{"apiVersion":"client.authentication.k8s.io/v1alpha1",\
      "kind":"ExecCredential","status":{"token":"exec-secret-token-%s"}}' "$n" ;;
        *) printf '{"apiVersion":"%s","kind":"ExecCredential",\
      "status":{"token":"exec-secret-token-%s"%s}}' "$API" "$n" "$exp" ;;
      esac
      """;

  private static final HeldCertificate CA = TlsFixtures.ca("exec-test-ca");

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(); // 2026-01-01T00:00:00Z
  // HTTPS: a kubeconfig user's credentials are never sent to a plain HTTP server.
  private final MockWebServer server =
      TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "kube.internal"), CA);

  @AfterEach
  void stop() {
    server.close();
  }

  private KubeClient client(String apiVersion, String mode, String expiry) throws IOException {
    return KubeClient.create(config(apiVersion, mode, expiry, "./plugin.sh"),
        ClientOptions.builder().clock(clock).build());
  }

  private KubeConfig config(String apiVersion, String mode, String expiry, String command)
      throws IOException {
    Path plugin = Files.writeString(dir.resolve("plugin.sh"), PLUGIN);
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
    String yaml =
        """
        apiVersion: v1
        kind: Config
        current-context: ctx
        clusters:
        - name: c
          cluster:
            server: %s
            tls-server-name: kube.internal
            certificate-authority-data: %s
        users:
        - name: u
          user:
            exec:
              apiVersion: %s
              command: %s
              args: ["--cluster", "prod"]
              interactiveMode: Never
              provideClusterInfo: true
              installHint: "%s"
              env:
              - {name: STATE_DIR, value: "%s"}
              - {name: MODE, value: "%s"}
              - {name: API, value: "%s"}
              - {name: EXPIRY, value: "%s"}
        contexts:
        - name: ctx
          context: {cluster: c, user: u}
        """
            .formatted(TlsFixtures.url(server, true), TlsFixtures.base64(CA.certificatePem()),
                apiVersion, command, HINT, dir, mode, apiVersion, expiry);
    return KubeConfig.load(Files.writeString(dir.resolve("config"), yaml));
  }

  private int runs() throws IOException {
    Path count = dir.resolve("count");
    return Files.exists(count) ? Integer.parseInt(Files.readString(count).strip()) : 0;
  }

  private String sentToken() throws InterruptedException {
    return server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization");
  }

  private void enqueue(int... codes) {
    for (int code : codes) {
      server.enqueue(new MockResponse(code, Headers.of(), "{}"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {ExecConfig.V1, ExecConfig.V1BETA1})
  void request_withExecPlugin_sendsItsTokenAndGivesItExecInfo(String apiVersion)
      throws Exception {
    enqueue(200);
    try (KubeClient client = client(apiVersion, "ok", "")) {
      KubeClientTest.get(client, "/api").close();
    }

    assertThat(sentToken()).isEqualTo("Bearer exec-secret-token-1");
    assertThat(Files.readAllLines(dir.resolve("args"))).containsExactly("--cluster", "prod");
    JsonNode info = JsonMapper.builder().build().readTree(dir.resolve("exec-info.json").toFile());
    assertThat(info.path("apiVersion").asString()).isEqualTo(apiVersion);
    assertThat(info.path("kind").asString()).isEqualTo("ExecCredential");
    assertThat(info.path("spec").path("interactive").booleanValue()).isFalse();
    assertThat(info.path("spec").path("cluster").path("server").asString())
        .isEqualTo(TlsFixtures.url(server, true));
    assertThat(info.path("spec").path("cluster").path("tls-server-name").asString())
        .isEqualTo("kube.internal");
  }

  @Test
  void request_withExpiringToken_reusesItUntilExpiryThenRerunsThePlugin() throws Exception {
    enqueue(200, 200, 200);
    try (KubeClient client = client(ExecConfig.V1, "ok", "2026-01-01T00:10:00Z")) {
      KubeClientTest.get(client, "/a").close();
      clock.advance(Duration.ofMinutes(9));
      KubeClientTest.get(client, "/b").close();
      assertThat(runs()).isEqualTo(1);

      clock.advance(Duration.ofMinutes(2));
      KubeClientTest.get(client, "/c").close();
    }

    assertThat(runs()).isEqualTo(2);
    assertThat(List.of(sentToken(), sentToken(), sentToken()))
        .containsExactly("Bearer exec-secret-token-1", "Bearer exec-secret-token-1",
            "Bearer exec-secret-token-2");
  }

  @Test
  void request_withTokenWithoutExpiry_keepsIt() throws Exception {
    enqueue(200, 200);
    try (KubeClient client = client(ExecConfig.V1, "ok", "")) {
      KubeClientTest.get(client, "/a").close();
      clock.advance(Duration.ofDays(10));
      KubeClientTest.get(client, "/b").close();
    }

    assertThat(runs()).isEqualTo(1);
  }

  @Test
  void request_answered401_rerunsThePluginAndRetriesOnce() throws Exception {
    enqueue(200, 401, 200, 401, 401);
    try (KubeClient client = client(ExecConfig.V1BETA1, "ok", "")) {
      KubeClientTest.get(client, "/a").close();

      assertThat(KubeClientTest.get(client, "/b").code()).isEqualTo(200);
      assertThat(runs()).isEqualTo(2);

      // A fresh token that is rejected as well is not retried again and again.
      assertThat(KubeClientTest.get(client, "/c").code()).isEqualTo(401);
    }

    assertThat(List.of(sentToken(), sentToken(), sentToken(), sentToken(), sentToken()))
        .containsExactly(
            "Bearer exec-secret-token-1",
            "Bearer exec-secret-token-1",
            "Bearer exec-secret-token-2",
            "Bearer exec-secret-token-2",
            "Bearer exec-secret-token-3");
    assertThat(server.getRequestCount()).isEqualTo(5);
  }

  @Test
  void request_whenPluginFails_failsWithExitCodeAndInstallHint() throws Exception {
    try (KubeClient client = client(ExecConfig.V1, "fail", "")) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/a"))
          .isInstanceOf(IOException.class)
          .cause()
          .isInstanceOf(KubeConfigException.class)
          .hasMessageContaining("users[u].user.exec: exec: executable ")
          .hasMessageContaining("plugin.sh failed with exit code 3")
          .hasMessageEndingWith(HINT);
    }
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void request_whenPluginHangs_anInterruptEndsTheWaitAndThePlugin() throws Exception {
    // A reflector being closed interrupts its thread; a hung plugin must not outlive that.
    try (KubeClient client = client(ExecConfig.V1, "hang", "")) {
      CompletableFuture<Throwable> failure = new CompletableFuture<>();
      Thread caller = callInBackground(client, failure);
      long pid = hangingPluginPid();

      caller.interrupt();

      assertThat(failure.get(10, TimeUnit.SECONDS))
          .isNotNull()
          .hasStackTraceContaining("interrupted while waiting for");
      awaitDead(pid);
    }
  }

  /** Requests {@code /api} on a new thread, completing {@code failure} with what it threw. */
  private static Thread callInBackground(KubeClient client, CompletableFuture<Throwable> failure) {
    Thread caller = new Thread(() -> {
      try {
        KubeClientTest.get(client, "/api").close();
        failure.complete(null);
      } catch (Throwable t) {
        failure.complete(t);
      }
    });
    caller.start();
    return caller;
  }

  /** Waits until the hanging plugin has written its pid, and returns it. */
  private long hangingPluginPid() throws IOException {
    Path pidFile = dir.resolve("pid");
    Awaitility.await().until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
    return Long.parseLong(Files.readString(pidFile).strip());
  }

  private static void awaitDead(long pid) {
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(
        () -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == false);
  }

  @Test
  void request_whenPluginHangs_isKilledAfterTheTimeoutWithAWarn() throws Exception {
    KubeConfig config = config(ExecConfig.V1, "hang", "", "./plugin.sh");
    try (KubeClient client = KubeClient.create(config,
        ClientOptions.builder().clock(clock).execTimeout(Duration.ofMillis(300)).build())) {
      String[] log = new String[1];

      log[0] = LogCapture.stderrOf(() -> assertThatThrownBy(
              () -> KubeClientTest.get(client, "/api").close())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("plugin.sh did not finish within 300 ms and was killed")
          .hasMessageContaining("ClientOptions.execTimeout")
          .hasMessageContaining(HINT));

      assertThat(log[0]).contains("WARN").contains("did not finish within 300 ms");
      awaitDead(hangingPluginPid());
      assertThat(server.getRequestCount()).isZero();
    }
  }

  @Test
  void informer_whenPluginHangs_reportsTheTimeoutToItsWatchErrorHandler() throws Exception {
    KubeConfig config = config(ExecConfig.V1, "hang", "", "./plugin.sh");
    List<ReflectorException> errors = new CopyOnWriteArrayList<>();
    String log = LogCapture.stderrOf(() -> {
      try (KubeClient client = KubeClient.create(config,
              ClientOptions.builder().execTimeout(Duration.ofMillis(200)).build());
          SharedInformerFactory factory = SharedInformerFactory.builder(client)
              .backoff(Backoff.Policy.exponential(Duration.ofMillis(10), Duration.ofMillis(10), 1,
                  0, Duration.ofMinutes(1)))
              .watchErrorHandler(errors::add)
              .build()) {
        factory.informerFor(ConfigMap.class);
        factory.start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> errors.size() >= 2);
        assertThat(factory.informers().values()).allMatch(i -> !i.hasSynced());
      }
    });

    assertThat(errors.get(0)).hasStackTraceContaining("did not finish within 200 ms");
    assertThat(log).contains("WARN").contains("did not finish within 200 ms");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void close_whilePluginHangs_killsItAndFailsTheRequest() throws Exception {
    KubeClient client = client(ExecConfig.V1, "hang", "");
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    callInBackground(client, failure);
    long pid = hangingPluginPid();

    client.close();

    awaitDead(pid);
    assertThat(failure.get(30, TimeUnit.SECONDS)).isNotNull();
    assertThatThrownBy(() -> KubeClientTest.get(client, "/api")).isNotNull();
  }

  @Test
  void jvmExit_whilePluginHangs_killsIt() throws Exception {
    config(ExecConfig.V1, "hang", "", "./plugin.sh");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        ExecPluginExitChild.class.getName(), dir.resolve("config").toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("child-output").toFile())
        .start();
    try {
      long pid = hangingPluginPid();
      Files.writeString(dir.resolve("exit-now"), "");

      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as(Files.readString(dir.resolve("child-output"))).isZero();
      awaitDead(pid);
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void request_whenPluginPrintsMegabytes_failsNamingTheLimit() throws Exception {
    try (KubeClient client = client(ExecConfig.V1, "big", "")) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/api"))
          .hasStackTraceContaining("printed more than 1024 KiB");
    }
  }

  @Test
  void request_whenPluginIsMissing_failsWithInstallHint() throws Exception {
    KubeConfig config = config(ExecConfig.V1, "ok", "", "no-such-kinformer-plugin");
    try (KubeClient client = KubeClient.create(config)) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/a"))
          .cause()
          .isInstanceOf(KubeConfigException.class)
          .hasMessageContaining("exec: executable no-such-kinformer-plugin not found")
          .hasMessageEndingWith(HINT);
    }
  }

  @Test
  void request_whenPluginPrintsGarbage_failsWithoutQuotingIt() throws Exception {
    try (KubeClient client = client(ExecConfig.V1, "garbage", "")) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/a"))
          .cause()
          .hasMessageEndingWith("output is not a JSON ExecCredential")
          .satisfies(e -> assertThat(PemReaderTest.throwableText(e))
              .doesNotContain("exec-secret-token"));
    }
  }

  @Test
  void request_whenPluginsTokenEndsWithANewline_failsNamingThePluginNotTheToken()
      throws Exception {
    try (KubeClient client = client(ExecConfig.V1, "newline", "")) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/a"))
          .isInstanceOf(IOException.class)
          .cause()
          .isInstanceOf(KubeConfigException.class)
          .hasMessageContaining("users[u].user.exec: exec: ")
          .hasMessageEndingWith("plugin.sh: status.token ends with a line break, which cannot be"
              + " sent in an HTTP header")
          .satisfies(e -> assertThat(PemReaderTest.throwableText(e))
              .doesNotContain("exec-secret-token"));
    }
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void request_whenPluginAnswersAnotherVersion_failsNamingBoth() throws Exception {
    try (KubeClient client = client(ExecConfig.V1, "wrongversion", "")) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/a"))
          .cause()
          .hasMessageContaining("exec plugin is configured to use API version "
              + ExecConfig.V1 + ", plugin returned version client.authentication.k8s.io/v1alpha1")
          .satisfies(e -> assertThat(PemReaderTest.throwableText(e))
              .doesNotContain("exec-secret-token"));
    }
  }

  @Test
  void load_withInteractiveModeAlways_explainsThatThereIsNoTerminal() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("always"),
            """
            current-context: ctx
            clusters: [{name: c, cluster: {server: "https://h"}}]
            users:
            - name: u
              user:
                exec: {apiVersion: client.authentication.k8s.io/v1, command: p,
                       interactiveMode: Always}
            contexts: [{name: ctx, context: {cluster: c, user: u}}]
            """);

    assertThatThrownBy(() -> KubeConfig.load(file))
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("users[u].user.exec.interactiveMode: Always needs a terminal");
  }
}

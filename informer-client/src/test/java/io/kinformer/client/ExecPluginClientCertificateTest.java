package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.internal.config.ExecConfig;
import io.kinformer.time.testing.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An exec credential plugin that returns a client certificate and key instead of a token: the
 * client presents them in its TLS handshakes (the server requires a client certificate here), runs
 * the plugin again once they expire, and sends no Authorization header.
 */
@DisabledOnOs(OS.WINDOWS)
class ExecPluginClientCertificateTest {

  private static final HeldCertificate CA = TlsFixtures.ca("exec-cert-test-ca");
  private static final HeldCertificate CLIENT_CA = TlsFixtures.ca("exec-cert-test-client-ca");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Counts its runs and prints $STATE_DIR/credential.json. */
  private static final String PLUGIN = """
      #!/bin/sh
      n=$(cat "$STATE_DIR/count" 2>/dev/null || echo 0)
      echo $((n+1)) > "$STATE_DIR/count"
      cat "$STATE_DIR/credential.json"
      """;

  @TempDir Path dir;
  @RegisterExtension final LogCapture log = new LogCapture();
  private final FakeClock clock = new FakeClock();
  private MockWebServer server;

  @BeforeEach
  void start() {
    server = TlsFixtures.httpsServer(
        TlsFixtures.serverCertificate(CA, "kube.internal"), CA, CLIENT_CA);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static HeldCertificate clientCertificate(String name) {
    return new HeldCertificate.Builder().commonName(name).signedBy(CLIENT_CA).build();
  }

  /** What the plugin prints next. */
  private void answer(String cert, String key, Instant expiry) throws Exception {
    ObjectNode root = JSON.createObjectNode();
    root.put("apiVersion", ExecConfig.V1);
    root.put("kind", "ExecCredential");
    ObjectNode status = root.putObject("status");
    status.put("clientCertificateData", cert);
    status.put("clientKeyData", key);
    if (expiry != null) {
      status.put("expirationTimestamp", expiry.toString());
    }
    Files.writeString(dir.resolve("credential.json"), JSON.writeValueAsString(root));
  }

  private void answer(HeldCertificate c, Instant expiry) throws Exception {
    answer(c.certificatePem(), c.privateKeyPkcs8Pem(), expiry);
  }

  private KubeClient client() throws Exception {
    Path plugin = Files.writeString(dir.resolve("plugin.sh"), PLUGIN);
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
    String yaml = """
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
              command: ./plugin.sh
              interactiveMode: Never
              env:
              - {name: STATE_DIR, value: "%s"}
        contexts:
        - name: ctx
          context: {cluster: c, user: u}
        """.formatted(TlsFixtures.url(server, true), TlsFixtures.base64(CA.certificatePem()),
        ExecConfig.V1, dir);
    KubeConfig config = KubeConfig.load(Files.writeString(dir.resolve("config"), yaml));
    return KubeClient.create(config, ClientOptions.builder().clock(clock).build());
  }

  private RecordedRequest request(KubeClient client) throws Exception {
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    KubeClientTest.get(client, "/api").close();
    return server.takeRequest(5, TimeUnit.SECONDS);
  }

  private int runs() throws Exception {
    return Integer.parseInt(Files.readString(dir.resolve("count")).strip());
  }

  @Test
  void request_presentsThePluginsCertificate_andNoAuthorizationHeader() throws Exception {
    answer(clientCertificate("exec-user-1"), null);
    try (KubeClient client = client()) {
      RecordedRequest first = request(client);
      RecordedRequest second = request(client);

      assertThat(first.getHandshake().peerPrincipal().getName()).isEqualTo("CN=exec-user-1");
      assertThat(first.getHeaders().get("Authorization")).isNull();
      assertThat(second.getHandshake().peerPrincipal().getName()).isEqualTo("CN=exec-user-1");
      assertThat(runs()).isEqualTo(1); // cached: the certificate does not expire
    }
  }

  @Test
  void expiredCertificate_isFetchedAnew_andNewConnectionsPresentTheNewOne() throws Exception {
    answer(clientCertificate("exec-user-1"), clock.now().plus(Duration.ofHours(1)));
    try (KubeClient client = client()) {
      assertThat(request(client).getHandshake().peerPrincipal().getName())
          .isEqualTo("CN=exec-user-1");

      answer(clientCertificate("exec-user-2"), clock.now().plus(Duration.ofHours(3)));
      clock.advance(Duration.ofHours(2));
      request(client); // the open connection keeps its certificate; the plugin runs again
      client.httpClient().connectionPool().evictAll();

      assertThat(runs()).isEqualTo(2);
      assertThat(request(client).getHandshake().peerPrincipal().getName())
          .isEqualTo("CN=exec-user-2");
    }
  }

  @Test
  void certificateWithoutKey_failsNamingTheMissingField() throws Exception {
    answer(clientCertificate("exec-user-1").certificatePem(), "", null);
    try (KubeClient client = client()) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/api"))
          .hasMessageContaining("returned clientCertificateData without clientKeyData");
    }
  }

  @Test
  void keyThatDoesNotMatchTheCertificate_isRefusedWithAWarn() throws Exception {
    answer(clientCertificate("exec-user-1").certificatePem(),
        clientCertificate("other").privateKeyPkcs8Pem(), null);
    try (KubeClient client = client()) {
      assertThatThrownBy(() -> KubeClientTest.get(client, "/api")).isNotNull();
      assertThat(log.text()).contains("WARN").contains("client certificate cannot be used")
          .doesNotContain("PRIVATE KEY");
    }
  }
}

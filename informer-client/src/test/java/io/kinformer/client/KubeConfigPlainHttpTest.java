package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A kubeconfig user's credentials go only to an https server, as client-go's {@code
 * ClientConfig()} does; {@link KubeConfig#builder()} sends what the caller set.
 */
class KubeConfigPlainHttpTest {

  private static final String SECRET = "plain-http-secret-3e9b";
  private static final HeldCertificate CA = TlsFixtures.ca("plain-http-ca");

  @TempDir Path dir;
  @RegisterExtension final LogCapture stderr = new LogCapture();

  private KubeConfig load(String server, String caData, String userYaml) throws Exception {
    Path file = Files.writeString(dir.resolve("config"), """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "%s"%s}}]
        users:
        - name: dev
          user:
        %s
        contexts: [{name: ctx, context: {cluster: c, user: dev}}]
        """.formatted(server, caData, userYaml.indent(4).stripTrailing()));
    return KubeConfig.load(file);
  }

  record User(String name, String yaml, String describe) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<User> users() {
    return Stream.of(
        new User("token", "token: " + SECRET, "token"),
        new User("tokenFile", "tokenFile: token", "token-file"),
        new User("basic", "username: alice\npassword: " + SECRET, "basic"),
        new User("exec", """
            exec: {apiVersion: client.authentication.k8s.io/v1, command: get-token,
                   interactiveMode: Never, env: [{name: KEY, value: %s}]}""".formatted(SECRET),
            "exec get-token"),
        new User("client certificate", "client-certificate-data: Y2VydA==\n"
            + "client-key-data: a2V5", "client-certificate"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("users")
  void load_withHttpServer_dropsTheUsersCredentialsAndWarnsOnce(User user) throws Exception {
    Files.writeString(dir.resolve("token"), SECRET);

    KubeConfig config = load("http://kube.example:8080", "", user.yaml());

    assertThat(config.auth().describe()).isEqualTo("none");
    assertThat(config.auth().origin())
        .endsWith("config: users[dev].user (not used: the server http://kube.example:8080 is"
            + " plain HTTP)");
    String log = stderr.text();
    assertThat(log.lines().filter(l -> l.contains("WARN")))
        .singleElement()
        .asString()
        .contains("config: users[dev].user: credentials (" + user.describe())
        .contains("are not sent to http://kube.example:8080: it is a plain HTTP server");
    assertThat(log).doesNotContain(SECRET);
  }

  @Test
  void load_withHttpsServer_keepsTheCredentialsSilently() throws Exception {
    KubeConfig config = load("https://kube.example:6443", "", "token: " + SECRET);

    assertThat(config.auth().token()).isEqualTo(SECRET);
    assertThat(stderr.text()).doesNotContain("WARN");
  }

  @Test
  void load_withHttpServerAndNoUser_doesNotWarn() throws Exception {
    KubeConfig config = load("http://kube.example:8080", "", "{}");

    assertThat(config.auth().describe()).isEqualTo("none");
    assertThat(stderr.text()).doesNotContain("WARN");
  }

  @Test
  void request_toHttpServerFromKubeconfig_carriesNoAuthorization() throws Exception {
    try (MockWebServer server = TlsFixtures.httpServer()) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
      KubeConfig config = load(TlsFixtures.url(server, false), "", "token: " + SECRET);

      try (KubeClient client = KubeClient.create(config)) {
        KubeClientTest.get(client, "/api").close();
      }

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isNull();
    }
  }

  @Test
  void request_toHttpsServerFromKubeconfig_sendsTheToken() throws Exception {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA)) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
      KubeConfig config = load(TlsFixtures.url(server, true), ", certificate-authority-data: "
          + TlsFixtures.base64(CA.certificatePem()), "token: " + SECRET);

      try (KubeClient client = KubeClient.create(config)) {
        KubeClientTest.get(client, "/api").close();
      }

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Bearer " + SECRET);
    }
  }

  @Test
  void request_toHttpServerFromBuilder_sendsWhatTheCallerSet() throws Exception {
    try (MockWebServer server = TlsFixtures.httpServer()) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
      KubeConfig config =
          KubeConfig.builder().server(TlsFixtures.url(server, false)).token(SECRET).build();

      try (KubeClient client = KubeClient.create(config)) {
        KubeClientTest.get(client, "/api").close();
      }

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Bearer " + SECRET);
      assertThat(stderr.text()).doesNotContain("WARN");
    }
  }
}

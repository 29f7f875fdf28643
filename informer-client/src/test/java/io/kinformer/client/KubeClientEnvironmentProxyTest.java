package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.client.internal.http.EnvironmentProxySelector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.Response;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Proxies from {@code HTTPS_PROXY}/{@code HTTP_PROXY}/{@code NO_PROXY} when the kubeconfig has no
 * {@code proxy-url}: a MockWebServer plays the proxy, the environment is injected.
 */
class KubeClientEnvironmentProxyTest {

  private static final String PASSWORD = "env-proxy-secret-4b1d";

  private final MockWebServer proxy = TlsFixtures.httpServer();
  private final Map<String, String> env = new HashMap<>();

  @AfterEach
  void stop() {
    proxy.close();
  }

  private Function<String, String> env() {
    return env::get;
  }

  private KubeClient client(KubeConfig config) {
    return KubeClient.create(config, ClientOptions.defaults(), env());
  }

  /** A loopback port nothing listens on: a proxy there refuses every connection. */
  private static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void httpServer_throughHttpProxy_sendsTheAbsoluteFormRequestLine() throws Exception {
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    env.put("HTTP_PROXY", "http://localhost:" + proxy.getPort());
    KubeConfig config =
        KubeConfig.builder().server("http://kube.example.invalid:8080").token("t").build();

    try (KubeClient client = client(config);
        Response r = KubeClientTest.get(client, "/api")) {
      assertThat(r.code()).isEqualTo(200);
    }

    RecordedRequest request = proxy.takeRequest(5, TimeUnit.SECONDS);
    assertThat(request.getRequestLine()).isEqualTo("GET http://kube.example.invalid:8080/api HTTP/1.1");
    assertThat(request.getHeaders().get("Proxy-Authorization")).isNull();
  }

  @Test
  void httpProxy_withoutScheme_isAnHttpProxy_andLowerCaseIsRead() throws Exception {
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    env.put("http_proxy", "localhost:" + proxy.getPort());

    try (KubeClient client =
            client(KubeConfig.builder().server("http://kube.example.invalid").build());
        Response r = KubeClientTest.get(client, "/version")) {
      assertThat(r.code()).isEqualTo(200);
    }

    assertThat(proxy.takeRequest(5, TimeUnit.SECONDS).getTarget())
        .isEqualTo("http://kube.example.invalid/version");
  }

  @Test
  void upperCaseVariable_winsOverLowerCase() throws Exception {
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    env.put("HTTP_PROXY", "http://localhost:" + proxy.getPort());
    env.put("http_proxy", "http://localhost:" + deadPort());

    try (KubeClient client =
            client(KubeConfig.builder().server("http://kube.example.invalid").build());
        Response r = KubeClientTest.get(client, "/api")) {
      assertThat(r.code()).isEqualTo(200);
    }
  }

  @Test
  void httpProxyCredentials_answerTheProxysChallenge() throws Exception {
    proxy.enqueue(
        new MockResponse(407, Headers.of("Proxy-Authenticate", "Basic realm=\"p\""), ""));
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    env.put("HTTP_PROXY", "http://bob:proxy-pw@localhost:" + proxy.getPort());

    try (KubeClient client =
            client(KubeConfig.builder().server("http://kube.example.invalid:8080").build());
        Response r = KubeClientTest.get(client, "/api")) {
      assertThat(r.code()).isEqualTo(200);
    }

    assertThat(proxy.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Proxy-Authorization"))
        .isNull();
    assertThat(proxy.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Proxy-Authorization"))
        .isEqualTo("Basic Ym9iOnByb3h5LXB3");
  }

  @Test
  void httpsServer_throughHttpsProxy_tunnelsWithConnectAndCredentials() throws Exception {
    HeldCertificate ca = TlsFixtures.ca("env-proxy-ca");
    // The proxy answers the CONNECT, then plays the API server inside the tunnel.
    MockWebServer tunnel =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(ca, "kube.example.invalid"), ca);
    try (tunnel) {
      tunnel.enqueue(new MockResponse.Builder().inTunnel().build());
      tunnel.enqueue(new MockResponse(200, Headers.of(), "{}"));
      env.put("HTTPS_PROXY", "http://bob:proxy-pw@localhost:" + tunnel.getPort());
      env.put("HTTP_PROXY", "http://localhost:" + deadPort());
      KubeConfig config =
          KubeConfig.builder()
              .server("https://kube.example.invalid")
              .caCertPem(ca.certificatePem())
              .token("t")
              .build();

      try (KubeClient client = client(config);
          Response r = KubeClientTest.get(client, "/api")) {
        assertThat(r.code()).isEqualTo(200);
      }

      RecordedRequest connect = tunnel.takeRequest(5, TimeUnit.SECONDS);
      assertThat(connect.getMethod()).isEqualTo("CONNECT");
      assertThat(connect.getTarget()).isEqualTo("kube.example.invalid:443");
      assertThat(connect.getHeaders().get("Proxy-Authorization"))
          .isEqualTo("Basic Ym9iOnByb3h5LXB3");
      assertThat(connect.getHeaders().get("Authorization")).isNull();
      RecordedRequest get = tunnel.takeRequest(5, TimeUnit.SECONDS);
      assertThat(get.getTarget()).isEqualTo("/api");
      assertThat(get.getHeaders().get("Authorization")).isEqualTo("Bearer t");
      assertThat(get.getHeaders().get("Proxy-Authorization")).isNull();
    }
  }

  @Test
  void loopbackServer_isReachedDirectly_evenWithAProxySet() throws Exception {
    MockWebServer server = TlsFixtures.httpServer();
    try (server) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
      String dead = "http://localhost:" + deadPort();
      env.put("HTTP_PROXY", dead);
      env.put("HTTPS_PROXY", dead);

      try (KubeClient client = client(KubeConfig.builder().server(TlsFixtures.url(server, false))
              .build());
          Response r = KubeClientTest.get(client, "/api")) {
        assertThat(r.code()).isEqualTo(200);
      }
      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/api");
    }
  }

  @Test
  void kubeconfigProxyUrl_winsOverTheEnvironment() throws Exception {
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    String dead = "http://localhost:" + deadPort();
    env.put("HTTP_PROXY", dead);
    env.put("HTTPS_PROXY", dead);
    env.put("NO_PROXY", "kube.example.invalid");
    KubeConfig config =
        KubeConfig.builder()
            .server("http://kube.example.invalid:8080")
            .proxyUrl("http://localhost:" + proxy.getPort())
            .build();

    try (KubeClient client = client(config);
        Response r = KubeClientTest.get(client, "/api")) {
      assertThat(r.code()).isEqualTo(200);
      assertThat(client.httpClient().proxySelector())
          .isNotInstanceOf(EnvironmentProxySelector.class);
    }
    assertThat(proxy.takeRequest(5, TimeUnit.SECONDS).getTarget())
        .isEqualTo("http://kube.example.invalid:8080/api");
  }

  @Test
  void noProxyVariable_keepsTheJvmDefaultProxySelector() {
    env.put("NO_PROXY", "example.com");
    env.put("HTTPS_PROXY", "");
    try (KubeClient client =
        client(KubeConfig.builder().server("https://kube.example.invalid").build())) {
      assertThat(client.httpClient().proxySelector())
          .isNotInstanceOf(EnvironmentProxySelector.class);
      assertThat(client.httpClient().proxy()).isNull();
    }
  }

  @Test
  void socksProxyFromTheEnvironment_withCredentials_warnsThatTheyAreNotSent() throws Exception {
    env.put("HTTPS_PROXY", "socks5://sam:env-socks-pw-51c0@socks-proxy:1081");
    EnvironmentProxySelector[] selector = new EnvironmentProxySelector[1];

    String log = LogCapture.stderrOf(
        () -> selector[0] = EnvironmentProxySelector.fromEnvironment(env()));

    assertThat(selector[0].select(URI.create("https://kube.example.com:6443/api")))
        .singleElement()
        .satisfies(p -> assertThat(p.type()).isEqualTo(Proxy.Type.SOCKS));
    assertThat(log).contains("WARN").contains("HTTPS_PROXY")
        .contains("SOCKS proxy credentials are not supported").contains("socks-proxy:1081")
        .doesNotContain("env-socks-pw-51c0");
  }

  @Test
  void selector_choosesByScheme_andHonoursNoProxy() {
    env.put("HTTPS_PROXY", "http://secure-proxy:3128");
    env.put("HTTP_PROXY", "socks5://plain-proxy");
    env.put("no_proxy", ".internal,10.0.0.0/8");
    EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env());

    assertThat(selector.select(URI.create("https://kube.example.com:6443/api")))
        .singleElement()
        .satisfies(p -> {
          assertThat(p.type()).isEqualTo(Proxy.Type.HTTP);
          assertThat(p.address().toString()).contains("secure-proxy").endsWith(":3128");
        });
    assertThat(selector.select(URI.create("http://kube.example.com/api")))
        .singleElement()
        .satisfies(p -> {
          assertThat(p.type()).isEqualTo(Proxy.Type.SOCKS);
          assertThat(p.address().toString()).contains("plain-proxy").endsWith(":1080");
        });
    assertThat(selector.select(URI.create("https://kube.internal/api")))
        .containsExactly(Proxy.NO_PROXY);
    assertThat(selector.select(URI.create("https://10.1.2.3:6443/api")))
        .containsExactly(Proxy.NO_PROXY);
    assertThat(selector.select(URI.create("https://[::1]:6443/api")))
        .containsExactly(Proxy.NO_PROXY);
  }

  @Test
  void proxyNameWithAnUnderscore_isUsedAsGoUsesIt() {
    // java.net.URI takes corp_proxy for a registry name and gives no host.
    env.put("HTTPS_PROXY", "http://corp_proxy:3128");
    EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env());

    assertThat(selector.select(URI.create("https://kube.example.com:6443/api")))
        .singleElement()
        .satisfies(p -> assertThat(p.address()).isEqualTo(
            InetSocketAddress.createUnresolved("corp_proxy", 3128)));
  }

  @Test
  void encodedColonInTheProxyUser_staysInTheUserName() {
    env.put("HTTP_PROXY", "http://u%3Ax:p%40ss@proxy.example:8080");
    EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env());

    assertThat(selector.targetFor(URI.create("http://kube.example.com/api")).credential())
        .isEqualTo(okhttp3.Credentials.basic("u:x", "p@ss", StandardCharsets.UTF_8));
  }

  @Test
  void onlyOneSchemesVariable_leavesTheOtherSchemeDirect() {
    env.put("HTTPS_PROXY", "http://secure-proxy:3128");
    EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env());
    assertThat(selector.select(URI.create("http://kube.example.com/api")))
        .containsExactly(Proxy.NO_PROXY);
  }

  @Test
  void unsupportedOrBrokenValue_isIgnoredWithAWarningThatHidesTheValue() throws Exception {
    String err = LogCapture.stderrOf(() -> {
      env.put("HTTPS_PROXY", "https://bob:" + PASSWORD + "@secure-proxy:3128");
      env.put("HTTP_PROXY", "http://bob:" + PASSWORD + "@[not-a-host");
      EnvironmentProxySelector selector = EnvironmentProxySelector.fromEnvironment(env());
      // Set but unusable: reached directly, not through the JVM's default selector.
      assertThat(selector).isNotNull();
      assertThat(selector.select(URI.create("https://kube.example.com:6443/api")))
          .containsExactly(Proxy.NO_PROXY);
      assertThat(selector.select(URI.create("http://kube.example.com/api")))
          .containsExactly(Proxy.NO_PROXY);
    });
    assertThat(err).contains("ignoring HTTPS_PROXY").contains("ignoring HTTP_PROXY");
    assertThat(err).doesNotContain(PASSWORD).doesNotContain("secure-proxy");
  }

  @Test
  void credentials_neverAppearInToStringOrTheLog() throws Exception {
    proxy.enqueue(new MockResponse(200, Headers.of(), "{}"));
    env.put("HTTP_PROXY", "http://bob:" + PASSWORD + "@localhost:" + proxy.getPort());
    env.put("HTTPS_PROXY", "bob:" + PASSWORD + "@localhost:" + proxy.getPort());
    String err = LogCapture.stderrOf(() -> {
      try (KubeClient client =
              client(KubeConfig.builder().server("http://kube.example.invalid").build());
          Response r = KubeClientTest.get(client, "/api")) {
        assertThat(r.code()).isEqualTo(200);
        String selector = client.httpClient().proxySelector().toString();
        assertThat(selector)
            .contains("localhost:" + proxy.getPort())
            .doesNotContain(PASSWORD)
            .doesNotContain("bob");
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    // DEBUG is on in the tests (surefire configuration): the choice is logged, host:port only.
    assertThat(err)
        .contains("goes through proxy localhost:" + proxy.getPort() + " from HTTP_PROXY")
        .doesNotContain(PASSWORD)
        .doesNotContain("bob:");
  }
}

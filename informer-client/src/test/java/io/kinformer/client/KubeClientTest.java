package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.tls.HeldCertificate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

public class KubeClientTest {

  private final MockWebServer server = TlsFixtures.httpServer();

  @AfterEach
  void stopServer() {
    server.close();
  }

  public static Response get(KubeClient client, String path) throws IOException {
    return client
        .httpClient()
        .newCall(new Request.Builder().url(client.baseUrl().resolve(path)).build())
        .execute();
  }

  private KubeConfig.Builder config() {
    return KubeConfig.builder().server(TlsFixtures.url(server, false));
  }

  @Test
  void request_withToken_sendsBearerHeaderAndUserAgent() throws Exception {
    server.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
    try (KubeClient client =
        KubeClient.create(
            config().token("abc").build(),
            ClientOptions.builder().userAgentSuffix("my-controller/1.0").build())) {

      try (Response r = get(client, "/api")) {
        assertThat(r.code()).isEqualTo(200);
      }

      RecordedRequest req = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(req.getHeaders().get("Authorization")).isEqualTo("Bearer abc");
      assertThat(req.getHeaders().get("User-Agent"))
          .matches("kinformer/\\S+ \\(\\S+/\\S+\\) java/\\S+ my-controller/1\\.0")
          .doesNotContain("unknown");
    }
  }

  @Test
  void request_withExplicitAuthorization_keepsIt() throws Exception {
    server.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
    try (KubeClient client = KubeClient.create(config().token("abc").build())) {
      Request request =
          new Request.Builder()
              .url(client.baseUrl().resolve("/api"))
              .header("Authorization", "Bearer explicit")
              .build();
      client.httpClient().newCall(request).execute().close();

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Bearer explicit");
    }
  }

  @Test
  void request_withBasicAuth_sendsBasicHeader() throws Exception {
    server.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
    try (KubeClient client = KubeClient.create(config().basicAuth("alice", "s3cret").build())) {
      get(client, "/api").close();

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Basic YWxpY2U6czNjcmV0");
    }
  }

  @Test
  void request_withBasicAuthPasswordOfAnyCharacters_sendsItBase64Encoded() throws Exception {
    // Unlike a token, user and password travel base64-encoded: a line break or a non-ASCII
    // character is no reason to refuse them.
    server.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
    String password = "s3cr\u00e9t\n";
    try (KubeClient client = KubeClient.create(config().basicAuth("alice", password).build())) {
      get(client, "/api").close();

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isEqualTo("Basic " + Base64.getEncoder().encodeToString(
              ("alice:" + password).getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void request_withoutCredentials_sendsNoAuthorization() throws Exception {
    server.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
    try (KubeClient client = KubeClient.create(config().build())) {
      get(client, "/api").close();

      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
          .isNull();
    }
  }

  @Test
  void create_configuresOneTransportForWatches() {
    try (KubeClient client =
        KubeClient.create(
            config().namespace("team").build(),
            ClientOptions.builder().connectTimeout(Duration.ofSeconds(3)).build())) {
      OkHttpClient http = client.httpClient();

      assertThat(http.readTimeoutMillis()).isZero();
      assertThat(http.connectTimeoutMillis()).isEqualTo(3000);
      assertThat(http.pingIntervalMillis()).isEqualTo(30_000);
      assertThat(http.protocols()).containsExactly(Protocol.HTTP_2, Protocol.HTTP_1_1);
      assertThat(client.httpClient()).isSameAs(http);
      assertThat(client.namespace()).isEqualTo("team");
      assertThat(client.baseUrl().toString()).isEqualTo(TlsFixtures.url(server, false) + "/");
    }
  }

  @Test
  void baseUrl_withPathPrefix_keepsIt() {
    try (KubeClient client =
        KubeClient.create(KubeConfig.builder().server("https://h:6443/k8s/clusters/c1").build())) {
      assertThat(client.baseUrl().encodedPath()).isEqualTo("/k8s/clusters/c1");
    }
  }

  @Test
  void request_afterClose_fails() {
    KubeClient client = KubeClient.create(config().build());
    client.close();
    client.close(); // idempotent

    assertThatThrownBy(() -> get(client, "/api"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void close_afterAsyncCallsAndHttp2Connection_leavesNoOkHttpThreadWorking() throws Exception {
    // A host name of its own (resolved to loopback) tells this client's threads apart from any
    // other test's: OkHttp names its threads after the host.
    String host = "close-test.kinformer.invalid";
    HeldCertificate ca = TlsFixtures.ca("ca");
    try (MockWebServer tls =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(ca, host), ca)) {
      tls.enqueue(new MockResponse(200, okhttp3.Headers.of(), "{}"));
      // A watch that never ends: the server keeps the stream open.
      tls.enqueue(new MockResponse.Builder().bodyDelay(1, TimeUnit.HOURS).body("{}").build());
      KubeClient client =
          KubeClient.create(
              KubeConfig.builder()
                  .server("https://" + host + ":" + tls.getPort())
                  .caCertPem(ca.certificatePem())
                  .build());
      // Derived the way list/watch code derives per-call clients: same pool, same dispatcher.
      OkHttpClient http =
          client.httpClient().newBuilder()
              .dns(name -> List.of(java.net.InetAddress.getLoopbackAddress()))
              .build();
      try (Response r =
          http.newCall(new Request.Builder().url(client.baseUrl().resolve("/api")).build())
              .execute()) {
        assertThat(r.protocol()).isEqualTo(Protocol.HTTP_2);
      }
      CompletableFuture<String> watchOutcome = new CompletableFuture<>();
      http.newCall(new Request.Builder().url(client.baseUrl().resolve("/watch")).build())
          .enqueue(
              new Callback() {
                @Override
                public void onFailure(Call call, IOException e) {
                  watchOutcome.complete("failed");
                }

                @Override
                public void onResponse(Call call, Response response) {
                  try (response) {
                    response.body().string();
                    watchOutcome.complete("completed");
                  } catch (IOException e) {
                    watchOutcome.complete("failed");
                  }
                }
              });
      tls.takeRequest(5, TimeUnit.SECONDS); // /api
      assertThat(tls.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/watch");
      // OkHttp renames a thread after the call or connection it serves.
      assertThat(threadsServing(host))
          .anyMatch(n -> n.startsWith("OkHttp https://" + host)) // the watch, on our dispatcher
          .contains("OkHttp " + host); // the HTTP/2 reader

      client.close();

      assertThat(watchOutcome.get(10, TimeUnit.SECONDS)).isEqualTo("failed");
      assertThat(client.httpClient().dispatcher().executorService().isTerminated()).isTrue();
      assertThat(client.httpClient().connectionPool().connectionCount()).isZero();
      try {
        Awaitility.await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () ->
                    assertThat(threadsServing(host))
                        .noneMatch(n -> n.startsWith("OkHttp https://" + host))
                        .doesNotContain("OkHttp " + host));
      } catch (ConditionTimeoutException e) {
        // Seen once under CI load (the HTTP/2 reader still named after the connection 20 s after
        // close); say where such a thread is, for the next time.
        throw new AssertionError(e.getMessage() + "\n" + stacksOfThreadsServing(host), e);
      }
      // Workers of OkHttp's process-wide task pool ("OkHttp TaskRunner") may linger up to 60 s,
      // briefly named after a connection task (e.g. "OkHttp <host> onSettings") when the machine
      // is loaded; they hold nothing of this client once its calls and reader are gone.
    }
  }

  private static String stacksOfThreadsServing(String host) {
    StringBuilder sb = new StringBuilder();
    Thread.getAllStackTraces().forEach((t, stack) -> {
      if (t.getName().startsWith("OkHttp") && t.getName().contains(host)) {
        sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
        for (StackTraceElement frame : stack) {
          sb.append("    at ").append(frame).append('\n');
        }
      }
    });
    return sb.toString();
  }

  private static List<String> threadsServing(String host) {
    return threadNames().stream().filter(n -> n.startsWith("OkHttp") && n.contains(host)).toList();
  }

  private static List<String> threadNames() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .toList();
  }
}

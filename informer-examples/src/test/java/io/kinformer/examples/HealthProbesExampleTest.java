package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.InformerProbes;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.client.SyncResult;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health-and-probes snippets of docs/user-guide.md, run against the embedded API server over
 * HTTP; {@link DocSnippetsTest} checks that the page shows this exact code.
 */
class HealthProbesExampleTest {

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;
  private HttpServer http;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    factory = SharedInformerFactory.builder(client).build();
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.stop(0);
    }
    factory.close();
    client.close();
    server.close();
  }

  // ---- the snippets --------------------------------------------------------------------------

  static void startAndSync(SharedInformerFactory factory, Duration timeout) {
    // tag::sync-result[]
    factory.start();
    SyncResult sync = factory.waitForCacheSyncResult(timeout);
    if (!sync.synced()) {
      // "1 of 2 informers did not sync:" and a line per informer with its state and last error
      throw new IllegalStateException(sync.toString());
    }
    // end::sync-result[]
  }

  static HttpServer serveProbes(SharedInformerFactory factory, InetSocketAddress address)
      throws IOException {
    // tag::health-probes[]
    InformerProbes probes = InformerProbes.of(factory, Duration.ofMinutes(5));
    HttpServer http = HttpServer.create(address, 0); // address: new InetSocketAddress(8081), say
    probes.registerWith(http); // GET /livez and /readyz: 200, or 503 and a reason per informer
    http.start();
    // Or call the probes from your framework's health check:
    InformerProbes.Result ready = probes.readiness(); // ok() and reason()
    // end::health-probes[]
    assertThat(ready.reason()).isNotEmpty();
    return http;
  }

  // ---- the tests -----------------------------------------------------------------------------

  @Test
  void syncResult_listRefused_namesTheInformerAndItsError() {
    server.faults().failNext(Verb.WATCH, "pods", 1000, 403); // the streaming list
    server.faults().failNext(Verb.LIST, "pods", 1000, 403); // and the list after it
    factory.informerFor(ConfigMap.class);
    String pods = factory.informerFor(Pod.class).name();

    assertThatIllegalStateException()
        .isThrownBy(() -> startAndSync(factory, Duration.ofSeconds(2)))
        .withMessageStartingWith("1 of 2 informers did not sync:")
        .withMessageContaining(pods)
        .withMessageContaining("403");
  }

  @Test
  void probes_servedOverHttp_answerReadyOnceSynced() throws Exception {
    factory.informerFor(ConfigMap.class);
    startAndSync(factory, Duration.ofSeconds(20));
    http = serveProbes(factory, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    String base = "http://127.0.0.1:" + http.getAddress().getPort();

    HttpResponse<String> ready = get(base + "/readyz");
    HttpResponse<String> live = get(base + "/livez");

    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).startsWith("ok\n").contains("[+]v1/configmaps ok");
    assertThat(live.statusCode()).isEqualTo(200);
  }

  private static HttpResponse<String> get(String uri) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
    return client.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

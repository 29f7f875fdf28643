package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerHealth;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import io.kinformer.time.testing.FakeClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Informer health, {@link SharedInformerFactory#waitForCacheSyncResult} and {@link
 * InformerProbes} over real HTTP against the embedded API server and its faults. The informers run
 * on a {@link FakeClock}: their backoffs wait for the test to move it, so each failure is counted
 * exactly, and the liveness threshold is measured on it.
 */
class InformerProbesTest {

  private static final Duration THRESHOLD = Duration.ofMinutes(1);
  private static final String AGENT = "health-test";

  private final FakeClock clock = new FakeClock();
  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.builder().start();
    client =
        KubeClient.create(
            KubeConfig.load(server.kubeConfig()),
            ClientOptions.builder().userAgentSuffix(AGENT).build());
    factory =
        SharedInformerFactory.builder(client)
            .clock(clock)
            .scheduler(clock)
            .streamingList(false)
            .build();
  }

  @AfterEach
  void stop() {
    factory.close();
    client.close();
    server.close();
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .build();
  }

  /**
   * Moves the clock in steps until {@code done}: a backoff is scheduled only after the failure it
   * follows is counted, so one step could come before it.
   */
  private void advanceUntil(BooleanSupplier done) {
    await().until(() -> {
      if (done.getAsBoolean()) {
        return true;
      }
      clock.advance(Duration.ofSeconds(10));
      return done.getAsBoolean();
    });
  }

  private InformerHealth healthOf(SharedIndexInformer<?> informer) {
    return factory.health().stream()
        .filter(h -> h.name().equals(informer.name()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void healthyInformer_isReadyAndLive() {
    client.resources(ConfigMap.class).inNamespace("default").create(configMap("a"));
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    InformerProbes probes = InformerProbes.of(factory, THRESHOLD);
    assertThat(probes.readiness().ok()).isFalse(); // not started: not synced

    factory.start();
    SyncResult result = factory.waitForCacheSyncResult(Duration.ofSeconds(20));
    assertThat(result.synced()).isTrue();
    assertThat(result.notSynced()).isEmpty();
    assertThat(result).hasToString("all 1 informers synced");

    await().until(() -> server.faults().openWatches("configmaps") == 1);
    clock.advance(Duration.ofHours(3)); // a quiet resource: no event for hours
    InformerHealth h = healthOf(cms);
    assertThat(h.synced()).isTrue();
    assertThat(h.consecutiveFailures()).isZero();
    assertThat(h.lastError()).isNull();
    assertThat(probes.readiness()).isEqualTo(
        new InformerProbes.Result(true, "ok\n[+]" + cms.name() + " ok\n"));
    assertThat(probes.liveness().ok()).isTrue();
  }

  @Test
  void listRefused_syncResultNamesTheInformerAndItsError_livenessFailsPastTheThreshold() {
    server.faults().failNext(Verb.LIST, "pods", 1000, 403);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    InformerProbes probes = InformerProbes.of(factory, THRESHOLD);
    factory.start();
    await().until(() -> cms.hasSynced() && healthOf(pods).consecutiveFailures() == 1);

    SyncResult result = factory.waitForCacheSyncResult(Duration.ZERO); // pods waits on the clock
    assertThat(result.synced()).isFalse();
    assertThat(result.notSynced()).extracting(InformerHealth::name).containsExactly(pods.name());
    InformerHealth failing = result.notSynced().get(0);
    assertThat(failing.lastError()).contains("LIST", "403");
    assertThat(result.toString())
        .startsWith("1 of 2 informers did not sync:")
        .contains(pods.name(), "403")
        .doesNotContain(cms.name());
    assertThat(probes.liveness().ok()).isTrue(); // failing, but not for longer than the threshold
    assertThat(probes.readiness().reason()).contains("[-]" + pods.name(), "[+]" + cms.name());

    clock.advance(THRESHOLD.plusSeconds(1));
    advanceUntil(() -> healthOf(pods).consecutiveFailures() >= 2); // the next list fails too
    InformerProbes.Result live = probes.liveness();
    assertThat(live.ok()).isFalse();
    assertThat(live.reason())
        .startsWith("failed\n")
        .contains("[-]" + pods.name() + ": not synced", "consecutive failures", "403")
        .contains("[+]" + cms.name() + " ok");

    server.faults().clearFailures();
    advanceUntil(pods::hasSynced); // past the backoff: the list succeeds
    assertThat(healthOf(pods).consecutiveFailures()).isZero();
    assertThat(probes.liveness().ok()).isTrue();
    assertThat(probes.readiness().ok()).isTrue();
  }

  @Test
  void partitionAfterSync_countsFailures_livenessFailsPastTheThreshold_recoversAfterHeal() {
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    InformerProbes probes = InformerProbes.of(factory, THRESHOLD);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(() -> server.faults().openWatches("configmaps") == 1);

    clock.advance(Duration.ofSeconds(2)); // the watch is not a very short one
    server.faults().partition(AGENT, 500);
    server.faults().closeAllWatches(); // the re-watch, then the relist, meet the partition
    await().until(() -> healthOf(cms).consecutiveFailures() >= 1);
    InformerHealth h = healthOf(cms);
    assertThat(h.synced()).isTrue(); // the cache keeps its content
    assertThat(h.lastError()).contains("500");
    assertThat(probes.liveness().ok()).isTrue();
    assertThat(probes.readiness().ok()).isTrue();

    int before = h.consecutiveFailures();
    clock.advance(THRESHOLD.plusSeconds(1));
    advanceUntil(() -> healthOf(cms).consecutiveFailures() > before);
    InformerProbes.Result live = probes.liveness();
    assertThat(live.ok()).isFalse();
    assertThat(live.reason()).contains("[-]" + cms.name(), "500");

    server.faults().heal(AGENT);
    advanceUntil(() -> healthOf(cms).consecutiveFailures() == 0);
    assertThat(probes.liveness().ok()).isTrue();
  }

  @Test
  void httpHandler_answers200Or503WithAReasonPerInformer() throws Exception {
    server.faults().failNext(Verb.LIST, "pods", 1000, 403);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    InformerProbes probes = InformerProbes.of(factory, THRESHOLD);
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    probes.registerWith(http);
    http.start();
    try {
      factory.start();
      await().until(() -> cms.hasSynced() && healthOf(pods).consecutiveFailures() == 1);
      String base = "http://127.0.0.1:" + http.getAddress().getPort();

      HttpResponse<String> ready = get(base + "/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
      assertThat(ready.body()).contains("[-]" + pods.name(), "403", "[+]" + cms.name() + " ok");
      HttpResponse<String> live = get(base + "/livez");
      assertThat(live.statusCode()).isEqualTo(200);
      assertThat(live.body()).startsWith("ok\n");

      server.faults().clearFailures();
      advanceUntil(pods::hasSynced);
      assertThat(get(base + "/readyz").statusCode()).isEqualTo(200);
    } finally {
      http.stop(0);
    }
  }

  @Test
  void of_nonPositiveThreshold_isRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> InformerProbes.of(List::of, clock, Duration.ZERO))
        .withMessageContaining("threshold must be positive");
  }

  private static HttpResponse<String> get(String uri) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

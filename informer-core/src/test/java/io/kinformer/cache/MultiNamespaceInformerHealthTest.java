package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MultiNamespaceInformer#health()}: one snapshot over its namespaces, the worst of them. The
 * namespaces' informers run on a {@link FakeClock}, so a failed one waits out its backoff until
 * the test moves the clock.
 */
class MultiNamespaceInformerHealthTest {

  private static final ApiException FORBIDDEN =
      new ApiException(403, "Forbidden", "pods is forbidden in billing", null, List.of(), false);

  private final FakeClock clock = new FakeClock();
  private final Map<String, FakeListerWatcher<Pod>> sources = new ConcurrentHashMap<>();
  private final ExecutorService delivery = Informers.newDeliveryExecutor("test-delivery-");
  private MultiNamespaceInformer<Pod> informer;

  @AfterEach
  void stop() throws InterruptedException {
    if (informer != null) {
      informer.close();
    }
    delivery.shutdown();
    assertThat(delivery.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private FakeListerWatcher<Pod> source(String ns) {
    return sources.computeIfAbsent(ns, n -> TestPods.fakeSource());
  }

  private MultiNamespaceInformer<Pod> informerOver(String... namespaces) {
    return MultiNamespaceInformer.create(
        "pods@{test}",
        List.of(namespaces),
        ns ->
            SharedIndexInformer.builder("pods@" + ns, source(ns))
                .clock(clock)
                .scheduler(clock)
                .deliveryExecutor(delivery)
                .streamingList(false)
                .build(),
        delivery);
  }

  @Test
  void health_oneNamespaceFailing_reportsThatNamespacesFailureAndError() {
    source("shop").add(TestPods.pod("shop", "web-0"));
    source("billing").failNextList(FORBIDDEN);
    informer = informerOver("shop", "billing");
    assertThat(informer.health().lastProgressTime()).isNull(); // not started

    informer.start();
    await().until(() -> informer.informerFor("shop").orElseThrow().hasSynced()
        && informer.health().state() instanceof ReflectorState.BackingOff);

    InformerHealth h = informer.health();
    assertThat(h.name()).isEqualTo("pods@{test}");
    assertThat(h.synced()).isFalse();
    assertThat(h.consecutiveFailures()).isEqualTo(1);
    assertThat(h.lastError()).startsWith("pods@billing: LIST").contains("forbidden in billing");
    assertThat(h.lastErrorTime()).isEqualTo(clock.now());
    assertThat(h.terminal()).isFalse();

    await().until(() -> { // past billing's backoff (once scheduled): its list succeeds
      clock.advance(Duration.ofSeconds(10));
      return informer.hasSynced();
    });
    InformerHealth healed = informer.health();
    assertThat(healed.consecutiveFailures()).isZero();
    assertThat(healed.synced()).isTrue();

    informer.close();
    assertThat(informer.health().terminal()).isTrue();
  }
}

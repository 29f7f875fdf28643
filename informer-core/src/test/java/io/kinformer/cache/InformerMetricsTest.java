package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** client-go's three informer metrics, published for informers given an identity. */
class InformerMetricsTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();

  /** Records every value each metric was given, by metric name. */
  static final class Recording implements InformerMetricsProvider {
    final Map<String, List<Double>> values = new ConcurrentHashMap<>();
    final List<InformerId> ids = new CopyOnWriteArrayList<>();

    private List<Double> series(String name, InformerId id) {
      ids.add(id);
      return values.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
    }

    @Override
    public GaugeMetric newQueuedItemMetric(InformerId id) {
      return series("informer_queued_items", id)::add;
    }

    @Override
    public HistogramMetric newProcessingLatencyMetric(InformerId id) {
      return series("informer_processing_latency_seconds", id)::add;
    }

    @Override
    public GaugeMetric newStoreResourceVersionMetric(InformerId id) {
      return series("informer_store_resource_version", id)::add;
    }

    double last(String name) {
      List<Double> v = values.get(name);
      return v.get(v.size() - 1);
    }
  }

  private SharedIndexInformer.Builder<Pod> builder(InformerMetricsProvider p, String name) {
    return SharedIndexInformer.builder(name, source)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(1))
        .processingExecutor(Runnable::run)
        .metrics(p, new InformerId(name, "", "v1", "pods"));
  }

  @Test
  void informerWithAnIdentity_publishesQueuedItemsLatencyAndStoreResourceVersion() {
    Recording metrics = new Recording();
    source.add(pod("ns", "a"));
    try (SharedIndexInformer<Pod> informer = builder(metrics, "metrics-pods").build()) {
      informer.start();
      await().until(informer::hasSynced);
      await().until(() -> source.openWatchCount() == 1);
      source.add(pod("ns", "b"));
      source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark("40")));
      await().until(() -> "40".equals(informer.getIndexer().lastStoreSyncResourceVersion()));

      assertThat(metrics.values.get("informer_queued_items")).contains(1.0);
      assertThat(metrics.last("informer_queued_items")).isZero();
      assertThat(metrics.values.get("informer_processing_latency_seconds"))
          .as("one observation per processed batch or delta (the list, b, the bookmark)")
          .hasSizeGreaterThanOrEqualTo(3)
          .allMatch(v -> v >= 0);
      assertThat(metrics.values.get("informer_store_resource_version")).contains(3.0, 40.0);
      assertThat(metrics.ids)
          .containsOnly(new InformerId("metrics-pods", "", "v1", "pods"));
    }
  }

  @Test
  void queuedItems_isPublishedHoldingNoLockOfTheInformer() {
    java.util.concurrent.atomic.AtomicReference<DefaultSharedIndexInformer<?>> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    List<Boolean> lockedAtSet = new CopyOnWriteArrayList<>();
    Recording recording = new Recording();
    InformerMetricsProvider probing =
        new InformerMetricsProvider() {
          @Override
          public GaugeMetric newQueuedItemMetric(InformerId id) {
            return value -> {
              DefaultSharedIndexInformer<?> i = self.get();
              lockedAtSet.add(i != null && i.holdsAnyLock());
            };
          }

          @Override
          public HistogramMetric newProcessingLatencyMetric(InformerId id) {
            return recording.newProcessingLatencyMetric(id);
          }

          @Override
          public GaugeMetric newStoreResourceVersionMetric(InformerId id) {
            return recording.newStoreResourceVersionMetric(id);
          }
        };
    source.add(pod("ns", "a"));
    try (SharedIndexInformer<Pod> informer = builder(probing, "metrics-unlocked").build()) {
      self.set((DefaultSharedIndexInformer<?>) informer);
      informer.start();
      await().until(informer::hasSynced);
      await().until(() -> source.openWatchCount() == 1);
      source.add(pod("ns", "b"));
      await().until(() -> informer.getIndexer().listKeys().size() == 2);

      assertThat(lockedAtSet).isNotEmpty().containsOnly(false);
    }
  }

  @Test
  void aSecondLiveInformerWithTheSameName_isRefused_untilTheFirstCloses() {
    Recording metrics = new Recording();
    SharedIndexInformer<Pod> first = builder(metrics, "metrics-dup").build();
    assertThatIllegalStateException()
        .isThrownBy(() -> builder(metrics, "metrics-dup").build())
        .withMessageContaining("metrics-dup")
        .withMessageContaining("already registered");
    first.close();
    builder(metrics, "metrics-dup").build().close();
  }

  @Test
  void informerWithoutAnIdentity_publishesNothing_andMayRepeatAName_whichLogsGetUnique() {
    SharedIndexInformer<Pod> a = SharedIndexInformer.builder("same", source).build();
    SharedIndexInformer<Pod> b = SharedIndexInformer.builder("same", source).build();
    assertThat(List.of(a.name(), b.name())).containsExactly("same", "same#2");
    a.close();
    b.close();
  }
}

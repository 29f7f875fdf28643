package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.micrometer.MicrometerMetrics;
import io.kinformer.time.testing.FakeClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An informer's client-go metrics, as Micrometer meters. The informer runs on the test's thread
 * alone (in this package to reach the reflector's {@link Reflector#step()}): the reflector is
 * stepped by hand, the processing runs when the test runs the queued tasks, and time moves only
 * with the fake clock, so every value is exact and nothing waits.
 */
class MicrometerInformerMetricsTest {

  /** Each object's processing takes this long: its index function moves the fake clock. */
  private static final Duration PER_OBJECT = Duration.ofMillis(30);

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source =
      new FakeListerWatcher<>(MicrometerInformerMetricsTest::bookmark);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MicrometerMetrics metrics = new MicrometerMetrics(registry);
  /** The informer's processing and deliveries, run when the test says. */
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final DefaultSharedIndexInformer<Pod> informer =
      (DefaultSharedIndexInformer<Pod>)
          SharedIndexInformer.builder("micrometer-pods", source)
              .clock(clock)
              .scheduler(clock)
              .random(new Random(1))
              .reflectorExecutor(loop -> {}) // never run: the test steps the reflector
              .processingExecutor(tasks::add)
              .deliveryExecutor(tasks::add)
              .index("slow", this::slowIndex)
              .metrics(metrics, new InformerId("micrometer-pods", "", "v1", "pods"))
              .build();

  private List<String> slowIndex(Pod pod) {
    clock.advance(PER_OBJECT);
    return List.of();
  }

  @AfterEach
  void close() {
    informer.close();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata().build();
  }

  private static Pod bookmark(String rv) {
    return new PodBuilder().withNewMetadata().withResourceVersion(rv).endMetadata().build();
  }

  private Reflector<Pod> reflector() {
    return Objects.requireNonNull(informer.reflector(), "started");
  }

  /** Whether the reflector's next step would wait for a watch event that is not there. */
  private boolean reflectorWouldWait() {
    ReflectorState s = reflector().state();
    return (s instanceof ReflectorState.Watching || s instanceof ReflectorState.Streaming)
        && source.openWatchCount() > 0
        && source.readableOnOpenWatches() == 0;
  }

  /** Steps the reflector until it would wait on the watch; then, if asked, runs the tasks. */
  private void readAll(boolean process) {
    for (int steps = 0; !reflectorWouldWait(); steps++) {
      assertThat(steps).as("steps of the reflector").isLessThan(1000);
      reflector().step();
    }
    if (process) {
      for (Runnable t = tasks.poll(); t != null; t = tasks.poll()) {
        t.run();
      }
    }
  }

  private void start() {
    informer.start();
    readAll(true);
  }

  private RequiredSearch meter(String name) {
    return registry
        .get(name)
        .tag("name", "micrometer-pods")
        .tag("group", "")
        .tag("version", "v1")
        .tag("resource", "pods");
  }

  private double queuedItems() {
    return meter(MicrometerMetrics.INFORMER_QUEUED_ITEMS).gauge().value();
  }

  private double storeResourceVersion() {
    return meter(MicrometerMetrics.INFORMER_STORE_RESOURCE_VERSION).gauge().value();
  }

  private Timer processingLatency() {
    return meter(MicrometerMetrics.INFORMER_PROCESSING_LATENCY).timer();
  }

  @Test
  void initialList_publishesTheStoreResourceVersionAndTheProcessingTime() {
    source.add(pod("a"));
    String listed = source.add(pod("b"));

    start();

    assertThat(informer.hasSynced()).isTrue();
    assertThat(queuedItems()).isZero();
    assertThat(storeResourceVersion()).isEqualTo(Double.parseDouble(listed));
    assertThat(processingLatency().totalTime(TimeUnit.SECONDS))
        .as("two objects processed, 30 ms each")
        .isCloseTo(0.060, within(1e-9));
  }

  @Test
  void watchedEvent_isQueuedUntilProcessed_thenMovesTheResourceVersion() {
    source.add(pod("a"));
    start();
    long batchesBefore = processingLatency().count();
    double secondsBefore = processingLatency().totalTime(TimeUnit.SECONDS);

    String rv = source.add(pod("c"));
    readAll(false); // ADDED c: read and queued, not yet processed

    assertThat(queuedItems()).isEqualTo(1.0);
    assertThat(storeResourceVersion()).isLessThan(Double.parseDouble(rv));

    readAll(true);

    assertThat(queuedItems()).isZero();
    assertThat(storeResourceVersion()).isEqualTo(Double.parseDouble(rv));
    assertThat(processingLatency().count()).isEqualTo(batchesBefore + 1);
    assertThat(processingLatency().totalTime(TimeUnit.SECONDS) - secondsBefore)
        .isCloseTo(PER_OBJECT.toNanos() / 1e9, within(1e-9));
  }

  @Test
  void bookmark_movesTheStoreResourceVersion_withoutQueueingAnObject() {
    start();
    source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, bookmark("40")));

    readAll(true);

    assertThat(storeResourceVersion()).isEqualTo(40.0);
    assertThat(queuedItems()).isZero();
  }

  @Test
  void processingLatency_isAHistogramWithClientGosBuckets() {
    source.add(pod("a"));
    start();

    assertThat(processingLatency().takeSnapshot().histogramCounts())
        .extracting(b -> b.bucket(TimeUnit.SECONDS))
        .containsExactly(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);
  }
}

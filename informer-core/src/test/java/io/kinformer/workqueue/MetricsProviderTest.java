package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** client-go's metrics_test.go: what a provider sees from a named queue. */
class MetricsProviderTest {

  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider provider = new RecordingMetricsProvider();
  private final QueueOptions options =
      QueueOptions.builder()
          .name("test")
          .clockAndScheduler(clock)
          .metricsProvider(provider)
          .build();

  private RecordingMetricsProvider.Metric metric(String kind) {
    return provider.get("test", kind);
  }

  @Test
  void queue_addGetDone_reportsAddsDepthLatencyAndWorkDuration() throws InterruptedException {
    WorkQueue<String> q = WorkQueue.create(options);

    q.add("foo");
    assertThat(metric("adds").value()).isEqualTo(1.0);
    assertThat(metric("depth").value()).isEqualTo(1.0);

    clock.advance(Duration.ofNanos(50_000));
    String i = q.get().orElseThrow();
    assertThat(metric("latency").observations()).containsExactly(5e-05);
    assertThat(metric("depth").value()).isZero();

    // Added back while processing; duplicates are collapsed.
    for (int n = 0; n < 5; n++) {
      q.add(i);
    }
    assertThat(metric("adds").value()).isEqualTo(2.0);
    assertThat(metric("depth").value()).isEqualTo(1.0);

    clock.advance(Duration.ofNanos(25_000));
    q.done(i);
    assertThat(metric("workDuration").observations()).containsExactly(2.5e-05);
    assertThat(metric("depth").value()).isEqualTo(1.0);

    i = q.get().orElseThrow();
    assertThat(metric("latency").observations()).containsExactly(5e-05, 2.5e-05);

    // The periodic update runs every 500 ms from the first add (t = 0); at t = 1 s the item has
    // been processing since t = 75 us.
    clock.advance(Duration.ofMillis(1000));
    assertThat(metric("unfinished").value()).isCloseTo(0.999925, within(1e-9));
    assertThat(metric("longest").value()).isCloseTo(0.999925, within(1e-9));

    q.done(i);
    assertThat(metric("workDuration").observations()).containsExactly(2.5e-05, 1.0);

    clock.advance(Duration.ofMillis(500));
    assertThat(metric("unfinished").value()).isZero();
    assertThat(metric("longest").value()).isZero();
    q.shutDown();
  }

  @Test
  void unfinishedWork_severalItems_sumsAgesAndReportsTheOldest() throws InterruptedException {
    WorkQueue<String> q = WorkQueue.create(options);
    q.add("a");
    q.get();
    clock.advance(Duration.ofMillis(250));
    q.add("b");
    q.get();
    clock.advance(Duration.ofMillis(250)); // first update at 500 ms: ages 0.5 s and 0.25 s

    assertThat(metric("unfinished").value()).isCloseTo(0.75, within(1e-9));
    assertThat(metric("longest").value()).isCloseTo(0.5, within(1e-9));
    q.shutDown();
  }

  @Test
  void shutDown_stopsThePeriodicUpdate() {
    WorkQueue<String> q = WorkQueue.create(options);
    q.add("a");
    assertThat(clock.pendingDelays())
        .containsExactly(DefaultWorkQueue.UNFINISHED_WORK_UPDATE_PERIOD);
    clock.advance(Duration.ofMillis(500));
    assertThat(metric("unfinished").wasSet()).isTrue();
    assertThat(clock.pendingTaskCount()).isEqualTo(1);

    q.shutDown();

    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void noMetrics_noPeriodicTask() {
    WorkQueue<String> q = WorkQueue.create(QueueOptions.builder().clockAndScheduler(clock).build());
    q.add("a");
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void delayingQueue_addAfterAndAddRateLimited_countRetries() {
    RateLimitingQueue<String> q =
        RateLimitingQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofSeconds(1)),
            options);
    q.addAfter("a", Duration.ofSeconds(1));
    q.addAfter("b", Duration.ZERO);
    q.addRateLimited("c");
    q.add("d");

    assertThat(metric("retries").value()).isEqualTo(3.0);
    assertThat(metric("adds").value()).as("b and d so far").isEqualTo(2.0);
    clock.advance(Duration.ofSeconds(1));
    assertThat(metric("adds").value()).isEqualTo(4.0);
    assertThat(metric("depth").value()).isEqualTo(4.0);
    q.shutDown();
  }

  @Test
  void options_providerWithoutName_isRejected() {
    assertThatThrownBy(() -> QueueOptions.builder().metricsProvider(provider).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
  }

  @Test
  void provider_defaultMethods_areNoops() {
    MetricsProvider onlyAdds =
        new MetricsProvider() {
          @Override
          public CounterMetric newAddsMetric(String name) {
            return provider.get(name, "adds");
          }
        };
    WorkQueue<String> q = WorkQueue.create(options.toBuilder().metricsProvider(onlyAdds).build());
    q.add("a");
    q.add("b");
    assertThat(metric("adds").value()).isEqualTo(2.0);
    assertThat(metric("depth").value()).as("not bound").isZero();
    q.shutDown();
  }
}

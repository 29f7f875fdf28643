package io.kinformer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.WorkQueue;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A work queue's metrics, as Micrometer meters. */
class MicrometerWorkQueueMetricsTest {

  private final FakeClock clock = new FakeClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MicrometerMetrics metrics = new MicrometerMetrics(registry);

  private QueueOptions options(String name) {
    return QueueOptions.builder().name(name).clockAndScheduler(clock).metricsProvider(metrics).build();
  }

  private double gauge(String meter, String queue) {
    return registry.get(meter).tag("name", queue).gauge().value();
  }

  private double counter(String meter, String queue) {
    return registry.get(meter).tag("name", queue).counter().count();
  }

  private Timer timer(String meter, String queue) {
    return registry.get(meter).tag("name", queue).timer();
  }

  @Test
  void addGetDone_publishDepthAddsQueueAndWorkDuration() throws InterruptedException {
    WorkQueue<String> q = WorkQueue.create(options("q"));

    q.add("foo");
    q.add("foo"); // a duplicate of a queued item is not an add
    assertThat(counter(MicrometerMetrics.WORKQUEUE_ADDS, "q")).isEqualTo(1.0);
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "q")).isEqualTo(1.0);

    clock.advance(Duration.ofMillis(3));
    String item = q.get().orElseThrow();
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "q")).isZero();
    Timer latency = timer(MicrometerMetrics.WORKQUEUE_QUEUE_DURATION, "q");
    assertThat(latency.count()).isEqualTo(1);
    assertThat(latency.totalTime(TimeUnit.SECONDS)).isCloseTo(0.003, within(1e-12));

    clock.advance(Duration.ofMillis(20));
    q.done(item);
    Timer work = timer(MicrometerMetrics.WORKQUEUE_WORK_DURATION, "q");
    assertThat(work.count()).isEqualTo(1);
    assertThat(work.totalTime(TimeUnit.SECONDS)).isCloseTo(0.020, within(1e-12));
    q.shutDown();
  }

  @Test
  void durations_areHistogramsWithClientGosBuckets() throws InterruptedException {
    WorkQueue<String> q = WorkQueue.create(options("buckets"));
    q.add("a");
    clock.advance(Duration.ofMillis(3)); // 3 ms: in the 10 ms bucket, not the 1 ms one
    q.done(q.get().orElseThrow());

    CountAtBucket[] buckets =
        timer(MicrometerMetrics.WORKQUEUE_QUEUE_DURATION, "buckets")
            .takeSnapshot()
            .histogramCounts();
    assertThat(Arrays.stream(buckets).map(b -> b.bucket(TimeUnit.SECONDS)))
        .containsExactly(1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0);
    assertThat(Arrays.stream(buckets).map(CountAtBucket::count))
        .containsExactly(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
    q.shutDown();
  }

  @Test
  void itemsBeingProcessed_publishUnfinishedWorkAndLongestRunningProcessor()
      throws InterruptedException {
    WorkQueue<String> q = WorkQueue.create(options("slow"));
    q.add("a");
    q.get();
    clock.advance(Duration.ofMillis(250));
    q.add("b");
    String b = q.get().orElseThrow();
    // The periodic update runs every 500 ms from the first add: ages 0.5 s and 0.25 s.
    clock.advance(Duration.ofMillis(250));
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_UNFINISHED_WORK, "slow"))
        .isCloseTo(0.75, within(1e-9));
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_LONGEST_RUNNING_PROCESSOR, "slow"))
        .isCloseTo(0.5, within(1e-9));

    q.done("a");
    q.done(b);
    clock.advance(Duration.ofMillis(500));
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_UNFINISHED_WORK, "slow")).isZero();
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_LONGEST_RUNNING_PROCESSOR, "slow")).isZero();
    q.shutDown();
  }

  @Test
  void delayedAndRateLimitedAdds_countRetries() {
    RateLimitingQueue<String> q =
        RateLimitingQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofSeconds(1)),
            options("retrying"));
    q.addAfter("a", Duration.ofSeconds(1));
    q.addRateLimited("b");
    q.add("c");

    assertThat(counter(MicrometerMetrics.WORKQUEUE_RETRIES, "retrying")).isEqualTo(2.0);
    assertThat(counter(MicrometerMetrics.WORKQUEUE_ADDS, "retrying")).as("c only").isEqualTo(1.0);
    clock.advance(Duration.ofSeconds(1));
    assertThat(counter(MicrometerMetrics.WORKQUEUE_ADDS, "retrying")).isEqualTo(3.0);
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "retrying")).isEqualTo(3.0);
    q.shutDown();
  }

  @Test
  void twoQueuesOfOneName_shareTheirSeries_asClientGosVectors() throws InterruptedException {
    WorkQueue<String> one = WorkQueue.create(options("shared"));
    WorkQueue<String> two = WorkQueue.create(options("shared"));
    one.add("a");
    two.add("b");
    two.add("c");
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "shared")).isEqualTo(3.0);
    assertThat(counter(MicrometerMetrics.WORKQUEUE_ADDS, "shared")).isEqualTo(3.0);
    assertThat(registry.find(MicrometerMetrics.WORKQUEUE_DEPTH).gauges()).hasSize(1);

    two.get();
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "shared")).isEqualTo(2.0);
    one.shutDown();
    two.shutDown();
  }

  @Test
  void queuesOfDifferentNames_areToldApartByTheNameTag() {
    WorkQueue<String> pods = WorkQueue.create(options("pods"));
    WorkQueue<String> nodes = WorkQueue.create(options("nodes"));
    pods.add("a");
    pods.add("b");
    nodes.add("x");
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "pods")).isEqualTo(2.0);
    assertThat(gauge(MicrometerMetrics.WORKQUEUE_DEPTH, "nodes")).isEqualTo(1.0);
    pods.shutDown();
    nodes.shutDown();
  }
}

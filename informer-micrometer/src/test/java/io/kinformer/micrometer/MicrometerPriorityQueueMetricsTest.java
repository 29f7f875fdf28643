package io.kinformer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.PriorityQueue;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.WorkQueue;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A priority queue's depth, labelled per priority, next to a plain queue's. */
class MicrometerPriorityQueueMetricsTest {

  private final FakeClock clock = new FakeClock();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MicrometerMetrics metrics = new MicrometerMetrics(registry);

  private QueueOptions options(String name) {
    return QueueOptions.builder()
        .name(name)
        .clockAndScheduler(clock)
        .metricsProvider(metrics)
        .build();
  }

  @Test
  void priorityQueueDepth_isScrapedPerPriority_besideAPlainQueue() throws InterruptedException {
    WorkQueue<String> plain = WorkQueue.create(options("plain"));
    PriorityQueue<String> prio =
        PriorityQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofSeconds(1)),
            options("prio"));
    plain.add("x");
    prio.add("listed-1", PriorityQueue.LOW_PRIORITY);
    prio.add("listed-2", PriorityQueue.LOW_PRIORITY);
    prio.add("changed");
    prio.add("listed-2", 0); // raised: its depth moves from -100 to 0
    prio.addAfter("later", Duration.ofSeconds(1)); // not ready: not in the depth

    assertThat(prio.get()).contains("changed");

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("workqueue_depth{name=\"plain\"} 1.0")
        .contains("workqueue_depth{name=\"prio\",priority=\"-100\"} 1.0")
        .contains("workqueue_depth{name=\"prio\",priority=\"0\"} 1.0")
        .contains("workqueue_adds_total{name=\"prio\"} 3.0")
        .contains("workqueue_retries_total{name=\"prio\"} 1.0");
    prio.shutDown();
    plain.shutDown();
  }
}

package io.kinformer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Under Prometheus's naming convention, the meters are client-go's series. */
class PrometheusNamesTest {

  private final FakeClock clock = new FakeClock();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MicrometerMetrics metrics = new MicrometerMetrics(registry);

  @Test
  void workQueueMetrics_scrapeAsClientGosNames() throws InterruptedException {
    RateLimitingQueue<String> q =
        RateLimitingQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofSeconds(1)),
            QueueOptions.builder()
                .name("pods")
                .clockAndScheduler(clock)
                .metricsProvider(metrics)
                .build());
    q.add("a");
    q.addRateLimited("b");
    clock.advance(Duration.ofMillis(2));
    String a = q.get().orElseThrow();
    clock.advance(Duration.ofMillis(500));
    q.done(a);

    String scrape = registry.scrape();

    assertThat(scrape)
        .contains("# TYPE workqueue_depth gauge")
        .contains("workqueue_depth{name=\"pods\"} 1.0")
        .contains("# TYPE workqueue_adds_total counter")
        .contains("workqueue_adds_total{name=\"pods\"} 2.0")
        .contains("# TYPE workqueue_queue_duration_seconds histogram")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"pods\",le=\"1.0E-8\"} 0")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"pods\",le=\"0.01\"} 1")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"pods\",le=\"1000.0\"} 1")
        .contains("workqueue_queue_duration_seconds_count{name=\"pods\"} 1")
        .contains("workqueue_queue_duration_seconds_sum{name=\"pods\"} 0.002")
        .contains("# TYPE workqueue_work_duration_seconds histogram")
        .contains("workqueue_work_duration_seconds_sum{name=\"pods\"} 0.5")
        .contains("# TYPE workqueue_unfinished_work_seconds gauge")
        // the periodic update at 500 ms saw "a" processing since 2 ms
        .contains("workqueue_unfinished_work_seconds{name=\"pods\"} 0.498")
        .contains("# TYPE workqueue_longest_running_processor_seconds gauge")
        .contains("workqueue_longest_running_processor_seconds{name=\"pods\"} 0.498")
        .contains("# TYPE workqueue_retries_total counter")
        .contains("workqueue_retries_total{name=\"pods\"} 1.0");
    q.shutDown();
  }

  @Test
  void informerMetrics_scrapeAsClientGosNamesAndLabels() {
    InformerId id = new InformerId("deployments", "apps", "v1", "deployments");
    metrics.newQueuedItemMetric(id).set(4);
    metrics.newProcessingLatencyMetric(id).observe(0.02);
    metrics.newStoreResourceVersionMetric(id).set(12345);
    String labels = "group=\"apps\",name=\"deployments\",resource=\"deployments\",version=\"v1\"";

    String scrape = registry.scrape();

    assertThat(scrape)
        .contains("# TYPE informer_queued_items gauge")
        .contains("informer_queued_items{" + labels + "} 4.0")
        .contains("# TYPE informer_processing_latency_seconds histogram")
        .contains("informer_processing_latency_seconds_bucket{" + labels + ",le=\"0.01\"} 0")
        .contains("informer_processing_latency_seconds_bucket{" + labels + ",le=\"0.025\"} 1")
        .contains("informer_processing_latency_seconds_bucket{" + labels + ",le=\"10.0\"} 1")
        .contains("informer_processing_latency_seconds_count{" + labels + "} 1")
        .contains("informer_processing_latency_seconds_sum{" + labels + "} 0.02")
        .contains("# TYPE informer_store_resource_version gauge")
        .contains("informer_store_resource_version{" + labels + "} 12345.0");
  }
}

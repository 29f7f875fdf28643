package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.micrometer.MicrometerMetrics;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** docs/user-guide.md's "Metrics with Micrometer", run against the embedded server. */
@ExtendWith(EmbeddedApiServerExtension.class)
class MetricsExamplesTest {

  EmbeddedApiServer server;

  /** A factory and a queue publishing into {@code registry}. */
  record Wired(SharedInformerFactory factory, RateLimitingQueue<String> queue) {}

  static Wired wire(KubeClient client, MeterRegistry registry) {
    // tag::micrometer[]
    MicrometerMetrics metrics = new MicrometerMetrics(registry); // e.g. a PrometheusMeterRegistry

    SharedInformerFactory factory = SharedInformerFactory.builder(client).metrics(metrics).build();

    RateLimitingQueue<String> queue = RateLimitingQueue.create(
        RateLimiters.defaultControllerRateLimiter(),
        QueueOptions.builder().name("deployments").metricsProvider(metrics).build());
    // end::micrometer[]
    return new Wired(factory, queue);
  }

  @Test
  void factoryAndQueue_publishClientGosSeries_inPrometheusFormat() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
      Wired w = wire(client, registry);
      try (SharedInformerFactory factory = w.factory()) {
        factory.informerFor(Pod.class);
        factory.start();
        assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
        w.queue().add("default/web");

        String scrape = registry.scrape();

        assertThat(scrape)
            .contains("workqueue_adds_total{name=\"deployments\"} 1.0")
            .contains("workqueue_depth{name=\"deployments\"} 1.0")
            .contains("# TYPE informer_store_resource_version gauge")
            .contains(
                "informer_queued_items{group=\"\",name=\"v1/pods\",resource=\"pods\","
                    + "version=\"v1\"}")
            .contains(
                "informer_processing_latency_seconds_count{group=\"\",name=\"v1/pods\","
                    + "resource=\"pods\",version=\"v1\"}");
      } finally {
        w.queue().shutDown();
      }
    }
  }
}

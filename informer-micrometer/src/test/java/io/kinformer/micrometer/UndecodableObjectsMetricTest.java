package io.kinformer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.cache.InformerMetricsProvider.CounterMetric;
import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** kinformer's own informer counter scrapes under its documented name and client-go's labels. */
class UndecodableObjectsMetricTest {

  @Test
  void undecodableObjects_scrapeAsACounterWithTheInformersLabels() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MicrometerMetrics metrics = new MicrometerMetrics(registry);
    InformerId id = new InformerId("example.com/v1/widgets", "example.com", "v1", "widgets");

    CounterMetric counter = metrics.newUndecodableObjectsMetric(id);
    counter.inc();
    counter.inc();
    metrics.newUndecodableObjectsMetric(id).inc();

    String labels = "group=\"example.com\",name=\"example.com/v1/widgets\",resource=\"widgets\","
        + "version=\"v1\"";
    assertThat(registry.scrape())
        .contains("# TYPE informer_undecodable_objects_total counter")
        .contains("informer_undecodable_objects_total{" + labels + "} 3.0");
  }
}

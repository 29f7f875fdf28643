package io.kinformer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.ReflectorMetrics;
import io.kinformer.cache.WatchEventType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The reflector's counters scrape under their documented names, with the informer's labels. */
class ReflectorMetricsScrapeTest {

  @Test
  void reflectorCounters_scrapeWithTheInformersLabels() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ReflectorMetrics m = new MicrometerMetrics(registry)
        .newReflectorMetrics(new InformerId("v1/pods", "", "v1", "pods"));

    m.watchOpened(true);
    m.listed(true, 40);
    m.event(WatchEventType.MODIFIED);
    m.event(WatchEventType.MODIFIED);
    m.event(WatchEventType.BOOKMARK);
    m.failed(ReflectorException.Phase.WATCH_START, 410);
    m.listed(false, 38);
    m.watchOpened(false);
    m.failed(ReflectorException.Phase.WATCH_STREAM, 0);

    // Prometheus orders the labels by name.
    String g = "group=\"\",";
    String nrv = "name=\"v1/pods\",resource=\"pods\",";
    String v = "version=\"v1\"";
    assertThat(registry.scrape())
        .contains("reflector_lists_total{" + g + "kind=\"stream\"," + nrv + v + "} 1.0")
        .contains("reflector_lists_total{" + g + "kind=\"list\"," + nrv + v + "} 1.0")
        .contains("reflector_items_per_list_count{" + g + nrv + v + "} 2")
        .contains("reflector_items_per_list_sum{" + g + nrv + v + "} 78.0")
        .contains("reflector_watches_total{" + g + "kind=\"stream\"," + nrv + v + "} 1.0")
        .contains("reflector_watches_total{" + g + "kind=\"watch\"," + nrv + v + "} 1.0")
        .contains("reflector_events_total{" + g + nrv + "type=\"MODIFIED\"," + v + "} 2.0")
        .contains("reflector_events_total{" + g + nrv + "type=\"BOOKMARK\"," + v + "} 1.0")
        .contains("reflector_failures_total{code=\"410\"," + g + "name=\"v1/pods\","
            + "phase=\"WATCH_START\",resource=\"pods\"," + v + "} 1.0")
        .contains("reflector_failures_total{code=\"none\"," + g + "name=\"v1/pods\","
            + "phase=\"WATCH_STREAM\",resource=\"pods\"," + v + "} 1.0");
  }
}

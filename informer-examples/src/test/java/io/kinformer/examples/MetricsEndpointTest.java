package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link MetricsEndpoint} scraped over real HTTP, as Prometheus would. */
@ExtendWith(EmbeddedApiServerExtension.class)
class MetricsEndpointTest {

  EmbeddedApiServer server;

  private static HttpResponse<String> get(URI url) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    return http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void scrape_showsClientGosInformerAndWorkQueueSeries() throws Exception {
    try (KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        MetricsEndpoint endpoint = MetricsEndpoint.start(client,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      assertThat(endpoint.awaitSynced(Duration.ofSeconds(30))).isTrue();
      for (int i = 0; i < 3; i++) {
        server.create(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
            .withName("cm-" + i).endMetadata().build());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.reconciled() >= 3);

      HttpResponse<String> scrape = get(endpoint.metricsUrl());

      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("Content-Type")).hasValueSatisfying(
          v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
      String informer = "name=\"v1/configmaps\",resource=\"configmaps\",version=\"v1\"";
      assertThat(scrape.body())
          .contains("# TYPE workqueue_adds_total counter")
          .containsPattern("workqueue_adds_total\\{name=\"configmaps\"} [3-9]\\.0")
          .contains("# TYPE workqueue_depth gauge")
          .contains("workqueue_work_duration_seconds_count{name=\"configmaps\"}")
          .contains("informer_queued_items{group=\"\"," + informer + "}")
          .contains("informer_processing_latency_seconds_count{group=\"\"," + informer + "}")
          .containsPattern("informer_store_resource_version\\{group=\"\"," + informer
              + "} [1-9]")
          .contains("informer_undecodable_objects_total{group=\"\"," + informer + "} 0.0")
          // The reflector's own counters: a (streaming) list, an open watch, the three creates.
          .containsPattern("reflector_lists_total\\{group=\"\",kind=\"(stream|list)\","
              + "name=\"v1/configmaps\"[^}]*} 1\\.0")
          .containsPattern("reflector_watches_total\\{group=\"\",kind=\"(stream|watch)\","
              + "name=\"v1/configmaps\"[^}]*} [1-9]")
          .containsPattern("informer_decoded_bytes_total\\{group=\"\"," + informer
              + "} [1-9][0-9]*\\.0")
          .containsPattern("informer_handler_call_duration_seconds_count\\{group=\"\","
              + "handler=\"[^\"]+\",name=\"v1/configmaps\"[^}]*} [3-9]")
          .containsPattern("informer_handler_delivery_latency_seconds_count\\{group=\"\","
              + "handler=\"[^\"]+\",name=\"v1/configmaps\"[^}]*} [3-9]")
          .containsPattern("informer_handler_pending_notifications\\{group=\"\","
              + "handler=\"[^\"]+\",name=\"v1/configmaps\"[^}]*} 0\\.0")
          .containsPattern("reflector_events_total\\{group=\"\",name=\"v1/configmaps\","
              + "resource=\"configmaps\",type=\"ADDED\",version=\"v1\"} [3-9]");
      assertThat(get(URI.create(endpoint.metricsUrl().toString().replace("/metrics", "/other")))
          .statusCode()).isEqualTo(404);
    }
  }
}

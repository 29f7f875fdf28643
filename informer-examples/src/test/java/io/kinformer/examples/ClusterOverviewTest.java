package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.examples.ClusterOverview.NodeRow;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterOverviewTest {

  @Test
  void snapshot_countsPodsByNodeWidgetsAndSecretsFromTheCaches() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
      ClusterOverview.seed(server, client);
      try (ClusterOverview overview = new ClusterOverview(client, true)) {
        assertSeededOverviewFollowsChanges(client, overview);
      }
    }
  }

  /**
   * Checks what {@link ClusterOverview#seedObjects} created is in the snapshot, and that the
   * snapshot follows a pod's and a widget's deletion; the server holds nothing else.
   */
  static void assertSeededOverviewFollowsChanges(KubeClient client, ClusterOverview overview) {
    assertThat(overview.start(Duration.ofSeconds(30))).isTrue();

    ClusterOverview.Snapshot s = overview.snapshot();

    assertThat(s.nodes())
        .containsExactly(
            new NodeRow("node-1", "Ready", 4),
            new NodeRow("node-2", "Ready", 4),
            new NodeRow("node-3", "NotReady", 3));
    assertThat(s.unscheduledPods()).isEqualTo(1);
    assertThat(s.widgetsByNamespace()).contains(Map.of("blog", 1, "shop", 3));
    assertThat(s.secretsByNamespace()).containsEntry("blog", 1).containsEntry("shop", 2);

    client
        .resources(Pod.class)
        .inNamespace("blog")
        .delete("web-0", new DeleteOptionsBuilder().withGracePeriodSeconds(0L).build());
    client.resources(ClusterOverview.WIDGETS).inNamespace("shop").delete("widget-1");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ClusterOverview.Snapshot now = overview.snapshot();
              assertThat(now.nodes()).first().isEqualTo(new NodeRow("node-1", "Ready", 3));
              assertThat(now.widgetsByNamespace()).contains(Map.of("blog", 1, "shop", 2));
            });
  }

  @Test
  void snapshot_withoutWidgets_hasNoWidgetCounts() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        ClusterOverview overview = new ClusterOverview(client, false)) {
      assertThat(overview.start(Duration.ofSeconds(30))).isTrue();

      assertThat(overview.snapshot().widgetsByNamespace()).isEqualTo(Optional.empty());
    }
  }
}

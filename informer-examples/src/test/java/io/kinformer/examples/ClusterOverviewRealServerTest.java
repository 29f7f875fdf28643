package io.kinformer.examples;

import io.kinformer.client.KubeClient;
import io.kinformer.envtest.ApiServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ClusterOverview} against Kubernetes' own API server code and etcd (informer-envtest):
 * typed pod and node informers with an index, the dynamic informer on widgets served from a
 * CustomResourceDefinition, and the metadata-only informer on secrets, as {@link
 * ClusterOverviewTest} checks them against the embedded server. The server is this class's own:
 * the overview counts every node and pod. Skipped when no API server binary is available.
 */
@Tag("real-apiserver")
class ClusterOverviewRealServerTest {

  // tag::testing-own-server[]
  @RegisterExtension
  static final ApiServerExtension server = ApiServerExtension.withArgs(); // flags, if any, here
  // end::testing-own-server[]

  @Test
  void snapshot_ofRealServer_countsPodsByNodeWidgetsAndSecretsFromTheCaches(KubeClient client) {
    RealServerCrds.create(client, ClusterOverview.WIDGETS, "Widget", Map.of());
    ClusterOverview.seedObjects(client);

    try (ClusterOverview overview = new ClusterOverview(client, true)) {
      ClusterOverviewTest.assertSeededOverviewFollowsChanges(client, overview);
    }
  }
}

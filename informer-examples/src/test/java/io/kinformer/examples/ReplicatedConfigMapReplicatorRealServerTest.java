package io.kinformer.examples;

import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.envtest.ApiServer;
import io.kinformer.envtest.ApiServerExtension;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ReplicatedConfigMapReplicator}'s failover ({@link ReplicatedConfigMapReplicatorTest})
 * against Kubernetes' own API server code and etcd (informer-envtest), on a server of this
 * class's own (the sources and namespaces are ConfigMapReplicatorRealServerTest's).
 *
 * <p>That server has no coordination.k8s.io API of its own (it serves core/v1 and custom
 * resources), so the test serves Leases from a CustomResourceDefinition of the same group,
 * version and name: the Lease objects, their resourceVersions and the optimistic concurrency
 * the election relies on (an update with a stale resourceVersion is a 409) are the real
 * server's; what a CRD does not reproduce is the built-in type's validation.
 * Skipped when no API server binary is available.
 */
@Tag("real-apiserver")
class ReplicatedConfigMapReplicatorRealServerTest {
  private static final Gvr LEASES =
      Gvr.of("coordination.k8s.io", "v1", "leases");

  @RegisterExtension static final ApiServerExtension extension = ApiServerExtension.withArgs();

  private final ReplicatedConfigMapReplicatorTest.Failover failover =
      new ReplicatedConfigMapReplicatorTest.Failover();

  @AfterEach
  void closeReplicas() {
    failover.close();
  }

  @Test
  void leaderCrash_onRealServer_anotherReplicaTakesOverAndKeepsTheCopiesInLine(
      ApiServer server) {
    KubeClient client = server.client();
    RealServerCrds.create(client, LEASES, "Lease", Map.of("api-approved.kubernetes.io",
        "unapproved, a test stand-in for the built-in Lease API"));

    failover.run(server.kubeConfig(),
        () -> ConfigMapReplicatorRealServerTest.seed(client),
        () -> ConfigMapReplicatorRealServerTest.changeSources(client),
        () -> ConfigMapReplicatorRealServerTest.awaitConverged(client));
  }
}

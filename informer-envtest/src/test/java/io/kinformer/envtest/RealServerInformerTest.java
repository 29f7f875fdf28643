package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.time.Backoff;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Informers against Kubernetes' own server code: after bursts of creates, updates and deletes,
 * the cache holds exactly what the server lists, with the same resourceVersions.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerInformerTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);

  /** The informer's own logic with short waits, so that a restart does not stall the test. */
  private static Backoff.Policy fastBackoff(long seed) {
    return (clock, random) -> Backoff.exponential(Duration.ofMillis(20), Duration.ofMillis(500),
        2.0, 1.0, Duration.ofSeconds(2), clock, new Random(seed));
  }

  /** An informer on {@code cms}, started and synced. */
  private static SharedIndexInformer<ConfigMap> synced(
      ResourceClient<ConfigMap> cms, boolean streaming, long seed) throws InterruptedException {
    SharedIndexInformer<ConfigMap> informer =
        SharedIndexInformer.builder("configmaps", cms.listerWatcher())
            .streamingList(streaming)
            .pageSize(40)
            .backoff(fastBackoff(seed))
            .build();
    informer.start();
    if (!informer.awaitSynced(SETTLE)) {
      informer.close();
      throw new AssertionError("informer not synced within " + SETTLE);
    }
    return informer;
  }

  @ParameterizedTest(name = "streamingList={0}")
  @ValueSource(booleans = {true, false})
  void informer_afterBurstsOfWritesWithDeletes_cacheEqualsServer(boolean streaming,
      KubeClient client) throws InterruptedException {
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, streaming ? "stream-burst" : "list-burst");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 1, 150, 100); // state before the informer starts: the initial list

    try (SharedIndexInformer<ConfigMap> informer = synced(cms, streaming, 2)) {
      assertThat(Cluster.cacheState(informer, ns)).isEqualTo(Cluster.serverState(cms));

      int[] counts = Cluster.burst(cms, ns, 3, 300, 60);

      assertThat(counts[2]).as("deletes in the burst").isPositive();
      Cluster.awaitCacheEqualsServer(informer, ns, cms);
    }
  }

  @Test
  void informer_acrossServerRestartWithWritesAfterIt_convergesToServer(ApiServer server)
      throws InterruptedException {
    KubeClient client = server.client();
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "restart-burst");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 4, 80, 50);

    try (SharedIndexInformer<ConfigMap> informer = synced(cms, true, 5)) {

      server.restart();
      Cluster.burst(cms, ns, 6, 120, 50);

      Cluster.awaitCacheEqualsServer(informer, ns, cms);
    }
  }

  @Test
  void informer_afterEtcdCompaction_keepsFollowingTheServer(ApiServer server)
      throws InterruptedException {
    KubeClient client = server.client();
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "compact-burst");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 7, 60, 40);

    try (SharedIndexInformer<ConfigMap> informer = synced(cms, false, 8)) {

      Cluster.burst(cms, ns, 9, 60, 40);
      server.compact();
      Cluster.burst(cms, ns, 10, 60, 40);

      Cluster.awaitCacheEqualsServer(informer, ns, cms);
    }
  }

  @Test
  void factory_dynamicInformerForConfigMaps_matchesTypedServerState(KubeClient client)
      throws InterruptedException {
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "dynamic");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 11, 40, 30);
    Map<String, String> seen = new ConcurrentHashMap<>();

    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).namespace(ns).build()) {
      SharedIndexInformer<GenericKubernetesResource> dynamic =
          factory.informerFor(new Gvr("", "v1", "configmaps"));
      factory.start();
      assertThat(factory.waitForCacheSync(SETTLE)).isTrue();
      Cluster.burst(cms, ns, 12, 40, 30);

      await().atMost(SETTLE).untilAsserted(() -> {
        seen.clear();
        dynamic.getStore().list().forEach(o ->
            seen.put(o.getMetadata().getName(), o.getMetadata().getResourceVersion()));
        assertThat(seen).isEqualTo(Cluster.serverState(cms));
      });
    }
  }
}

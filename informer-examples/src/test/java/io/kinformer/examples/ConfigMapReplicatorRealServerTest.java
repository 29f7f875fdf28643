package io.kinformer.examples;

import static io.kinformer.examples.ConfigMapReplicatorTest.configMap;
import static io.kinformer.examples.ConfigMapReplicatorTest.namespace;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.envtest.ApiServer;
import io.kinformer.envtest.ApiServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ConfigMapReplicator} against Kubernetes' own API server code and etcd
 * (informer-envtest): it converges, and converges again after the server crashes and etcd's
 * history is compacted while sources change. Skipped when no API server binary is available.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class ConfigMapReplicatorRealServerTest {

  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @Test
  void replicator_acrossServerRestartAndCompaction_converges(ApiServer server) {
    // tag::testing-real-apiserver[]
    KubeClient client = server.client(); // etcd and k8s.io/apiserver on loopback, token auth
    seed(client);
    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        ConfigMapReplicator replicator =
            new ConfigMapReplicator(client, factory, "source", 2, line -> {})) {
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
      replicator.start();
      awaitConverged(client);

      server.restart(); // the API server crashes and comes back: every watch breaks
      changeSources(client); // while users keep changing things
      server.compact(); // and etcd forgets the history before now

      awaitConverged(client); // the controller recovers from all of it by itself
    }
    // end::testing-real-apiserver[]
  }

  static void seed(KubeClient client) {
    for (String ns : List.of("source", "team-a", "team-b", "scratch")) {
      client.resources(Namespace.class).create(namespace(ns, ns.startsWith("team-")));
    }
    ResourceClient<ConfigMap> source = client.resources(ConfigMap.class).inNamespace("source");
    source.create(configMap("source", "app-settings", true, Map.of("log.level", "info")));
    source.create(configMap("source", "feature-flags", true, Map.of("new-ui", "false")));
    source.create(configMap("source", "local-only", false, Map.of("stays", "here")));
  }

  static void changeSources(KubeClient client) {
    ResourceClient<ConfigMap> source = client.resources(ConfigMap.class).inNamespace("source");
    source.update(configMap("source", "app-settings", true, Map.of("log.level", "debug")));
    source.create(configMap("source", "limits", true, Map.of("cpu", "2")));
    source.delete("feature-flags");
    client.resources(Namespace.class).update(namespace("scratch", true));
  }

  static void awaitConverged(KubeClient client) {
    await().atMost(CONVERGE).untilAsserted(() ->
        assertThat(copies(client)).isEqualTo(desired(client)));
  }

  /** The copies the server holds: "namespace/name" to data. */
  private static Map<String, Map<String, String>> copies(KubeClient client) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (ConfigMap cm : client.resources(ConfigMap.class).inAnyNamespace().list()) {
      if (ConfigMapReplicator.isCopy(cm)) {
        out.put(cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName(),
            cm.getData() == null ? Map.of() : cm.getData());
      }
    }
    return out;
  }

  /** What the copies should be, computed from the server's sources and namespaces. */
  private static Map<String, Map<String, String>> desired(KubeClient client) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    List<ConfigMap> sources = client.resources(ConfigMap.class).inNamespace("source").list();
    for (Namespace ns : client.resources(Namespace.class).list()) {
      if (!ConfigMapReplicator.isTarget(ns) || ns.getMetadata().getName().equals("source")) {
        continue;
      }
      for (ConfigMap source : sources) {
        if (ConfigMapReplicator.replicated(source)) {
          out.put(ns.getMetadata().getName() + "/" + source.getMetadata().getName(),
              source.getData() == null ? Map.of() : source.getData());
        }
      }
    }
    return out;
  }
}

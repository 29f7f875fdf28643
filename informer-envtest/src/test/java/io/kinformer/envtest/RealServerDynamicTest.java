package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.client.SharedInformerFactory.InformerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Metadata-only, label-selected and dynamic informers against the real server, and custom
 * resources whose CRD is created, deleted and created again.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerDynamicTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);
  private static final Gvr CONFIGMAPS = new Gvr("", "v1", "configmaps");

  private static <T extends HasMetadata> Map<String, String> names(List<T> objects) {
    Map<String, String> out = new TreeMap<>();
    objects.forEach(o -> out.put(o.getMetadata().getName(), o.getMetadata().getResourceVersion()));
    return out;
  }

  @Test
  void metadataAndLabelSelectedInformers_afterBurst_equalTheServer(KubeClient client)
      throws InterruptedException {
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "metadata");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 51, 60, 40);

    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).namespace(ns).build()) {
      SharedIndexInformer<PartialObjectMetadata> metadata = factory.metadataInformerFor(CONFIGMAPS);
      SharedIndexInformer<ConfigMap> even = factory.informerFor(ConfigMap.class,
          InformerOptions.inNamespace(ns).withLabelSelector("tier=even"));
      factory.start();
      assertThat(factory.waitForCacheSync(SETTLE)).isTrue();
      Cluster.burst(cms, ns, 52, 60, 40);
      for (int i = 0; i < 10; i++) {
        ConfigMap labelled = Cluster.configMap(ns, "labelled-" + i, "v");
        labelled.getMetadata().setLabels(Map.of("tier", i % 2 == 0 ? "even" : "odd"));
        cms.create(labelled);
      }
      cms.delete("labelled-0");

      await().atMost(SETTLE).untilAsserted(() -> {
        assertThat(names(metadata.getStore().list())).isEqualTo(Cluster.serverState(cms));
        assertThat(names(even.getStore().list()))
            .isEqualTo(Cluster.serverState(cms.withLabelSelector("tier=even")))
            .containsOnlyKeys("labelled-2", "labelled-4", "labelled-6", "labelled-8");
      });
    }
  }

  @Test
  void dynamicInformer_forCustomResources_followsCrdDeletedAndRecreated(KubeClient client)
      throws InterruptedException {
    String ns = Cluster.newNamespace(client, "crd");
    String group = ns + ".example.com";
    ResourceClient<GenericKubernetesResource> widgets =
        Cluster.createWithCrd(client, group, false, ns, "w0");
    Gvr widgetsGvr = new Gvr(group, "v1", "widgets");
    for (int i = 1; i < 5; i++) {
      widgets.create(Cluster.widget(group, ns, "w" + i));
    }

    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).namespace(ns).build()) {
      SharedIndexInformer<GenericKubernetesResource> informer = factory.informerFor(widgetsGvr);
      factory.start();
      assertThat(factory.waitForCacheSync(SETTLE)).isTrue();
      assertThat(names(informer.getStore().list())).isEqualTo(names(widgets.list()));

      client.resources(Cluster.CRDS).delete("widgets." + group); // its custom resources go with it
      await().atMost(SETTLE).until(() -> informer.getStore().list().isEmpty());

      Cluster.createWithCrd(client, group, false, ns, "again");
      await().atMost(SETTLE).untilAsserted(() ->
          assertThat(names(informer.getStore().list())).isEqualTo(names(widgets.list()))
              .containsOnlyKeys("again"));
    }
  }
}

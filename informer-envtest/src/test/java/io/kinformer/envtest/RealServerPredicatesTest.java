package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.EventFilter;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.ResourceEventHandlers;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.client.PatchType;
import io.kinformer.client.ResourceClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Handler predicates against Kubernetes' own server code: which writes raise a custom resource's
 * generation, and so which events each filter lets through.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerPredicatesTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);
  private static final Gvr CRDS =
      new Gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions");

  private static GenericKubernetesResource widget(String group, String ns) {
    GenericKubernetesResource w = new GenericKubernetesResource();
    w.setApiVersion(group + "/v1");
    w.setKind("Widget");
    w.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName("w").build());
    w.setAdditionalProperty("spec", Map.of("size", 1));
    return w;
  }

  /** Records each event it is given: its kind and the object's generation. */
  private static ResourceEventHandler<GenericKubernetesResource> recorder(List<String> seen) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj, boolean isInInitialList) {
        seen.add("add " + obj.getMetadata().getGeneration());
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        seen.add("update " + oldObj.getMetadata().getGeneration() + " -> "
            + newObj.getMetadata().getGeneration());
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean finalStateUnknown) {
        seen.add("delete " + obj.getMetadata().getGeneration());
      }
    };
  }

  @Test
  void filters_passOnlyTheWritesTheyAreAbout(KubeClient client) throws InterruptedException {
    String ns = Cluster.newNamespace(client, "predicates");
    String group = ns + ".example.com";
    client.resources(CRDS).create(Cluster.widgetsCrd(group, true));
    // Until the apiextensions server has installed the new group, discovery and the first create
    // answer 404; a 409 means an earlier try went through after all.
    ResourceClient<GenericKubernetesResource> widgets =
        await().atMost(SETTLE)
            .ignoreExceptionsMatching(e -> e instanceof ApiException a && a.isNotFound())
            .until(
                () -> {
                  ResourceClient<GenericKubernetesResource> w =
                      client.resources(new Gvr(group, "v1", "widgets"))
                          .inNamespace(ns);
                  try {
                    w.create(widget(group, ns));
                  } catch (ApiException e) {
                    if (!e.isConflict()) {
                      throw e;
                    }
                  }
                  return w;
                },
                w -> true);

    List<String> all = new CopyOnWriteArrayList<>();
    List<String> specChanges = new CopyOnWriteArrayList<>();
    List<String> relabels = new CopyOnWriteArrayList<>();
    List<String> finalizerChanges = new CopyOnWriteArrayList<>();
    try (SharedIndexInformer<GenericKubernetesResource> informer =
        SharedIndexInformer.builder("widgets", widgets.listerWatcher()).build()) {
      informer.addEventHandler(recorder(all));
      informer.addEventHandler(
          ResourceEventHandlers.filtered(EventFilter.generationChanged(), recorder(specChanges)));
      informer.addEventHandler(
          ResourceEventHandlers.filtered(EventFilter.labelsChanged(), recorder(relabels)));
      informer.addEventHandler(ResourceEventHandlers.filtered(
          EventFilter.finalizersChanged(), recorder(finalizerChanges)));
      informer.start();
      assertThat(informer.awaitSynced(SETTLE)).isTrue();

      widgets.patch("w", PatchType.JSON_MERGE, "{\"status\":{\"ready\":true}}", "status");
      widgets.patch("w", PatchType.JSON_MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
      widgets.patch("w", PatchType.JSON_MERGE, "{\"spec\":{\"size\":2}}");
      widgets.patch("w", PatchType.JSON_MERGE,
          "{\"metadata\":{\"finalizers\":[\"example.com/cleanup\"]}}");
      widgets.delete("w"); // held by the finalizer: marked for deletion
      // Removing the last finalizer of an object marked for deletion deletes it: one event.
      widgets.patch("w", PatchType.JSON_MERGE, "{\"metadata\":{\"finalizers\":null}}");

      await().atMost(SETTLE).untilAsserted(() -> assertThat(all).containsExactly(
          "add 1",
          "update 1 -> 1", // status
          "update 1 -> 1", // labels
          "update 1 -> 2", // spec
          "update 2 -> 2", // finalizer added
          "update 2 -> 3", // deletion started: the server raises the generation
          "delete 3"));
      // Handlers' deliveries are independent: wait for each to catch up with the deletion.
      await().atMost(SETTLE).until(
          () -> specChanges.contains("delete 3") && relabels.contains("delete 3")
              && finalizerChanges.contains("delete 3"));
      assertThat(specChanges).containsExactly("add 1", "update 1 -> 2", "update 2 -> 3", "delete 3");
      assertThat(relabels).containsExactly("add 1", "update 1 -> 1", "delete 3");
      assertThat(finalizerChanges)
          .containsExactly("add 1", "update 2 -> 2", "delete 3");
    }
  }
}

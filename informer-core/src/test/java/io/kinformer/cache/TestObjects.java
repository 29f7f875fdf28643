package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** fabric8 objects and index functions shared by the store and lister tests. */
final class TestObjects {

  static final String BY_NODE = "byNode";
  static final String BY_APP = "byApp";

  private TestObjects() {}

  static Pod pod(String namespace, String name, @Nullable String node, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }

  static Pod pod(String namespace, String name, @Nullable String node) {
    return pod(namespace, name, node, Map.of());
  }

  static ConfigMap configMap(String namespace, String name, Map<String, String> labels) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  static Node node(String name, Map<String, String> labels) {
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .build();
  }

  /** Files a pod under its node; unscheduled pods are in no bucket. */
  static List<String> nodeOf(Pod pod) {
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return node == null ? List.of() : List.of(node);
  }

  /** Files a pod under its "app" label, if any. */
  static List<String> appOf(Pod pod) {
    String app = pod.getMetadata().getLabels() == null ? null
        : pod.getMetadata().getLabels().get("app");
    return app == null ? List.of() : List.of(app);
  }

  static String nameOf(Pod pod) {
    return pod.getMetadata().getName();
  }
}

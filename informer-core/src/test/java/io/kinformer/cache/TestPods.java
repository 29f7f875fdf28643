package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.testing.FakeListerWatcher;
import java.net.SocketException;
import java.util.Map;

/** Pods for tests. */
final class TestPods {
  private TestPods() {}

  static Pod pod(String namespace, String name) {
    return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata().build();
  }

  static Pod pod(String namespace, String name, String rv) {
    Pod p = pod(namespace, name);
    p.getMetadata().setResourceVersion(rv);
    return p;
  }

  static Pod pod(String namespace, String name, Map<String, String> labels) {
    Pod p = pod(namespace, name);
    p.getMetadata().setLabels(labels);
    return p;
  }

  static Pod bookmark(String rv) {
    return new PodBuilder().withNewMetadata().withResourceVersion(rv).endMetadata().build();
  }

  /** A watch broken by the network, as {@code HttpWatch} reports it: an I/O error as the cause. */
  static InformerException connectionReset() {
    return new InformerException("connection reset", new SocketException("Connection reset"));
  }

  static FakeListerWatcher<Pod> fakeSource() {
    return new FakeListerWatcher<>(TestPods::bookmark);
  }
}

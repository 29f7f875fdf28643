package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;

/** Pods and expected deltas for the DeltaFifo tests. */
final class DeltaFifoTestPods {

  static final String NAMESPACE = "ns";

  private DeltaFifoTestPods() {}

  /** A pod {@code ns/name} at resourceVersion {@code rv}. */
  static Pod pod(String name, int rv) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withResourceVersion(Integer.toString(rv))
        .endMetadata()
        .build();
  }

  static String key(String name) {
    return NAMESPACE + "/" + name;
  }

  static int rv(Pod pod) {
    return Integer.parseInt(pod.getMetadata().getResourceVersion());
  }

  static DeltaFifoTestStore<Pod> known(Pod... pods) {
    DeltaFifoTestStore<Pod> store = new DeltaFifoTestStore<>(Keys::metaNamespaceKey);
    for (Pod p : pods) {
      store.add(p);
    }
    return store;
  }

  static Delta<Pod> added(Pod p) {
    return new Delta<>(DeltaType.ADDED, p);
  }

  static Delta<Pod> updated(Pod p) {
    return new Delta<>(DeltaType.UPDATED, p);
  }

  static Delta<Pod> deleted(Pod p) {
    return new Delta<>(DeltaType.DELETED, p);
  }

  static Delta<Pod> replaced(Pod p) {
    return new Delta<>(DeltaType.REPLACED, p);
  }

  static Delta<Pod> sync(Pod p) {
    return new Delta<>(DeltaType.SYNC, p);
  }

  /**
   * {@code deltas} as a FIFO built with {@code emitDeltaTypeReplaced(emitReplaced)} queues them:
   * the expectations are written with {@link #replaced}, which is {@code SYNC} unless {@code
   * emitReplaced}.
   */
  static List<Delta<Pod>> relistedAs(boolean emitReplaced, List<Delta<Pod>> deltas) {
    return deltas.stream()
        .map(d -> d.type() == DeltaType.REPLACED && !emitReplaced
            ? new Delta<Pod>(DeltaType.SYNC, d.object())
            : d)
        .toList();
  }

  /** A DELETED delta carrying {@code DeletedFinalStateUnknown(key(p), p)}. */
  static Delta<Pod> tombstone(Pod p) {
    return new Delta<>(
        DeltaType.DELETED, new DeletedFinalStateUnknown<>(Keys.metaNamespaceKey(p), p));
  }

  /** A transform that counts how often it ran on each pod, in the annotation {@code xfrm}. */
  static Pod countTransforms(Pod p) {
    return new PodBuilder(p)
        .editMetadata()
        .addToAnnotations("xfrm", Integer.toString(transforms(p) + 1))
        .endMetadata()
        .build();
  }

  /** How often {@link #countTransforms} ran on {@code p}. */
  static int transforms(Pod p) {
    return Integer.parseInt(p.getMetadata().getAnnotations().getOrDefault("xfrm", "0"));
  }

  /** Pops one key that must be queued (so the test fails instead of blocking if it is not). */
  static List<Delta<Pod>> popQueued(DeltaFifo<Pod> fifo) throws InterruptedException {
    if (fifo.isEmpty()) {
      throw new AssertionError("expected a queued key, but the FIFO is empty");
    }
    return fifo.pop((deltas, isInInitialList) -> {}).orElseThrow();
  }
}

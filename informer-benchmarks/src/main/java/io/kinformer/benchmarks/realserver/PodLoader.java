package io.kinformer.benchmarks.realserver;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.kinformer.benchmarks.Pods;
import io.kinformer.client.KubeClient;
import io.kinformer.client.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes {@link Pods}' realistic pods into a real API server through its API, with a few
 * concurrent writers: each pod is created, then its status written (a create resets the status,
 * as kube-apiserver's does), so that the stored pods are whole. Later, bursts of updates: one
 * JSON merge patch of an annotation per event.
 *
 * <p>Thread safety: each call runs its writers and returns when they are done; do not call from
 * several threads at once.
 */
final class PodLoader implements AutoCloseable {
  private static final JsonMapper JSON = Pods.mapper();

  private final KubeClient client;
  private final int pods;
  private final ExecutorService writers;
  private final int writerCount;
  private final String[] names;

  PodLoader(KubeClient client, int pods, int writers) {
    this.client = client;
    this.pods = pods;
    this.writerCount = writers;
    this.names = new String[pods];
    this.writers = Executors.newFixedThreadPool(writers, r -> {
      Thread t = new Thread(r, "realserver-writer");
      t.setDaemon(true);
      return t;
    });
  }

  /** Creates the namespaces and the pods, and returns the mean JSON size of a stored pod. */
  long load() throws InterruptedException {
    for (int ns = 0; ns < Math.min(pods, Pods.NAMESPACES); ns++) {
      Namespace namespace = new NamespaceBuilder().withNewMetadata()
          .withName(Pods.namespace(ns)).endMetadata().build();
      client.resources(Namespace.class).create(namespace);
    }
    AtomicLong bytes = new AtomicLong();
    forEach(pods, i -> {
      Pod pod = Pods.pod(i, 0);
      names[i] = pod.getMetadata().getName();
      pod.getMetadata().setResourceVersion(null);
      pod.getMetadata().setUid(null);
      PodStatus status = pod.getStatus();
      var resources = client.resources(Pod.class).inNamespace(pod.getMetadata().getNamespace());
      Pod created = resources.create(pod);
      created.setStatus(status);
      Pod stored = resources.updateStatus(created);
      bytes.addAndGet(JSON.writeValueAsBytes(stored).length);
    });
    return bytes.get() / pods;
  }

  /**
   * Makes {@code events} updates, after {@link #load()}: the k-th a merge patch of one annotation
   * of pod {@code k % pods}.
   */
  void burst(int events, String tag) throws InterruptedException {
    forEach(events, k -> {
      int i = k % pods;
      client.resources(Pod.class).inNamespace(Pods.namespace(i)).patch(names[i],
          PatchType.JSON_MERGE, "{\"metadata\":{\"annotations\":{\"bench.kinformer.io/burst\":\""
              + tag + "-" + k + "\"}}}");
    });
  }

  /** Runs {@code write} for 0 ≤ i < count on the writers, each taking every W-th i. */
  private void forEach(int count, IntConsumer write) throws InterruptedException {
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writerCount; w++) {
      int first = w;
      done.add(writers.submit(() -> {
        for (int i = first; i < count; i += writerCount) {
          write.accept(i);
        }
      }));
    }
    for (Future<?> f : done) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("a write to the API server failed: " + e.getCause(),
            e.getCause());
      }
    }
  }

  @Override
  public void close() {
    writers.shutdownNow();
  }
}

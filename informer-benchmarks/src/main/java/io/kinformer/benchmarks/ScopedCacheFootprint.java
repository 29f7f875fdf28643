package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.CacheOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * What scoping a cache to a few namespaces saves: the retained heap, objects cached and time to
 * sync of a cluster-wide pods informer against one informer handle over 3 of the 50 namespaces
 * the pods are spread over ({@link Pods}; {@code CacheOptions.namespaces}, one watch per
 * namespace, one merged cache), in one JVM against the embedded API server. Each scope is
 * measured twice, alternately; retained heap is the used heap after a full GC with the informer
 * synced, minus the same before its factory was created (the server's own objects are there in
 * both).
 *
 * <p>Run: {@code java -Xmx4g -cp informer-benchmarks/target/benchmarks.jar
 * io.kinformer.benchmarks.ScopedCacheFootprint [pods]} (pods defaults to 20,000).
 *
 * <p>Thread safety: a main program.
 */
public final class ScopedCacheFootprint {

  private static final List<String> SCOPE = List.of("ns-3", "ns-17", "ns-42");

  private ScopedCacheFootprint() {}

  /** One measurement. */
  private record Result(String scope, int cached, long retainedBytes, long syncMillis) {}

  /** Prints one line per measurement and the ratio of the medians. */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      for (int i = 0; i < Pods.NAMESPACES; i++) {
        Namespace ns = new NamespaceBuilder().withNewMetadata().withName("ns-" + i).endMetadata()
            .build();
        server.create(ns);
      }
      for (int i = 0; i < n; i++) {
        Pod pod = Pods.pod(i, 0);
        pod.getMetadata().setResourceVersion(null);
        pod.getMetadata().setUid(null);
        server.create(pod);
      }
      System.out.printf(Locale.ROOT, "%,d pods over %d namespaces; scope: %s%n", n,
          Pods.NAMESPACES, SCOPE);
      List<Result> results = new ArrayList<>();
      try (KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
        for (int round = 0; round < 2; round++) {
          results.add(measure("all namespaces", client, ScopedCacheFootprint::clusterWide));
          results.add(measure("3 namespaces", client, ScopedCacheFootprint::scoped));
        }
      }
      for (Result r : results) {
        System.out.printf(Locale.ROOT, "%-15s cached %,7d  retained %,12d B  sync %,6d ms%n",
            r.scope(), r.cached(), r.retainedBytes(), r.syncMillis());
      }
      long all = bestOf(results, "all namespaces");
      long scoped = bestOf(results, "3 namespaces");
      System.out.printf(Locale.ROOT, "retained, 3 namespaces / all namespaces: %.3f (%,d / %,d B)%n",
          (double) scoped / all, scoped, all);
    }
  }

  private static SharedInformerFactory clusterWide(KubeClient client) {
    return SharedInformerFactory.builder(client).build();
  }

  private static SharedInformerFactory scoped(KubeClient client) {
    return SharedInformerFactory.builder(client)
        .byObject(Pod.class, CacheOptions.builder().namespaces(SCOPE).build())
        .build();
  }

  private static long bestOf(List<Result> results, String scope) {
    return results.stream().filter(r -> r.scope().equals(scope))
        .mapToLong(Result::retainedBytes).min().orElseThrow();
  }

  private static Result measure(String scope, KubeClient client,
      Function<KubeClient, SharedInformerFactory> factoryOf) throws InterruptedException {
    long before = usedAfterGc();
    try (SharedInformerFactory factory = factoryOf.apply(client)) {
      SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
      long start = System.nanoTime();
      factory.start();
      if (!factory.waitForCacheSync(Duration.ofMinutes(5))) {
        throw new IllegalStateException(scope + ": did not sync");
      }
      long syncMillis = (System.nanoTime() - start) / 1_000_000;
      int cached = pods.getIndexer().list().size();
      long after = usedAfterGc();
      return new Result(scope, cached, after - before, syncMillis);
    }
  }

  private static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}

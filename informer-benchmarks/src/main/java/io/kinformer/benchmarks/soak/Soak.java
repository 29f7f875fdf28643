package io.kinformer.benchmarks.soak;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.ResourceEventHandlerRegistration;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Does memory stay flat over a long run? One process runs the embedded API server and a {@link
 * SharedInformerFactory} informer for ConfigMaps with three handlers. A writer keeps a fixed set
 * of objects changing (updates, and deletes followed by re-creates) at a steady rate, and every
 * few seconds a fault ends or resets the watches or compacts the history (forcing relists). Every
 * {@code --sample} seconds the heap is measured after full collections; the report gives the
 * samples and a least-squares slope over the second half of the run (after warm-up).
 *
 * <p>What it measures is the whole process, server included: the server's history is bounded
 * ({@code watchHistorySize}), so a flat total means neither side leaks.
 *
 * <p>Run: {@code mvn -B -q -Pbenchmarks -pl informer-benchmarks -am package -DskipTests && java
 * -Xmx1g -cp informer-benchmarks/target/benchmarks.jar io.kinformer.benchmarks.soak.Soak
 * --minutes=10 --objects=2000 --rate=500 --sample=30}
 *
 * <p>Thread safety: a program; not for concurrent use.
 */
public final class Soak {

  private Soak() {}

  /** Runs the soak; see the class Javadoc for the flags. */
  public static void main(String[] args) throws Exception {
    double minutes = doubleArg(args, "minutes", 10);
    int objects = (int) doubleArg(args, "objects", 2000);
    int rate = (int) doubleArg(args, "rate", 500);
    int sampleSeconds = (int) doubleArg(args, "sample", 30);
    long seed = (long) doubleArg(args, "seed", 1);
    System.out.printf(
        Locale.ROOT,
        "soak: %.1f min, %d objects, %d writes/s, heap sampled every %d s, max heap %d MB%n",
        minutes,
        objects,
        rate,
        sampleSeconds,
        Runtime.getRuntime().maxMemory() >> 20);

    try (EmbeddedApiServer server =
            EmbeddedApiServer.builder().watchHistorySize(5_000).bookmarkInterval(Duration.ofSeconds(5)).start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      SharedIndexInformer<ConfigMap> informer = factory.informerFor(ConfigMap.class);
      AtomicLong calls = new AtomicLong();
      List<ResourceEventHandlerRegistration> regs = new ArrayList<>();
      for (int h = 0; h < 3; h++) {
        regs.add(
            informer.addEventHandler(
                new ResourceEventHandler<ConfigMap>() {
                  @Override
                  public void onAdd(ConfigMap obj, boolean initial) {
                    calls.incrementAndGet();
                  }

                  @Override
                  public void onUpdate(ConfigMap o, ConfigMap n) {
                    calls.incrementAndGet();
                  }

                  @Override
                  public void onDelete(ConfigMap obj, boolean unknown) {
                    calls.incrementAndGet();
                  }
                }));
      }
      for (int i = 0; i < objects; i++) {
        server.create(json(i, 0));
      }
      factory.start();
      if (!factory.waitForCacheSync(Duration.ofMinutes(2))) {
        throw new IllegalStateException("informer did not sync");
      }

      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLong writes = new AtomicLong();
      AtomicLong faults = new AtomicLong();
      Thread writer = new Thread(() -> write(server, objects, rate, seed, running, writes), "soak-writer");
      Thread faulter = new Thread(() -> fault(server, seed, running, faults), "soak-faults");
      writer.start();
      faulter.start();

      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      long start = System.nanoTime();
      long end = start + (long) (minutes * 60e9);
      List<double[]> samples = new ArrayList<>();
      System.out.println("   t(s)   heap(MB)  threads  cached  writes    handler-calls  faults  pending");
      while (System.nanoTime() < end) {
        LockSupport.parkNanos(Duration.ofSeconds(sampleSeconds).toNanos());
        for (int i = 0; i < 3; i++) {
          System.gc();
        }
        double t = (System.nanoTime() - start) / 1e9;
        double heapMb = memory.getHeapMemoryUsage().getUsed() / 1048576.0;
        int pending = regs.stream().mapToInt(ResourceEventHandlerRegistration::pendingNotifications).sum();
        samples.add(new double[] {t, heapMb});
        System.out.printf(
            Locale.ROOT,
            "%7.0f %10.1f %8d %7d %7d %16d %7d %8d%n",
            t,
            heapMb,
            Thread.activeCount(),
            informer.getIndexer().listKeys().size(),
            writes.get(),
            calls.get(),
            faults.get(),
            pending);
      }
      running.set(false);
      writer.join();
      faulter.join();

      List<double[]> secondHalf = samples.subList(samples.size() / 2, samples.size());
      double slope = slope(secondHalf);
      double first = secondHalf.get(0)[1];
      double last = secondHalf.get(secondHalf.size() - 1)[1];
      System.out.printf(
          Locale.ROOT,
          "soak done: %d writes, %d handler calls, %d faults; heap over the second half %.1f -> %.1f MB,"
              + " least-squares slope %.3f MB/min%n",
          writes.get(),
          calls.get(),
          faults.get(),
          first,
          last,
          slope * 60);
    }
  }

  private static void write(
      EmbeddedApiServer server, int objects, int rate, long seed, AtomicBoolean running, AtomicLong writes) {
    Random random = new Random(seed);
    long intervalNanos = 1_000_000_000L / Math.max(1, rate);
    long next = System.nanoTime();
    int version = 0;
    while (running.get()) {
      int i = random.nextInt(objects);
      version++;
      try {
        if (random.nextInt(20) == 0) {
          server.delete("v1", "ConfigMap", "default", "soak-" + i);
          server.create(json(i, version));
        } else {
          server.update(json(i, version));
        }
        writes.incrementAndGet();
      } catch (RuntimeException e) {
        // A delete racing a re-create of the same key cannot happen here (one writer); report others.
        System.err.println("write failed: " + e);
      }
      next += intervalNanos;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }
  }

  private static void fault(EmbeddedApiServer server, long seed, AtomicBoolean running, AtomicLong faults) {
    Random random = new Random(seed + 1);
    while (running.get()) {
      LockSupport.parkNanos(Duration.ofSeconds(2 + random.nextInt(6)).toNanos());
      switch (random.nextInt(3)) {
        case 0 -> server.faults().closeAllWatches();
        case 1 -> server.faults().resetAllWatches();
        default -> server.faults().compactHistory();
      }
      faults.incrementAndGet();
    }
  }

  private static String json(int i, int version) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"soak-"
        + i
        + "\",\"namespace\":\"default\",\"labels\":{\"app\":\"soak\",\"shard\":\""
        + (i % 16)
        + "\"}},\"data\":{\"version\":\""
        + version
        + "\",\"payload\":\""
        + "x".repeat(512)
        + "\"}}";
  }

  /** Least-squares slope of y over x, per second of x. */
  static double slope(List<double[]> points) {
    int n = points.size();
    if (n < 2) {
      return 0;
    }
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (double[] p : points) {
      sx += p[0];
      sy += p[1];
      sxx += p[0] * p[0];
      sxy += p[0] * p[1];
    }
    double denominator = n * sxx - sx * sx;
    return denominator == 0 ? 0 : (n * sxy - sx * sy) / denominator;
  }

  private static double doubleArg(String[] args, String name, double defaultValue) {
    for (String a : args) {
      if (a.startsWith("--" + name + "=")) {
        return Double.parseDouble(a.substring(name.length() + 3));
      }
    }
    return defaultValue;
  }
}

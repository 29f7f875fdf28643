package io.kinformer.benchmarks.client;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.benchmarks.Pods;
import io.kinformer.client.internal.codec.Codecs;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The cold-start cost of a decoder, which dominates a small initial sync: in a fresh JVM, decodes
 * {@code n} realistic pods once with one mapper ({@code jackson}, {@code rest} or {@code cache})
 * and prints the process CPU time and wall time of that first pass (JIT compilation and class
 * loading included) and of a second pass.
 *
 * <p>Run: {@code java -cp informer-benchmarks/target/benchmarks.jar
 * io.kinformer.benchmarks.client.FirstDecode cache 10000}.
 *
 * <p>Thread safety: a main program.
 */
public final class FirstDecode {

  private FirstDecode() {}

  /** See the class comment. */
  public static void main(String[] args) {
    String which = args.length > 0 ? args[0] : "cache";
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    JsonMapper writer = Pods.mapper();
    List<byte[]> bytes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      bytes.add(writer.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i)));
    }
    ObjectReader reader = switch (which) {
      case "jackson" -> JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build().readerFor(Pod.class);
      case "rest" -> Codecs.newMapper().readerFor(Pod.class);
      case "cache" -> Codecs.newCacheMapper().readerFor(Pod.class);
      default -> throw new IllegalArgumentException("mapper: jackson, rest or cache: " + which);
    };
    long cpu0 = processCpuNanos();
    long wall0 = System.nanoTime();
    reader.readValue(bytes.get(0));
    System.out.printf("%s first pod: process CPU %d ms, wall %d ms%n", which,
        (processCpuNanos() - cpu0) / 1_000_000, (System.nanoTime() - wall0) / 1_000_000);
    for (int pass = 1; pass <= 2; pass++) {
      long cpu = processCpuNanos();
      long wall = System.nanoTime();
      long jit = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
      long gc = gcMillis();
      List<Pod> pods = new ArrayList<>(n);
      for (byte[] b : bytes) {
        pods.add(reader.readValue(b));
      }
      System.out.printf("%s pass %d: %d pods, process CPU %d ms, wall %d ms, JIT %d ms, GC %d ms%n",
          which, pass, pods.size(), (processCpuNanos() - cpu) / 1_000_000,
          (System.nanoTime() - wall) / 1_000_000,
          ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit,
          gcMillis() - gc);
    }
  }

  private static long gcMillis() {
    long t = 0;
    for (java.lang.management.GarbageCollectorMXBean b
        : ManagementFactory.getGarbageCollectorMXBeans()) {
      t += Math.max(0, b.getCollectionTime());
    }
    return t;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}

package io.kinformer.benchmarks.realserver;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.benchmarks.e2e.Driver;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The kinformer side of {@link RealServerBenchmark}: one pods informer on all namespaces, in a JVM
 * of its own, reporting on stdout, one JSON object a line, what {@code
 * informer-benchmarks/realserver-clientgo/main.go} reports for client-go:
 *
 * <pre>
 * {"kind":"synced","syncMillis":..,"syncCpuSeconds":..,"processCpuSeconds":..,"baselineMillis":..}
 * {"kind":"heap","heapBytesPerObject":..,"threads":..,"javaThreads":..}
 * {"kind":"armed"}
 * {"kind":"burst","events":M,"burstMillis":..,"burstCpuSeconds":..,"threads":..}
 * </pre>
 *
 * <p>"synced" is written as soon as the informer has synced and its handler has seen N adds;
 * {@code processCpuSeconds} and {@code baselineMillis} leave out the heap baseline taken before
 * the informer starts (full collections). After "heap" it reads commands from stdin: {@code burst M} makes it answer "armed", then
 * report once its handler has seen M more updates; the end of stdin ends it. Both sides wait for
 * their handler's counts alike: woken when the count is reached, not polling.
 *
 * <p>Arguments ({@code key=value}): {@code kubeconfig}, {@code pods} (N, the adds the sync waits
 * for), {@code streaming} (true: a streaming list, false: LIST then WATCH), {@code encoding}
 * ({@code json}; {@code protobuf} is refused until the client decodes protobuf).
 *
 * <p>Thread safety: a main program.
 */
public final class KinformerProcess {

  private KinformerProcess() {}

  /** Runs the informer; see the class description for the arguments. */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value, got: " + arg);
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String encoding = a.getOrDefault("encoding", "json");
    if (!encoding.equals("json")) {
      // The slot for protobuf: the client has no protobuf codec yet (issue #26, item 1).
      throw new IllegalArgumentException("encoding=" + encoding
          + ": kinformer's client decodes JSON only so far; protobuf is not implemented yet");
    }
    long pods = Long.parseLong(required(a, "pods"));
    boolean streaming = Boolean.parseBoolean(a.getOrDefault("streaming", "true"));
    KubeClient client = KubeClient.create(KubeConfig.load(Path.of(required(a, "kubeconfig"))));
    SharedIndexInformer<Pod> informer = SharedIndexInformer
        .builder("pods", client.resources(Pod.class).inAnyNamespace().listerWatcher())
        .streamingList(streaming)
        .build();
    Counter adds = new Counter();
    Counter updates = new Counter();
    informer.addEventHandler(new ResourceEventHandler<Pod>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        adds.add();
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        updates.add();
      }
    });

    // The heap baseline's time and CPU are the benchmark's, not the program's: left out of the
    // figures since process start.
    long baselineStart = System.nanoTime();
    long baselineCpu = Driver.cpuNanos();
    long heap0 = Driver.usedHeapAfterFullGc();
    long cpu0 = Driver.cpuNanos();
    long t0 = System.nanoTime();
    informer.start();
    adds.await(pods);
    while (!informer.hasSynced()) {
      LockSupport.parkNanos(1_000_000);
    }
    long t1 = System.nanoTime();
    long cpu1 = Driver.cpuNanos();
    Map<String, Object> synced = new LinkedHashMap<>();
    synced.put("kind", "synced");
    synced.put("syncMillis", (t1 - t0) / 1e6);
    synced.put("syncCpuSeconds", (cpu1 - cpu0) / 1e9);
    synced.put("processCpuSeconds", (cpu1 - (cpu0 - baselineCpu)) / 1e9);
    synced.put("baselineMillis", (t0 - baselineStart) / 1e6);
    emit(synced);
    long heap1 = Driver.usedHeapAfterFullGc();
    Map<String, Object> heap = new LinkedHashMap<>();
    heap.put("kind", "heap");
    heap.put("heapBytesPerObject", (heap1 - heap0) / (double) informer.getStore().list().size());
    heap.put("threads", osThreads());
    heap.put("javaThreads", ManagementFactory.getThreadMXBean().getThreadCount());
    emit(heap);

    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!line.startsWith("burst ")) {
          throw new IllegalArgumentException("unknown command: " + line);
        }
        long m = Long.parseLong(line.substring("burst ".length()));
        long target = updates.count.get() + m;
        long cpu2 = Driver.cpuNanos();
        long t2 = System.nanoTime();
        emit(Map.of("kind", "armed"));
        updates.await(target);
        long t3 = System.nanoTime();
        Map<String, Object> burst = new LinkedHashMap<>();
        burst.put("kind", "burst");
        burst.put("events", m);
        burst.put("burstMillis", (t3 - t2) / 1e6);
        burst.put("burstCpuSeconds", (Driver.cpuNanos() - cpu2) / 1e9);
        burst.put("threads", osThreads());
        emit(burst);
      }
    }
    informer.close();
    client.close();
  }

  /**
   * Counts handler calls and wakes {@link #await} when the count reaches its target, so that
   * waiting costs no CPU (the client-go side waits the same way).
   */
  private static final class Counter {
    final AtomicLong count = new AtomicLong();
    final AtomicLong target = new AtomicLong(-1);
    final Semaphore reached = new Semaphore(0);

    void add() {
      if (count.incrementAndGet() == target.get()) {
        reached.release();
      }
    }

    /** Returns once the count is at least {@code t}; the timeout covers a count that passed it. */
    void await(long t) throws InterruptedException {
      target.set(t);
      while (count.get() < t) {
        reached.tryAcquire(100, TimeUnit.MILLISECONDS);
      }
    }
  }

  private static String required(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("missing argument " + key + "=...");
    }
    return v;
  }

  /** The OS threads of this process (JVM threads, GC and compiler threads included). */
  static int osThreads() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.substring("Threads:".length()).trim());
      }
    }
    return -1;
  }

  private static void emit(Map<String, Object> fields) {
    StringBuilder sb = new StringBuilder("{");
    fields.forEach((k, v) -> {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(k).append("\":");
      sb.append(v instanceof String s ? '"' + s + '"' : String.valueOf(v));
    });
    System.out.println(sb.append('}'));
    System.out.flush();
  }
}

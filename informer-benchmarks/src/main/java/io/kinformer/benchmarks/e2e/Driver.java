package io.kinformer.benchmarks.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One measured run of one library, in its own JVM (started by {@link Harness}). Phases:
 *
 * <ol>
 *   <li><b>baseline</b>: client created, then full GC; used heap and live threads recorded.
 *   <li><b>sync</b>: informers created and started; timed until every informer reports synced and
 *       the handlers saw {@code n × informers × handlers} adds. Wall time and process CPU time.
 *   <li><b>heap</b>: full GC (five {@code System.gc()} calls 200 ms apart), used heap; retained
 *       bytes per object = (used − baseline) / (n × informers). Live threads.
 *   <li><b>watch</b>: asks the server for a burst of {@code m} MODIFIED events; timed from the
 *       request until the handlers saw {@code m × informers × handlers} updates.
 *   <li><b>latency</b>: asks for {@code paced} events at {@code rate}/s, each stamped with the
 *       server's {@code System.nanoTime()}; the handler records now − stamp (the monotonic clock is
 *       system-wide on Linux, so the two processes share it).
 * </ol>
 *
 * With {@code passes=2} the watch and latency phases run a second time, their figures recorded
 * under keys prefixed {@code warm}: the first pass shows the JVM warming up, the second the steady
 * state.
 *
 * <p>Prints one line {@code RESULT {json}} on stdout, then exits.
 *
 * <p>Thread safety: a main program (one thread, plus the library's).
 */
public final class Driver {

  private Driver() {}

  /** Arguments: {@code key=value} pairs; see {@link Harness} for the keys. */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String library = a.get("library");
    String variant = a.getOrDefault("variant", "full");
    String url = a.get("url");
    int n = Integer.parseInt(a.get("n"));
    int m = Integer.parseInt(a.getOrDefault("m", "0"));
    int paced = Integer.parseInt(a.getOrDefault("paced", "0"));
    double rate = Double.parseDouble(a.getOrDefault("rate", "200"));
    int informers = Integer.parseInt(a.getOrDefault("informers", "1"));
    int handlers = Integer.parseInt(a.getOrDefault("handlers", "1"));
    Duration timeout = Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeoutSeconds", "300")));

    Subject subject = switch (library) {
      case "raw" -> new RawSubject(n);
      case "floor" -> new FloorSubject();
      case "kinformer" -> new KinformerSubject(variant);
      case "fabric8" -> new Fabric8Subject(variant);
      case "official" -> new OfficialSubject();
      default -> throw new IllegalArgumentException("unknown library: " + library);
    };
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("library", library);
    out.put("variant", variant);
    out.put("n", n);
    out.put("m", m);
    out.put("informers", informers);
    out.put("handlers", handlers);

    HttpClient control = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    // The harness's own recorder is made before the baseline, so its arrays (two longs per paced
    // event and handler) are not counted in any library's retained heap.
    Sink sink = new Sink(Math.max(paced, 1) * informers * handlers);
    subject.connect(url);
    long heap0 = usedHeapAfterFullGc();
    int threads0 = ManagementFactory.getThreadMXBean().getThreadCount();
    out.put("baselineHeapBytes", heap0);
    out.put("baselineThreads", threads0);

    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    out.put("syncStartEpochMillis", System.currentTimeMillis()); // to find the phases in a profile
    subject.start(sink, informers, handlers);
    long expectedAdds = (long) n * informers * handlers;
    boolean ok = sink.adds.await(expectedAdds, subject::synced, timeout);
    long t1 = System.nanoTime();
    long cpu1 = cpuNanos();
    out.put("synced", ok);
    out.put("syncMillis", (t1 - t0) / 1e6);
    out.put("syncCpuSeconds", (cpu1 - cpu0) / 1e9);
    if (!ok) {
      out.put("adds", sink.adds.get());
      finish(out, subject);
      return;
    }
    out.put("threadsAfterSync", ManagementFactory.getThreadMXBean().getThreadCount());
    long heap1 = usedHeapAfterFullGc();
    out.put("retainedHeapBytes", heap1 - heap0);
    out.put("heapBytesPerObject", (heap1 - heap0) / (double) ((long) n * informers));

    // Every informer must be watching before events are sent.
    Sink.await(() -> watches(control, url) >= informers, timeout);
    int passes = Integer.parseInt(a.getOrDefault("passes", "1"));
    for (int pass = 1; pass <= passes; pass++) {
      // Pass 1 is the library's first burst and first paced load after sync; pass 2 repeats both
      // on a warmed-up JVM (compiled, and recompiled after the deoptimizations that the change
      // from burst to paced load causes), which is what a long-running controller sees.
      String k = pass == 1 ? "" : "warm";
      if (m > 0) {
        long expected = sink.updates.get() + (long) m * informers * handlers;
        long cpu2 = cpuNanos();
        long t2 = System.nanoTime();
        out.put(key(k, "watchStartEpochMillis"), System.currentTimeMillis());
        CompletableFuture<?> burst = post(control, url + "/bench/burst?count=" + m);
        boolean done = sink.updates.await(expected, timeout);
        long t3 = System.nanoTime();
        long cpu3 = cpuNanos();
        burst.join();
        out.put(key(k, "watchComplete"), done);
        out.put(key(k, "watchMillis"), (t3 - t2) / 1e6);
        out.put(key(k, "eventsPerSecond"), m / ((t3 - t2) / 1e9));
        out.put(key(k, "watchCpuSeconds"), (cpu3 - cpu2) / 1e9);
      }
      if (paced > 0) {
        sink.clearLatencies();
        long expected = sink.updates.get() + (long) paced * informers * handlers;
        long cpu4 = cpuNanos();
        out.put(key(k, "pacedStartEpochMillis"), System.currentTimeMillis());
        CompletableFuture<?> run =
            post(control, url + "/bench/paced?count=" + paced + "&rate=" + rate);
        boolean done = sink.updates.await(expected, timeout);
        long cpu5 = cpuNanos();
        run.join();
        long[] lat = sink.latencies();
        out.put(key(k, "latencyComplete"), done);
        out.put(key(k, "latencyEvents"), lat.length);
        out.put("rate", rate);
        if (lat.length > 0) {
          out.put(key(k, "p50Micros"), lat[(int) Math.floor(0.50 * (lat.length - 1))] / 1e3);
          out.put(key(k, "p99Micros"), lat[(int) Math.floor(0.99 * (lat.length - 1))] / 1e3);
          out.put(key(k, "maxMicros"), lat[lat.length - 1] / 1e3);
        }
        out.put(key(k, "latencyCpuSeconds"), (cpu5 - cpu4) / 1e9);
        String dump = System.getProperty("benchmark.latencyDump");
        if (dump != null) {
          // The offset turns the nanoTime stamps into epoch nanoseconds, to match a JFR recording.
          long offset = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
          String file = dump.replace("%lib", library + "-" + variant)
              .replace("%n", String.valueOf(n)).replace("%pass", String.valueOf(pass));
          // Appended: the runs of every round go to the same file, each after its own header.
          Files.writeString(
              Path.of(file), "# epochOffsetNanos " + offset + "\n" + sink.latencyLines(),
              StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
      }
    }
    out.put("threadsAtEnd", ManagementFactory.getThreadMXBean().getThreadCount());
    finish(out, subject);
  }

  /** {@code name}, or with a prefix: {@code key("warm", "p99Micros")} is "warmP99Micros". */
  private static String key(String prefix, String name) {
    return prefix.isEmpty()
        ? name
        : prefix + Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static void finish(Map<String, Object> out, Subject subject) {
    StringBuilder sb = new StringBuilder("{");
    out.forEach((k, v) -> {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(k).append("\":");
      if (v instanceof String s) {
        sb.append('"').append(s).append('"');
      } else {
        sb.append(v);
      }
    });
    sb.append('}');
    System.out.println("RESULT " + sb);
    System.out.flush();
    try {
      subject.close();
    } catch (Exception e) {
      // The process ends next; a failed close changes no figure.
    }
    if (Boolean.getBoolean("benchmark.profile")) {
      System.exit(0); // runs shutdown hooks, so a -XX:StartFlightRecording file is written
    }
    Runtime.getRuntime().halt(0);
  }

  /** The used heap after five full collections 200 ms apart. */
  public static long usedHeapAfterFullGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  /** The CPU time (user and system) this process has used since it started. */
  public static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static int watches(HttpClient control, String url) {
    try {
      return Integer.parseInt(control.send(
          HttpRequest.newBuilder(URI.create(url + "/bench/watches")).build(),
          HttpResponse.BodyHandlers.ofString()).body().trim());
    } catch (Exception e) {
      return 0;
    }
  }

  private static CompletableFuture<?> post(HttpClient control, String uri) {
    return control.sendAsync(
        HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
  }
}

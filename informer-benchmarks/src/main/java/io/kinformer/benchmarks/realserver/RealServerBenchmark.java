package io.kinformer.benchmarks.realserver;

import io.kinformer.benchmarks.e2e.Harness;
import io.kinformer.envtest.ApiServer;
import io.kinformer.envtest.ApiServerBinaries;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * kinformer against client-go 0.36 on Kubernetes' own API server machinery: starts etcd and the
 * API server of informer-envtest ({@link ApiServer}, built by {@code
 * informer-testing/apiserver/build.sh}), creates N realistic pods through the API with a few
 * concurrent writers, then runs each driver ({@link RealServerDriver}) in its own process,
 * alternating drivers round by round. For each run it records:
 *
 * <ul>
 *   <li>the sync time from process start (measured here, from spawning the process until its
 *       "synced" line arrives, less the time the process spent on its heap baseline) and from
 *       informer start (measured by the process);
 *   <li>the process CPU for the sync, from informer start and from process start (the child's
 *       own {@code getrusage}, or the JVM's process CPU time; less the heap baseline's);
 *   <li>retained heap per object: Java, used heap after full collections minus before, ÷ N; Go,
 *       {@code HeapInuse} after {@code runtime.GC()} minus before, ÷ N;
 *   <li>OS threads after the sync;
 *   <li>CPU per event during a burst of M pod updates made here after the sync.
 * </ul>
 *
 * <p>It writes {@code results.jsonl} and {@code report.md} (medians with min–max, and ratios
 * kinformer ÷ client-go) into the output directory.
 *
 * <p>Run: {@code informer-benchmarks/realserver.sh --pods=20000 --rounds=3} (see
 * docs/benchmarks.md), which builds what is needed and passes {@code --clientgo}. Options
 * ({@code --key=value}): {@code pods} (N, 20000), {@code rounds} (3), {@code events} (M, 5000),
 * {@code writers} (4), {@code heap} (the JVM's -Xms and -Xmx, 2g), {@code drivers} (comma
 * separated, default {@value RealServerDriver#DEFAULTS}; {@code kinformer-protobuf-stream} is the
 * slot for protobuf), {@code clientgo} (the kinformer-realserver-clientgo binary), {@code out}
 * (informer-benchmarks/target/realserver), {@code timeoutSeconds} (per phase, 600), {@code note}
 * (a line for the report's header), {@code reportOnly} (true: only rewrite report.md from the
 * results.jsonl in {@code out}, with the options given now).
 *
 * <p>Thread safety: a main program.
 */
public final class RealServerBenchmark {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private RealServerBenchmark() {}

  /** Runs everything; see the class description for the options. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    if (Boolean.parseBoolean(o.get("reportOnly"))) {
      Path out = Path.of(o.get("out"));
      RealServerReport.write(Harness.readResults(out.resolve("results.jsonl")), o,
          out.resolve("report.md"));
      return;
    }
    ApiServerBinaries binaries = ApiServerBinaries.locate().orElseThrow(() ->
        new IllegalStateException("cannot run the real-server benchmark: "
            + ApiServerBinaries.notFoundReason()));
    log("API server " + binaries.apiServer());
    try (ApiServer server = ApiServer.builder().binaries(binaries).start()) {
      run(server, o);
    }
  }

  /** The default options, overridden by {@code --key=value} arguments. */
  static Map<String, String> options(String... args) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("pods", "20000");
    o.put("rounds", "3");
    o.put("events", "5000");
    o.put("writers", "4");
    o.put("heap", "2g");
    o.put("drivers", RealServerDriver.DEFAULTS);
    o.put("clientgo", "");
    o.put("out", "informer-benchmarks/target/realserver");
    o.put("timeoutSeconds", "600");
    o.put("note", "");
    o.put("reportOnly", "false");
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("expected --key=value, got: " + arg);
      }
      String key = arg.substring(2, eq);
      if (!o.containsKey(key)) {
        throw new IllegalArgumentException("unknown option --" + key + "; the options are "
            + o.keySet());
      }
      o.put(key, arg.substring(eq + 1));
    }
    return o;
  }

  /**
   * Loads the pods into {@code server} (which must hold none of them yet), runs the drivers and
   * writes the results and the report.
   *
   * @return every run's figures, as written to results.jsonl
   */
  static List<Map<String, String>> run(ApiServer server, Map<String, String> o) throws Exception {
    int n = Integer.parseInt(o.get("pods"));
    int m = Integer.parseInt(o.get("events"));
    int rounds = Integer.parseInt(o.get("rounds"));
    List<RealServerDriver> drivers = new ArrayList<>();
    for (String id : o.get("drivers").split(",")) {
      drivers.add(RealServerDriver.of(id.trim()));
    }
    Path clientGo = Path.of(o.get("clientgo"));
    if (drivers.stream().anyMatch(d -> !d.kinformer())
        && (o.get("clientgo").isEmpty() || !Files.isExecutable(clientGo))) {
      throw new IllegalStateException("--clientgo=" + o.get("clientgo") + " is not an executable"
          + " file: build kinformer-realserver-clientgo with"
          + " informer-benchmarks/realserver-clientgo/build.sh (its last line is the path), or"
          + " leave the clientgo-* drivers out of --drivers");
    }
    Path out = Files.createDirectories(Path.of(o.get("out")));
    Path jsonl = out.resolve("results.jsonl");
    Files.writeString(jsonl, "");
    Duration timeout = Duration.ofSeconds(Long.parseLong(o.get("timeoutSeconds")));
    List<Map<String, String>> results = new ArrayList<>();
    log("started " + Instant.now() + " options " + o);
    try (PodLoader loader = new PodLoader(server.client(), n,
        Integer.parseInt(o.get("writers")))) {
      long t0 = System.nanoTime();
      long podBytes = loader.load();
      o.put("podJsonBytes", Long.toString(podBytes));
      log(String.format("created %d pods (%d bytes of JSON each on average) in %.1f s", n,
          podBytes, (System.nanoTime() - t0) / 1e9));
      for (int round = 1; round <= rounds; round++) {
        for (RealServerDriver driver : drivers) {
          Map<String, String> r = runDriver(server, o, driver, clientGo, n, m, round, loader,
              out, timeout);
          Harness.record(jsonl, results, r);
        }
      }
    }
    RealServerReport.write(results, o, out.resolve("report.md"));
    log("wrote " + jsonl + " and " + out.resolve("report.md"));
    return results;
  }

  private static Map<String, String> runDriver(ApiServer server, Map<String, String> o,
      RealServerDriver driver, Path clientGo, int n, int m, int round, PodLoader loader, Path out,
      Duration timeout) throws IOException, InterruptedException {
    Map<String, String> r = new LinkedHashMap<>();
    r.put("name", driver.id());
    r.put("round", Integer.toString(round));
    r.put("n", Integer.toString(n));
    r.put("m", Integer.toString(m));
    r.put("podJsonBytes", o.get("podJsonBytes"));
    Path log = out.resolve(driver.id() + "-" + round + ".log");
    ProcessBuilder pb = new ProcessBuilder(
        driver.command(server.kubeconfig(), n, clientGo, o.get("heap")))
        .redirectError(ProcessBuilder.Redirect.to(log.toFile()));
    pb.environment().putAll(driver.environment());
    long spawned = System.nanoTime();
    Process p = pb.start();
    BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> read(p, lines), "realserver-reader-" + driver.id());
    reader.setDaemon(true);
    reader.start();
    try (OutputStream commands = p.getOutputStream()) {
      JsonNode synced = next(lines, "synced", timeout);
      if (synced == null) {
        return failed(r, p, log);
      }
      long received = System.nanoTime();
      copy(synced, r);
      // From spawning the process, less the heap baseline it took before starting its informer.
      r.put("processSyncMillis", Double.toString((received - spawned) / 1e6
          - synced.path("baselineMillis").asDouble()));
      JsonNode heap = next(lines, "heap", timeout);
      if (heap == null) {
        return failed(r, p, log);
      }
      copy(heap, r);
      commands.write(("burst " + m + "\n").getBytes(StandardCharsets.UTF_8));
      commands.flush();
      if (next(lines, "armed", timeout) == null) {
        return failed(r, p, log);
      }
      loader.burst(m, driver.id() + "-" + round);
      JsonNode burst = next(lines, "burst", timeout);
      if (burst == null) {
        return failed(r, p, log);
      }
      copy(burst, r);
      r.put("burstCpuMicrosPerEvent",
          Double.toString(burst.path("burstCpuSeconds").asDouble() * 1e6 / m));
      r.put("synced", "true");
    } catch (IOException e) {
      r.put("error", "talking to the driver: " + e.getMessage());
      return failed(r, p, log);
    } finally {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
      }
    }
    log(String.format("%-26s round %d: sync %s ms (%s ms from process start), CPU %s s, "
            + "heap/pod %s B, threads %s, burst CPU/event %s µs", driver.id(), round,
        r.get("syncMillis"), r.get("processSyncMillis"), r.get("syncCpuSeconds"),
        r.get("heapBytesPerObject"), r.get("threads"), r.get("burstCpuMicrosPerEvent")));
    return r;
  }

  /** The figures of a line, but its kind. */
  private static void copy(JsonNode line, Map<String, String> r) {
    for (Map.Entry<String, JsonNode> e : line.properties()) {
      if (!e.getKey().equals("kind")) {
        r.put(e.getKey(), e.getValue().asString());
      }
    }
  }

  /** Records a run that did not finish, with the end of the driver's log as the reason. */
  private static Map<String, String> failed(Map<String, String> r, Process p, Path log)
      throws IOException, InterruptedException {
    p.destroyForcibly().waitFor();
    // The first line that names an exception or error (a Java stack trace's first line, a Go
    // program's message), else the last.
    List<String> tail = Files.readAllLines(log);
    String reason = tail.stream()
        .filter(l -> l.contains("Exception") || l.contains("rror") || l.contains("panic"))
        .findFirst()
        .orElse(tail.isEmpty() ? "exit " + p.exitValue() + ", nothing on stderr"
            : tail.get(tail.size() - 1));
    r.put("synced", "false");
    r.putIfAbsent("error", reason.replace('"', '\''));
    log("FAILED " + r.get("name") + " round " + r.get("round") + ": " + r.get("error")
        + " (log: " + log + ")");
    return r;
  }

  private static void read(Process p, BlockingQueue<JsonNode> lines) {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("{")) {
          lines.add(JSON.readTree(line));
        }
      }
    } catch (IOException | RuntimeException e) {
      // The process ended or wrote garbage; next() then times out or sees the end.
    }
    lines.add(JSON.createObjectNode().put("kind", "eof"));
  }

  /** The next line of {@code kind}, or null at the end of the output or after the timeout. */
  private static @Nullable JsonNode next(BlockingQueue<JsonNode> lines, String kind,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null || line.path("kind").asString().equals("eof")) {
        return null;
      }
      if (line.path("kind").asString().equals(kind)) {
        return line;
      }
    }
  }

  static void log(String s) {
    System.err.println("[realserver] " + s);
  }
}

package io.kinformer.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The end-to-end orchestrator. For each size N it starts a {@link PodServer} with N pods, then
 * runs every library's {@link Driver} in its own JVM (same heap and GC flags for all), alternately
 * ({@code A B C D A B C D ...}) for several rounds; then a thread-count scenario (1, 10, 50
 * informers × 1 and 10 handlers on a small server). It writes every result line to {@code
 * results.jsonl}, the aggregated tables to {@code report.md} and the chart to {@code
 * sync-heap.png} in the output directory.
 *
 * <p>Run (after building the jar, see docs/benchmarks.md): {@code java -cp
 * informer-benchmarks/target/benchmarks.jar io.kinformer.benchmarks.e2e.Harness
 * --out=informer-benchmarks/target/e2e}. Options ({@code --key=value}): {@code sizes}
 * (10000,100000), {@code events} (M, 20000), {@code paced} (1000), {@code passes} (2: the watch
 * and latency phases run twice, the second time on a warmed-up JVM; 1: once), {@code rate}
 * (200/s), {@code rounds} (3), {@code heap} (3g), {@code libraries}
 * (floor,kinformer,kinformer:strip,kinformer:meta,fabric8,official), {@code threadsN} (1000),
 * {@code threadInformers} (1,10,50), {@code threadHandlers} (1,10), {@code out}, {@code
 * reportOnly} (true: only rewrite the report and chart from {@code out/results.jsonl}), {@code
 * jvmArgs} (extra driver JVM flags separated by spaces, for example a JFR recording; {@code %lib}
 * and {@code %n} in them become the driver and N).
 *
 * <p>Thread safety: a main program.
 */
public final class Harness {

  private static final Pattern NUMBER = Pattern.compile("\"([A-Za-z0-9]+)\":(-?[0-9.Ee+-]+|true|false|\"[^\"]*\")");

  private Harness() {}

  /** Runs everything; see the class doc for the options. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    o.put("sizes", "10000,100000");
    o.put("events", "20000");
    o.put("paced", "1000");
    o.put("rate", "200");
    o.put("passes", "2");
    o.put("rounds", "3");
    o.put("heap", "3g");
    o.put("libraries", "floor,kinformer,kinformer:strip,kinformer:meta,fabric8,official");
    o.put("threadsN", "1000");
    o.put("threadInformers", "1,10,50");
    o.put("threadHandlers", "1,10");
    o.put("out", "informer-benchmarks/target/e2e");
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --key=value, got: " + arg);
      }
      o.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    Path out = Path.of(o.get("out"));
    Files.createDirectories(out);
    Path jsonl = out.resolve("results.jsonl");
    if (Boolean.parseBoolean(o.get("reportOnly"))) {
      Report.write(readResults(jsonl), o, out);
      log("wrote " + out.resolve("report.md") + " and " + out.resolve("sync-heap.png"));
      return;
    }
    Files.writeString(jsonl, "");
    List<String> libraries = List.of(o.get("libraries").split(","));
    List<Map<String, String>> results = new ArrayList<>();
    long started = System.nanoTime();
    log("started " + Instant.now() + " options " + o);

    for (String size : o.get("sizes").split(",")) {
      int n = Integer.parseInt(size);
      log("encoding " + n + " pods");
      try (PodServer server = new PodServer(n)) {
        log("serving " + n + " pods (" + server.itemBytes() / n + " bytes each on average) at "
            + server.url());
        for (int round = 1; round <= Integer.parseInt(o.get("rounds")); round++) {
          for (String lib : libraries) {
            server.endWatches();
            server.takeLists();
            Map<String, String> r = runDriver(o, server.url(), lib, n,
                Integer.parseInt(o.get("events")), Integer.parseInt(o.get("paced")), 1, 1);
            r.put("lists", Integer.toString(server.takeLists()));
            r.put("round", Integer.toString(round));
            r.put("scenario", "main");
            record(jsonl, results, r);
          }
        }
      }
    }

    int tn = Integer.parseInt(o.get("threadsN"));
    if (tn > 0) {
      try (PodServer server = new PodServer(tn)) {
        for (String informers : o.get("threadInformers").split(",")) {
          for (String handlers : o.get("threadHandlers").split(",")) {
            for (String lib : libraries) {
              // Informer libraries only: raw and floor have no informers or handlers.
              if (lib.equals("floor") || lib.equals("raw") || lib.contains(":")) {
                continue;
              }
              server.endWatches();
              Map<String, String> r = runDriver(o, server.url(), lib, tn, 1000, 0,
                  Integer.parseInt(informers), Integer.parseInt(handlers));
              r.put("scenario", "threads");
              record(jsonl, results, r);
            }
          }
        }
      }
    }
    log("finished in " + (System.nanoTime() - started) / 1_000_000_000 + " s");
    Report.write(results, o, out);
    log("wrote " + out.resolve("report.md") + " and " + out.resolve("sync-heap.png"));
  }

  /** The results {@link #record} wrote to {@code jsonl}, one map per line. */
  public static List<Map<String, String>> readResults(Path jsonl) throws IOException {
    List<Map<String, String>> results = new ArrayList<>();
    for (String line : Files.readAllLines(jsonl)) {
      Map<String, String> r = new HashMap<>();
      Matcher mt = NUMBER.matcher(line);
      while (mt.find()) {
        r.put(mt.group(1), mt.group(2).replace("\"", ""));
      }
      results.add(r);
    }
    return results;
  }

  /** Adds {@code r} to {@code results} and appends it to {@code jsonl} as one JSON object. */
  public static void record(Path jsonl, List<Map<String, String>> results, Map<String, String> r)
      throws IOException {
    results.add(r);
    StringBuilder sb = new StringBuilder("{");
    r.forEach((k, v) -> {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(k).append("\":\"").append(v).append('"');
    });
    Files.writeString(jsonl, sb.append("}\n"), StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
  }

  private static Map<String, String> runDriver(Map<String, String> o, String url, String lib,
      int n, int m, int paced, int informers, int handlers) throws IOException, InterruptedException {
    String library = lib.contains(":") ? lib.substring(0, lib.indexOf(':')) : lib;
    String variant = lib.contains(":") ? lib.substring(lib.indexOf(':') + 1) : "full";
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xms" + o.get("heap"), "-Xmx" + o.get("heap"), "-XX:+UseG1GC",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    String jvmArgs = o.getOrDefault("jvmArgs", "").replace("%lib", lib.replace(':', '-'))
        .replace("%n", Integer.toString(n));
    for (String a : jvmArgs.split(" ")) {
      if (!a.isBlank()) {
        cmd.add(a);
      }
    }
    cmd.addAll(List.of(
        "-cp", System.getProperty("java.class.path"),
        Driver.class.getName(),
        "library=" + library, "variant=" + variant, "url=" + url, "n=" + n, "m=" + m,
        "paced=" + paced, "passes=" + o.get("passes"),
        "rate=" + o.get("rate"), "informers=" + informers,
        "handlers=" + handlers));
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Map<String, String> result = new HashMap<>();
    List<String> other = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("RESULT ")) {
          Matcher mt = NUMBER.matcher(line);
          while (mt.find()) {
            result.put(mt.group(1), mt.group(2).replace("\"", ""));
          }
        } else if (other.size() < 40) {
          other.add(line);
        }
      }
    }
    int exit = p.waitFor();
    if (result.isEmpty()) {
      log("FAILED " + lib + " n=" + n + " exit=" + exit + ":\n  " + String.join("\n  ", other));
      result.put("library", library);
      result.put("variant", variant);
      result.put("n", Integer.toString(n));
      result.put("synced", "false");
    }
    result.put("name", lib);
    log(String.format("%-16s n=%-6d inf=%-2d h=%-2d %5.1fs  sync=%s ms heap/obj=%s B ev/s=%s "
            + "p50=%s p99=%s us threads=%s", lib, n, informers, handlers,
        (System.nanoTime() - t0) / 1e9, result.get("syncMillis"), result.get("heapBytesPerObject"),
        result.get("eventsPerSecond"), result.get("p50Micros"), result.get("p99Micros"),
        result.get("threadsAfterSync")));
    return result;
  }

  static void log(String s) {
    System.err.println("[harness] " + s);
  }

  /** Median of values. */
  public static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    int k = s.length / 2;
    return s.length % 2 == 1 ? s[k] : (s[k - 1] + s[k]) / 2;
  }
}

package io.kinformer.benchmarks.realserver;

import io.kinformer.benchmarks.e2e.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report of {@link RealServerBenchmark}: per driver, medians (min–max) of the runs that
 * finished, then ratios of medians kinformer ÷ client-go, and the runs that did not finish with
 * their reason. The statistics are the end-to-end harness's ({@link Report#stat}).
 *
 * <p>Thread safety: stateless.
 */
final class RealServerReport {

  /** A column: its header, the result key, a scale applied to the value, and a format. */
  private record Column(String header, String key, double scale, String format) {}

  private static final List<Column> COLUMNS = List.of(
      new Column("sync from process start (s)", "processSyncMillis", 1e-3, "%.2f"),
      new Column("sync from informer start (s)", "syncMillis", 1e-3, "%.2f"),
      new Column("CPU for the sync, from informer start (s)", "syncCpuSeconds", 1, "%.2f"),
      new Column("CPU at sync, from process start (s)", "processCpuSeconds", 1, "%.2f"),
      new Column("heap per cached pod (KB)", "heapBytesPerObject", 1e-3, "%.2f"),
      new Column("OS threads after sync", "threads", 1, "%.0f"),
      new Column("burst: CPU per event (µs)", "burstCpuMicrosPerEvent", 1, "%.0f"),
      new Column("burst: wall (s)", "burstMillis", 1e-3, "%.2f"));

  /** The figures compared kinformer ÷ client-go. */
  private static final List<Column> RATIOS = List.of(COLUMNS.get(0), COLUMNS.get(1),
      COLUMNS.get(2), COLUMNS.get(4), COLUMNS.get(6));

  private RealServerReport() {}

  static void write(List<Map<String, String>> results, Map<String, String> options, Path file)
      throws IOException {
    Map<String, List<Map<String, String>>> byName = new LinkedHashMap<>();
    List<String> failed = new ArrayList<>();
    for (Map<String, String> r : results) {
      if ("true".equals(r.get("synced"))) {
        byName.computeIfAbsent(r.get("name"), k -> new ArrayList<>()).add(scaled(r));
      } else {
        failed.add(r.get("name") + " round " + r.get("round") + ": " + r.get("error"));
      }
    }
    StringBuilder md = new StringBuilder();
    if (!options.get("note").isBlank()) {
      md.append(options.get("note")).append("\n\n");
    }
    md.append("Options: `").append(options).append("`\n\n");
    // N, M and the rounds as the runs recorded them (a reportOnly rewrite may not repeat them).
    Map<String, String> first = results.isEmpty() ? options : results.get(0);
    long rounds = results.stream().map(r -> r.get("round")).distinct().count();
    md.append("N = ").append(first.getOrDefault("n", options.get("pods"))).append(" pods (")
        .append(first.getOrDefault("podJsonBytes", "?"))
        .append(" bytes of JSON each on average), one pods informer per process, M = ")
        .append(first.getOrDefault("m", options.get("events")))
        .append(" pod updates in the burst. Median (min–max) of ").append(rounds)
        .append(" alternating runs.\n\n| driver |");
    StringBuilder rule = new StringBuilder("|---|");
    for (Column c : COLUMNS) {
      md.append(' ').append(c.header()).append(" |");
      rule.append("---:|");
    }
    md.append('\n').append(rule).append('\n');
    for (var e : byName.entrySet()) {
      md.append("| ").append(e.getKey()).append(" |");
      for (Column c : COLUMNS) {
        md.append(' ').append(Report.stat(e.getValue(), c.key()).fmt(c.format())).append(" |");
      }
      md.append('\n');
    }
    List<String> asked = new ArrayList<>();
    byName.forEach((name, rows) -> {
      if (rows.get(0).containsKey("accept")) {
        asked.add(name + ": `" + rows.get(0).get("accept") + "`, WatchListClient "
            + rows.get(0).get("watchListClient"));
      }
    });
    if (!asked.isEmpty()) {
      md.append("\nWhat client-go asked for (its first request's Accept header, its gate): ")
          .append(String.join("; ", asked)).append(".\n");
    }
    md.append("\nRatios of medians, kinformer ÷ client-go (lower is better for kinformer):\n\n"
        + "| kinformer | client-go |");
    rule = new StringBuilder("|---|---|");
    for (Column c : RATIOS) {
      md.append(' ').append(c.header()).append(" |");
      rule.append("---:|");
    }
    md.append('\n').append(rule).append('\n');
    for (String k : byName.keySet()) {
      if (!k.startsWith("kinformer")) {
        continue;
      }
      for (String g : byName.keySet()) {
        if (!g.startsWith("clientgo")) {
          continue;
        }
        md.append("| ").append(k).append(" | ").append(g).append(" |");
        for (Column c : RATIOS) {
          md.append(' ').append(Report.ratio(byName, k, g, c.key())).append(" |");
        }
        md.append('\n');
      }
    }
    if (!failed.isEmpty()) {
      md.append("\nRuns that did not finish: ").append(String.join("; ", failed)).append('\n');
    }
    Files.writeString(file, md);
  }

  /** {@code r} with each column's figure in the column's unit. */
  private static Map<String, String> scaled(Map<String, String> r) {
    Map<String, String> s = new LinkedHashMap<>(r);
    for (Column c : COLUMNS) {
      String v = r.get(c.key());
      if (v != null && !v.isEmpty()) {
        s.put(c.key(), Double.toString(Double.parseDouble(v) * c.scale()));
      }
    }
    return s;
  }
}

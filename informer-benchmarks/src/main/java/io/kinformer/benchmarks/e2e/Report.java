package io.kinformer.benchmarks.e2e;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.jspecify.annotations.Nullable;

/**
 * Aggregates {@link Harness} results: medians with min–max per (N, library), ratios to the floor
 * and to the peers, the thread-count table, and a PNG chart of sync time and heap per object
 * against N (Java2D, no extra dependency).
 *
 * <p>Thread safety: stateless.
 */
public final class Report {

  private static final String[] PEERS = {"fabric8", "official"};
  private static final Color[] COLORS = {
    new Color(0x555555), new Color(0x1f77b4), new Color(0x17becf), new Color(0x9467bd),
    new Color(0xd62728), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x8c564b),
    new Color(0xe377c2)
  };

  private Report() {}

  /**
   * Median, min and max of a figure over runs, and how many runs had it.
   *
   * @param median the median
   * @param min the smallest
   * @param max the largest
   * @param count how many runs the figures come from; 0: none (the others are NaN)
   */
  public record Stat(double median, double min, double max, int count) {
    /** {@code median (min–max)} in {@code format}, or "–" when no run had the figure. */
    public String fmt(String format) {
      if (count == 0) {
        return "–";
      }
      return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", median, min,
          max);
    }
  }

  /**
   * The flag that says whether the phase that produced {@code key} completed, or null for keys of
   * the sync (a run that did not sync is not aggregated at all).
   */
  static @Nullable String completionKey(String key) {
    boolean warm = key.startsWith("warm");
    String base = warm ? Character.toLowerCase(key.charAt(4)) + key.substring(5) : key;
    @Nullable String flag = switch (base) {
      case "eventsPerSecond", "watchMillis", "watchCpuSeconds" -> "watchComplete";
      case "p50Micros", "p99Micros", "maxMicros", "latencyCpuSeconds", "latencyEvents" ->
          "latencyComplete";
      default -> null;
    };
    if (flag == null) {
      return null;
    }
    return warm ? "warm" + Character.toUpperCase(flag.charAt(0)) + flag.substring(1) : flag;
  }

  /**
   * Median, min and max of {@code key} over {@code rows}, leaving out the runs whose phase for that
   * figure did not complete (a timed-out watch phase's events/s is only a bound, and a latency
   * phase that timed out has lost its slowest events): they are listed under "Runs that did not
   * complete" instead.
   */
  public static Stat stat(List<Map<String, String>> rows, String key) {
    @Nullable String flag = completionKey(key);
    List<Double> v = new ArrayList<>();
    for (Map<String, String> r : rows) {
      if (flag != null && "false".equals(r.get(flag))) {
        continue;
      }
      String s = r.get(key);
      if (s != null && !s.isEmpty() && !"true".equals(s) && !"false".equals(s)) {
        v.add(Double.parseDouble(s));
      }
    }
    if (v.isEmpty()) {
      return new Stat(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
    return new Stat(Harness.median(a), v.stream().mapToDouble(d -> d).min().orElseThrow(),
        v.stream().mapToDouble(d -> d).max().orElseThrow(), a.length);
  }

  static void write(List<Map<String, String>> results, Map<String, String> options, Path out)
      throws IOException {
    StringBuilder md = new StringBuilder();
    Map<Integer, Map<String, List<Map<String, String>>>> main = new LinkedHashMap<>();
    Set<String> names = new LinkedHashSet<>();
    for (Map<String, String> r : results) {
      if ("main".equals(r.get("scenario")) && "true".equals(r.get("synced"))) {
        int n = Integer.parseInt(r.get("n"));
        names.add(r.get("name"));
        main.computeIfAbsent(n, k -> new LinkedHashMap<>())
            .computeIfAbsent(r.get("name"), k -> new ArrayList<>()).add(r);
      }
    }
    List<String> failed = new ArrayList<>();
    for (Map<String, String> r : results) {
      if (!"true".equals(r.get("synced")) || "false".equals(r.get("watchComplete"))
          || "false".equals(r.get("latencyComplete"))
          || "false".equals(r.get("warmWatchComplete"))
          || "false".equals(r.get("warmLatencyComplete"))) {
        failed.add(r.get("name") + " n=" + r.get("n") + " informers=" + r.get("informers")
            + " handlers=" + r.get("handlers") + " round=" + r.get("round"));
      }
    }
    // One list per informer and run: more means a relist, whose unchanged objects reach the
    // handlers as updates and could be taken for watch events.
    List<String> relisted = new ArrayList<>();
    for (Map<String, String> r : results) {
      String lists = r.get("lists");
      if (lists != null && Integer.parseInt(lists) > 1) {
        relisted.add(r.get("name") + " n=" + r.get("n") + " round=" + r.get("round") + " ("
            + lists + " lists)");
      }
    }
    md.append("Options: `").append(options).append("`\n\n");
    for (var e : main.entrySet()) {
      int n = e.getKey();
      Map<String, List<Map<String, String>>> byName = e.getValue();
      // M as the runs recorded it (a --reportOnly rewrite may not repeat the original options).
      String m = byName.values().stream().flatMap(List::stream).map(r -> r.get("m"))
          .filter(v -> v != null).findFirst().orElse(options.get("events"));
      md.append("### N = ").append(n).append(" pods, M = ").append(m).append(" events\n\n");
      md.append("Median (min–max) of ").append(options.get("rounds")).append(" runs (a figure "
          + "leaves out the runs whose phase did not complete, listed at the end).\n\n");
      md.append("| driver | initial sync (ms) | sync CPU (s) | heap per object (B) | "
          + "watch (events/s) | watch CPU (s) | p50 latency (µs) | p99 latency (µs) | "
          + "threads after sync |\n|---|---|---|---|---|---|---|---|---|\n");
      for (var lib : byName.entrySet()) {
        List<Map<String, String>> rows = lib.getValue();
        md.append("| ").append(lib.getKey())
            .append(" | ").append(stat(rows, "syncMillis").fmt("%.0f"))
            .append(" | ").append(stat(rows, "syncCpuSeconds").fmt("%.1f"))
            .append(" | ").append(stat(rows, "heapBytesPerObject").fmt("%.0f"))
            .append(" | ").append(stat(rows, "eventsPerSecond").fmt("%.0f"))
            .append(" | ").append(stat(rows, "watchCpuSeconds").fmt("%.1f"))
            .append(" | ").append(stat(rows, "p50Micros").fmt("%.0f"))
            .append(" | ").append(stat(rows, "p99Micros").fmt("%.0f"))
            .append(" | ").append(stat(rows, "threadsAfterSync").fmt("%.0f"))
            .append(" |\n");
      }
      md.append("\nRatios of medians (kinformer ÷ other; for sync time, heap and latency lower is "
          + "better, for events/s higher is better):\n\n");
      md.append("| kinformer variant | vs | sync time | heap per object | events/s | p99 |\n"
          + "|---|---|---|---|---|---|\n");
      for (String k : byName.keySet()) {
        if (!k.startsWith("kinformer")) {
          continue;
        }
        for (String other : new String[] {"floor", "fabric8", "official"}) {
          if (!byName.containsKey(other)) {
            continue;
          }
          md.append("| ").append(k).append(" | ").append(other)
              .append(" | ").append(ratio(byName, k, other, "syncMillis"))
              .append(" | ").append(ratio(byName, k, other, "heapBytesPerObject"))
              .append(" | ").append(ratio(byName, k, other, "eventsPerSecond"))
              .append(" | ").append(ratio(byName, k, other, "p99Micros"))
              .append(" |\n");
        }
      }
      md.append('\n');
      warmTable(md, byName);
    }
    List<Map<String, String>> threads = new ArrayList<>();
    for (Map<String, String> r : results) {
      if ("threads".equals(r.get("scenario"))) {
        threads.add(r);
      }
    }
    if (!threads.isEmpty()) {
      md.append("### Threads (N = ").append(options.get("threadsN"))
          .append(" pods; JVM threads, one run each)\n\n");
      md.append("| driver | informers | handlers each | before informers | after sync | "
          + "after " + eventsLabel(threads) + " |\n|---|---|---|---|---|---|\n");
      for (Map<String, String> r : threads) {
        md.append("| ").append(r.get("name")).append(" | ").append(r.get("informers"))
            .append(" | ").append(r.get("handlers")).append(" | ")
            .append(r.getOrDefault("baselineThreads", "–")).append(" | ")
            .append(r.getOrDefault("threadsAfterSync", "–")).append(" | ")
            .append(r.getOrDefault("threadsAtEnd", "–")).append(" |\n");
      }
      md.append('\n');
    }
    if (!relisted.isEmpty()) {
      md.append("Runs that listed more than once (a relist: their figures may count unchanged"
          + " objects as events): ").append(String.join("; ", relisted)).append("\n\n");
    }
    if (!failed.isEmpty()) {
      md.append("Runs that did not complete: ").append(String.join("; ", failed)).append("\n\n");
    }
    Files.writeString(out.resolve("report.md"), md);
    chart(main, new ArrayList<>(names), out.resolve("sync-heap.png"));
  }

  /** The events the thread scenario sent: 1000 per pass (a second pass records warm figures). */
  private static String eventsLabel(List<Map<String, String>> threads) {
    boolean twoPasses = threads.stream().anyMatch(r -> r.containsKey("warmEventsPerSecond"));
    return twoPasses ? "2 × 1000 events" : "1000 events";
  }

  /**
   * The second pass of the watch and latency phases (on a warmed-up JVM), when the runs have one:
   * figures and ratios of medians.
   */
  private static void warmTable(StringBuilder md, Map<String, List<Map<String, String>>> byName) {
    boolean any = byName.values().stream().flatMap(List::stream)
        .anyMatch(r -> r.containsKey("warmEventsPerSecond"));
    if (!any) {
      return;
    }
    md.append("**Second pass** of the watch and latency phases (same load, same JVM, warmed up), "
        + "median (min–max):\n\n");
    md.append("| driver | watch (events/s) | watch CPU (s) | p50 latency (µs) | p99 latency (µs) |"
        + "\n|---|---|---|---|---|\n");
    for (var lib : byName.entrySet()) {
      List<Map<String, String>> rows = lib.getValue();
      md.append("| ").append(lib.getKey())
          .append(" | ").append(stat(rows, "warmEventsPerSecond").fmt("%.0f"))
          .append(" | ").append(stat(rows, "warmWatchCpuSeconds").fmt("%.1f"))
          .append(" | ").append(stat(rows, "warmP50Micros").fmt("%.0f"))
          .append(" | ").append(stat(rows, "warmP99Micros").fmt("%.0f"))
          .append(" |\n");
    }
    md.append("\nRatios of medians (kinformer ÷ other; for latency lower is better, for events/s"
        + " higher is better):\n\n| kinformer variant | vs | events/s | p50 | p99 |\n"
        + "|---|---|---|---|---|\n");
    for (String k : byName.keySet()) {
      if (!k.startsWith("kinformer")) {
        continue;
      }
      for (String other : new String[] {"floor", "fabric8", "official"}) {
        if (byName.containsKey(other)) {
          md.append("| ").append(k).append(" | ").append(other)
              .append(" | ").append(ratio(byName, k, other, "warmEventsPerSecond"))
              .append(" | ").append(ratio(byName, k, other, "warmP50Micros"))
              .append(" | ").append(ratio(byName, k, other, "warmP99Micros"))
              .append(" |\n");
        }
      }
    }
    md.append('\n');
  }

  /**
   * The ratio of the medians of {@code key}, {@code a} ÷ {@code b}, as {@code 0.42×}, or "–" when
   * either has no figure.
   */
  public static String ratio(Map<String, List<Map<String, String>>> byName, String a, String b,
      String key) {
    Stat sa = stat(byName.get(a), key);
    Stat sb = stat(byName.get(b), key);
    if (sa.count() == 0 || sb.count() == 0 || sb.median() == 0) {
      return "–";
    }
    double r = sa.median() / sb.median();
    return r < 0.01 ? "<0.01×" : String.format(Locale.ROOT, "%.2f×", r);
  }

  /** A linear or logarithmic value-to-fraction mapping. */
  private record Scale(double lo, double hi, boolean log) {
    double frac(double v) {
      if (log) {
        return Math.max(0, Math.log10(v / lo) / Math.log10(hi / lo));
      }
      return (v - lo) / (hi - lo);
    }
  }

  private static void chart(Map<Integer, Map<String, List<Map<String, String>>>> main,
      List<String> names, Path file) throws IOException {
    int w = 1100;
    int h = 480;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    TreeSet<Integer> sizes = new TreeSet<>(main.keySet());
    panel(g, main, names, sizes, "syncMillis",
        "initial sync (ms, log scale; median, whiskers min–max)", 60, 40, 440, 340, true);
    panel(g, main, names, sizes, "heapBytesPerObject",
        "retained heap per cached object (bytes; median, min–max)", 600, 40, 440, 340, false);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int x = 60;
    for (int i = 0; i < names.size(); i++) {
      g.setColor(COLORS[i % COLORS.length]);
      g.fillRect(x, 440, 12, 12);
      g.setColor(Color.BLACK);
      g.drawString(names.get(i), x + 16, 451);
      x += 30 + g.getFontMetrics().stringWidth(names.get(i));
    }
    g.dispose();
    ImageIO.write(img, "png", file.toFile());
  }

  private static void panel(Graphics2D g, Map<Integer, Map<String, List<Map<String, String>>>> main,
      List<String> names, TreeSet<Integer> sizes, String key, String title, int x0, int y0,
      int pw, int ph, boolean log) {
    double max = 0;
    double minPositive = Double.MAX_VALUE;
    for (var byName : main.values()) {
      for (var rows : byName.values()) {
        Stat s = stat(rows, key);
        if (s.count() > 0) {
          max = Math.max(max, s.max());
          if (s.min() > 0) {
            minPositive = Math.min(minPositive, s.min());
          }
        }
      }
    }
    if (max == 0) {
      max = 1;
    }
    Scale scale = log
        ? new Scale(Math.pow(10, Math.floor(Math.log10(Math.min(minPositive, max)))),
            Math.pow(10, Math.ceil(Math.log10(max))), true)
        : new Scale(0, max, false);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.drawString(title, x0, y0 - 12);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawLine(x0, y0 + ph, x0 + pw, y0 + ph);
    g.drawLine(x0, y0, x0, y0 + ph);
    int ticks = log ? (int) Math.round(Math.log10(scale.hi() / scale.lo())) : 4;
    for (int t = 0; t <= ticks; t++) {
      double v = log ? scale.lo() * Math.pow(10, t) : max * t / 4;
      int y = y0 + ph - (int) (ph * scale.frac(v));
      g.setColor(new Color(0xdddddd));
      g.drawLine(x0 + 1, y, x0 + pw, y);
      g.setColor(Color.BLACK);
      g.drawString(String.format(Locale.ROOT, "%.0f", v), x0 - 50, y + 4);
    }
    List<Integer> sz = new ArrayList<>(sizes);
    int groups = sz.size();
    int groupWidth = pw / Math.max(groups, 1);
    int barWidth = Math.max(4, (groupWidth - 30) / Math.max(names.size(), 1));
    for (int gi = 0; gi < groups; gi++) {
      int n = sz.get(gi);
      int gx = x0 + gi * groupWidth + 15;
      g.setColor(Color.BLACK);
      g.drawString("N = " + n, gx + groupWidth / 2 - 40, y0 + ph + 16);
      Map<String, List<Map<String, String>>> byName = main.get(n);
      for (int i = 0; i < names.size(); i++) {
        List<Map<String, String>> rows = byName.get(names.get(i));
        if (rows == null) {
          continue;
        }
        Stat s = stat(rows, key);
        if (s.count() == 0) {
          continue;
        }
        int bx = gx + i * barWidth;
        int bh = (int) (ph * scale.frac(s.median()));
        g.setColor(COLORS[i % COLORS.length]);
        g.fillRect(bx, y0 + ph - bh, barWidth - 3, bh);
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.2f));
        int ymin = y0 + ph - (int) (ph * scale.frac(s.min()));
        int ymax = y0 + ph - (int) (ph * scale.frac(s.max()));
        int cx = bx + (barWidth - 3) / 2;
        g.drawLine(cx, ymin, cx, ymax);
        g.drawLine(cx - 3, ymin, cx + 3, ymin);
        g.drawLine(cx - 3, ymax, cx + 3, ymax);
      }
    }
  }
}

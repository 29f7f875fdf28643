package io.kinformer.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's statistics and the runs it sets apart. */
class ReportTest {

  @TempDir Path out;

  private static Map<String, String> run(
      String name, int round, double eventsPerSecond, boolean watchComplete, int lists) {
    Map<String, String> r = new HashMap<>();
    r.put("name", name);
    r.put("library", name);
    r.put("variant", "full");
    r.put("scenario", "main");
    r.put("synced", "true");
    r.put("n", "1000");
    r.put("m", "500");
    r.put("round", Integer.toString(round));
    r.put("informers", "1");
    r.put("handlers", "1");
    r.put("syncMillis", Double.toString(100 + round));
    r.put("heapBytesPerObject", "5000");
    r.put("eventsPerSecond", Double.toString(eventsPerSecond));
    r.put("watchComplete", Boolean.toString(watchComplete));
    r.put("lists", Integer.toString(lists));
    return r;
  }

  @Test
  void stat_leavesOutRunsWhosePhaseDidNotComplete() {
    List<Map<String, String>> rows = List.of(
        run("kinformer", 1, 1000, true, 1),
        run("kinformer", 2, 3000, true, 1),
        run("kinformer", 3, 10, false, 1));

    Report.Stat events = Report.stat(rows, "eventsPerSecond");
    Report.Stat sync = Report.stat(rows, "syncMillis");

    assertThat(events.median()).isEqualTo(2000);
    assertThat(events.min()).isEqualTo(1000);
    // The sync completed in every run: all three count.
    assertThat(sync.median()).isEqualTo(102);
  }

  @Test
  void write_namesRunsThatListedMoreThanOnce() throws Exception {
    List<Map<String, String>> results = List.of(
        run("kinformer", 1, 1000, true, 1),
        run("official", 1, 900, true, 3));

    Report.write(results, Map.of("rounds", "1", "events", "500"), out);

    String md = Files.readString(out.resolve("report.md"));
    assertThat(md).contains("listed more than once").contains("official n=1000 round=1 (3 lists)")
        .doesNotContain("kinformer n=1000 round=1 (");
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The threads informers add to a process, counted in a fresh JVM ({@link ThreadBudgetMain}):
 * OkHttp's and okio's helper threads are process-wide, so in this JVM earlier tests would have
 * started them already. Threads idle in OkHttp's task-runner pool are left out of the counts: they
 * end by themselves after 60 s without work.
 */
@Tag("slow")
class ThreadBudgetTest {

  @ParameterizedTest(name = "HTTP/1.1, handlers={0}")
  @CsvSource({"1", "10"})
  void http1_firstInformerAddsFour_eachFurtherOneItsReader(int handlers) throws Exception {
    Map<String, List<String>> stages = run(false, handlers);

    // Ours: the watch reader, the delivery pool's one worker (processing runs on it as a task),
    // the scheduler; OkHttp's: its connection pool's closer. No okio watchdog: watches have no
    // read or write timeouts.
    assertThat(working(stages.get("first")))
        .containsExactlyInAnyOrder(
            "OkHttp ConnectionPool connection closer",
            "kinformer-delivery-1",
            "kinformer-scheduler",
            "kinformer-v1/configmaps-reflector");
    assertThat(addedBySecond(stages)).containsExactly("kinformer-v1/pods-reflector");
    assertThat(added(stages, "second", "tenth")).containsExactlyInAnyOrderElementsOf(eightMoreReflectors());
  }

  @ParameterizedTest(name = "HTTP/2 over TLS, handlers={0}")
  @CsvSource({"1", "10"})
  void http2_firstInformerAddsFive_eachFurtherOneItsReader(int handlers) throws Exception {
    Map<String, List<String>> stages = run(true, handlers);

    // OkHttp reads an HTTP/2 connection on a thread of its own and runs the connection's timers
    // (pings, the pool's closer) on another: one more than over HTTP/1.1.
    assertThat(working(stages.get("first")))
        .hasSize(5)
        .contains("kinformer-delivery-1", "kinformer-scheduler", "kinformer-v1/configmaps-reflector")
        .filteredOn(n -> !n.startsWith("kinformer-"))
        .allMatch(n -> n.startsWith("OkHttp "));
    assertThat(addedBySecond(stages)).containsExactly("kinformer-v1/pods-reflector");
    assertThat(added(stages, "second", "tenth")).containsExactlyInAnyOrderElementsOf(eightMoreReflectors());
  }

  /**
   * The threads that stay: not idle in OkHttp's task-runner pool, and not one of its pool threads
   * running a connection attempt (named {@code OkHttp connect <url>} while it runs; it is idle in
   * the pool, then gone, once the connection is made).
   */
  private static List<String> working(List<String> threads) {
    return threads.stream()
        .filter(n -> !n.endsWith(ThreadBudgetMain.IDLE) && !n.startsWith("OkHttp connect "))
        .toList();
  }

  private static List<String> addedBySecond(Map<String, List<String>> stages) {
    return added(stages, "first", "second");
  }

  /**
   * The working threads of stage {@code to} that stage {@code from} did not have, leaving out
   * OkHttp's connection-pool closer when the first stage had it: OkHttp ends that thread while no
   * connection is idle and starts it again later, so it may be missing from one stage and back in
   * the next without anything having been added.
   */
  private static List<String> added(Map<String, List<String>> stages, String from, String to) {
    List<String> later = new ArrayList<>(working(stages.get(to)));
    for (String t : working(stages.get(from))) {
      later.remove(t);
    }
    String closer = "OkHttp ConnectionPool connection closer";
    if (working(stages.get("first")).contains(closer)) {
      later.remove(closer);
    }
    return later;
  }

  /** The eight informers the child adds after the second, one reflector each. */
  private static List<String> eightMoreReflectors() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      names.add("kinformer-v1/configmaps@ns-" + i + "-reflector");
    }
    return names;
  }

  private static Map<String, List<String>> run(boolean tls, int handlers)
      throws IOException, InterruptedException {
    String out =
        ChildJvm.run(
            "-cp",
            System.getProperty("java.class.path"),
            ThreadBudgetMain.class.getName(),
            Boolean.toString(tls),
            Integer.toString(handlers));
    Map<String, List<String>> stages = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      String[] parts = line.strip().split(" ", 2);
      if (parts[0].equals("first") || parts[0].equals("second") || parts[0].equals("tenth")) {
        stages.put(parts[0], parts.length < 2 ? List.of() : Arrays.asList(parts[1].split(",")));
      }
    }
    assertThat(stages)
        .as("stages printed by the child JVM:%n%s", out)
        .containsKeys("first", "second", "tenth");
    return stages;
  }
}

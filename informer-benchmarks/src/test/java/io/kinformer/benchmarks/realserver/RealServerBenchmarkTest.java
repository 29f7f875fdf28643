package io.kinformer.benchmarks.realserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kinformer.envtest.ApiServer;
import io.kinformer.envtest.ApiServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real-server benchmark end to end at a tiny N: every driver, kinformer's and client-go's,
 * syncs 50 pods created through the API, sees a burst of updates, and lands in results.jsonl and
 * the report; the protobuf slot is recorded as not implemented. The client-go program is built
 * by its build.sh (which reuses the Go toolchain informer-testing/apiserver/build.sh unpacked).
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerBenchmarkTest {

  @Test
  void everyDriverSyncsAndSeesTheBurst(ApiServer server, @TempDir Path out) throws Exception {
    Path clientGo = buildClientGo(out);
    Map<String, String> options = RealServerBenchmark.options("--pods=50", "--rounds=1",
        "--events=20", "--writers=2", "--heap=256m", "--timeoutSeconds=120",
        "--drivers=" + RealServerDriver.DEFAULTS + ",kinformer-protobuf-stream",
        "--clientgo=" + clientGo, "--out=" + out);

    List<Map<String, String>> results = RealServerBenchmark.run(server, options);

    assertThat(results).extracting(r -> r.get("name")).containsExactly("kinformer-json-stream",
        "kinformer-json-list", "clientgo-defaults", "clientgo-protobuf-list",
        "clientgo-json-stream", "kinformer-protobuf-stream");
    for (Map<String, String> r : results.subList(0, 5)) {
      assertThat(r).as(r.get("name")).containsEntry("synced", "true")
          .containsEntry("events", "20");
      assertThat(Double.parseDouble(r.get("heapBytesPerObject"))).as(r.get("name")).isPositive();
      assertThat(Double.parseDouble(r.get("processSyncMillis")))
          .isGreaterThanOrEqualTo(Double.parseDouble(r.get("syncMillis")));
      assertThat(Integer.parseInt(r.get("threads"))).isPositive();
    }
    // client-go asks for what its mode says.
    assertThat(results.get(2).get("accept")).startsWith("application/vnd.kubernetes.protobuf");
    assertThat(results.get(2)).containsEntry("watchListClient", "true");
    assertThat(results.get(3)).containsEntry("watchListClient", "false");
    assertThat(results.get(4)).containsEntry("accept", "application/json");
    assertThat(results.get(5)).containsEntry("synced", "false");
    assertThat(results.get(5).get("error")).contains("protobuf is not implemented");

    assertThat(Files.readAllLines(out.resolve("results.jsonl"))).hasSize(6);
    String report = Files.readString(out.resolve("report.md"));
    assertThat(report).contains("N = 50 pods")
        .contains("clientgo-json-stream: `application/json`, WatchListClient true")
        .contains("| kinformer-json-list | clientgo-defaults |")
        .contains("Runs that did not finish: kinformer-protobuf-stream round 1");

    // The report can be rewritten from results.jsonl alone.
    Files.delete(out.resolve("report.md"));
    RealServerBenchmark.main(new String[] {"--reportOnly=true", "--out=" + out});
    assertThat(Files.readString(out.resolve("report.md")))
        .isEqualTo(report.replace(options.toString(), RealServerBenchmark.options(
            "--reportOnly=true", "--out=" + out).toString()));
  }

  /** Builds the client-go program, or skips when it cannot be built (and may be skipped). */
  private static Path buildClientGo(Path out) throws IOException, InterruptedException {
    Path script = Path.of("realserver-clientgo", "build.sh").toAbsolutePath();
    Path log = out.resolve("clientgo-build.log");
    Process p = new ProcessBuilder(script.toString())
        .redirectError(log.toFile()).start();
    String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    boolean built = p.waitFor(15, TimeUnit.MINUTES) && p.exitValue() == 0;
    String why = script + " failed: " + Files.readString(log);
    if (Boolean.getBoolean(ApiServerExtension.REQUIRED_PROPERTY)) {
      assertThat(built).as(why).isTrue();
    }
    assumeTrue(built, why);
    return Path.of(stdout.substring(stdout.lastIndexOf('\n') + 1));
  }
}

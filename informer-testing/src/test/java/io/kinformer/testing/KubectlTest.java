package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives a real kubectl against the server. The kubectl is {@code KINFORMER_KUBECTL} or the first
 * on PATH; without one the test is skipped, unless {@code KINFORMER_KUBECTL_REQUIRED=true} (as CI
 * sets, with a kubectl from {@code informer-testing/kubectl/kubectl.sh}), where it fails.
 */
class KubectlTest {

  private static final String POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n"
      + "  labels: {app: web}\nspec:\n  containers:\n  - name: c\n    image: %s\n";

  private static Path kubectl() {
    String configured = System.getenv("KINFORMER_KUBECTL");
    if (configured != null && !configured.isBlank()) {
      Path p = Path.of(configured);
      if (!Files.isExecutable(p)) {
        throw new AssertionError("KINFORMER_KUBECTL=" + configured + " is not an executable");
      }
      return p;
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Path.of(dir, "kubectl");
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return null;
  }

  private record Run(int exit, String out) {}

  private Path cacheDir;

  private Run run(Path kubectl, Path kubeconfig, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(kubectl.toString());
    cmd.add("--kubeconfig=" + kubeconfig);
    cmd.add("--cache-dir=" + cacheDir);
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kubectl hung: " + cmd);
    }
    return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(),
        StandardCharsets.UTF_8));
  }

  private static String nextContaining(java.util.concurrent.BlockingQueue<String> lines,
      String text) throws InterruptedException {
    while (true) {
      String line = lines.poll(30, TimeUnit.SECONDS);
      if (line == null) {
        throw new AssertionError("kubectl printed no line containing " + text);
      }
      if (line.contains(text)) {
        return line;
      }
    }
  }

  @Test
  void kubectl_getWatchCreateApplyPatchHealthDelete_overTlsWithAToken(@TempDir Path dir) throws Exception {
    Path kubectl = kubectl();
    if (kubectl == null && Boolean.parseBoolean(System.getenv("KINFORMER_KUBECTL_REQUIRED"))) {
      throw new AssertionError("KINFORMER_KUBECTL_REQUIRED is true but no kubectl was found:"
          + " set KINFORMER_KUBECTL or run informer-testing/kubectl/kubectl.sh");
    }
    assumeTrue(kubectl != null, "kubectl is not installed");
    cacheDir = dir.resolve("cache");
    try (EmbeddedApiServer server =
        EmbeddedApiServer.builder().tls(true).bearerToken("kubectl-token").start()) {
      Path kc = server.kubeConfig();
      Path pod = dir.resolve("pod.yaml");
      Files.writeString(pod, String.format(POD, "web", "nginx:1"));
      Run create = run(kubectl, kc, "create", "--validate=false", "-f", pod.toString());
      assertThat(create.out()).contains("pod/web created");
      Run get = run(kubectl, kc, "get", "pods");
      assertThat(get.exit()).as(get.out()).isZero();
      assertThat(get.out()).contains("web");

      Files.writeString(pod, String.format(POD, "web", "nginx:2"));
      Run apply = run(kubectl, kc, "apply", "--validate=false", "-f", pod.toString());
      assertThat(apply.exit()).as(apply.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web").orElseThrow()).contains("nginx:2");

      // get -w: the list, then the watch from its RV (with kubectl's Table Accept).
      List<String> cmd = new ArrayList<>(List.of(kubectl.toString(), "--kubeconfig=" + kc,
          "--cache-dir=" + cacheDir, "get", "pods", "-w"));
      Process watch = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      java.util.concurrent.LinkedBlockingQueue<String> lines =
          new java.util.concurrent.LinkedBlockingQueue<>();
      Thread reader = new Thread(() -> {
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
            watch.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
          }
        } catch (IOException e) {
          lines.add("read failed: " + e);
        }
      }, "test-kubectl-reader");
      reader.setDaemon(true);
      reader.start();
      try {
        assertThat(nextContaining(lines, "web")).startsWith("web");
        await().until(() -> server.faults().openWatches("pods") == 1);
        server.update(server.get("v1", "Pod", "default", "web").orElseThrow()
            .replace("\"app\":\"web\"", "\"app\":\"web\",\"seen\":\"by-watch\""));
        assertThat(nextContaining(lines, "web")).startsWith("web");
      } finally {
        watch.destroyForcibly();
      }

      Run patch = run(kubectl, kc, "patch", "pod", "web", "-p",
          "{\"metadata\":{\"labels\":{\"patched\":\"yes\"}}}");
      assertThat(patch.exit()).as(patch.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web").orElseThrow())
          .contains("\"patched\":\"yes\"");

      for (String endpoint : new String[] {"/healthz", "/livez", "/readyz"}) {
        Run health = run(kubectl, kc, "get", "--raw", endpoint);
        assertThat(health.exit()).as(health.out()).isZero();
        assertThat(health.out()).isEqualTo("ok");
      }
      Run verbose = run(kubectl, kc, "get", "--raw", "/readyz?verbose");
      assertThat(verbose.exit()).as(verbose.out()).isZero();
      assertThat(verbose.out()).contains("[+]ping ok").contains("readyz check passed");

      Run delete = run(kubectl, kc, "delete", "pod", "web", "--timeout=30s");
      assertThat(delete.exit()).as(delete.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web")).isEmpty();
    }
  }
}

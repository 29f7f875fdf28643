package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.client.ResourceClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** kubectl, when installed, against the real server: get, get -w, create, apply, delete. */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class KubectlRealServerTest {

  @TempDir static Path tmp;

  @BeforeAll
  static void kubectlInstalled() {
    assumeTrue(findKubectl() != null, "kubectl is not on PATH");
  }

  private static String findKubectl() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "kubectl");
      if (!dir.isEmpty() && Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }

  private static List<String> kubectl(ApiServer server, String... args) {
    List<String> cmd = new ArrayList<>(List.of(findKubectl(),
        "--kubeconfig=" + server.kubeconfig(), "--cache-dir=" + tmp.resolve("kube-cache")));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Runs kubectl to completion (at most a minute) and returns its output; fails on non-zero. */
  private static String run(ApiServer server, String... args)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(kubectl(server, args)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish");
    }
    assertThat(p.exitValue()).as("kubectl %s: %s", String.join(" ", args), out).isZero();
    return out;
  }

  @Test
  void kubectl_createApplyGetDelete_workAgainstTheServer(ApiServer server) throws Exception {
    String ns = Cluster.newNamespace(server.client(), "kubectl");
    Path manifest = Files.writeString(tmp.resolve("applied.yaml"), String.join("\n",
        "apiVersion: v1", "kind: ConfigMap",
        "metadata: {name: applied, namespace: " + ns + "}",
        "data: {k: v1}", ""));

    run(server, "-n", ns, "create", "configmap", "created", "--from-literal=k=v");
    // This server's OpenAPI describes core/v1 loosely, so client-side validation is off.
    run(server, "apply", "--validate=false", "-f", manifest.toString());
    Files.writeString(manifest, Files.readString(manifest).replace("k: v1", "k: v2"));
    run(server, "apply", "--validate=false", "-f", manifest.toString());

    assertThat(run(server, "-n", ns, "get", "configmaps", "-o", "name"))
        .contains("configmap/created", "configmap/applied");
    assertThat(run(server, "-n", ns, "get", "configmap", "applied", "-o", "jsonpath={.data.k}"))
        .isEqualTo("v2");

    run(server, "-n", ns, "delete", "configmap", "created");
    assertThat(server.client().resources(ConfigMap.class).inNamespace(ns).get("created")).isEmpty();
    assertThat(run(server, "get", "namespaces", "-o", "name")).contains("namespace/" + ns);
  }

  @Test
  void kubectlGetWatch_printsChangesMadeThroughOurClient(ApiServer server) throws Exception {
    String ns = Cluster.newNamespace(server.client(), "kubectl-watch");
    ResourceClient<ConfigMap> cms = server.client().resources(ConfigMap.class).inNamespace(ns);
    cms.create(Cluster.configMap(ns, "before", "1"));
    List<String> lines = new CopyOnWriteArrayList<>();
    // Table output: "EVENT NAME CREATED AT", then one "ADDED before 2026-..." line per event.
    Process watch = new ProcessBuilder(kubectl(server, "-n", ns, "get", "configmaps", "-w",
        "--output-watch-events")).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          String[] columns = line.trim().split("\\s+");
          lines.add(columns.length >= 2 ? columns[0] + " " + columns[1] : line);
        }
      } catch (IOException e) {
        lines.add("read failed: " + e);
      }
    }, "kubectl-watch-reader");
    reader.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> lines.contains("ADDED before"));
      cms.create(Cluster.configMap(ns, "after", "1"));
      cms.update(Cluster.configMap(ns, "after", "2"));
      cms.delete("after");

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(lines)
          .containsSubsequence("ADDED after", "MODIFIED after",
              "DELETED after"));
    } finally {
      watch.destroyForcibly();
      watch.waitFor(30, TimeUnit.SECONDS);
      reader.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}

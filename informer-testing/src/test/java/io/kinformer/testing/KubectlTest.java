package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives a real kubectl (see {@link Kubectl}) against the server. */
class KubectlTest {

  private static final String POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n"
      + "  labels: {app: web}\nspec:\n  containers:\n  - name: c\n    image: %s\n";

  @Test
  void kubectl_getWatchCreateApplyPatchHealthDelete_overTlsWithAToken(@TempDir Path dir) throws Exception {
    try (EmbeddedApiServer server =
        EmbeddedApiServer.builder().tls(true).bearerToken("kubectl-token").start()) {
      Kubectl kubectl = Kubectl.forServer(server, dir);
      Path pod = dir.resolve("pod.yaml");
      Files.writeString(pod, String.format(POD, "web", "nginx:1"));
      Kubectl.Run create = kubectl.run("create", "-f", pod.toString());
      assertThat(create.out()).contains("pod/web created");
      Kubectl.Run get = kubectl.run("get", "pods");
      assertThat(get.exit()).as(get.out()).isZero();
      assertThat(get.out()).contains("web");

      Files.writeString(pod, String.format(POD, "web", "nginx:2"));
      Kubectl.Run apply = kubectl.run("apply", "-f", pod.toString());
      assertThat(apply.exit()).as(apply.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web").orElseThrow()).contains("nginx:2");

      // get -w: the list, then the watch from its RV (with kubectl's Table Accept).
      try (Kubectl.Streaming watch = kubectl.start("get", "pods", "-w")) {
        assertThat(watch.nextContaining("web")).startsWith("web");
        await().until(() -> server.faults().openWatches("pods") == 1);
        server.update(server.get("v1", "Pod", "default", "web").orElseThrow()
            .replace("\"app\":\"web\"", "\"app\":\"web\",\"seen\":\"by-watch\""));
        assertThat(watch.nextContaining("web")).startsWith("web");
      }

      Kubectl.Run patch = kubectl.run("patch", "pod", "web", "-p",
          "{\"metadata\":{\"labels\":{\"patched\":\"yes\"}}}");
      assertThat(patch.exit()).as(patch.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web").orElseThrow())
          .contains("\"patched\":\"yes\"");

      for (String endpoint : new String[] {"/healthz", "/livez", "/readyz"}) {
        Kubectl.Run health = kubectl.run("get", "--raw", endpoint);
        assertThat(health.exit()).as(health.out()).isZero();
        assertThat(health.out()).isEqualTo("ok");
      }
      Kubectl.Run verbose = kubectl.run("get", "--raw", "/readyz?verbose");
      assertThat(verbose.exit()).as(verbose.out()).isZero();
      assertThat(verbose.out()).contains("[+]ping ok").contains("readyz check passed");

      Kubectl.Run delete = kubectl.run("delete", "pod", "web", "--timeout=30s");
      assertThat(delete.exit()).as(delete.out()).isZero();
      assertThat(server.get("v1", "Pod", "default", "web")).isEmpty();
    }
  }
}

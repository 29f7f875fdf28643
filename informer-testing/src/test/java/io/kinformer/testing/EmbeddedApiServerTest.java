package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Lifecycle, kubeconfig and builder validation. */
class EmbeddedApiServerTest {

  private static boolean serverThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().startsWith("kinformer-apiserver") && t.isAlive());
  }

  @Test
  void close_endsWatches_stopsEveryThread_andDeletesTheKubeconfig() {
    EmbeddedApiServer server = EmbeddedApiServer.start();
    Path kubeconfig = server.kubeConfig();
    assertThat(Files.exists(kubeconfig)).isTrue();
    assertThat(serverThreadsAlive()).isTrue();
    Http http = new Http(server);
    Http.WatchStream w = http.watch("/api/v1/namespaces?watch=1&resourceVersion="
        + server.resourceVersion());
    assertThat(w.code()).isEqualTo(200);
    server.close();
    w.assertEnds();
    server.close(); // idempotent
    assertThat(Files.exists(kubeconfig)).isFalse();
    await().until(() -> !serverThreadsAlive());
  }

  @Test
  void start_onAChosenPort_andTheKubeconfigPointsAtIt() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().port(port).start()) {
      assertThat(server.port()).isEqualTo(port);
      assertThat(server.url().toString()).isEqualTo("http://127.0.0.1:" + port);
      assertThat(Files.readString(server.kubeConfig()))
          .isEqualTo(server.kubeConfigYaml())
          .contains("server: http://127.0.0.1:" + port)
          .contains("current-context: kinformer");
      assertThat(server.certificate()).isEmpty();
      assertThat(server.list("v1", "Namespace", null)).hasSize(
          EmbeddedApiServer.INITIAL_NAMESPACES.size());
    }
  }

  @Test
  void builder_rejectsBadValues() {
    assertThatThrownBy(() -> EmbeddedApiServer.builder().port(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> EmbeddedApiServer.builder().watchHistorySize(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EmbeddedApiServer.builder().bearerToken(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ServedResource.namespaced("example.com", "v1", "widget", "widgets"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("widget");
  }
}

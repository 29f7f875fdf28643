package io.kinformer.testing;

import static io.kinformer.testing.Http.name;
import static io.kinformer.testing.Http.type;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.kinformer.time.testing.FakeClock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link EmbeddedApiServer#reset()} makes a shared server as it started: what tests created is
 * deleted as watchers see deletions, the initial namespaces stay, faults are cleared.
 */
class ResetTest {

  private final FakeClock clock = new FakeClock();
  private EmbeddedApiServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.builder().clock(clock).scheduler(clock).start();
    http = new Http(server);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void reset_deletesWhatTestsCreated_keepsTheInitialNamespaces_andClearsFaults() {
    List<String> initialNamespaces = server.list(Namespace.class, null).stream()
        .map(n -> n.getMetadata().getName()).toList();
    http.createNamespace("w");
    http.createPod("w", "a", "demo");
    server.create(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
        .withName("cm").addToFinalizers("example.com/keep").endMetadata().build());
    server.faults().failNext(Verb.LIST, 5, 500);
    long before = server.resourceVersion();

    try (Http.WatchStream w = http.watch("/api/v1/namespaces/w/pods?watch=1&resourceVersion="
        + before)) {
      assertThat(server.reset()).isEqualTo(3);

      var deleted = w.next();
      assertThat(type(deleted)).isEqualTo("DELETED");
      assertThat(name(deleted)).isEqualTo("a");
    }
    assertThat(server.list(Namespace.class, null)).extracting(n -> n.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(initialNamespaces);
    assertThat(server.list("v1", "ConfigMap", null)).isEmpty();
    assertThat(server.list("v1", "Pod", null)).isEmpty();
    assertThat(server.resourceVersion()).isGreaterThan(before);
    // Faults are gone: a list succeeds.
    assertThat(http.get("/api/v1/namespaces").code()).isEqualTo(200);
  }
}

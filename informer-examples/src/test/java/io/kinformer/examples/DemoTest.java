package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.Clock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs the demo against an embedded server, as the README's command does, and reads its output. */
class DemoTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  private String output() {
    synchronized (bytes) {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  /** Runs {@code demo} until {@code stop} is counted down, on another thread. */
  static CompletableFuture<Void> runInBackground(Demo demo, CountDownLatch stop) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            demo.run(Duration.ZERO, stop);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void run_onEmbeddedServer_showsSyncEventsListerQueriesAndRetries() throws Exception {
    Console console =
        new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), Clock.system(), false);
    CountDownLatch stop = new CountDownLatch(1);
    try (Cluster cluster = Cluster.embedded(EmbeddedApiServer.builder().start());
        Demo demo = new Demo(cluster, console, new SplittableRandom(7))) {
      CompletableFuture<Void> running = runInBackground(demo, stop);

      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  running.isDone()
                      || (output().contains(" ADDED ")
                          && output().contains(" UPDATED ")
                          && output().contains(" DELETED ")
                          && output().contains(" RECONCILED ")));
      stop.countDown();
      running.get(30, TimeUnit.SECONDS);
    }

    assertThat(output())
        .contains("kinformer demo: embedded API server at http://")
        .contains("created 30 pods in namespaces shop, blog, ops")
        .contains("synced 30 pods in ")
        .contains(" LISTER     namespace ")
        .contains(" LISTER     app in (api,web),tier=frontend ")
        .contains(" LISTER     index byNode ")
        .contains(" RETRY      ")
        .contains("done: 30 pods in the initial list, then ");
  }

  @Test
  void run_withKubeconfig_onlyReads() throws Exception {
    Console console =
        new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), Clock.system(), false);
    try (EmbeddedApiServer server =
        EmbeddedApiServer.builder().tls(true).bearerToken("demo-token").start()) {
      for (String name : List.of("a", "b", "c")) {
        server.create(
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\""
                + name
                + "\",\"namespace\":\"default\"},\"spec\":{\"containers\":[]}}");
      }
      CommandLine commandLine =
          CommandLine.parse(List.of("--kubeconfig", server.kubeConfig().toString()));
      CountDownLatch stop = new CountDownLatch(1);
      try (Cluster cluster = Cluster.connect(commandLine);
          Demo demo = new Demo(cluster, console, new SplittableRandom(7))) {
        CompletableFuture<Void> running = runInBackground(demo, stop);
        await().atMost(Duration.ofSeconds(60)).until(() -> output().contains(" LISTER "));
        stop.countDown();
        running.get(30, TimeUnit.SECONDS);
      }

      assertThat(output())
          .contains("kinformer demo: cluster https://127.0.0.1:")
          .contains(", read-only")
          .contains("synced 3 pods in ")
          .contains("done: 3 pods in the initial list");
      for (Verb verb : List.of(Verb.CREATE, Verb.UPDATE, Verb.PATCH, Verb.DELETE)) {
        assertThat(server.faults().requestCount(verb)).as(verb.name()).isZero();
      }
    }
  }
}

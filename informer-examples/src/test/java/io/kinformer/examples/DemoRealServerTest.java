package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.client.ResourceClient;
import io.kinformer.envtest.ApiServer;
import io.kinformer.envtest.ApiServerExtension;
import io.kinformer.time.Clock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo pointed with {@code --kubeconfig} at Kubernetes' own API server code and etcd
 * (informer-envtest), as a user points it at a cluster: it only reads, and shows the initial
 * sync, the adds, updates (a status write, a deletion's grace period) and deletes the test makes
 * meanwhile, and its Lister queries. The server is this class's own: the demo counts every pod.
 * Skipped when no API server binary is available.
 */
@Tag("real-apiserver")
class DemoRealServerTest {

  @RegisterExtension static final ApiServerExtension extension = ApiServerExtension.withArgs();

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  private String output() {
    synchronized (bytes) {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  private static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata().withNamespace("demo").withName(name).addToLabels("app", "web")
        .endMetadata()
        .withNewSpec().withNodeName("node-1")
        .addNewContainer().withName("web").withImage("registry.example/web:1.0").endContainer()
        .endSpec()
        .build();
  }

  @Test
  void run_withKubeconfigOfRealServer_followsChangesMadeMeanwhile(ApiServer server)
      throws Exception {
    server.client().resources(Namespace.class)
        .create(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build());
    ResourceClient<Pod> pods = server.client().resources(Pod.class).inNamespace("demo");
    for (int i = 0; i < 5; i++) {
      pods.create(pod("seed-" + i));
    }
    Console console =
        new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), Clock.system(), false);
    CommandLine commandLine =
        CommandLine.parse(List.of("--kubeconfig", server.kubeconfig().toString()));
    CountDownLatch stop = new CountDownLatch(1);
    try (Cluster cluster = Cluster.connect(commandLine);
        Demo demo = new Demo(cluster, console, new SplittableRandom(7))) {
      CompletableFuture<Void> running = DemoTest.runInBackground(demo, stop);
      await().atMost(Duration.ofSeconds(60))
          .until(() -> running.isDone() || output().contains(" LISTER "));

      pods.create(pod("added"));
      Pod running0 = pods.get("seed-0").orElseThrow();
      running0.getStatus().setPhase("Running");
      pods.updateStatus(running0);
      pods.delete("seed-1"); // bound to a node: terminating first, an update
      pods.delete("seed-1", new DeleteOptionsBuilder().withGracePeriodSeconds(0L).build());

      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  running.isDone()
                      || (output().contains(" ADDED      demo/added")
                          && output().contains("phase Pending -> Running")
                          && output().contains("terminating (deletionTimestamp set)")
                          && output().contains(" DELETED    demo/seed-1")));
      stop.countDown();
      running.get(30, TimeUnit.SECONDS);
    }

    assertThat(output())
        .contains("kinformer demo: cluster https://127.0.0.1:")
        .contains(", read-only")
        .contains("synced 5 pods in ")
        .containsPattern(" LISTER +namespace +demo: 5")
        .contains(" ADDED      demo/added")
        .contains(" DELETED    demo/seed-1")
        .contains("done: 5 pods in the initial list, then 1 added, ");
  }
}

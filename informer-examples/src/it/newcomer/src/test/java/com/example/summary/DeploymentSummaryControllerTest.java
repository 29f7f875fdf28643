package com.example.summary;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class DeploymentSummaryControllerTest {

  @Test
  void keepsASummaryPerDeployment() throws InterruptedException {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        DeploymentSummaryController controller =
            new DeploymentSummaryController(client, factory)) {
      factory.start();
      assertTrue(factory.waitForCacheSync(Duration.ofSeconds(30)));
      controller.start();

      server.faults().failNext(Verb.CREATE, "configmaps", 2, 500); // retried with backoff
      Deployment web = server.create(deployment("web", 2, "nginx:1.27"));
      assertEquals(
          Map.of("replicas", "2", "image", "nginx:1.27"),
          eventually(() -> summary(server, "web").map(ConfigMap::getData)));

      web.getSpec().setReplicas(5);
      server.update(web);
      eventually(() -> summary(server, "web").filter(cm -> "5".equals(cm.getData().get("replicas"))));

      server.delete(summary(server, "web").orElseThrow()); // someone deletes it: it comes back
      eventually(() -> summary(server, "web").filter(cm -> "5".equals(cm.getData().get("replicas"))));

      server.delete(server.get(Deployment.class, "default", "web").orElseThrow());
      eventually(() -> summary(server, "web").isEmpty() ? Optional.of(true) : Optional.empty());
    }
  }

  private static Optional<ConfigMap> summary(EmbeddedApiServer server, String deployment) {
    return server.get(ConfigMap.class, "default", deployment + "-summary");
  }

  private static Deployment deployment(String name, int replicas, String image) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName(name)
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** Waits until {@code probe} finds what it looks for, for at most 30 seconds. */
  private static <T> T eventually(Supplier<Optional<T>> probe) {
    return await().atMost(Duration.ofSeconds(30)).until(probe::get, Optional::isPresent).get();
  }
}

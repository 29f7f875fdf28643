package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.Keys;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.Lister;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's "controller's day", run against the embedded server. */
@ExtendWith(EmbeddedApiServerExtension.class)
class ReadmeExamplesTest {

  EmbeddedApiServer server;

  @SuppressWarnings("try") // the workers need only be closed, as the README shows
  static void controllersDay(KubeConfig config, Consumer<String> report, CountDownLatch stop)
      throws InterruptedException {
    // tag::controllers-day[]
    try (KubeClient client = KubeClient.create(config);
        SharedInformerFactory factory =
            SharedInformerFactory.builder(client).defaultResync(Duration.ofMinutes(10)).build()) {
      SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
      RateLimitingQueue<String> queue =
          RateLimitingQueue.create(RateLimiters.defaultControllerRateLimiter());
      pods.addEventHandler(
          new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
              queue.add(Keys.metaNamespaceKey(pod));
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
              queue.add(Keys.metaNamespaceKey(newPod));
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
              queue.add(Keys.metaNamespaceKey(pod));
            }
          });

      factory.start();
      if (!factory.waitForCacheSync(Duration.ofSeconds(30))) {
        throw new IllegalStateException("caches did not sync");
      }

      Lister<Pod> lister = new Lister<>(pods.getIndexer());
      List<Pod> web = lister.namespace("default").list(LabelSelector.parse("app=web"));
      report.accept(web.size() + " web pods in default");

      Reconciler<String> reconciler =
          key -> {
            Keys.NamespacedName name = Keys.split(key);
            Optional<Pod> pod = lister.namespace(name.namespace()).get(name.name());
            // Compare the pod (or its absence) with the world and act through
            // client.resources(...); throw to have the key retried with backoff.
            report.accept(key + (pod.isPresent() ? " exists" : " is gone"));
            return Reconciler.Result.done();
          };
      try (Workers workers = Workers.builder("pods", queue, reconciler).threads(2).start()) {
        stop.await(); // until the program shuts down
      }
    }
    // end::controllers-day[]
  }

  @Test
  void controllersDay_reconcilesEveryPodAndEveryChange() throws Exception {
    KubeConfig config = KubeConfig.load(server.kubeConfig());
    server.create(pod("web-0", "web"));
    server.create(pod("web-1", "web"));
    server.create(pod("db-0", "db"));
    Set<String> reports = ConcurrentHashMap.newKeySet();
    CountDownLatch stop = new CountDownLatch(1);

    CompletableFuture<Void> controller =
        CompletableFuture.runAsync(
            () -> {
              try {
                controllersDay(config, reports::add, stop);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .untilAsserted(
            () ->
                assertThat(reports)
                    .contains(
                        "2 web pods in default",
                        "default/web-0 exists",
                        "default/web-1 exists",
                        "default/db-0 exists"));
    server.delete("v1", "Pod", "default", "web-1");
    await().untilAsserted(() -> assertThat(reports).contains("default/web-1 is gone"));

    stop.countDown();
    controller.get(30, TimeUnit.SECONDS);
  }

  private static String pod(String name, String app) {
    return ConfigMapReplicatorTest.write(
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("default")
            .withName(name)
            .addToLabels("app", app)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName(app)
            .withImage("registry.example/" + app + ":1.0")
            .endContainer()
            .endSpec()
            .build());
  }
}

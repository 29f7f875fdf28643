package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.workqueue.PriorityEnqueueHandler;
import io.kinformer.workqueue.PriorityQueue;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The priority-queue snippet of docs/user-guide.md, run against the embedded API server; {@link
 * DocSnippetsTest} checks that the page shows this exact code.
 */
class PriorityQueueExampleTest {

  private static final int LISTED = 30;

  /** The queue and the workers the snippet makes. */
  record Controller(PriorityQueue<String> queue, Workers workers) {}

  static Controller priorityController(
      SharedIndexInformer<ConfigMap> configMaps, Reconciler<String> reconciler) {
    // tag::priority-queue[]
    PriorityQueue<String> queue =
        PriorityQueue.create(
            RateLimiters.defaultControllerRateLimiter(),
            QueueOptions.builder().name("configmaps").build());
    // Keys of the initial list and of resyncs go in at PriorityQueue.LOW_PRIORITY, real
    // changes at 0: a change made while thousands of listed keys wait is reconciled first.
    configMaps.addEventHandler(PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue));
    Workers workers = Workers.builder("configmaps", queue, reconciler).build();
    // end::priority-queue[]
    return new Controller(queue, workers);
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .build();
  }

  @Test
  void aChangeMadeWhileTheInitialListWaits_isReconciledFirst() {
    List<String> reconciled = new CopyOnWriteArrayList<>();
    try (EmbeddedApiServer server = EmbeddedApiServer.start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      for (int i = 0; i < LISTED; i++) {
        server.create(configMap("listed-" + i));
      }
      Controller controller =
          priorityController(
              factory.informerFor(ConfigMap.class),
              key -> {
                reconciled.add(key);
                return Reconciler.Result.done();
              });
      try (Workers workers = controller.workers()) {
        factory.start();
        assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
        await().atMost(30, TimeUnit.SECONDS).until(() -> controller.queue().len() == LISTED);

        server.create(configMap("created-later"));
        await().atMost(30, TimeUnit.SECONDS).until(() -> controller.queue().len() == LISTED + 1);
        workers.start();

        await().atMost(30, TimeUnit.SECONDS).until(() -> reconciled.size() == LISTED + 1);
      }
    }
    assertThat(reconciled.get(0)).isEqualTo("default/created-later");
  }
}

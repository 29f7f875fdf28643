package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.Informers;
import io.kinformer.cache.ResourceEventHandlerRegistration;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.workqueue.MetricsProvider;
import io.kinformer.workqueue.PriorityEnqueueHandler;
import io.kinformer.workqueue.PriorityQueue;
import io.kinformer.workqueue.PriorityQueue.Prioritized;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An informer on the embedded API server feeding a {@link PriorityQueue} through {@link
 * PriorityEnqueueHandler}: the initial list is queued at low priority, and a later real change is
 * handed out before it.
 */
class PriorityQueueInformerTest {

  private static final int LISTED = 40;

  private static ConfigMap configMap(String name, String value) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .withData(Map.of("value", value))
        .build();
  }

  @Test
  void initialListIsQueuedLow_andLaterChangesAreHandedOutFirst() throws InterruptedException {
    DepthByPriority depth = new DepthByPriority();
    PriorityQueue<String> queue =
        PriorityQueue.create(
            RateLimiters.defaultControllerRateLimiter(),
            QueueOptions.builder().name("configmaps").metricsProvider(depth).build());
    try (EmbeddedApiServer server = EmbeddedApiServer.start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      for (int i = 0; i < LISTED; i++) {
        server.create(configMap("cm-" + i, "v1"));
      }
      SharedIndexInformer<ConfigMap> informer = factory.informerFor(ConfigMap.class);
      ResourceEventHandlerRegistration registration =
          informer.addEventHandler(PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue));
      factory.start();
      assertThat(Informers.waitForCacheSync(Duration.ofSeconds(30), registration::hasSynced))
          .isTrue();
      assertThat(queue.len()).isEqualTo(LISTED);

      server.create(configMap("created-later", "v1"));
      ConfigMap changed = server.get(ConfigMap.class, "default", "cm-25").orElseThrow();
      changed.setData(Map.of("value", "v2"));
      server.update(changed);
      // The raise of cm-25 leaves len() alone: wait for both keys at priority 0.
      await().atMost(30, TimeUnit.SECONDS).until(() -> depth.get(0) == 2);
      assertThat(depth.get(PriorityQueue.LOW_PRIORITY)).isEqualTo(LISTED - 1);

      List<Prioritized<String>> order = new ArrayList<>();
      while (queue.len() > 0) {
        Prioritized<String> next = queue.getWithPriority().orElseThrow();
        order.add(next);
        queue.done(next.item());
      }

      assertThat(order).hasSize(LISTED + 1);
      assertThat(order.subList(0, 2))
          .containsExactly(
              new Prioritized<>("default/created-later", 0), new Prioritized<>("default/cm-25", 0));
      assertThat(order.subList(2, order.size()))
          .allSatisfy(p -> assertThat(p.priority()).isEqualTo(PriorityQueue.LOW_PRIORITY))
          .extracting(Prioritized::item)
          .doesNotContain("default/cm-25");
    } finally {
      queue.shutDown();
    }
  }

  /** The queue's depth per priority, as a metrics binding that labels by priority sees it. */
  private static final class DepthByPriority implements MetricsProvider {
    private final ConcurrentHashMap<Integer, AtomicInteger> depth = new ConcurrentHashMap<>();

    int get(int priority) {
      AtomicInteger n = depth.get(priority);
      return n == null ? 0 : n.get();
    }

    @Override
    public DepthMetricWithPriority newDepthMetricWithPriority(String name) {
      return new DepthMetricWithPriority() {
        @Override
        public void inc(int priority) {
          depth.computeIfAbsent(priority, p -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void dec(int priority) {
          depth.computeIfAbsent(priority, p -> new AtomicInteger()).decrementAndGet();
        }
      };
    }
  }
}

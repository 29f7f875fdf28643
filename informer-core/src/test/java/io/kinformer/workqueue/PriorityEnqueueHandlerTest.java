package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.PriorityQueue.Prioritized;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PriorityEnqueueHandlerTest {

  private final FakeClock clock = new FakeClock();
  private final PriorityQueue<String> queue =
      PriorityQueue.create(
          RateLimiters.itemExponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)),
          QueueOptions.builder().clockAndScheduler(clock).build());
  private final ResourceEventHandler<ConfigMap> handler =
      PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue);

  @AfterEach
  void shutDown() {
    queue.shutDown();
  }

  private static ConfigMap cm(String name, String resourceVersion) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  private List<Prioritized<String>> drain() throws InterruptedException {
    List<Prioritized<String>> out = new ArrayList<>();
    while (queue.len() > 0) {
      Prioritized<String> next = queue.getWithPriority().orElseThrow();
      out.add(next);
      queue.done(next.item());
    }
    return out;
  }

  @Test
  void onAdd_initialListIsLow_laterAddsAreNormal() throws InterruptedException {
    handler.onAdd(cm("listed", "1"), true);
    handler.onAdd(cm("created", "2"), false);

    assertThat(drain())
        .containsExactly(
            new Prioritized<>("ns/created", 0),
            new Prioritized<>("ns/listed", PriorityQueue.LOW_PRIORITY));
  }

  @Test
  void onUpdate_sameResourceVersionIsLow_aChangeIsNormal() throws InterruptedException {
    handler.onUpdate(cm("resynced", "5"), cm("resynced", "5"));
    handler.onUpdate(cm("changed", "5"), cm("changed", "6"));

    assertThat(drain())
        .containsExactly(
            new Prioritized<>("ns/changed", 0),
            new Prioritized<>("ns/resynced", PriorityQueue.LOW_PRIORITY));
  }

  @Test
  void onDelete_isNormal_andAChangeRaisesAKeyQueuedLow() throws InterruptedException {
    handler.onAdd(cm("a", "1"), true);
    handler.onAdd(cm("b", "1"), true);
    handler.onUpdate(cm("b", "1"), cm("b", "2"));
    handler.onDelete(cm("gone", "3"), /* finalStateUnknown= */ true);

    assertThat(drain())
        .containsExactly(
            new Prioritized<>("ns/b", 0),
            new Prioritized<>("ns/gone", 0),
            new Prioritized<>("ns/a", PriorityQueue.LOW_PRIORITY));
  }

  @Test
  void keyFunction_isUsed_andANullKeyIsRejected() throws InterruptedException {
    ResourceEventHandler<ConfigMap> byName =
        PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue, c -> c.getMetadata().getName());
    byName.onAdd(cm("x", "1"), false);
    assertThat(drain()).containsExactly(new Prioritized<>("x", 0));

    ResourceEventHandler<ConfigMap> broken =
        PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue, c -> null);
    assertThatThrownBy(() -> broken.onAdd(cm("y", "1"), false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ns/y");
  }
}

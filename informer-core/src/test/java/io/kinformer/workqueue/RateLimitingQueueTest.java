package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** client-go's rate_limiting_queue_test.go, driven by a FakeClock. */
class RateLimitingQueueTest {

  private final FakeClock clock = new FakeClock();
  private final RateLimitingQueue<String> queue =
      RateLimitingQueue.create(
          RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofSeconds(1)),
          QueueOptions.builder().clockAndScheduler(clock).build());

  @Test
  void addRateLimited_delaysByTheLimiter_andForgetResets() throws InterruptedException {
    queue.addRateLimited("one");
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(1));
    assertThat(queue.len()).isZero();

    clock.advance(Duration.ofMillis(1));
    assertThat(queue.get()).contains("one");
    queue.addRateLimited("one");
    queue.done("one");
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(2));
    assertThat(queue.numRequeues("one")).isEqualTo(2);

    queue.addRateLimited("two");
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(1));
    assertThat(queue.numRequeues("two")).isEqualTo(1);

    queue.forget("one");
    assertThat(queue.numRequeues("one")).isZero();
    clock.advance(Duration.ofMillis(2));
    assertThat(queue.len()).isEqualTo(2);
    assertThat(queue.get()).contains("two");
    assertThat(queue.get()).contains("one");
    queue.done("one");
    queue.done("two");

    queue.addRateLimited("one");
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(1));
  }

  @Test
  void addRateLimited_itemAlreadyWaiting_keepsItsEarlierTime() {
    queue.addRateLimited("one"); // ready in 1 ms
    queue.addRateLimited("one"); // would be 2 ms: the earlier time stays
    assertThat(queue.numRequeues("one")).isEqualTo(2);

    clock.advance(Duration.ofMillis(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void addAfter_onRateLimitingQueue_doesNotCountAsRequeue() {
    queue.addAfter("one", Duration.ofSeconds(30));
    assertThat(queue.numRequeues("one")).isZero();
    clock.advance(Duration.ofSeconds(30));
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void shutDown_thenAddRateLimited_isIgnored() {
    queue.shutDown();
    queue.addRateLimited("one");
    assertThat(clock.hasPendingTasks()).isFalse();
    assertThat(queue.len()).isZero();
    assertThat(queue.isShuttingDown()).isTrue();
  }
}

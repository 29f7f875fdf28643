package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Workers} draining a {@link PriorityQueue}. */
class PriorityQueueWorkersTest {

  private final FakeClock clock = new FakeClock();
  private final DefaultPriorityQueue<String> queue =
      (DefaultPriorityQueue<String>)
          PriorityQueue.create(
              RateLimiters.<String>itemExponentialFailure(
                  Duration.ofSeconds(1), Duration.ofMinutes(1)),
              QueueOptions.builder().clockAndScheduler(clock).build());
  private final List<String> reconciled = new CopyOnWriteArrayList<>();
  private final CountDownLatch gate = new CountDownLatch(1);
  private Workers workers;

  @AfterEach
  void close() {
    gate.countDown();
    if (workers != null) {
      workers.close();
    }
    queue.checkInvariants();
  }

  /** One worker: "gate" blocks until the test opens the gate; "a" asks once to be requeued. */
  private void startOneWorker() {
    workers =
        Workers.builder(
                "prio",
                queue,
                key -> {
                  reconciled.add(key);
                  if (key.equals("gate")) {
                    gate.await();
                  }
                  boolean firstA =
                      key.equals("a") && reconciled.indexOf("a") == reconciled.size() - 1;
                  return firstA ? Reconciler.Result.requeue() : Reconciler.Result.done();
                })
            .start();
  }

  @Test
  void workers_takeTheHighestPriorityFirst() {
    queue.add("gate", 10);
    startOneWorker();
    await().atMost(10, TimeUnit.SECONDS).until(() -> reconciled.contains("gate"));
    queue.add("low", PriorityQueue.LOW_PRIORITY);
    queue.add("normal");
    queue.add("high", 5);

    gate.countDown();

    await().atMost(10, TimeUnit.SECONDS).until(() -> reconciled.size() == 4);
    assertThat(reconciled).containsExactly("gate", "high", "normal", "low");
  }

  @Test
  void workers_requeueAKeyAtThePriorityItWasHandedOutWith() {
    queue.add("a", PriorityQueue.LOW_PRIORITY);
    startOneWorker();
    await().atMost(10, TimeUnit.SECONDS).until(() -> queue.waitingCount() == 1);
    assertThat(queue.numRequeues("a")).isEqualTo(1);

    queue.add("gate", 10);
    await().atMost(10, TimeUnit.SECONDS).until(() -> reconciled.contains("gate"));
    clock.advance(Duration.ofSeconds(1)); // a is ready again: at LOW_PRIORITY, or at 0 if lost
    queue.add("b", -50);
    gate.countDown();

    await().atMost(10, TimeUnit.SECONDS).until(() -> reconciled.size() == 4);
    assertThat(reconciled).containsExactly("a", "gate", "b", "a");
  }
}

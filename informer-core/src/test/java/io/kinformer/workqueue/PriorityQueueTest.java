package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.PriorityQueue.AddOptions;
import io.kinformer.workqueue.PriorityQueue.Prioritized;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * controller-runtime's priorityqueue_test.go, in substance, on a {@link FakeClock}: no test waits
 * for real time.
 */
class PriorityQueueTest {

  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final DefaultPriorityQueue<String> queue =
      (DefaultPriorityQueue<String>)
          PriorityQueue.create(
              RateLimiters.<String>itemExponentialFailure(
                  Duration.ofSeconds(1), Duration.ofMinutes(1)),
              QueueOptions.builder()
                  .name("prio")
                  .clockAndScheduler(clock)
                  .metricsProvider(metrics)
                  .build());
  private final List<Thread> started = new ArrayList<>();

  @AfterEach
  void checkStructure() throws InterruptedException {
    queue.checkInvariants();
    queue.shutDown();
    for (Thread t : started) {
      t.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(t.isAlive()).as(t.getName()).isFalse();
    }
  }

  /** Takes every item that is ready, marking each done, and returns them with their priority. */
  private List<Prioritized<String>> drainReady() throws InterruptedException {
    List<Prioritized<String>> out = new ArrayList<>();
    while (queue.len() > 0) {
      Prioritized<String> next = queue.getWithPriority().orElseThrow();
      out.add(next);
      queue.done(next.item());
    }
    return out;
  }

  private static Prioritized<String> p(String item, int priority) {
    return new Prioritized<>(item, priority);
  }

  // ---- order -----------------------------------------------------------------------------------

  @Test
  void get_handsOutHighestPriorityFirst_thenInOrderOfAdding() throws InterruptedException {
    queue.add("a");
    queue.add("b", 5);
    queue.add("c", 0);
    queue.add("d", 5);
    queue.add("e", PriorityQueue.LOW_PRIORITY);
    queue.add("f", -1);

    assertThat(drainReady())
        .containsExactly(p("b", 5), p("d", 5), p("a", 0), p("c", 0), p("f", -1), p("e", -100));
  }

  @Test
  void add_queuedItemAtHigherPriority_movesToTheEndOfItsNewPriority() throws InterruptedException {
    queue.add("x");
    queue.add("a", 5);
    queue.add("y");
    queue.add("x", 5);

    assertThat(queue.len()).as("x is queued once").isEqualTo(3);
    assertThat(drainReady()).containsExactly(p("a", 5), p("x", 5), p("y", 0));
  }

  @Test
  void add_queuedItemAtLowerPriority_keepsTheHigherOneAndItsPlace() throws InterruptedException {
    queue.add("a", 5);
    queue.add("b", 5);
    queue.add("a", PriorityQueue.LOW_PRIORITY);
    queue.add("a");

    assertThat(drainReady()).containsExactly(p("a", 5), p("b", 5));
    assertThat(metrics.get("prio", "adds").value()).as("re-adds of a queued item").isEqualTo(2);
  }

  // ---- delays ----------------------------------------------------------------------------------

  @Test
  void addAfter_itemBecomesReadyAfterItsDelay() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(10));
    assertThat(queue.len()).isZero();
    assertThat(queue.waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofMillis(9_999));
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofMillis(1));

    assertThat(drainReady()).containsExactly(p("a", 0));
    assertThat(queue.waitingCount()).isZero();
  }

  @Test
  void addAfter_waitingItem_keepsTheEarlierReadyTime() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(10));
    queue.addAfter("a", Duration.ofSeconds(5));
    queue.addAfter("a", Duration.ofSeconds(20));
    assertThat(queue.waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(5));

    assertThat(drainReady()).containsExactly(p("a", 0));
    clock.advance(Duration.ofSeconds(30));
    assertThat(queue.len()).as("the later times were merged away").isZero();
  }

  @Test
  void add_waitingItemWithoutDelay_isReadyAtOnce_andQueuedItemIgnoresALaterTime()
      throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(10));
    queue.add("a");
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.waitingCount()).isZero();

    queue.add("a", AddOptions.ofPriority(3).withAfter(Duration.ofSeconds(1)));
    assertThat(queue.waitingCount()).as("already ready: ready now is earlier").isZero();
    assertThat(drainReady()).containsExactly(p("a", 3));
  }

  @Test
  void add_waitingItemAtHigherPriority_keepsTheHigherPriorityAndTheEarlierTime()
      throws InterruptedException {
    queue.add("w", AddOptions.ofPriority(1).withAfter(Duration.ofSeconds(2)));
    queue.add("w", AddOptions.ofPriority(7).withAfter(Duration.ofSeconds(4)));
    queue.add("w", AddOptions.ofPriority(-5).withAfter(Duration.ofSeconds(1)));
    queue.add("r");

    clock.advance(Duration.ofSeconds(1));

    assertThat(drainReady()).containsExactly(p("w", 7), p("r", 0));
  }

  @Test
  void delayedItems_ofEqualPriority_comeOutInTheOrderTheyBecameReady() throws InterruptedException {
    queue.addAfter("late", Duration.ofSeconds(2));
    queue.addAfter("early", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));
    queue.add("now");
    clock.advance(Duration.ofSeconds(1));

    assertThat(drainReady()).containsExactly(p("early", 0), p("now", 0), p("late", 0));
  }

  @Test
  void addAfter_zeroOrNegativeDelay_addsAtOnce() {
    queue.addAfter("a", Duration.ZERO);
    queue.addAfter("b", Duration.ofSeconds(-1));

    assertThat(queue.len()).isEqualTo(2);
    assertThat(queue.waitingCount()).isZero();
    assertThat(metrics.get("prio", "retries").value()).as("no delay, no retry").isZero();
  }

  // ---- rate limiting ---------------------------------------------------------------------------

  @Test
  void addRateLimited_waitsAsTheLimiterSays_andForgetResets() throws InterruptedException {
    queue.addRateLimited("a");
    assertThat(clock.pendingDelays()).contains(Duration.ofSeconds(1)); // and the metrics update
    clock.advance(Duration.ofSeconds(1));
    assertThat(drainReady()).containsExactly(p("a", 0));

    queue.add("a", AddOptions.ofPriority(4).withRateLimited(true));
    assertThat(queue.numRequeues("a")).isEqualTo(2);
    clock.advance(Duration.ofMillis(1_999));
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(drainReady()).containsExactly(p("a", 4));

    queue.forget("a");
    assertThat(queue.numRequeues("a")).isZero();
    assertThat(metrics.get("prio", "retries").value()).isEqualTo(2);
  }

  @Test
  void addRateLimited_withDelay_waitsTheShorterOfTheTwo() throws InterruptedException {
    queue.add("a", AddOptions.defaults().withRateLimited(true).withAfter(Duration.ofMillis(300)));
    queue.add("b", AddOptions.defaults().withRateLimited(true).withAfter(Duration.ofSeconds(30)));

    clock.advance(Duration.ofMillis(300));
    assertThat(drainReady()).containsExactly(p("a", 0));
    clock.advance(Duration.ofMillis(700));
    assertThat(drainReady()).as("the limiter's 1 s").containsExactly(p("b", 0));
  }

  // ---- processing ------------------------------------------------------------------------------

  @Test
  void add_itemBeingProcessed_isHandedOutAgainOnlyAfterDone() throws InterruptedException {
    queue.add("a");
    assertThat(queue.get()).contains("a");
    queue.add("a", 7);
    queue.add("b");

    assertThat(queue.len()).as("a waits for its worker's done").isEqualTo(1);
    assertThat(queue.getWithPriority()).contains(p("b", 0));
    assertThat(queue.len()).isZero();

    queue.done("a");
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.getWithPriority()).contains(p("a", 7));
    queue.done("a");
    queue.done("b");
    assertThat(queue.len()).isZero();
  }

  @Test
  void get_itemDirtyWhileProcessing_releasesAWaitingWorkerOnDone() throws Exception {
    queue.add("a");
    String first = queue.get().orElseThrow();
    queue.add("a", 2);

    CompletableFuture<Optional<Prioritized<String>>> second = new CompletableFuture<>();
    Thread worker = startThread("second-worker", () -> second.complete(queue.getWithPriority()));
    WorkQueueTest.awaitWaiting(worker);
    assertThat(second).isNotDone();

    queue.done(first);

    assertThat(second.get(10, TimeUnit.SECONDS)).contains(p("a", 2));
    queue.done("a");
  }

  @Test
  void get_waitingWorker_getsAnItemThatBecomesReadyLater() throws Exception {
    CompletableFuture<Optional<String>> got = new CompletableFuture<>();
    Thread worker = startThread("worker", () -> got.complete(queue.get()));
    WorkQueueTest.awaitWaiting(worker);

    queue.addAfter("a", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));

    assertThat(got.get(10, TimeUnit.SECONDS)).contains("a");
    queue.done("a");
  }

  // ---- shutdown --------------------------------------------------------------------------------

  @Test
  void shutDown_handsOutReadyItems_discardsWaitingOnes_ignoresAdds() throws InterruptedException {
    queue.add("a");
    queue.add("b", 9);
    queue.addAfter("later", Duration.ofSeconds(1));

    queue.shutDown();
    queue.add("ignored", 100);
    queue.addRateLimited("ignored too");

    assertThat(queue.isShuttingDown()).isTrue();
    assertThat(queue.waitingCount()).isZero();
    assertThat(clock.hasPendingTasks()).as("wake-up and metrics update cancelled").isFalse();
    assertThat(queue.numRequeues("ignored too")).as("the limiter is not asked").isZero();
    assertThat(queue.getWithPriority()).contains(p("b", 9));
    assertThat(queue.getWithPriority()).contains(p("a", 0));
    assertThat(queue.get()).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.get()).isEmpty();
  }

  @Test
  void shutDown_releasesWaitingWorkers() throws Exception {
    List<CompletableFuture<Optional<String>>> results = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      CompletableFuture<Optional<String>> f = new CompletableFuture<>();
      results.add(f);
      WorkQueueTest.awaitWaiting(startThread("getter-" + i, () -> f.complete(queue.get())));
    }

    queue.shutDown();

    for (CompletableFuture<Optional<String>> f : results) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEmpty();
    }
  }

  @Test
  void shutDownWithDrain_waitsUntilEveryItemHandedOutIsDone() throws Exception {
    queue.add("a");
    queue.add("b");
    String first = queue.get().orElseThrow();

    CompletableFuture<Void> drained = new CompletableFuture<>();
    Thread drainer =
        startThread(
            "drainer",
            () -> {
              queue.shutDownWithDrain();
              return drained.complete(null);
            });
    await().atMost(10, TimeUnit.SECONDS).until(queue::isShuttingDown);
    assertThat(queue.get()).as("queued items are still handed out").contains("b");
    WorkQueueTest.awaitWaiting(drainer);

    queue.done(first);
    assertThat(drained).as("b is still processing").isNotDone();
    WorkQueueTest.awaitWaiting(drainer);

    queue.done("b");
    drained.get(10, TimeUnit.SECONDS);
    assertThat(queue.get()).isEmpty();
  }

  @Test
  void shutDown_releasesAWaitingDrain() throws Exception {
    queue.add("a");
    queue.get();
    CompletableFuture<Void> drained = new CompletableFuture<>();
    Thread drainer =
        startThread(
            "drainer",
            () -> {
              queue.shutDownWithDrain();
              return drained.complete(null);
            });
    await().atMost(10, TimeUnit.SECONDS).until(queue::isShuttingDown);
    WorkQueueTest.awaitWaiting(drainer);

    queue.shutDown();

    drained.get(10, TimeUnit.SECONDS);
  }

  // ---- metrics ---------------------------------------------------------------------------------

  @Test
  void metrics_countDepthPerPriority_addsLatencyAndWork() throws InterruptedException {
    queue.add("a");
    queue.add("b", PriorityQueue.LOW_PRIORITY);
    queue.addAfter("c", Duration.ofSeconds(1));
    assertThat(metrics.get("prio", "depth/0").value()).isEqualTo(1);
    assertThat(metrics.get("prio", "depth/-100").value()).isEqualTo(1);
    assertThat(metrics.get("prio", "adds").value()).as("c is not ready yet").isEqualTo(2);
    assertThat(metrics.get("prio", "retries").value()).isEqualTo(1);

    queue.add("b", 0);
    assertThat(metrics.get("prio", "depth/-100").value()).isZero();
    assertThat(metrics.get("prio", "depth/0").value()).isEqualTo(2);

    clock.advance(Duration.ofSeconds(2));
    assertThat(metrics.get("prio", "depth/0").value()).isEqualTo(3);
    assertThat(metrics.get("prio", "adds").value()).isEqualTo(3);
    assertThat(queue.get()).contains("a");
    assertThat(metrics.get("prio", "latency").observations()).containsExactly(2.0);
    assertThat(metrics.get("prio", "depth/0").value()).isEqualTo(2);

    clock.advance(Duration.ofSeconds(3));
    assertThat(metrics.get("prio", "unfinished").value()).isEqualTo(3.0);
    assertThat(metrics.get("prio", "longest").value()).isEqualTo(3.0);
    queue.done("a");
    assertThat(metrics.get("prio", "workDuration").observations()).containsExactly(3.0);
    clock.advance(Duration.ofMillis(500));
    assertThat(metrics.get("prio", "unfinished").value()).isZero();
    assertThat(metrics.get("prio", "depth").value()).as("no plain depth gauge").isZero();
  }

  @Test
  void metrics_providerWithoutPriorityDepth_getsTheSumInItsPlainDepth() {
    RecordingMetricsProvider.Metric depth = new RecordingMetricsProvider.Metric();
    MetricsProvider plain =
        new MetricsProvider() {
          @Override
          public GaugeMetric newDepthMetric(String name) {
            return depth;
          }
        };
    PriorityQueue<String> q =
        PriorityQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)),
            QueueOptions.builder()
                .name("plain")
                .clockAndScheduler(clock)
                .metricsProvider(plain)
                .build());

    q.add("a", 3);
    q.add("b", PriorityQueue.LOW_PRIORITY);
    q.add("b", 1);

    assertThat(depth.value()).isEqualTo(2);
    q.shutDown();
  }

  // ---- arguments -------------------------------------------------------------------------------

  @Test
  void badArguments_areRejectedWithTheirName() {
    assertThatThrownBy(() -> queue.add(null, 1)).hasMessageContaining("item");
    assertThatThrownBy(() -> queue.add("a", (AddOptions) null)).hasMessageContaining("options");
    assertThatThrownBy(() -> AddOptions.defaults().withAfter(null)).hasMessageContaining("after");
    assertThatThrownBy(() -> PriorityQueue.create(null)).hasMessageContaining("rateLimiter");
  }

  private Thread startThread(String name, WorkQueueTest.Body body) {
    return WorkQueueTest.startThread(name, body, started);
  }
}

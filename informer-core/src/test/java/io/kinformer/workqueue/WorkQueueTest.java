package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** client-go's queue_test.go scenarios, single-threaded where possible. */
class WorkQueueTest {

  private final DefaultWorkQueue<String> queue = new DefaultWorkQueue<>(QueueOptions.defaults());
  private final List<Thread> started = new ArrayList<>();

  @AfterEach
  void checkStructure() throws InterruptedException {
    queue.checkInvariants();
    queue.shutDown();
    for (Thread t : started) {
      t.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(t.isAlive()).as("helper thread %s ended", t.getName()).isFalse();
    }
  }

  @Test
  void add_sameItemTwice_queuesItOnce() {
    queue.add("foo");
    assertThat(queue.len()).isEqualTo(1);
    queue.add("bar");
    assertThat(queue.len()).isEqualTo(2);
    queue.add("foo");
    assertThat(queue.len()).isEqualTo(2);
  }

  @Test
  void get_distinctItems_returnsThemInAddOrder() throws InterruptedException {
    for (String s : List.of("c", "a", "b", "a", "d")) {
      queue.add(s);
    }
    List<String> got = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String item = queue.get().orElseThrow();
      got.add(item);
      queue.done(item);
    }
    assertThat(got).containsExactly("c", "a", "b", "d");
    assertThat(queue.len()).isZero();
  }

  @Test
  void add_collapsedDuplicate_isProcessedOnce() throws InterruptedException {
    queue.add("bar");
    queue.add("bar");
    String item = queue.get().orElseThrow();
    assertThat(item).isEqualTo("bar");
    queue.done(item);
    assertThat(queue.len()).isZero();
  }

  @Test
  void add_whileProcessing_requeuesOnlyAfterDone() throws InterruptedException {
    queue.add("foo");
    String item = queue.get().orElseThrow();

    queue.add(item);
    assertThat(queue.len()).as("dirty, not queued while processing").isZero();

    queue.done(item);
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("foo");
    queue.done("foo");
    assertThat(queue.len()).isZero();
  }

  @Test
  void get_itemDirtyWhileProcessing_blocksSecondWorkerUntilDone() throws Exception {
    queue.add("foo");
    String first = queue.get().orElseThrow();
    queue.add("foo");
    queue.add("foo");

    CompletableFuture<Optional<String>> second = new CompletableFuture<>();
    Thread worker = startThread("second-worker", () -> second.complete(queue.get()));
    awaitWaiting(worker);
    assertThat(second).isNotDone();

    queue.done(first);

    assertThat(second.get(10, TimeUnit.SECONDS)).contains("foo");
    queue.done("foo");
    assertThat(queue.len()).isZero();
  }

  @Test
  void shutDown_unblocksIdleGetters() throws Exception {
    List<CompletableFuture<Optional<String>>> results = new ArrayList<>();
    List<Thread> getters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      CompletableFuture<Optional<String>> f = new CompletableFuture<>();
      results.add(f);
      getters.add(startThread("getter-" + i, () -> f.complete(queue.get())));
    }
    getters.forEach(WorkQueueTest::awaitWaiting);

    queue.shutDown();

    for (CompletableFuture<Optional<String>> f : results) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEmpty();
    }
    assertThat(queue.isShuttingDown()).isTrue();
  }

  @Test
  void get_afterShutDown_handsOutRemainingItemsThenEmpty() throws InterruptedException {
    queue.add("a");
    queue.add("b");
    queue.shutDown();
    queue.add("added after shutdown");

    assertThat(queue.get()).contains("a");
    assertThat(queue.get()).contains("b");
    assertThat(queue.get()).isEmpty();
    queue.done("a");
    queue.done("b");
    assertThat(queue.len()).isZero();
  }

  @Test
  void shutDownWithDrain_waitsForProcessingItemsToBeDone() throws Exception {
    queue.add("foo");
    queue.add("bar");
    String first = queue.get().orElseThrow();
    String second = queue.get().orElseThrow();

    CompletableFuture<Void> drained = new CompletableFuture<>();
    Thread drainer =
        startThread(
            "drainer",
            () -> {
              queue.shutDownWithDrain();
              drained.complete(null);
              return null;
            });
    await().atMost(10, TimeUnit.SECONDS).until(queue::isShuttingDown);
    assertThat(queue.get()).as("nothing queued: get returns at once").isEmpty();
    awaitWaiting(drainer);

    queue.done(first);
    assertThat(drained).as("one item still processing").isNotDone();
    awaitWaiting(drainer);

    queue.done(second);
    drained.get(10, TimeUnit.SECONDS);
  }

  @Test
  void shutDownWithDrain_dirtyItem_isHandedOutAgainBeforeShutdownIsReported() throws Exception {
    queue.add("foo");
    String gotten = queue.get().orElseThrow();
    queue.add("foo");

    CompletableFuture<Void> drained = new CompletableFuture<>();
    startThread(
        "drainer",
        () -> {
          queue.shutDownWithDrain();
          drained.complete(null);
          return null;
        });
    await().atMost(10, TimeUnit.SECONDS).until(queue::isShuttingDown);
    assertThat(queue.get()).isEmpty();

    queue.done(gotten);

    assertThat(queue.get()).as("done re-queued the dirty item").contains("foo");
    queue.done("foo");
    assertThat(queue.get()).isEmpty();
    drained.get(10, TimeUnit.SECONDS);
  }

  @Test
  void shutDown_afterShutDownWithDrain_releasesTheDrainWithoutDone() throws Exception {
    queue.add("foo");
    queue.add("bar");
    queue.get();
    queue.get();

    CompletableFuture<Void> drained = new CompletableFuture<>();
    Thread drainer =
        startThread(
            "drainer",
            () -> {
              queue.shutDownWithDrain();
              drained.complete(null);
              return null;
            });
    awaitWaiting(drainer);
    assertThat(drained).isNotDone();

    queue.shutDown();

    drained.get(10, TimeUnit.SECONDS);
  }

  @Test
  void shutDown_withItemsProcessing_returnsWithoutWaiting() throws InterruptedException {
    queue.add("foo");
    queue.add("bar");
    queue.get();
    queue.get();

    queue.shutDown();

    assertThat(queue.isShuttingDown()).isTrue();
    assertThat(queue.processingCount()).isEqualTo(2);
  }

  @Test
  void shutDownWithDrain_nothingProcessing_returnsAtOnce() throws InterruptedException {
    queue.add("queued but never taken");
    queue.shutDownWithDrain();
    assertThat(queue.isShuttingDown()).isTrue();
  }

  @Test
  void get_interrupted_throwsInterruptedException() throws Exception {
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Thread getter =
        startThread(
            "interrupted-getter",
            () -> {
              try {
                queue.get();
                thrown.complete(null);
              } catch (InterruptedException e) {
                thrown.complete(e);
              }
              return null;
            });
    awaitWaiting(getter);
    getter.interrupt();
    assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  @Test
  void add_null_isRejected() {
    assertThatThrownBy(() -> queue.add(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void create_defaults_returnsWorkingQueue() throws InterruptedException {
    WorkQueue<Integer> q = WorkQueue.create();
    q.add(1);
    assertThat(q.get()).contains(1);
    q.done(1);
    q.shutDown();
    assertThat(q.get()).isEmpty();
  }

  interface Body {
    Object run() throws Exception;
  }

  private Thread startThread(String name, Body body) {
    return startThread(name, body, started);
  }

  /** Starts a daemon thread {@code test-<name>} running {@code body}, recorded in {@code started}. */
  static Thread startThread(String name, Body body, List<Thread> started) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            },
            "test-" + name);
    t.setDaemon(true);
    started.add(t);
    t.start();
    return t;
  }

  /** Waits until {@code t} is parked (in get() or shutDownWithDrain()). */
  static void awaitWaiting(Thread t) {
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> t.getState() == Thread.State.WAITING || !t.isAlive());
  }
}

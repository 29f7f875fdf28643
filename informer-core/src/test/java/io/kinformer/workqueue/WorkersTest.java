package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kinformer.time.testing.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkersTest {

  private final FakeClock clock = new FakeClock();
  private final DefaultRateLimitingQueue<String> queue =
      (DefaultRateLimitingQueue<String>)
          RateLimitingQueue.create(
              RateLimiters.<String>itemExponentialFailure(
                  Duration.ofSeconds(1), Duration.ofMinutes(1)),
              QueueOptions.builder().name("test").clockAndScheduler(clock).build());
  private final List<Thread> created = new CopyOnWriteArrayList<>();
  private final ThreadFactory recordingFactory =
      r -> {
        Thread t = new Thread(r);
        t.setDaemon(true);
        created.add(t);
        return t;
      };
  private final ConcurrentHashMap<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  private Workers workers;

  @AfterEach
  void closeWorkers() {
    if (workers != null) {
      workers.close();
    }
    assertThat(created).allSatisfy(t -> assertThat(t.isAlive()).as(t.getName()).isFalse());
  }

  private Workers start(Function<String, Reconciler.Result> body) {
    Reconciler<String> reconciler =
        key ->
            body.apply(
                key
                    + "#"
                    + attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet());
    workers =
        Workers.builder("test", queue, reconciler)
            .threads(2)
            .threadFactory(recordingFactory)
            .start();
    return workers;
  }

  /** One worker thread, so that a worker that died would stop all progress. */
  private Workers startOne(Reconciler<String> reconciler) {
    workers =
        Workers.builder("one", queue, reconciler)
            .threads(1)
            .threadFactory(recordingFactory)
            .start();
    return workers;
  }

  private int attemptsOf(String key) {
    AtomicInteger n = attempts.get(key);
    return n == null ? 0 : n.get();
  }

  private void awaitIdle() {
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> queue.len() == 0 && queue.delaying().underlying().processingCount() == 0);
  }

  @Test
  void success_forgetsTheKey() {
    queue.addRateLimited("a"); // one earlier failure on record
    assertThat(queue.numRequeues("a")).isEqualTo(1);
    start(attempt -> Reconciler.Result.done());

    clock.advance(Duration.ofSeconds(1));

    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 1);
    awaitIdle();
    assertThat(queue.numRequeues("a")).isZero();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void error_isRetriedLikeAnException_andTheWorkerGoesOn() {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      errorIsRetried();
    } finally {
      System.setErr(original);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains("ERROR")
        .contains("an assertion in a reconciler");
  }

  private void errorIsRetried() {
    startOne(
        key -> {
          int n = attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          if (key.equals("a") && n == 1) {
            throw new AssertionError("an assertion in a reconciler");
          }
          return Reconciler.Result.done();
        });
    queue.add("a");
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    queue.add("b");
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("b") == 1);

    clock.advance(Duration.ofSeconds(1)); // the rate-limited retry of "a"
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 2);
    awaitIdle();
    assertThat(created).hasSize(1).allMatch(Thread::isAlive);
  }

  @Test
  void strayInterruptFromAReconciler_doesNotStopItsWorker() {
    startOne(
        key -> {
          attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          if (key.equals("a")) {
            // The Java idiom after catching InterruptedException: restore the flag.
            Thread.currentThread().interrupt();
          }
          return Reconciler.Result.done();
        });
    queue.add("a");
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 1);
    queue.add("b");

    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("b") == 1);
    awaitIdle();
    assertThat(created).hasSize(1).allMatch(Thread::isAlive);
  }

  @Test
  void exception_requeuesWithRateLimit_thenSuccessForgets() {
    start(
        attempt -> {
          if (attempt.endsWith("#1") || attempt.endsWith("#2")) {
            throw new IllegalStateException("boom " + attempt);
          }
          return Reconciler.Result.done();
        });
    queue.add("a");

    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    awaitIdle();
    assertThat(attemptsOf("a")).isEqualTo(1);
    assertThat(queue.numRequeues("a")).isEqualTo(1);
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(1));

    clock.advance(Duration.ofSeconds(1));
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 2);
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    awaitIdle();
    assertThat(queue.numRequeues("a")).isEqualTo(2);
    assertThat(clock.pendingDelays())
        .as("exponential: 1 s, then 2 s")
        .containsExactly(Duration.ofSeconds(2));

    clock.advance(Duration.ofMillis(1999));
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofMillis(1));
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 3);
    awaitIdle();
    assertThat(queue.numRequeues("a")).isZero();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void exception_isLoggedAtWarnWithKeyAndStackTrace() {
    // slf4j-simple (the test binding) writes to whatever System.err is at the time of the call.
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      start(
          attempt -> {
            throw new IllegalStateException("boom " + attempt);
          });
      queue.add("logged-key");
      await()
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> captured.toString(StandardCharsets.UTF_8).contains("boom logged-key#1"));
      await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    } finally {
      System.setErr(original);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log)
        .contains("WARN")
        .contains("key=logged-key")
        .contains("requeues=1")
        .contains("java.lang.IllegalStateException: boom logged-key#1")
        .contains("\tat io.kinformer.workqueue.");
  }

  @Test
  void nullResult_isTreatedAsFailure() {
    start(attempt -> attempt.endsWith("#1") ? null : Reconciler.Result.done());
    queue.add("a");
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    assertThat(queue.numRequeues("a")).isEqualTo(1);
  }

  @Test
  void requeueAfter_forgetsAndAddsAfterTheDelay() {
    queue.addRateLimited("a"); // a failure on record, which requeueAfter forgets
    start(
        attempt ->
            attempt.endsWith("#1")
                ? Reconciler.Result.requeueAfter(Duration.ofSeconds(30))
                : Reconciler.Result.done());
    clock.advance(Duration.ofSeconds(1));
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 1);
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.hasPendingTasks());
    awaitIdle();
    assertThat(queue.numRequeues("a")).isZero();
    assertThat(queue.delaying().waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(29));
    assertThat(queue.len()).isZero();
    assertThat(attemptsOf("a")).isEqualTo(1);

    clock.advance(Duration.ofSeconds(1));
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 2);
  }

  @Test
  void requeue_addsRateLimitedWithoutForgetting() {
    start(
        attempt -> attempt.endsWith("#3") ? Reconciler.Result.done() : Reconciler.Result.requeue());
    queue.add("a");
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    awaitIdle();
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));
    await().atMost(10, TimeUnit.SECONDS).until(() -> attemptsOf("a") == 2);
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingDelays().size() == 1);
    awaitIdle();
    assertThat(queue.numRequeues("a")).isEqualTo(2);
  }

  @Test
  void close_stopsAndJoinsEveryThread() {
    Workers w =
        Workers.builder("names", queue, key -> Reconciler.Result.done())
            .threads(3)
            .threadFactory(recordingFactory)
            .start();
    assertThat(created)
        .extracting(Thread::getName)
        .containsExactly(
            "kinformer-names-worker-0", "kinformer-names-worker-1", "kinformer-names-worker-2");
    assertThat(created).allSatisfy(t -> assertThat(t.isAlive()).isTrue());

    w.close();

    assertThat(created).allSatisfy(t -> assertThat(t.isAlive()).isFalse());
    assertThat(queue.isShuttingDown()).isTrue();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .noneMatch(n -> n.startsWith("kinformer-names-worker-"));
    w.close(); // idempotent
  }

  @Test
  void defaultThreadFactory_makesNamedDaemonThreads() {
    CompletableFuture<Thread> worker = new CompletableFuture<>();
    workers =
        Workers.builder(
                "daemons",
                queue,
                key -> {
                  worker.complete(Thread.currentThread());
                  return Reconciler.Result.done();
                })
            .start();
    queue.add("a");
    Thread t = worker.join();
    assertThat(t.getName()).isEqualTo("kinformer-daemons-worker-0");
    assertThat(t.isDaemon()).isTrue();
    workers.close();
    assertThat(t.isAlive()).isFalse();
  }

  @Test
  void close_waitsForTheKeyInHandAndDrainsQueuedKeys() throws Exception {
    CountDownLatch inReconcile = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> reconciled = new CopyOnWriteArrayList<>();
    Workers w =
        Workers.builder(
                "drain",
                queue,
                key -> {
                  if (key.equals("slow")) {
                    inReconcile.countDown();
                    release.await();
                  }
                  reconciled.add(key);
                  return Reconciler.Result.done();
                })
            .threadFactory(recordingFactory)
            .start();
    queue.add("slow");
    assertThat(inReconcile.await(10, TimeUnit.SECONDS)).isTrue();
    queue.add("queued");

    CompletableFuture<Void> closed = CompletableFuture.runAsync(w::close);
    await().atMost(10, TimeUnit.SECONDS).until(queue::isShuttingDown);
    assertThat(closed).isNotDone();

    release.countDown();
    closed.get(10, TimeUnit.SECONDS);
    assertThat(reconciled).containsExactly("slow", "queued");
  }

  @Test
  void start_isIdempotent_andFailsAfterClose() {
    Workers w =
        Workers.builder("life", queue, key -> Reconciler.Result.done())
            .threadFactory(recordingFactory)
            .build();
    assertThat(created).isEmpty();
    w.start();
    w.start();
    assertThat(created).hasSize(1);
    w.close();
    assertThatThrownBy(w::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void close_beforeStart_shutsTheQueueDown() {
    Workers w = Workers.builder("never", queue, key -> Reconciler.Result.done()).build();
    w.close();
    assertThat(queue.isShuttingDown()).isTrue();
    assertThatThrownBy(w::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void close_fromAWorkerThread_isRejected() {
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Workers[] self = new Workers[1];
    self[0] =
        Workers.builder(
                "self",
                queue,
                key -> {
                  try {
                    self[0].close();
                    thrown.complete(null);
                  } catch (IllegalStateException e) {
                    thrown.complete(e);
                  }
                  return Reconciler.Result.done();
                })
            .threadFactory(recordingFactory)
            .build();
    workers = self[0];
    workers.start();
    queue.add("a");
    assertThat(thrown.join()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builder_badArguments_areRejected() {
    Reconciler<String> r = key -> Reconciler.Result.done();
    assertThatThrownBy(() -> Workers.builder(" ", queue, r))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Workers.builder("x", queue, r).threads(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> Reconciler.Result.requeueAfter(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void manyWorkers_neverReconcileOneKeyTwiceAtOnce() {
    RateLimitingQueue<String> q =
        RateLimitingQueue.create(RateLimiters.itemFastSlow(Duration.ZERO, Duration.ZERO, 0));
    ConcurrentHashMap<String, Boolean> inProgress = new ConcurrentHashMap<>();
    AtomicBoolean overlap = new AtomicBoolean();
    AtomicInteger total = new AtomicInteger();
    workers =
        Workers.builder(
                "many",
                q,
                key -> {
                  if (inProgress.putIfAbsent(key, true) != null) {
                    overlap.set(true);
                  }
                  Thread.yield();
                  inProgress.remove(key);
                  // Every third attempt fails, to exercise the requeue path.
                  return total.incrementAndGet() % 3 == 0
                      ? Reconciler.Result.requeue()
                      : Reconciler.Result.done();
                })
            .threads(4)
            .threadFactory(recordingFactory)
            .start();
    for (int round = 0; round < 50; round++) {
      for (int k = 0; k < 20; k++) {
        q.add("key-" + k);
      }
    }
    await().atMost(30, TimeUnit.SECONDS).until(() -> total.get() >= 20 && q.len() == 0);
    workers.close();
    assertThat(overlap).isFalse();
  }
}

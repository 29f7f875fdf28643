package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.Clock;
import io.kinformer.time.testing.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tests {@link DeliveryPool}, mostly with real {@link ProcessorListener}s on it. The pool's stall
 * and idle timers run on a {@link FakeClock} that only the test moves, so no extra worker appears
 * unless a test advances time, and thread counts are exact.
 */
class DeliveryPoolTest {

  private static final Duration STALL = Duration.ofSeconds(1);
  private static final Duration KEEP_ALIVE = Duration.ofSeconds(30);

  private final FakeClock clock = new FakeClock();
  /** The listeners' clock: never moves, so drains are bounded by count only. */
  private final FakeClock listenerClock = new FakeClock();

  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private final List<CountDownLatch> toRelease = new CopyOnWriteArrayList<>();
  private DeliveryPool pool;

  private DeliveryPool pool(String prefix, int size, int maxExtra) {
    pool = new DeliveryPool(prefix, size, maxExtra, STALL, KEEP_ALIVE, clock, clock, threads);
    return pool;
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    toRelease.forEach(CountDownLatch::countDown);
    if (pool != null) {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private ProcessorListener<Pod> listener(ResourceEventHandler<Pod> handler) {
    return new ProcessorListener<>(
        "pods",
        handler,
        Duration.ZERO,
        Duration.ZERO,
        0L,
        pool,
        listenerClock,
        listenerClock,
        () -> true,
        new SharedProcessor<>());
  }

  private static Notification<Pod> add(String name) {
    return new Notification.Add<>(pod("ns", name), false);
  }

  /** Counts calls; blocks in its first call until released when built with a latch. */
  private final class Handler implements ResourceEventHandler<Pod> {
    final String name;
    final List<String> seen = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release;

    Handler(String name, boolean blockFirstCall) {
      this.name = name;
      this.release = new CountDownLatch(blockFirstCall ? 1 : 0);
      toRelease.add(release);
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      seen.add(obj.getMetadata().getName());
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void awaitEntered() throws InterruptedException {
      assertThat(entered.await(10, TimeUnit.SECONDS)).as(name + " entered").isTrue();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private List<Thread> liveThreadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .toList();
  }

  // ---- bounded thread count ------------------------------------------------------------------

  record HandlerCount(String name, int handlers) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<HandlerCount> handlerCounts() {
    return Stream.of(
        new HandlerCount("1 handler", 1),
        new HandlerCount("10 handlers", 10),
        new HandlerCount("50 handlers", 50));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("handlerCounts")
  void handlersDrainingAtOnce_useAtMostPoolSizeThreads(HandlerCount c) {
    int size = 3;
    int perHandler = 300;
    pool("kinformer-bounded-", size, 64);
    Set<String> deliveringThreads = ConcurrentHashMap.newKeySet();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    List<ProcessorListener<Pod>> listeners = new ArrayList<>();
    for (int h = 0; h < c.handlers(); h++) {
      listeners.add(
          listener(
              new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod obj, boolean isInInitialList) {
                  maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                  deliveringThreads.add(Thread.currentThread().getName());
                  delivered.incrementAndGet();
                  inside.decrementAndGet();
                }
              }));
    }
    for (int i = 0; i < perHandler; i++) {
      for (ProcessorListener<Pod> l : listeners) {
        l.add(add("p" + i));
      }
    }

    await().until(() -> delivered.get() == c.handlers() * perHandler);
    assertThat(deliveringThreads)
        .hasSizeLessThanOrEqualTo(size)
        .allMatch(n -> n.startsWith("kinformer-bounded-"));
    assertThat(maxInside.get()).isLessThanOrEqualTo(size);
    assertThat(pool.workerCount()).isLessThanOrEqualTo(size);
    assertThat(liveThreadsNamed("kinformer-bounded-")).hasSizeLessThanOrEqualTo(size);
  }

  record InformerCount(String name, int informers) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<InformerCount> informerCounts() {
    return Stream.of(
        new InformerCount("1 informer", 1),
        new InformerCount("10 informers", 10),
        new InformerCount("50 informers", 50));
  }

  /** The factory's arrangement: one pool for every handler of every informer. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("informerCounts")
  void informersSharingThePool_needOneThreadEachPlusThePool_whateverTheHandlers(
      InformerCount c) {
    int size = 2;
    int handlersPerInformer = 3;
    int pods = 20;
    pool("kinformer-shared-delivery-", size, 64);
    FakeClock informerClock = new FakeClock();
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    Set<String> deliveringThreads = ConcurrentHashMap.newKeySet();
    AtomicInteger delivered = new AtomicInteger();
    List<SharedIndexInformer<Pod>> informers = new ArrayList<>();
    try {
      for (int i = 0; i < c.informers(); i++) {
        FakeListerWatcher<Pod> source = TestPods.fakeSource();
        for (int p = 0; p < pods; p++) {
          source.add(pod("ns", "p" + p));
        }
        SharedIndexInformer<Pod> informer =
            SharedIndexInformer.builder("shared-" + i, source)
                .clock(informerClock)
                .scheduler(informerClock)
                .deliveryExecutor(pool)
                .build();
        informers.add(informer);
        for (int h = 0; h < handlersPerInformer; h++) {
          informer.addEventHandler(
              new ResourceEventHandler<Pod>() {
                @Override
                public void onAdd(Pod obj, boolean isInInitialList) {
                  deliveringThreads.add(Thread.currentThread().getName());
                  delivered.incrementAndGet();
                }
              });
        }
      }
      informers.forEach(SharedIndexInformer::start);
      await()
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> delivered.get() == c.informers() * handlersPerInformer * pods);

      List<String> started =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> !before.contains(t) && t.isAlive())
              .map(Thread::getName)
              .filter(n -> n.startsWith("kinformer-") && !n.equals("kinformer-scheduler"))
              .toList();
      assertThat(deliveringThreads)
          .hasSizeLessThanOrEqualTo(size)
          .allMatch(n -> n.startsWith("kinformer-shared-delivery-"));
      // Processing runs as a task on the pool: each informer adds only its reflector's thread.
      assertThat(started)
          .as("a reflector per informer, plus the pool")
          .hasSizeLessThanOrEqualTo(c.informers() + size)
          .noneMatch(n -> n.endsWith("-processor"));
    } finally {
      informers.forEach(SharedIndexInformer::close);
    }
    assertThat(pool.isShutdown()).as("an injected executor is not the informer's").isFalse();
  }

  // ---- order, seriality, fairness ------------------------------------------------------------

  @Test
  void manyHandlersFedFromSeveralThreads_eachSeesItsOwnOrderOneCallAtATime() throws Exception {
    pool("kinformer-order-", 3, 64);
    assertThat(feedAndCheckOrder(pool, listenerClock, 24, 2_000, 3)).isEmpty();
    assertThat(pool.workerCount()).isLessThanOrEqualTo(3);
  }

  /** The same on the public pool, on real time (drains also yield on time), at a larger scale. */
  @Tag("stress")
  @Test
  void stress_manyHandlersOnThePublicPool_eachSeesItsOwnOrderOneCallAtATime() throws Exception {
    ExecutorService shared = Informers.newDeliveryExecutor("kinformer-order-stress-", 2);
    try {
      assertThat(feedAndCheckOrder(shared, Clock.system(), 100, 5_000, 4)).isEmpty();
    } finally {
      shared.shutdown();
      assertThat(shared.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * Feeds {@code perHandler} numbered notifications to each of {@code handlers} listeners on
   * {@code executor}, from {@code producers} threads (each owning some listeners, as an informer
   * owns its own), and returns every violation of order or seriality the handlers saw.
   */
  private static List<String> feedAndCheckOrder(
      Executor executor, Clock listenerClock, int handlers, int perHandler, int producers)
      throws InterruptedException {
    List<String> violations = new CopyOnWriteArrayList<>();
    AtomicInteger delivered = new AtomicInteger();
    List<ProcessorListener<Pod>> listeners = new ArrayList<>();
    for (int h = 0; h < handlers; h++) {
      String name = "h" + h;
      ResourceEventHandler<Pod> checking =
          new ResourceEventHandler<>() {
            final AtomicInteger inCall = new AtomicInteger();
            int next; // only touched inside calls, which must be serial

            @Override
            public void onAdd(Pod obj, boolean isInInitialList) {
              if (inCall.incrementAndGet() != 1) {
                violations.add(name + ": two calls at once");
              }
              int seq = Integer.parseInt(obj.getMetadata().getName());
              if (seq != next) {
                violations.add(name + ": got " + seq + ", expected " + next);
              }
              next = seq + 1;
              delivered.incrementAndGet();
              inCall.decrementAndGet();
            }
          };
      listeners.add(
          new ProcessorListener<>(
              "pods",
              checking,
              Duration.ZERO,
              Duration.ZERO,
              0L,
              executor,
              listenerClock,
              io.kinformer.time.Scheduler.system(),
              () -> true,
              new SharedProcessor<>()));
    }
    List<Thread> feeders = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int first = p;
      feeders.add(
          new Thread(
              () -> {
                for (int i = 0; i < perHandler; i++) {
                  for (int h = first; h < handlers; h += producers) {
                    listeners.get(h).add(add(Integer.toString(i)));
                  }
                }
              },
              "test-feeder-" + p));
    }
    feeders.forEach(Thread::start);
    for (Thread t : feeders) {
      t.join(TimeUnit.SECONDS.toMillis(60));
    }
    await().atMost(120, TimeUnit.SECONDS).until(() -> delivered.get() == handlers * perHandler);
    return violations;
  }

  @Test
  void handlerWithABigBacklog_yieldsAfterOneBatch_toAHandlerThatArrivedLater() throws Exception {
    pool("kinformer-fair-", 1, 64);
    List<String> order = new CopyOnWriteArrayList<>();
    CountDownLatch bigEntered = new CountDownLatch(1);
    CountDownLatch releaseBig = new CountDownLatch(1);
    toRelease.add(releaseBig);
    ProcessorListener<Pod> big =
        listener(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                order.add("big");
                bigEntered.countDown();
                try {
                  releaseBig.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    ProcessorListener<Pod> small =
        listener(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                order.add("small");
              }
            });
    int backlog = ProcessorListener.BATCH * 10;
    for (int i = 0; i < backlog; i++) {
      big.add(add("b" + i));
    }
    assertThat(bigEntered.await(10, TimeUnit.SECONDS)).isTrue();
    small.add(add("s")); // queued behind the big handler's first turn, on the only worker

    releaseBig.countDown();
    await().until(() -> order.size() == backlog + 1);
    assertThat(order.indexOf("small"))
        .as("the small handler runs right after the big one's first batch")
        .isEqualTo(ProcessorListener.BATCH);
  }

  // ---- stall compensation --------------------------------------------------------------------

  @Test
  void allWorkersStuck_pastTheThreshold_anExtraWorkerDeliversTheOthers_andRetiresWhenIdle()
      throws Exception {
    pool("kinformer-stall-", 2, 64);
    Handler blockerA = new Handler("blocker-A", true);
    Handler blockerB = new Handler("blocker-B", true);
    Handler fast = new Handler("fast", false);
    ProcessorListener<Pod> a = listener(blockerA);
    ProcessorListener<Pod> b = listener(blockerB);
    ProcessorListener<Pod> f = listener(fast);

    a.add(add("a1"));
    blockerA.awaitEntered(); // stuck since t=0
    clock.advance(Duration.ofMillis(600));
    b.add(add("b1"));
    blockerB.awaitEntered(); // stuck since t=0.6 s
    f.add(add("f1"));
    assertThat(pool.queuedCount()).as("both workers are held").isEqualTo(1);

    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      clock.advance(Duration.ofMillis(400)); // t=1 s: B has been stuck for 0.4 s only
      assertThat(pool.workerCount()).as("not every worker is past the threshold").isEqualTo(2);
      assertThat(f.pendingNotifications()).isEqualTo(1);

      clock.advance(Duration.ofSeconds(1)); // t=2 s: both past the threshold
      await().until(() -> fast.seen.size() == 1);
    } finally {
      System.setErr(original);
    }
    assertThat(pool.workerCount()).isEqualTo(3);
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains("WARN")
        .contains("kinformer-stall-")
        .contains("handler blocker-A of informer pods")
        .contains("handler blocker-B of informer pods")
        .contains("kinformer-stall-3")
        .contains("WorkQueue");

    Thread extra =
        liveThreadsNamed("kinformer-stall-3").stream().findFirst().orElseThrow();
    await().until(() -> pool.idleCount() == 1);
    clock.advance(KEEP_ALIVE.minusSeconds(1));
    assertThat(pool.workerCount()).as("idle, but not for long enough yet").isEqualTo(3);
    clock.advance(Duration.ofSeconds(1));
    await().until(() -> !extra.isAlive());
    assertThat(pool.workerCount()).isEqualTo(2);

    blockerA.release.countDown();
    blockerB.release.countDown();
    f.add(add("f2"));
    await().until(() -> fast.seen.size() == 2);
    assertThat(pool.workerCount()).isEqualTo(2);
  }

  @Test
  void allWorkersStuck_withNoExtraLeft_warnsOnceAndOthersWait() throws Exception {
    pool("kinformer-cap-", 1, 1);
    Handler blockerA = new Handler("blocker-A", true);
    Handler blockerB = new Handler("blocker-B", true);
    Handler waiting = new Handler("waiting", false);
    listener(blockerA).add(add("a"));
    blockerA.awaitEntered();
    listener(blockerB).add(add("b"));
    ProcessorListener<Pod> w = listener(waiting);
    w.add(add("w"));

    clock.advance(STALL);
    blockerB.awaitEntered(); // on the one extra worker
    assertThat(pool.workerCount()).isEqualTo(2);

    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      clock.advance(STALL.multipliedBy(5));
    } finally {
      System.setErr(original);
    }
    assertThat(pool.workerCount()).as("capped at size + maxExtra").isEqualTo(2);
    assertThat(w.pendingNotifications()).isEqualTo(1);
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log).contains("extra workers are in use").contains("handler blocker-B");
    assertThat(log.split("extra workers are in use", -1)).as("logged once").hasSize(2);

    blockerA.release.countDown();
    await().until(() -> waiting.seen.size() == 1);
  }

  @Test
  void idleWorkers_endAfterKeepAlive_andNewWorkStartsOneAgain() {
    pool("kinformer-idle-", 2, 64);
    List<String> ran = new CopyOnWriteArrayList<>();
    pool.execute(() -> ran.add(Thread.currentThread().getName()));
    await().until(() -> ran.size() == 1 && pool.idleCount() == 1);

    clock.advance(KEEP_ALIVE);
    await().until(() -> pool.workerCount() == 0);
    await().until(() -> liveThreadsNamed("kinformer-idle-").isEmpty());
    assertThat(clock.hasPendingTasks()).as("no tick while the pool has no worker").isFalse();

    pool.execute(() -> ran.add(Thread.currentThread().getName()));
    await().until(() -> ran.size() == 2);
    assertThat(ran).containsExactly("kinformer-idle-1", "kinformer-idle-2");
  }

  // ---- failures ------------------------------------------------------------------------------

  @Test
  void throwingHandler_keepsItsListenerAndThePoolDelivering() {
    pool("kinformer-throw-", 2, 64);
    AtomicInteger thrown = new AtomicInteger();
    List<String> other = new CopyOnWriteArrayList<>();
    ProcessorListener<Pod> bad =
        listener(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                thrown.incrementAndGet();
                throw new IllegalStateException("boom " + obj.getMetadata().getName());
              }
            });
    ProcessorListener<Pod> good =
        listener(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                other.add(obj.getMetadata().getName());
              }
            });
    PrintStream original = System.err;
    System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      for (int i = 0; i < 200; i++) {
        bad.add(add("p" + i));
        good.add(add("p" + i));
      }
      await().until(() -> thrown.get() == 1 && other.size() == 200);
      // The bad one pauses a second after each failure (client-go), then goes on.
      listenerClock.advance(ProcessorListener.PAUSE_AFTER_FAILURE);
      await().until(() -> thrown.get() == 2);
    } finally {
      System.setErr(original);
    }
    assertThat(bad.isRemoved()).isFalse();
    assertThat(pool.isShutdown()).isFalse();
    assertThat(pool.workerCount()).isBetween(1, 2);
  }

  @Test
  void taskThrowingAnError_endsItsWorker_andAnotherRunsTheQueuedTasks() throws Exception {
    pool("kinformer-error-", 1, 64);
    CountDownLatch inFirst = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    toRelease.add(releaseFirst);
    List<String> ran = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler quiet = (t, e) -> ran.add("uncaught " + e.getMessage());
    pool.execute(
        () -> {
          Thread.currentThread().setUncaughtExceptionHandler(quiet);
          inFirst.countDown();
          try {
            releaseFirst.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new AssertionError("an Error escapes");
        });
    assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
    pool.execute(() -> ran.add(Thread.currentThread().getName()));

    releaseFirst.countDown();
    await().until(() -> ran.size() == 2);
    assertThat(ran).containsExactlyInAnyOrder("uncaught an Error escapes", "kinformer-error-2");
  }

  @Test
  void taskThrowingARuntimeException_isLoggedAndTheWorkerGoesOn() {
    pool("kinformer-rte-", 1, 64);
    List<String> ran = new CopyOnWriteArrayList<>();
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      pool.execute(
          () -> {
            throw new IllegalStateException("task boom");
          });
      pool.execute(() -> ran.add(Thread.currentThread().getName()));
      await().until(() -> ran.size() == 1);
    } finally {
      System.setErr(original);
    }
    assertThat(ran).containsExactly("kinformer-rte-1");
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains("WARN")
        .contains("java.lang.IllegalStateException: task boom");
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  @Test
  void shutdown_runsQueuedTasks_rejectsNewOnes_andLeavesNoThread() throws Exception {
    pool("kinformer-close-", 2, 64);
    Handler blocker = new Handler("blocker", true);
    listener(blocker).add(add("x"));
    blocker.awaitEntered();
    Map<String, Boolean> ran = new ConcurrentHashMap<>();
    for (int i = 0; i < 10; i++) {
      String k = "t" + i;
      pool.execute(() -> ran.put(k, true));
    }

    pool.shutdown();
    assertThatThrownBy(() -> pool.execute(() -> {}))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("kinformer-close-");
    assertThat(pool.awaitTermination(0, TimeUnit.SECONDS)).as("the blocker still runs").isFalse();
    blocker.release.countDown();

    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.isTerminated()).isTrue();
    assertThat(ran).hasSize(10);
    assertThat(threads).isNotEmpty().allMatch(t -> !t.isAlive());
    assertThat(liveThreadsNamed("kinformer-close-")).isEmpty();
    assertThat(clock.hasPendingTasks()).as("the tick is cancelled").isFalse();
  }

  @Test
  void awaitTermination_fromATaskOfThePool_waitsForTheOtherWorkersOnly() throws Exception {
    // A handler closing its informer factory shuts the shared pool down from one of its threads.
    pool("kinformer-self-", 2, 64);
    Handler other = new Handler("other", true);
    listener(other).add(add("x"));
    other.awaitEntered();
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    pool.execute(
        () -> {
          pool.shutdown();
          try {
            result.complete(pool.awaitTermination(30, TimeUnit.SECONDS));
          } catch (Throwable t) {
            result.completeExceptionally(t);
          }
        });
    // It waits for the other worker, which is still in its handler.
    assertThat(result).isNotDone();
    other.release.countDown();
    assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(liveThreadsNamed("kinformer-self-")).isEmpty();
  }

  @Test
  void shutdownNow_dropsQueuedTasks_andInterruptsTheWorkers() throws Exception {
    pool("kinformer-now-", 1, 64);
    CountDownLatch entered = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    pool.execute(
        () -> {
          entered.countDown();
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            events.add("interrupted");
          }
        });
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    Runnable queued = () -> events.add("queued ran");
    pool.execute(queued);

    assertThat(pool.shutdownNow()).containsExactly(queued);
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(events).containsExactly("interrupted");
  }

  @Test
  void constructor_rejectsBadSettings() {
    assertThatThrownBy(() -> pool("p-", 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(
            () ->
                new DeliveryPool("p-", 1, 1, Duration.ZERO, KEEP_ALIVE, clock, clock, threads))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> Informers.newDeliveryExecutor("p-", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
  }
}

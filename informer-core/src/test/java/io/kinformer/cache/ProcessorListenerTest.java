package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tests {@link ProcessorListener}, mostly with a hand-cranked executor. */
class ProcessorListenerTest {

  /** Queues submitted tasks; {@link #runAll()} runs them on the test thread. */
  static final class ManualExecutor implements java.util.concurrent.Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    int submitted;

    @Override
    public synchronized void execute(Runnable command) {
      tasks.add(command);
      submitted++;
    }

    synchronized Runnable poll() {
      return tasks.poll();
    }

    void runAll() {
      for (Runnable r = poll(); r != null; r = poll()) {
        r.run();
      }
    }
  }

  private final ManualExecutor manual = new ManualExecutor();
  private final FakeClock clock = new FakeClock();
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private ExecutorService pool;

  @AfterEach
  void shutdown() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  private final ResourceEventHandler<Pod> recorder =
      new ResourceEventHandler<>() {
        @Override
        public void onAdd(Pod obj, boolean isInInitialList) {
          calls.add("add " + obj.getMetadata().getName() + (isInInitialList ? " initial" : ""));
        }

        @Override
        public void onUpdate(Pod oldObj, Pod newObj) {
          calls.add("update " + newObj.getMetadata().getName());
        }

        @Override
        public void onDelete(Pod obj, boolean finalStateUnknown) {
          calls.add(
              "delete " + obj.getMetadata().getName() + (finalStateUnknown ? " unknown" : ""));
        }
      };

  private ProcessorListener<Pod> listener(
      ResourceEventHandler<Pod> handler,
      java.util.concurrent.Executor executor,
      BooleanSupplier upstream) {
    return new ProcessorListener<>(
        "pods",
        handler,
        Duration.ZERO,
        Duration.ZERO,
        0L,
        executor,
        clock,
        clock,
        upstream,
        new SharedProcessor<>());
  }

  @Test
  void handlerMetrics_recordEachNotificationsWaitAndEachCallsDuration() {
    // Each call takes 2 ms of fake time.
    ResourceEventHandler<Pod> slow = new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        clock.advance(Duration.ofMillis(2));
      }
    };
    ProcessorListener<Pod> l = listener(slow, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "before-metrics"), false));
    List<Double> waits = new CopyOnWriteArrayList<>();
    List<Double> durations = new CopyOnWriteArrayList<>();
    l.handlerMetrics(new InformerMetricsProvider.HandlerMetrics(waits::add, durations::add));
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    clock.advance(Duration.ofMillis(5));
    l.add(new Notification.Add<>(pod("ns", "b"), false));

    manual.runAll();

    // The first was queued before the metrics: its wait is unknown. "a" waited 5 ms and the
    // first call's 2; "b" waited the two calls before it.
    assertThat(durations).containsExactly(0.002, 0.002, 0.002);
    assertThat(waits).containsExactly(0.007, 0.004);
  }

  @Test
  void add_deliversInOrderInBatchesOfOneDrainAtATime() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> true);
    int n = ProcessorListener.BATCH * 2 + 10;
    for (int i = 0; i < n; i++) {
      l.add(new Notification.Add<>(pod("ns", "p" + i), false));
    }
    assertThat(manual.submitted).as("one drain for many adds").isEqualTo(1);
    assertThat(l.pendingNotifications()).isEqualTo(n);

    manual.runAll();

    assertThat(calls).hasSize(n);
    for (int i = 0; i < n; i++) {
      assertThat(calls.get(i)).isEqualTo("add p" + i);
    }
    assertThat(manual.submitted).as("the drain yields after each batch").isEqualTo(3);
    assertThat(l.pendingNotifications()).isZero();
  }

  @Test
  void drain_ofExactlyOneBatch_endsWithoutAnotherTask() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> true);
    for (int i = 0; i < ProcessorListener.BATCH; i++) {
      l.add(new Notification.Add<>(pod("ns", "p" + i), false));
    }
    manual.runAll();
    assertThat(calls).hasSize(ProcessorListener.BATCH);
    assertThat(manual.submitted).isEqualTo(1);

    l.add(new Notification.Add<>(pod("ns", "again"), false));
    assertThat(manual.submitted).as("the drain ended: a new add starts one").isEqualTo(2);
  }

  @Test
  void drain_ofASlowHandler_yieldsOnceBatchTimeHasPassed() {
    // Each call takes 3 ms of the listener's clock: a turn ends after the call that passes 5 ms.
    Duration perCall = Duration.ofMillis(3);
    ResourceEventHandler<Pod> slow =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add("add " + obj.getMetadata().getName());
            clock.advance(perCall);
          }
        };
    ProcessorListener<Pod> l = listener(slow, manual, () -> true);
    for (int i = 0; i < 10; i++) {
      l.add(new Notification.Add<>(pod("ns", "p" + i), false));
    }
    manual.runAll();
    assertThat(calls).hasSize(10);
    assertThat(manual.submitted).as("two calls per turn").isEqualTo(5);
  }

  @Test
  void drainTask_namesTheHandlerAndInformer() {
    ResourceEventHandler<Pod> named =
        new ResourceEventHandler<>() {
          @Override
          public String toString() {
            return "my-handler";
          }
        };
    ProcessorListener<Pod> l = listener(named, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    assertThat(manual.poll()).hasToString("handler my-handler of informer pods");
  }

  @Test
  void hasSynced_whenLastInitialAddIsQueuedWhileUpstreamIsAsked_isFalseUntilDelivered() {
    // The informer's hasSynced turns true in the same step that queues the last initial add. A
    // listener that read its own count before asking upstream would report synced too early.
    AtomicReference<ProcessorListener<Pod>> self = new AtomicReference<>();
    AtomicBoolean lastAddQueued = new AtomicBoolean();
    BooleanSupplier upstream =
        () -> {
          if (lastAddQueued.compareAndSet(false, true)) {
            self.get().add(new Notification.Add<>(pod("ns", "last"), true));
          }
          return true;
        };
    ProcessorListener<Pod> l = listener(recorder, manual, upstream);
    self.set(l);

    assertThat(l.hasSynced()).isFalse();

    manual.runAll();
    assertThat(calls).containsExactly("add last initial");
    assertThat(l.hasSynced()).isTrue();
  }

  @Test
  void hasSynced_isFalseWhileUpstreamIsNot() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> false);
    assertThat(l.hasSynced()).isFalse();
  }

  @Test
  void hasSynced_countsOnlyInitialListAdds() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), true));
    l.add(new Notification.Add<>(pod("ns", "b"), false));
    assertThat(l.hasSynced()).isFalse();
    manual.runAll();
    assertThat(l.hasSynced()).isTrue();
    l.add(new Notification.Add<>(pod("ns", "c"), false));
    assertThat(l.hasSynced()).as("a live add does not unsync").isTrue();
  }

  @Test
  void hasSynced_ofAListenerStoppedBeforeItsInitialAddsWereDelivered_staysFalse() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), true));
    l.stop();
    manual.runAll();
    assertThat(calls).isEmpty();
    assertThat(l.hasSynced()).isFalse();

    ProcessorListener<Pod> done = listener(recorder, manual, () -> true);
    done.add(new Notification.Add<>(pod("ns", "b"), true));
    manual.runAll();
    done.stop();
    assertThat(done.hasSynced()).as("it had seen everything before it stopped").isTrue();
  }

  @Test
  void stop_dropsPendingAndNoCallStartsAfterIt() {
    ProcessorListener<Pod> l = listener(recorder, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), true));
    l.add(new Notification.Add<>(pod("ns", "b"), false));
    l.stop();
    manual.runAll();
    l.add(new Notification.Add<>(pod("ns", "c"), false));
    manual.runAll();
    assertThat(calls).isEmpty();
    assertThat(l.isRemoved()).isTrue();
    assertThat(l.pendingNotifications()).isZero();
  }

  @Test
  void handlerThrowingRuntimeException_isLogged_andDeliveryGoesOnASecondLater() {
    ResourceEventHandler<Pod> throwing =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add("add " + obj.getMetadata().getName());
            throw new IllegalStateException("boom");
          }
        };
    ProcessorListener<Pod> l = listener(throwing, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    l.add(new Notification.Add<>(pod("ns", "b"), false));
    manual.runAll();
    assertThat(calls).containsExactly("add a");
    l.add(new Notification.Add<>(pod("ns", "c"), false));
    manual.runAll();
    assertThat(calls).as("paused: no drain until a second has passed").containsExactly("add a");

    clock.advance(Duration.ofMillis(999));
    manual.runAll();
    assertThat(calls).containsExactly("add a");
    clock.advance(Duration.ofMillis(1));
    manual.runAll();
    assertThat(calls).as("b failed too, so c waits another second").containsExactly("add a", "add b");
    clock.advance(Duration.ofSeconds(1));
    manual.runAll();
    assertThat(calls).containsExactly("add a", "add b", "add c");
  }

  @Test
  void handlerThrowingAnError_isCaughtLikeAnException_andDeliveryGoesOnASecondLater() {
    ResourceEventHandler<Pod> failingOnce =
        new ResourceEventHandler<>() {
          boolean failed;

          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            if (!failed) {
              failed = true;
              throw new AssertionError("an Error escapes");
            }
            calls.add("add " + obj.getMetadata().getName());
          }
        };
    ProcessorListener<Pod> l = listener(failingOnce, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    l.add(new Notification.Add<>(pod("ns", "b"), false));
    Runnable drain = manual.poll();
    String logged = assertDoesNotThrowAndCapture(drain); // the Error is logged, delivery pauses
    assertThat(logged).contains("ERROR").contains("an Error escapes").contains("ns/a");

    assertThat(calls).isEmpty();
    assertThat(manual.poll()).as("nothing to drain during the pause").isNull();
    clock.advance(ProcessorListener.PAUSE_AFTER_FAILURE);
    manual.runAll();
    assertThat(calls).containsExactly("add b");
  }

  private static String assertDoesNotThrowAndCapture(Runnable r) {
    try {
      return LogCapture.stderrOf(r::run);
    } catch (Exception e) {
      throw new AssertionError("the drain threw", e);
    }
  }

  /** A handler whose first call takes {@code callTime} of the fake clock. */
  private ResourceEventHandler<Pod> slowOnce(Duration callTime) {
    AtomicBoolean first = new AtomicBoolean(true);
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        calls.add("add " + obj.getMetadata().getName());
        if (first.getAndSet(false)) {
          clock.advance(callTime);
        }
      }
    };
  }

  @Test
  void slowCall_withABacklog_isLoggedWithHandlerAndBacklog() throws Exception {
    ResourceEventHandler<Pod> slow = slowOnce(ProcessorListener.SLOW_CALL.plusMillis(50));
    ProcessorListener<Pod> l = listener(slow, manual, () -> true);
    int queued = ProcessorListener.SLOW_BACKLOG + 10;
    for (int i = 0; i < queued; i++) {
      l.add(new Notification.Add<>(pod("ns", "p" + i), false));
    }
    Runnable drain = manual.poll();

    String logged = LogCapture.stderrOf(drain::run);

    assertThat(logged)
        .contains("WARN")
        .contains("informer=pods handler " + ProcessorListener.nameOf(slow))
        .contains("took 150 ms on add of ns/p0")
        .contains((queued - 1) + " notifications wait for it");
  }

  @Test
  void slowCall_withoutABacklog_orAFastOne_isNotAWarning() throws Exception {
    ProcessorListener<Pod> l =
        listener(slowOnce(ProcessorListener.SLOW_CALL.plusMillis(50)), manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "slow"), false));
    l.add(new Notification.Add<>(pod("ns", "fast"), false));

    String logged = LogCapture.stderrOf(manual::runAll);

    assertThat(calls).containsExactly("add slow", "add fast");
    assertThat(logged).doesNotContain("WARN");
  }

  @Test
  void handlerRemovedDuringThePause_staysStopped() {
    ResourceEventHandler<Pod> throwing =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add("add " + obj.getMetadata().getName());
            throw new IllegalStateException("boom");
          }
        };
    ProcessorListener<Pod> l = listener(throwing, manual, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    l.add(new Notification.Add<>(pod("ns", "b"), false));
    manual.runAll();
    l.stop();
    clock.advance(ProcessorListener.PAUSE_AFTER_FAILURE);
    manual.runAll();
    assertThat(calls).containsExactly("add a");
  }

  @Test
  void awaitIdle_fromInsideItsOwnHandler_doesNotWaitForItself() throws Exception {
    pool = Executors.newSingleThreadExecutor();
    AtomicReference<ProcessorListener<Pod>> self = new AtomicReference<>();
    List<Boolean> idleResults = new CopyOnWriteArrayList<>();
    ResourceEventHandler<Pod> closing =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            self.get().stop();
            try {
              // Zero timeout: without the self check this reports "still busy" at once.
              idleResults.add(self.get().awaitIdle(Duration.ZERO));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    ProcessorListener<Pod> l = listener(closing, pool, () -> true);
    self.set(l);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    l.add(new Notification.Add<>(pod("ns", "b"), false));

    await().until(() -> idleResults.size() == 1);
    assertThat(idleResults).containsExactly(true);
    assertThat(l.awaitIdle(Duration.ofSeconds(10))).isTrue();
    assertThat(idleResults).as("b was dropped by stop()").hasSize(1);
  }

  @Test
  void awaitIdle_fromAnotherThread_waitsForTheCallInProgress() throws Exception {
    pool = Executors.newSingleThreadExecutor();
    java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    ResourceEventHandler<Pod> blocking =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    ProcessorListener<Pod> l = listener(blocking, pool, () -> true);
    l.add(new Notification.Add<>(pod("ns", "a"), false));
    entered.await();
    l.stop();
    assertThat(l.awaitIdle(Duration.ZERO)).as("a call is in progress").isFalse();
    release.countDown();
    assertThat(l.awaitIdle(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void nameOf_usesTheHandlersOwnToString_elseItsClassName_neverAnIdentityHash() {
    ResourceEventHandler<Pod> named =
        new ResourceEventHandler<>() {
          @Override
          public String toString() {
            return "pod-reconciler";
          }
        };
    ResourceEventHandler<Pod> anonymous = new ResourceEventHandler<>() {};
    ResourceEventHandler<Pod> lambdaLike = ResourceEventHandlers.onAnyChange(p -> {});

    assertThat(ProcessorListener.nameOf(named)).isEqualTo("pod-reconciler");
    assertThat(ProcessorListener.nameOf(anonymous))
        .isEqualTo(anonymous.getClass().getName())
        .doesNotContain("@");
    assertThat(ProcessorListener.nameOf(lambdaLike)).doesNotContain("@").isNotBlank();
  }
}

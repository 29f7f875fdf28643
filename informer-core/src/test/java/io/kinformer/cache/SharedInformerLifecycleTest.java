package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerTestSupport.ReplayingHandler;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Start, close and registration lifecycles of {@link SharedIndexInformer}: threads, delivery after
 * close, close from callbacks, races between start, close and handler registration, and the {@code
 * hasSynced} of registrations.
 */
class SharedInformerLifecycleTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<SharedIndexInformer<Pod>> informers = new CopyOnWriteArrayList<>();

  private SharedIndexInformer<Pod> informer(String name) {
    SharedIndexInformer<Pod> i =
        SharedIndexInformer.builder(name, source)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(3))
            .build();
    informers.add(i);
    return i;
  }

  @AfterEach
  void closeAll() {
    informers.forEach(SharedIndexInformer::close);
  }

  private static Set<Thread> liveThreads() {
    return Thread.getAllStackTraces().keySet();
  }

  private static List<String> liveNamesStartingWith(String prefix) {
    return liveThreads().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith(prefix))
        .collect(Collectors.toList());
  }

  @Test
  void threads_areAllNamedAfterTheInformer_andAllGoneWhenCloseReturns() {
    Set<Thread> before = Set.copyOf(liveThreads());
    SharedIndexInformer<Pod> informer = informer("threads");
    List<ReplayingHandler> handlers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      handlers.add(new ReplayingHandler("h" + i));
      informer.addEventHandler(handlers.get(i));
    }
    informer.start();
    for (int i = 0; i < 20; i++) {
      source.add(pod("ns", "p" + i));
    }
    ReplayingHandler late = new ReplayingHandler("late");
    informer.addEventHandler(late);
    await().until(() -> late.view().size() == 20 && handlers.get(2).view().size() == 20);

    List<Thread> started =
        liveThreads().stream()
            .filter(t -> !before.contains(t))
            .filter(t -> !t.getName().startsWith("awaitility"))
            .toList();
    // Processing runs as a task on the delivery pool: no thread of its own.
    assertThat(started)
        .extracting(Thread::getName)
        .contains("kinformer-threads-reflector")
        .doesNotContain("kinformer-threads-processor")
        .allMatch(n -> n.matches("kinformer-threads-(reflector|delivery-\\d+)"), "named");

    informer.close();
    assertThat(started).filteredOn(Thread::isAlive).isEmpty();
  }

  @Test
  void close_fromInsideAHandler_returnsAndStopsTheInformer() {
    SharedIndexInformer<Pod> informer = informer("close-in-handler");
    List<String> closedIn = new CopyOnWriteArrayList<>();
    ReplayingHandler other = new ReplayingHandler("other");
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            informer.close(); // must not wait for this very call to end (a 30 s stall)
            closedIn.add(Thread.currentThread().getName());
          }
        });
    informer.addEventHandler(other);
    source.add(pod("ns", "a"));
    informer.start();

    await().until(() -> closedIn.size() == 1);
    assertThat(closedIn.get(0)).startsWith("kinformer-close-in-handler-delivery-");
    assertThat(informer.isStopped()).isTrue();
    assertThat(source.openWatchCount()).isZero();
    await().until(() -> liveNamesStartingWith("kinformer-close-in-handler-").isEmpty());
  }

  @Test
  void close_fromTheWatchErrorHandler_returnsAndStopsTheInformer() {
    source.failNextWatch(new ApiException(403, "Forbidden", "no", null, List.of(), false));
    SharedIndexInformer<Pod> informer = informer("close-in-error-handler");
    List<String> closedIn = new CopyOnWriteArrayList<>();
    informer.setWatchErrorHandler(
        e -> {
          informer.close(); // must not wait for the reflector thread, i.e. for itself
          closedIn.add(Thread.currentThread().getName());
        });
    informer.start();

    await().until(() -> closedIn.size() == 1);
    assertThat(closedIn).containsExactly("kinformer-close-in-error-handler-reflector");
    assertThat(informer.synced()).isCompletedExceptionally();
    await().until(() -> liveNamesStartingWith("kinformer-close-in-error-handler-").isEmpty());
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void close_waitsForACallInProgress_andNothingIsDeliveredAfterItReturns() throws Exception {
    SharedIndexInformer<Pod> informer = informer("no-delivery-after-close");
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> calls = new CopyOnWriteArrayList<>();
    ResourceEventHandlerRegistration reg =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                calls.add(obj.getMetadata().getName());
                entered.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    informer.start();
    await().until(() -> source.openWatchCount() == 1);
    for (int i = 0; i < 10; i++) {
      source.add(pod("ns", "p" + i));
    }
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(informer::close, "test-closer");
    closer.start();
    await().until(reg::isRemoved); // close() has stopped the listener, and now waits for p0
    assertThat(closer.isAlive()).as("close waits for the call in progress").isTrue();
    release.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(closer.isAlive()).isFalse();

    int atClose = calls.size();
    source.add(pod("ns", "after"));
    assertThat(liveNamesStartingWith("kinformer-no-delivery-after-close-")).isEmpty();
    assertThat(calls).hasSize(atClose).containsExactly("p0");
  }

  @Test
  void secondClose_whileTheFirstWaitsForAHandler_alsoWaits_butNotFromInsideAHandler()
      throws Exception {
    SharedIndexInformer<Pod> informer = informer("double-close");
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> closeInHandlerReturned = new CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            informer.close(); // the first close() waits for this very call: must not wait back
            closeInHandlerReturned.add("returned");
          }
        });
    source.add(pod("ns", "a"));
    informer.start();
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    Thread first = new Thread(informer::close, "test-close-1");
    first.start();
    await().until(informer::isStopped);
    Thread second = new Thread(informer::close, "test-close-2");
    second.start();
    await()
        .until(
            () ->
                second.getState() == Thread.State.TIMED_WAITING
                    || second.getState() == Thread.State.WAITING
                    || second.getState() == Thread.State.TERMINATED);
    assertThat(second.getState())
        .as("the second close() waits too")
        .isNotEqualTo(Thread.State.TERMINATED);

    release.countDown();
    first.join(TimeUnit.SECONDS.toMillis(10));
    second.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(first.isAlive()).isFalse();
    assertThat(second.isAlive()).isFalse();
    assertThat(closeInHandlerReturned).containsExactly("returned");
    assertThat(liveNamesStartingWith("kinformer-double-close-")).isEmpty();
  }

  @Test
  void closeRacingStart_neverLeavesThreadsAndNeverStartsAfterClose() throws Exception {
    for (int round = 0; round < 30; round++) {
      SharedIndexInformer<Pod> informer = informer("race-" + round);
      informer.addEventHandler(new ReplayingHandler("h"));
      CountDownLatch go = new CountDownLatch(1);
      AtomicReference<Throwable> startFailure = new AtomicReference<>();
      Thread starter =
          new Thread(
              () -> {
                try {
                  go.await();
                  informer.start();
                } catch (IllegalStateException e) {
                  startFailure.set(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      Thread closer =
          new Thread(
              () -> {
                try {
                  go.await();
                  informer.close();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      starter.start();
      closer.start();
      go.countDown();
      starter.join(TimeUnit.SECONDS.toMillis(30));
      closer.join(TimeUnit.SECONDS.toMillis(30));

      assertThat(informer.isStopped()).isTrue();
      if (startFailure.get() != null) {
        assertThat(informer.isStarted()).as("a refused start did not start").isFalse();
      }
      assertThat(liveNamesStartingWith("kinformer-race-" + round + "-")).isEmpty();
    }
  }

  @Test
  void addEventHandlerRacingClose_eachRegistrationIsRefusedOrEndsRemoved() throws Exception {
    SharedIndexInformer<Pod> informer = informer("add-vs-close");
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    informer.start();
    await().until(informer::hasSynced);
    List<ResourceEventHandlerRegistration> added = new CopyOnWriteArrayList<>();
    List<ReplayingHandler> handlers = new CopyOnWriteArrayList<>();
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> adders = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                  while (true) {
                    ReplayingHandler h = new ReplayingHandler("h");
                    added.add(informer.addEventHandler(h));
                    handlers.add(h);
                  }
                } catch (IllegalStateException closed) {
                  // the informer closed: expected end of the loop
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                  unexpected.add(e);
                }
              });
      adders.add(th);
      th.start();
    }
    go.countDown();
    await().until(() -> added.size() >= 20);
    informer.close();
    for (Thread th : adders) {
      th.join(TimeUnit.SECONDS.toMillis(30));
    }

    assertThat(unexpected).isEmpty();
    assertThat(added).allSatisfy(r -> assertThat(r.isRemoved()).isTrue());
    int[] calls = handlers.stream().mapToInt(h -> h.calls.get()).toArray();
    source.add(pod("ns", "after"));
    assertThat(handlers.stream().mapToInt(h -> h.calls.get()).toArray()).isEqualTo(calls);
    assertThat(handlers).allSatisfy(h -> assertThat(h.violations).isEmpty());
    assertThatIllegalStateException()
        .isThrownBy(() -> informer.addEventHandler(new ReplayingHandler("x")));
  }

  /**
   * client-go {@code TestSharedInformerHandlerAbuse}: workers keep adding and removing handlers
   * while events flow, and the informer is closed under them. Nothing but the "closed" refusal may
   * come out, and afterwards every registration is removed and no thread is left.
   */
  @Test
  @org.junit.jupiter.api.Tag("stress")
  void stress_handlersAddedAndRemovedWhileEventsFlowAndTheInformerCloses() throws Exception {
    SharedIndexInformer<Pod> informer = informer("abuse");
    informer.start();
    await().until(() -> source.openWatchCount() == 1);
    List<ResourceEventHandlerRegistration> all = new CopyOnWriteArrayList<>();
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 16; w++) {
      Random random = new Random(w);
      Thread th =
          new Thread(
              () -> {
                List<ResourceEventHandlerRegistration> mine = new ArrayList<>();
                try {
                  while (!informer.isStopped()) {
                    if (mine.isEmpty() || random.nextBoolean()) {
                      ResourceEventHandlerRegistration r =
                          informer.addEventHandler(
                              new ReplayingHandler("abuse"), java.time.Duration.ofSeconds(1));
                      mine.add(r);
                      all.add(r);
                    } else {
                      informer.removeEventHandler(mine.remove(random.nextInt(mine.size())));
                    }
                  }
                } catch (IllegalStateException closed) {
                  // the informer closed under us: the expected end
                } catch (RuntimeException e) {
                  unexpected.add(e);
                }
              },
              "test-abuse-" + w);
      workers.add(th);
      th.start();
    }
    for (int i = 0; i < 5000; i++) {
      if (i % 3 == 2) {
        source.delete(pod("ns", "p" + (i - 1)));
      } else {
        source.add(pod("ns", "p" + i));
      }
    }
    informer.close();
    for (Thread th : workers) {
      th.join(TimeUnit.SECONDS.toMillis(60));
    }
    assertThat(unexpected).isEmpty();
    assertThat(all).isNotEmpty().allSatisfy(r -> assertThat(r.isRemoved()).isTrue());
    assertThat(liveNamesStartingWith("kinformer-abuse-")).isEmpty();
  }

  @Test
  void registrationHasSynced_waitsUntilItsHandlerReturnedFromEveryInitialAdd() throws Exception {
    for (int i = 0; i < 3; i++) {
      source.add(pod("ns", "p" + i));
    }
    SharedIndexInformer<Pod> informer = informer("registration-synced");
    CountDownLatch release = new CountDownLatch(1);
    ResourceEventHandlerRegistration blocked =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    ResourceEventHandlerRegistration free = informer.addEventHandler(new ReplayingHandler("free"));
    assertThat(blocked.hasSynced()).as("not started").isFalse();
    informer.start();
    await().until(informer::hasSynced);
    await().until(free::hasSynced);
    assertThat(blocked.hasSynced()).isFalse();
    assertThat(Informers.waitForCacheSync(java.time.Duration.ZERO, blocked::hasSynced)).isFalse();

    // A handler joining late is synced once it has had the cache replayed.
    CountDownLatch lateRelease = new CountDownLatch(1);
    ResourceEventHandlerRegistration late =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                try {
                  lateRelease.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    assertThat(late.hasSynced()).isFalse();
    lateRelease.countDown();
    await().until(late::hasSynced);

    release.countDown();
    await().until(blocked::hasSynced);
    assertThat(
            Informers.waitForCacheSync(
                java.time.Duration.ofSeconds(10), blocked::hasSynced, late::hasSynced))
        .isTrue();
  }

  @Test
  void close_beforeStart_startsNothing_andStartIsRefused() {
    Set<Thread> before = Set.copyOf(liveThreads());
    SharedIndexInformer<Pod> informer = informer("never-started");
    ResourceEventHandlerRegistration reg = informer.addEventHandler(new ReplayingHandler("h"));
    informer.close();
    assertThat(informer.synced()).isCompletedExceptionally();
    assertThat(reg.isRemoved()).isTrue();
    assertThatIllegalStateException().isThrownBy(informer::start);
    assertThat(liveThreads())
        .filteredOn(t -> !before.contains(t))
        .extracting(Thread::getName)
        .noneMatch(n -> n.startsWith("kinformer-never-started"));
  }
}

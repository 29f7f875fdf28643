package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.SharedIndexInformerTest.Recorder;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The informer's client-go 1.36 pipeline end to end over a fake ListerWatcher: a RealFifo in
 * arrival order, the first list applied atomically before the informer reports synced, bookmarks
 * reaching the store, and no user code under the informer's locks. Most cases run the whole
 * informer on the test's thread ({@link SteppedInformer}).
 */
class SharedInformerPipelineTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();

  private SharedIndexInformer<Pod> informer(Executor delivery) {
    SharedIndexInformer<Pod> i =
        SharedIndexInformer.builder("pods", source)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(3))
            .deliveryExecutor(delivery)
            .processingExecutor(Runnable::run) // in step with the reflector's thread
            .build();
    informers.add(i);
    return i;
  }

  @AfterEach
  void closeAll() {
    informers.forEach(SharedIndexInformer::close);
  }

  /** An informer on the test's thread alone (see {@link SteppedInformer}). */
  private SteppedInformer<Pod> stepped() {
    SteppedInformer<Pod> i = new SteppedInformer<>("pods", source, clock);
    informers.add(i.informer);
    return i;
  }

  @Test
  void everyWatchEvent_isDeliveredInArrivalOrder_withNothingMerged() {
    SteppedInformer<Pod> i = stepped();
    Recorder r = new Recorder();
    i.informer.addEventHandler(r);
    i.start().settle();
    assertThat(i.informer.hasSynced()).isTrue();

    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    source.modify(pod("ns", "a"));
    source.modify(pod("ns", "a"));
    source.delete(pod("ns", "b"));
    i.settle();

    assertThat(i.informer.getIndexer().listKeys()).containsExactly("ns/a");
    assertThat(i.informer.getIndexer().lastStoreSyncResourceVersion()).isEqualTo("6");
    assertThat(r.calls)
        .containsExactly(
            "add ns/a@2", "add ns/b@3", "update ns/a@2->4", "update ns/a@4->5", "delete ns/b@6");
  }

  @Test
  void executorsAndHandlers_neverRunUnderTheInformersLocks() {
    source.add(pod("ns", "a"));
    SteppedInformer<Pod> i = stepped();
    i.tasks.watched = i.informer;
    List<Boolean> lockHeldInHandler = new ArrayList<>();
    ResourceEventHandler<Pod> probe =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            lockHeldInHandler.add(i.informer.holdsAnyLock());
          }
        };
    i.informer.addEventHandler(probe);
    i.start().settle();
    source.add(pod("ns", "b"));
    i.settle();
    i.informer.addEventHandler(probe); // a late handler: seeded with the cache
    i.tasks.runAll();

    assertThat(i.tasks.lockHeldAtSubmit).isNotEmpty().containsOnly(false);
    assertThat(lockHeldInHandler).hasSize(4).containsOnly(false);
  }

  @Test
  void hasSynced_staysFalseUntilTheFirstListIsInTheCache() {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    SteppedInformer<Pod> i = stepped();
    List<String> seenWhileIndexing = new ArrayList<>();
    i.informer.addIndexers(
        Map.of(
            "probe",
            p -> {
              seenWhileIndexing.add(
                  p.getMetadata().getName() + " synced=" + i.informer.hasSynced());
              return List.of();
            }));
    i.start();
    i.step(); // Idle -> Streaming: the cycle starts
    i.step(); // the watch opens with the initial events
    i.step(); // ADDED a
    i.step(); // ADDED b
    i.step(); // the initial-events-end bookmark: the list is queued as one REPLACED_ALL
    assertThat(i.informer.hasSynced()).as("queued, not yet processed").isFalse();
    assertThat(i.informer.getIndexer().listKeys()).isEmpty();

    i.tasks.runAll();

    assertThat(seenWhileIndexing).containsExactlyInAnyOrder("a synced=false", "b synced=false");
    assertThat(i.informer.hasSynced()).isTrue();
    assertThat(i.informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
  }

  @Test
  void bookmarks_moveTheStoresResourceVersion_inOrderWithTheObjects() {
    SteppedInformer<Pod> i = stepped();
    i.start().settle();

    source.add(pod("ns", "a"));
    source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark("99")));
    i.step(); // ADDED a
    i.tasks.runAll();
    assertThat(i.informer.getIndexer().lastStoreSyncResourceVersion()).isEqualTo("2");
    i.settle(); // the bookmark

    assertThat(i.informer.getIndexer().lastStoreSyncResourceVersion()).isEqualTo("99");
    assertThat(i.informer.getIndexer().listKeys()).containsExactly("ns/a");
  }

  @Test
  void registrationSynced_completesOnceItsHandlerHasSeenTheInitialList() {
    source.add(pod("ns", "a"));
    SteppedInformer<Pod> i = stepped();
    ResourceEventHandlerRegistration early = i.informer.addEventHandler(new Recorder());
    i.start();
    while (!i.informer.hasSynced()) {
      i.step();
      i.tasks.runAll();
    }
    assertThat(early.synced()).isCompleted();
    assertThat(early.hasSynced()).isTrue();

    ResourceEventHandlerRegistration late = i.informer.addEventHandler(new Recorder());
    assertThat(late.synced()).as("its initial add is queued, not delivered").isNotDone();
    i.tasks.runAll();
    assertThat(late.synced()).isCompleted();
  }

  @Test
  void registrationSynced_ofAHandlerAddedToAnEmptySyncedCache_completesAtOnce() {
    SteppedInformer<Pod> i = stepped();
    i.start().settle();
    assertThat(i.informer.hasSynced()).isTrue();
    assertThat(i.informer.addEventHandler(new Recorder()).synced()).isCompleted();
  }

  @Test
  void shutDownEventHandler_waitsUntilTheCallInProgressHasReturned() throws Exception {
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      SharedIndexInformer<Pod> informer = informer(pool);
      List<String> calls = new CopyOnWriteArrayList<>();
      ResourceEventHandlerRegistration reg =
          informer.addEventHandler(
              new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod obj, boolean isInInitialList) {
                  calls.add(obj.getMetadata().getName());
                  inHandler.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              });
      source.add(pod("ns", "a"));
      source.add(pod("ns", "b"));
      informer.start();
      assertThat(inHandler.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(informer.shutDownEventHandler(reg, Duration.ZERO))
          .as("a call is still running")
          .isFalse();
      assertThat(reg.isRemoved()).isTrue();
      release.countDown();
      assertThat(informer.shutDownEventHandler(reg, Duration.ofSeconds(10))).isTrue();
      assertThat(calls).as("b was dropped with the removal").containsExactly("a");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void names_areUniqueInTheProcess_whileTheirInformersLive() {
    SharedIndexInformer<Pod> first = named("names-test");
    SharedIndexInformer<Pod> second = named("names-test");
    SharedIndexInformer<Pod> third = named("names-test");
    assertThat(List.of(first.name(), second.name(), third.name()))
        .containsExactly("names-test", "names-test#2", "names-test#3");

    second.close();
    assertThat(named("names-test").name()).as("a closed informer's name is free").isEqualTo("names-test#2");
  }

  private SharedIndexInformer<Pod> named(String name) {
    SharedIndexInformer<Pod> i = SharedIndexInformer.builder(name, source).clock(clock).scheduler(clock).build();
    informers.add(i);
    return i;
  }

  @Test
  void addEventHandler_toAClosedInformer_isRefusedWithClientGosMessage() {
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.close();
    org.assertj.core.api.Assertions.assertThatIllegalStateException()
        .isThrownBy(() -> informer.addEventHandler(new Recorder()))
        .withMessageEndingWith(" was not added to shared informer because it has stopped already");
  }

  @Test
  void addIndexers_toAClosedInformer_isRefusedWithClientGosMessage() {
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.close();
    org.assertj.core.api.Assertions.assertThatIllegalStateException()
        .isThrownBy(() -> informer.addIndexers(Map.of("byName", p -> List.of("x"))))
        .withMessage("indexer was not added because it has stopped already");
  }
}

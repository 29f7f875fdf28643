package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.SharedIndexInformerTest.Recorder;
import io.kinformer.time.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The informer's client-go 1.36 pipeline end to end over a fake ListerWatcher: a RealFifo in
 * arrival order, the first list applied atomically before the informer reports synced, bookmarks
 * reaching the store, and no user code under the informer's locks.
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

  /** An executor whose tasks run only when the test says so, on the test thread. */
  static final class ManualExecutor implements Executor {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    final List<Boolean> lockHeldAtSubmit = new CopyOnWriteArrayList<>();
    volatile DefaultSharedIndexInformer<?> informer;

    @Override
    public void execute(Runnable task) {
      DefaultSharedIndexInformer<?> i = informer;
      if (i != null) {
        lockHeldAtSubmit.add(i.holdsAnyLock());
      }
      tasks.add(task);
    }

    void runAll() {
      Runnable r;
      while ((r = tasks.poll()) != null) {
        r.run();
      }
    }
  }

  @Test
  void everyWatchEvent_isDeliveredInArrivalOrder_withNothingMerged() {
    ManualExecutor delivery = new ManualExecutor();
    SharedIndexInformer<Pod> informer = informer(delivery);
    Recorder r = new Recorder();
    informer.addEventHandler(r);
    informer.start();
    await().until(() -> source.openWatchCount() == 1);

    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    source.modify(pod("ns", "a"));
    source.modify(pod("ns", "a"));
    source.delete(pod("ns", "b"));
    await().until(() -> informer.getIndexer().listKeys().equals(List.of("ns/a"))
        && "6".equals(informer.getIndexer().lastStoreSyncResourceVersion()));
    delivery.runAll();

    assertThat(r.calls)
        .containsExactly(
            "add ns/a@2", "add ns/b@3", "update ns/a@2->4", "update ns/a@4->5", "delete ns/b@6");
  }

  @Test
  void executorsAndHandlers_neverRunUnderTheInformersLocks() {
    ManualExecutor delivery = new ManualExecutor();
    source.add(pod("ns", "a"));
    SharedIndexInformer<Pod> informer = informer(delivery);
    delivery.informer = (DefaultSharedIndexInformer<?>) informer;
    List<Boolean> lockHeldInHandler = new CopyOnWriteArrayList<>();
    ResourceEventHandler<Pod> probe =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            lockHeldInHandler.add(((DefaultSharedIndexInformer<?>) informer).holdsAnyLock());
          }
        };
    informer.addEventHandler(probe);
    informer.start();
    await().until(informer::hasSynced);
    source.add(pod("ns", "b"));
    await().until(() -> informer.getIndexer().listKeys().size() == 2);
    informer.addEventHandler(probe); // a late handler: seeded with the cache
    delivery.runAll();

    assertThat(delivery.lockHeldAtSubmit).isNotEmpty().containsOnly(false);
    assertThat(lockHeldInHandler).hasSize(4).containsOnly(false);
  }

  @Test
  void hasSynced_staysFalseUntilTheFirstListIsInTheCache() throws Exception {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    CountDownLatch indexing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.addIndexers(
        Map.of(
            "slow",
            p -> {
              indexing.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return List.of();
            }));
    informer.start();

    assertThat(indexing.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(informer.hasSynced()).as("the list is being applied").isFalse();
    assertThat(informer.getIndexer().listKeys()).isEmpty();
    release.countDown();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
  }

  @Test
  void bookmarks_moveTheStoresResourceVersion_inOrderWithTheObjects() {
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.start();
    await().until(() -> source.openWatchCount() == 1);

    source.add(pod("ns", "a"));
    source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark("99")));

    await().until(() -> "99".equals(informer.getIndexer().lastStoreSyncResourceVersion()));
    assertThat(informer.getIndexer().listKeys()).containsExactly("ns/a");
  }

  @Test
  void registrationSynced_completesOnceItsHandlerHasSeenTheInitialList() {
    source.add(pod("ns", "a"));
    ManualExecutor delivery = new ManualExecutor();
    SharedIndexInformer<Pod> informer = informer(delivery);
    ResourceEventHandlerRegistration early = informer.addEventHandler(new Recorder());
    informer.start();
    await().until(informer::hasSynced);

    assertThat(early.synced()).as("its initial add is not delivered yet").isNotDone();
    delivery.runAll();
    assertThat(early.synced()).isCompleted();
    assertThat(early.hasSynced()).isTrue();

    ResourceEventHandlerRegistration late = informer.addEventHandler(new Recorder());
    assertThat(late.synced()).isNotDone();
    delivery.runAll();
    assertThat(late.synced()).isCompleted();
  }

  @Test
  void registrationSynced_ofAHandlerAddedToAnEmptySyncedCache_completesAtOnce() {
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.start();
    await().until(informer::hasSynced);
    assertThat(informer.addEventHandler(new Recorder()).synced()).isCompleted();
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
  void addEventHandler_toAClosedInformer_isRefusedWithClientGosMessage() {
    SharedIndexInformer<Pod> informer = informer(Runnable::run);
    informer.close();
    org.assertj.core.api.Assertions.assertThatIllegalStateException()
        .isThrownBy(() -> informer.addEventHandler(new Recorder()))
        .withMessageContaining("was not added to shared informer pods because it has stopped already");
  }
}

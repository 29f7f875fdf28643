package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedIndexInformerTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();

  private SharedIndexInformer.Builder<Pod> builder() {
    return SharedIndexInformer.builder("pods", source)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(3));
  }

  private SharedIndexInformer<Pod> informer(SharedIndexInformer.Builder<Pod> b) {
    SharedIndexInformer<Pod> i = b.build();
    informers.add(i);
    return i;
  }

  /** Run after the informers are closed (executors the test made). */
  private final List<Runnable> cleanups = new ArrayList<>();

  @AfterEach
  void closeAll() {
    informers.forEach(SharedIndexInformer::close);
    cleanups.forEach(Runnable::run);
  }

  /** Records calls as lines; rv = resourceVersion. */
  static class Recorder implements ResourceEventHandler<Pod> {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      calls.add("add " + key(obj) + "@" + rv(obj) + (isInInitialList ? " initial" : ""));
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      calls.add("update " + key(newObj) + "@" + rv(oldObj) + "->" + rv(newObj));
    }

    @Override
    public void onDelete(Pod obj, boolean finalStateUnknown) {
      calls.add("delete " + key(obj) + "@" + rv(obj) + (finalStateUnknown ? " unknown" : ""));
    }

    static String key(Pod p) {
      return Keys.metaNamespaceKey(p);
    }

    static String rv(Pod p) {
      return p.getMetadata().getResourceVersion();
    }
  }

  private void awaitWatching(int watches) {
    await().until(() -> source.watchCalls().size() >= watches && source.openWatchCount() == 1);
  }

  /** Waits until a handler's pause after a failure is scheduled, then moves time past it. */
  private void advancePastHandlerPause() {
    await()
        .until(
            () ->
                clock
                    .nextDelay()
                    .filter(d -> d.compareTo(ProcessorListener.PAUSE_AFTER_FAILURE) <= 0)
                    .isPresent());
    clock.advance(ProcessorListener.PAUSE_AFTER_FAILURE);
  }

  private void advanceToRetry() {
    advanceToRetry(0);
  }

  /**
   * Waits until the reflector has scheduled its retry on top of {@code otherTasks} tasks that are
   * always pending (a resync tick), then moves time to the earliest one, which must be the retry.
   */
  private void advanceToRetry(int otherTasks) {
    await().until(() -> clock.pendingTaskCount() > otherTasks);
    clock.advance(clock.nextDelay().orElseThrow());
  }

  @Test
  void start_deliversInitialListAsInitialAddsAndSyncs() throws Exception {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder r = new Recorder();
    ResourceEventHandlerRegistration reg = informer.addEventHandler(r);
    informer.start();

    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();
    await().until(reg::hasSynced);
    assertThat(r.calls).containsExactlyInAnyOrder("add ns/a@2 initial", "add ns/b@3 initial");
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
    assertThat(informer.lastSyncResourceVersion()).isEqualTo("3");
  }

  @Test
  void cacheViews_offerReadsOnly_andNoCastReachesTheWrites() throws Exception {
    source.add(pod("ns", "a", Map.of("app", "web")));
    SharedIndexInformer<Pod> informer = informer(builder());
    informer.start();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();

    ReadOnlyStore<Pod> store = informer.getStore();
    ReadOnlyIndexer<Pod> indexer = informer.getIndexer();
    assertThat(store.listKeys()).containsExactly("ns/a");
    assertThat(indexer.indexKeys(Indexers.NAMESPACE, "ns")).containsExactly("ns/a");
    assertThat(indexer.getIndexers()).containsKey(Indexers.NAMESPACE);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo(source.resourceVersion());
    assertThat(store).isNotInstanceOf(Store.class).isNotInstanceOf(TransactionStore.class);
    assertThat(indexer).isNotInstanceOf(Indexer.class).isNotInstanceOf(Store.class);
    assertThat(informer.lister().list()).extracting(Keys::metaNamespaceKey).containsExactly("ns/a");
  }

  @Test
  void watchEvents_reachHandlersInOrderAfterTheCacheIsUpdated() {
    SharedIndexInformer<Pod> informer = informer(builder());
    List<String> seenInCache = new CopyOnWriteArrayList<>();
    Recorder r =
        new Recorder() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            super.onAdd(obj, initial);
            // The cache is updated before the handler is told.
            seenInCache.add(
                informer.getIndexer().getByKey(key(obj)).isPresent() ? "cached" : "missing");
          }
        };
    informer.addEventHandler(r);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a"));
    await().until(() -> r.calls.size() == 1);
    source.modify(pod("ns", "a"));
    source.delete(pod("ns", "a"));

    await().until(() -> r.calls.size() == 3);
    assertThat(r.calls).containsExactly("add ns/a@2", "update ns/a@2->3", "delete ns/a@4");
    assertThat(seenInCache).containsExactly("cached");
    assertThat(informer.getIndexer().list()).isEmpty();
  }

  @Test
  void lateHandler_getsTheCacheAsInitialAddsThenLiveChangesWithoutDuplicates() {
    for (int i = 0; i < 50; i++) {
      source.add(pod("ns", "p" + i));
    }
    SharedIndexInformer<Pod> informer = informer(builder());
    informer.start();
    await().until(informer::hasSynced);

    // Keep writing while the late handler joins.
    Thread writer =
        new Thread(
            () -> {
              for (int i = 0; i < 50; i++) {
                source.modify(pod("ns", "p" + i));
              }
            });
    writer.start();
    Recorder late = new Recorder();
    ResourceEventHandlerRegistration reg = informer.addEventHandler(late);
    await().until(() -> !writer.isAlive());
    await().until(reg::hasSynced);
    // The reflector's resourceVersion runs ahead of processing and delivery: wait for the cache
    // to hold the source's final state, then for the handler to have heard all of it.
    Map<String, String> finalState = new java.util.TreeMap<>();
    source.objects().values()
        .forEach(p -> finalState.put(Keys.metaNamespaceKey(p), p.getMetadata().getResourceVersion()));
    await().until(() -> cacheView(informer).equals(finalState));
    await().until(() -> replay(late.calls).equals(finalState));

    // Replaying the handler's calls gives exactly the cache, each object seen added once.
    int adds = 0;
    Set<String> seen = new java.util.HashSet<>();
    for (String c : late.calls) {
      String key = c.split(" ")[1].substring(0, c.split(" ")[1].indexOf('@'));
      if (c.startsWith("add")) {
        assertThat(seen.add(key)).as("added once: " + key).isTrue();
        assertThat(c).endsWith("initial");
        adds++;
      } else {
        assertThat(seen).as("an update after the add: " + c).contains(key);
      }
    }
    assertThat(adds).isEqualTo(50);
    assertThat(reg.pendingNotifications()).isZero();
  }

  /** Key to resourceVersion, as the handler's calls tell it (add, update and delete lines). */
  private static Map<String, String> replay(List<String> calls) {
    Map<String, String> view = new java.util.TreeMap<>();
    for (String c : List.copyOf(calls)) {
      String target = c.split(" ")[1];
      String key = target.substring(0, target.indexOf('@'));
      view.put(key, target.substring(target.lastIndexOf(c.startsWith("update") ? '>' : '@') + 1));
    }
    return view;
  }

  private static Map<String, String> cacheView(SharedIndexInformer<Pod> informer) {
    Map<String, String> cache = new java.util.TreeMap<>();
    informer.getIndexer().list()
        .forEach(p -> cache.put(Keys.metaNamespaceKey(p), p.getMetadata().getResourceVersion()));
    return cache;
  }

  @Test
  void slowHandler_doesNotDelayAFastOne_whileAWorkerIsFree() throws Exception {
    // Two workers: the slow handler holds one. (With the default one worker on two processors,
    // the fast handler would wait for the pool's stall compensation: DeliveryPoolTest.)
    java.util.concurrent.ExecutorService twoWorkers =
        Informers.newDeliveryExecutor("test-delivery-", 2);
    cleanups.add(twoWorkers::shutdownNow);
    SharedIndexInformer<Pod> informer = informer(builder().deliveryExecutor(twoWorkers));
    CountDownLatch release = new CountDownLatch(1);
    Recorder slow =
        new Recorder() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            super.onAdd(obj, initial);
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    Recorder fast = new Recorder();
    ResourceEventHandlerRegistration slowReg = informer.addEventHandler(slow);
    informer.addEventHandler(fast);
    informer.start();
    awaitWatching(1);
    for (int i = 0; i < 20; i++) {
      source.add(pod("ns", "p" + i));
    }
    await().until(() -> fast.calls.size() == 20);
    assertThat(slow.calls).hasSize(1);
    assertThat(slowReg.pendingNotifications()).isEqualTo(19);
    release.countDown();
    await().until(() -> slow.calls.size() == 20);
    assertThat(slow.calls).isEqualTo(fast.calls);
  }

  @Test
  void throwingHandler_doesNotStopItselfOrOthers() {
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder thrower =
        new Recorder() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            super.onAdd(obj, initial);
            if (obj.getMetadata().getName().equals("bad")) {
              throw new IllegalStateException("handler bug");
            }
          }
        };
    Recorder other = new Recorder();
    informer.addEventHandler(thrower);
    informer.addEventHandler(other);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "bad"));
    source.add(pod("ns", "good"));
    await().until(() -> thrower.calls.size() == 1 && other.calls.size() == 2);
    advancePastHandlerPause(); // client-go: a handler that failed goes on a second later
    await().until(() -> thrower.calls.size() == 2);
    assertThat(thrower.calls).containsExactly("add ns/bad@2", "add ns/good@3");
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/bad", "ns/good");
  }

  @Test
  void handlerThrowingAnError_getsEveryQueuedNotification_andItsRegistrationSyncs()
      throws Exception {
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    SharedIndexInformer<Pod> informer = informer(builder());
    CountDownLatch firstCall = new CountDownLatch(1);
    CountDownLatch othersQueued = new CountDownLatch(1);
    Recorder thrower =
        new Recorder() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            super.onAdd(obj, initial);
            if (obj.getMetadata().getName().equals("p0")) {
              firstCall.countDown();
              try {
                othersQueued.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              throw new AssertionError("an assertion in a test's handler");
            }
          }
        };
    ResourceEventHandlerRegistration reg = informer.addEventHandler(thrower);
    informer.start();
    assertThat(firstCall.await(10, TimeUnit.SECONDS)).isTrue();
    await().until(() -> reg.pendingNotifications() == 4);
    String logged =
        LogCapture.stderrOf(
            () -> {
              othersQueued.countDown();
              advancePastHandlerPause();
            });
    assertThat(logged).contains("an assertion in a test's handler");

    await().until(() -> thrower.calls.size() == 5 && reg.hasSynced());
    source.add(pod("ns", "later"));
    await().until(() -> thrower.calls.size() == 6);
  }

  @Test
  void indexFunctionThrowingAnError_skipsThatObject_andTheCacheKeepsUpdating() {
    SharedIndexInformer<Pod> informer = informer(builder());
    informer.addIndexers(
        Map.of(
            "byName",
            p -> {
              if (p.getMetadata().getName().equals("bad")) {
                throw new StackOverflowError("an index function's bug");
              }
              return List.of(p.getMetadata().getName());
            }));
    Recorder recorder = new Recorder();
    informer.addEventHandler(recorder);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "bad"));
    source.add(pod("ns", "good"));
    await().until(() -> recorder.calls.contains("add ns/good@3"));
    assertThat(informer.getIndexer().listKeys()).containsExactly("ns/good");
    assertThat(informer.getIndexer().byIndex("byName", "good")).hasSize(1);
    assertThat(recorder.calls).containsExactly("add ns/good@3");
  }

  @Test
  void resync_notifiesOnlyHandlersWhosePeriodElapsed_withOldEqualToNew() {
    source.add(pod("ns", "a"));
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder every10 = new Recorder();
    Recorder every30 = new Recorder();
    Recorder never = new Recorder();
    List<Boolean> sameObject = new CopyOnWriteArrayList<>();
    informer.addEventHandler(every10, Duration.ofSeconds(10));
    informer.addEventHandler(every30, Duration.ofSeconds(30));
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            sameObject.add(oldObj == newObj);
          }
        },
        Duration.ofSeconds(10));
    informer.addEventHandler(never, Duration.ZERO);
    informer.start();
    await().until(informer::hasSynced);
    awaitWatching(1);

    clock.advance(Duration.ofSeconds(10));
    await().until(() -> every10.calls.size() == 2);
    clock.advance(Duration.ofSeconds(10));
    await().until(() -> every10.calls.size() == 3);
    clock.advance(Duration.ofSeconds(10));
    await().until(() -> every10.calls.size() == 4 && every30.calls.size() == 2);

    assertThat(every10.calls)
        .containsExactly(
            "add ns/a@2 initial", "update ns/a@2->2", "update ns/a@2->2", "update ns/a@2->2");
    assertThat(every30.calls).containsExactly("add ns/a@2 initial", "update ns/a@2->2");
    assertThat(never.calls).containsExactly("add ns/a@2 initial");
    assertThat(sameObject).isNotEmpty().containsOnly(true);
  }

  @Test
  void relistAfterExpiry_deliversMissedChangesAndDeletedFinalStateUnknown() {
    source.add(pod("ns", "same"));
    source.add(pod("ns", "changed"));
    source.add(pod("ns", "gone"));
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder plain = new Recorder();
    Recorder resyncing = new Recorder();
    List<Boolean> cacheHadItAtDelete = new CopyOnWriteArrayList<>();
    informer.addEventHandler(plain);
    informer.addEventHandler(resyncing, Duration.ofHours(1));
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            cacheHadItAtDelete.add(informer.getIndexer().getByKey("ns/gone").isPresent());
          }
        });
    informer.start();
    awaitWatching(1);
    await().until(() -> plain.calls.size() == 3);

    source.breakWatches(TestPods.connectionReset());
    source.modify(pod("ns", "changed"));
    source.delete(pod("ns", "gone"));
    source.compact();
    // The clock stands still, so the watch ended at once without events: a very short watch,
    // which ends the cycle (and its hourly resync timer); after the backoff the informer streams
    // the full state again.
    await().until(() -> clock.nextDelay().filter(d -> d.compareTo(Duration.ofMinutes(1)) < 0)
        .isPresent());
    clock.advance(clock.nextDelay().orElseThrow());

    // The unchanged object comes as an update with the same resourceVersion, marked as a resync.
    // As in client-go, every handler counts as due for resyncs until the informer's first resync
    // check (here an hour away), and one that never resyncs stays due: both get it.
    // As client-go 1.36's atomic relist: the cache is replaced first, then the deletions are
    // delivered, then the listed objects in list order.
    await().until(() -> plain.calls.size() == 6 && resyncing.calls.size() == 6);
    assertThat(plain.calls.subList(3, 6))
        .containsExactly(
            "delete ns/gone@4 unknown", "update ns/changed@3->5", "update ns/same@2->2");
    assertThat(cacheHadItAtDelete).containsExactly(false);
    assertThat(resyncing.calls.subList(3, 6)).containsExactlyInAnyOrderElementsOf(
        plain.calls.subList(3, 6));
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/same", "ns/changed");
  }

  @Test
  void transform_isAppliedBeforeCachingAndDelivery() {
    source.add(pod("ns", "a", Map.of("big", "value")));
    SharedIndexInformer<Pod> informer = informer(builder());
    informer.setTransform(
        p -> {
          p.getMetadata().setLabels(Map.of("slim", "yes"));
          return p;
        });
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            seen.add(obj.getMetadata().getLabels());
          }
        });
    informer.start();
    await().until(() -> seen.size() == 1);
    assertThat(seen.get(0)).containsExactly(Map.entry("slim", "yes"));
    assertThat(informer.getIndexer().getByKey("ns/a").orElseThrow().getMetadata().getLabels())
        .containsOnlyKeys("slim");
    assertThatIllegalStateException().isThrownBy(() -> informer.setTransform(p -> p));
  }

  @Test
  void removeEventHandler_stopsDelivery() {
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder removed = new Recorder();
    Recorder kept = new Recorder();
    ResourceEventHandlerRegistration reg = informer.addEventHandler(removed);
    informer.addEventHandler(kept);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a"));
    await().until(() -> removed.calls.size() == 1);
    informer.removeEventHandler(reg);
    assertThat(reg.isRemoved()).isTrue();
    source.add(pod("ns", "b"));
    await().until(() -> kept.calls.size() == 2);
    assertThat(removed.calls).hasSize(1);
  }

  @Test
  void close_stopsThreadsAndDeliveryAndRefusesNewHandlers() {
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder r = new Recorder();
    informer.addEventHandler(r);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a"));
    await().until(() -> r.calls.size() == 1);

    informer.close();
    source.add(pod("ns", "b"));
    assertThat(informer.isStopped()).isTrue();
    assertThat(source.openWatchCount()).isZero();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .noneMatch(
            n ->
                n.startsWith("kinformer-pods-reflector")
                    || n.startsWith("kinformer-pods-processor"));
    assertThat(r.calls).hasSize(1);
    assertThatIllegalStateException().isThrownBy(() -> informer.addEventHandler(new Recorder()));
    assertThatIllegalStateException().isThrownBy(informer::start);
    informer.close(); // idempotent
  }

  @Test
  void synced_failsWhenClosedBeforeSync() {
    source.failNextWatch(new ApiException(500, "down")); // the streaming list
    source.failNextList(new ApiException(500, "down")); // and the list it falls back to
    SharedIndexInformer<Pod> informer = informer(builder());
    informer.start();
    informer.close();
    assertThat(informer.synced()).isCompletedExceptionally();
    assertThat(Informers.waitForCacheSync(Duration.ofSeconds(1), informer)).isFalse();
  }

  @Test
  void waitForCacheSync_trueOnceAllSynced() {
    SharedIndexInformer<Pod> a = informer(builder());
    ResourceEventHandlerRegistration reg = a.addEventHandler(new Recorder());
    a.start();
    assertThat(Informers.waitForCacheSync(Duration.ofSeconds(10), a)).isTrue();
    assertThat(Informers.waitForCacheSync(Duration.ofSeconds(10), reg::hasSynced)).isTrue();
  }

  @Test
  void filteringHandler_translatesUpdatesAcrossTheFilter() {
    SharedIndexInformer<Pod> informer = informer(builder());
    Recorder r = new Recorder();
    informer.addEventHandler(
        ResourceEventHandlers.filtering(
            p ->
                p.getMetadata().getLabels() != null
                    && "web".equals(p.getMetadata().getLabels().get("app")),
            r));
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a", Map.of("app", "db")));
    source.modify(pod("ns", "a", Map.of("app", "web")));
    source.modify(pod("ns", "a", Map.of("app", "web", "v", "2")));
    source.modify(pod("ns", "a", Map.of("app", "db")));
    source.delete(pod("ns", "a", Map.of("app", "db")));
    await().until(() -> informer.lastSyncResourceVersion().equals("6"));
    await().until(() -> r.calls.size() == 3);
    assertThat(r.calls).containsExactly("add ns/a@3", "update ns/a@3->4", "delete ns/a@4");
  }

  @Test
  void customIndex_isMaintainedByTheInformer() {
    SharedIndexInformer<Pod> informer =
        informer(
            builder()
                .index(
                    "byApp",
                    p ->
                        p.getMetadata().getLabels() == null
                            ? List.of()
                            : List.of(p.getMetadata().getLabels().getOrDefault("app", ""))));
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a", Map.of("app", "web")));
    source.add(pod("ns", "b", Map.of("app", "web")));
    source.modify(pod("ns", "b", Map.of("app", "db")));
    // Not lastSyncResourceVersion: the reflector moves it on when it queues an event, before the
    // processing thread has applied that event to the indexer. Only the final state passes both.
    await().untilAsserted(() -> {
      assertThat(informer.getIndexer().byIndex("byApp", "web"))
          .extracting(p -> p.getMetadata().getName())
          .containsExactly("a");
      assertThat(new Lister<>(informer.getIndexer()).namespace("ns")
              .list(LabelSelector.parse("app=db")))
          .extracting(p -> p.getMetadata().getName())
          .containsExactly("b");
    });
  }
}

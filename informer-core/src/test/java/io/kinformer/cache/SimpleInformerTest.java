package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * client-go's {@code NewInformer} family and {@code cache.New}: one handler called from the
 * processing task, after the cache has the change.
 */
class SimpleInformerTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private <C extends AutoCloseable> C closing(C c) {
    closeables.add(c);
    return c;
  }

  @Test
  void newInformer_cachesAndCallsItsHandlerInOrder_afterTheCacheHasTheChange() {
    source.add(pod("ns", "a"));
    List<String> cacheAtCall = new CopyOnWriteArrayList<>();
    Recorder r = new Recorder();
    @SuppressWarnings("unchecked")
    SimpleInformer<Pod>[] self = new SimpleInformer[1];
    ResourceEventHandler<Pod> h =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            r.onAdd(obj, isInInitialList);
            cacheAtCall.add(rvInCache(obj));
          }

          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            r.onUpdate(oldObj, newObj);
            cacheAtCall.add(rvInCache(newObj));
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            r.onDelete(obj, finalStateUnknown);
            cacheAtCall.add(rvInCache(obj));
          }

          private String rvInCache(Pod p) {
            return self[0].store().getByKey(Keys.metaNamespaceKey(p))
                .map(c -> c.getMetadata().getResourceVersion())
                .orElse("gone");
          }
        };
    SimpleInformer<Pod> informer =
        closing(
            SimpleInformer.options(source, h)
                .name("pods")
                .clock(clock)
                .scheduler(clock)
                .executor(Runnable::run)
                .build());
    self[0] = informer;
    informer.start();
    await().until(informer::hasSynced);
    await().until(() -> source.openWatchCount() == 1);

    source.modify(pod("ns", "a"));
    source.add(pod("ns", "b"));
    source.delete(pod("ns", "a"));
    await().until(() -> r.calls.size() == 4);

    assertThat(r.calls)
        .containsExactly("add ns/a@2 initial", "update ns/a@2->3", "add ns/b@4", "delete ns/a@5");
    assertThat(cacheAtCall).containsExactly("2", "3", "4", "gone");
    assertThat(informer.store().listKeys()).containsExactly("ns/b");
    assertThat(informer.controller().lastSyncResourceVersion()).isEqualTo("5");
  }

  @Test
  void newIndexerInformer_maintainsItsIndices() {
    source.add(pod("ns", "a", Map.of("app", "web")));
    source.add(pod("other", "b", Map.of("app", "web")));
    SimpleInformer<Pod> informer =
        closing(
            SimpleInformer.newIndexerInformer(
                source, Duration.ZERO, new Recorder(), Map.of(Indexers.NAMESPACE, Indexers.namespaceIndexFunc())));
    informer.start();
    await().until(informer::hasSynced);
    assertThat(informer.indexer().indexKeys(Indexers.NAMESPACE, "other")).containsExactly("other/b");
    assertThat(informer.indexer()).isNotInstanceOf(Store.class);
    assertThat(informer.store()).isNotInstanceOf(Store.class);
  }

  @Test
  void throwingHandler_isLogged_andTheNextChangeIsHandled() throws Exception {
    Recorder r = new Recorder();
    ResourceEventHandler<Pod> h =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            r.onAdd(obj, isInInitialList);
            if (obj.getMetadata().getName().equals("bad")) {
              throw new IllegalStateException("handler bug");
            }
          }
        };
    SimpleInformer<Pod> informer =
        closing(SimpleInformer.options(source, h).executor(Runnable::run).build());
    String logs =
        LogCapture.stderrOf(
            () -> {
              informer.start();
              await().until(() -> source.openWatchCount() == 1);
              source.add(pod("ns", "bad"));
              source.add(pod("ns", "good"));
              await().until(() -> r.calls.size() == 2);
            });
    assertThat(logs).contains("handler bug").contains("ns/bad");
    assertThat(r.calls).containsExactly("add ns/bad@2", "add ns/good@3");
  }

  @Test
  void resync_redeliversTheCacheEveryPeriod_onTheProcessingTask() {
    source.add(pod("ns", "a"));
    Recorder r = new Recorder();
    SimpleInformer<Pod> informer =
        closing(
            SimpleInformer.options(source, r)
                .resyncPeriod(Duration.ofSeconds(30))
                .clock(clock)
                .scheduler(clock)
                .executor(Runnable::run)
                .build());
    informer.start();
    await().until(informer::hasSynced);

    clock.advance(Duration.ofSeconds(30));
    await().until(() -> r.calls.size() == 2);
    assertThat(r.calls).containsExactly("add ns/a@2 initial", "update ns/a@2->2");
  }

  @Test
  void controller_closedFromInsideItsProcessFunction_returns() {
    source.add(pod("ns", "a"));
    RealFifo<Pod> queue = RealFifo.<Pod>builder(Keys::metaNamespaceKey).build();
    List<DeltaType> seen = new CopyOnWriteArrayList<>();
    Controller[] self = new Controller[1];
    Controller c =
        closing(
            Controller.create(
                Controller.Config.builder(
                        "pods",
                        queue,
                        source,
                        (d, initial) -> {
                          seen.add(d.type());
                          self[0].close();
                        })
                    .clock(clock)
                    .scheduler(clock)
                    .build()));
    self[0] = c;
    c.start();
    await().until(() -> !seen.isEmpty() && queue.isClosed());
    assertThat(seen).containsExactly(DeltaType.REPLACED_ALL);
  }

  @Test
  void withHandRunExecutors_theInformerRunsOnTheTestThreadAlone() {
    source.add(pod("ns", "a"));
    List<Runnable> parkedLoops = new java.util.ArrayList<>();
    java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
    Recorder r = new Recorder();
    SimpleInformer<Pod> informer =
        closing(
            SimpleInformer.options(source, r)
                .name("stepped-simple")
                .clock(clock)
                .scheduler(clock)
                .executor(tasks::add)
                .reflectorExecutor(parkedLoops::add)
                .build());
    informer.start();
    assertThat(parkedLoops).as("the reflector's loop is handed over, not run").hasSize(1);
    Reflector<Pod> reflector = ((DefaultController<Pod>) informer.controller()).reflector();

    for (int i = 0; i < 4; i++) {
      reflector.step(); // the cycle starts, the stream opens, ADDED a, its end bookmark
    }
    assertThat(r.calls).as("queued, not processed").isEmpty();
    for (Runnable t = tasks.poll(); t != null; t = tasks.poll()) {
      t.run();
    }

    assertThat(r.calls).containsExactly("add ns/a@2 initial");
    assertThat(informer.controller().hasSynced()).isTrue();
  }
}

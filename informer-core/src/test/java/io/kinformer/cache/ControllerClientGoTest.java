package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * client-go v0.36's {@code tools/cache/controller_test.go}, case by case: each test names its Go
 * counterpart. client-go's {@code FakeControllerSource} is a {@link FakeListerWatcher}; its {@code
 * ResetWatch} after {@code ModifyDropWatch}/{@code AddDropWatch} is: end the watches, change the
 * source while none is open, then {@link FakeListerWatcher#compact()} (the re-watch is refused as
 * too old and the reflector relists, as after client-go's reset). client-go's {@code
 * processDeltas}/{@code processDeltasInBatch} with an {@code eventRecorder} are a {@link
 * DeltaProcessor} with {@link EventRecorder}; {@code cache.New} is {@link Controller#create}, run
 * by {@link SteppedController} on the test thread alone. The {@code NewInformer} cases run a
 * {@link SimpleInformer}, whose reflector has a thread of its own: {@link LockstepListerWatcher}
 * holds that thread in step with the test, and runs the handlers on the test thread.
 *
 * <p>Where kinformer differs on purpose:
 *
 * <ul>
 *   <li>{@code TestPanicPropagated}: a handler that throws is logged and the next change is
 *       handled (see {@link SimpleInformer}); client-go re-panics out of {@code Run}.
 *   <li>{@code TestProcessDeltasInBatch}: client-go's mock transaction store fails chosen objects;
 *       here an index function does (kinformer's batches go to its own indexer). The failures are
 *       logged per object instead of returned as {@code failed to execute (1/n) transactions},
 *       which client-go's process loop drops anyway.
 *   <li>{@code TestStoreResourceVersionWithNonMetaTransform}: a transform cannot turn a pod into
 *       a string here ({@code UnaryOperator<T>}); it returns a pod without metadata instead, which
 *       the store likewise cannot take a resourceVersion from.
 *   <li>{@code TestDeletionHandlingObjectToName}: kinformer has no {@code ObjectToName}; its
 *       equivalent is {@link Keys#split} of the key.
 * </ul>
 *
 * <p>{@code storeResourceVersionWithNonMetaTransform_streamingTwoObjects} adds the streaming-list
 * path to that case: the reflector keys a streamed object before transforming it, as client-go's
 * temporary store does.
 */
class ControllerClientGoTest {

  private final FakeClock clock = new FakeClock();
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

  // ---- client-go's eventRecorder ---------------------------------------------------------------

  /** client-go's {@code eventRecord}. */
  record EventRecord(
      String action, String key, String eventRv, String storeRv, boolean isInInitialList) {}

  /**
   * client-go's {@code eventRecorder}: each notification with the store's resourceVersion for its
   * key at that time (the store has the change by then).
   */
  static final class EventRecorder implements DeltaProcessor.Sink<Pod> {
    final List<EventRecord> history = new ArrayList<>();
    private final Store<Pod> store;
    private final KeyFunc<Pod> keyFunc;

    EventRecorder(Store<Pod> store, KeyFunc<Pod> keyFunc) {
      this.store = store;
      this.keyFunc = keyFunc;
    }

    @Override
    public void underLock(List<Notification<Pod>> notifications) {
      for (Notification<Pod> n : notifications) {
        Pod p = n.subject();
        String action =
            n instanceof Notification.Add<?> ? "add"
                : n instanceof Notification.Update<?> ? "update" : "delete";
        String key = keyFunc.key(p);
        String storeRv = store.getByKey(key).map(ControllerClientGoTest::rvOf).orElse("");
        boolean initial = n instanceof Notification.Add<Pod> a && a.isInInitialList();
        history.add(new EventRecord(action, key, rvOf(p), storeRv, initial));
      }
    }

    @Override
    public void afterUnlock() {}
  }

  private static String rvOf(HasMetadata o) {
    if (o.getMetadata() == null || o.getMetadata().getResourceVersion() == null) {
      return "";
    }
    return o.getMetadata().getResourceVersion();
  }

  /** client-go's {@code sortDeleteEventsByKey}: deletions of a relist come in no fixed order. */
  private static List<EventRecord> sortDeleteEventsByKey(List<EventRecord> events) {
    List<EventRecord> out = new ArrayList<>(events);
    int i = 0;
    while (i < out.size()) {
      int j = i;
      while (j < out.size() && out.get(j).action().equals("delete")) {
        j++;
      }
      out.subList(i, j).sort(Comparator.comparing(EventRecord::key));
      i = j == i ? i + 1 : j;
    }
    return out;
  }

  /** A controller over {@code fifo} whose process functions are a DeltaProcessor into store. */
  private SteppedController<Pod> deltaController(
      RealFifo<Pod> fifo,
      FakeListerWatcher<Pod> source,
      ThreadSafeIndexer<Pod> store,
      EventRecorder recorder) {
    DeltaProcessor<Pod> processor = new DeltaProcessor<>("pods", store, null, recorder);
    return closing(
        new SteppedController<>(
            "pods", fifo, source, clock, processor::process,
            b -> b.processBatch(processor::processBatch)));
  }

  private static RealFifo<Pod> fifo(boolean atomic, Store<Pod> store) {
    RealFifo.Builder<Pod> b = RealFifo.builder(Keys::metaNamespaceKey);
    return atomic ? b.build() : b.knownObjects(store).build();
  }

  private static ThreadSafeIndexer<Pod> store() {
    return new ThreadSafeIndexer<>(Keys::metaNamespaceKey, Map.of());
  }

  // ---- cache.New -----------------------------------------------------------------------------

  /**
   * {@code Example}: a controller over a FIFO that knows the downstream store, whose process
   * function deletes from the source everything that comes in and reports the deletions.
   */
  @Test
  void example() {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    Store<Pod> downstream = Indexers.newStore(Keys::metaNamespaceKey);
    RealFifo<Pod> fifo = RealFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(downstream).build();
    Set<String> deletions = new TreeSet<>();
    SteppedController<Pod> c =
        closing(
            new SteppedController<>(
                "pods",
                fifo,
                source,
                clock,
                (d, isInInitialList) -> {
                  Pod obj = d.unwrap();
                  if (d.type() != DeltaType.DELETED) {
                    downstream.add(obj);
                    source.delete(pod(null, obj.getMetadata().getName()));
                  } else {
                    downstream.delete(obj);
                    deletions.add(fifo.keyOf(d.object()));
                  }
                },
                b -> b.resync(Duration.ofMillis(100), () -> true)));
    c.start().settle();

    for (String name : List.of("a-hello", "b-controller", "c-framework")) {
      source.add(pod(null, name));
    }
    c.settle();

    assertThat(deletions).containsExactly("a-hello", "b-controller", "c-framework");
    assertThat(downstream.list()).isEmpty();
    assertThat(source.objects()).isEmpty();
  }

  record ReplaceCase(
      String name, List<Pod> initialObjs, List<Pod> replacedItems, String rv, List<EventRecord> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Pod rvPod(String name, String rv) {
    return pod("default", name, rv);
  }

  private static Pod rvPod(String name, String rv, String ver) {
    Pod p = rvPod(name, rv);
    p.getMetadata().setLabels(Map.of("ver", ver));
    return p;
  }

  private static List<ReplaceCase> replaceCases() {
    return List.of(
        new ReplaceCase(
            "Create with no initial objects",
            List.of(),
            List.of(rvPod("pod-1", "1")),
            "1",
            List.of(new EventRecord("add", "default/pod-1", "1", "1", false))),
        new ReplaceCase(
            "Delete all objects",
            List.of(rvPod("pod-1", "1"), rvPod("pod-3", "2")),
            List.of(),
            "2",
            List.of(
                new EventRecord("delete", "default/pod-1", "1", "", false),
                new EventRecord("delete", "default/pod-3", "2", "", false))),
        new ReplaceCase(
            "Create, update, delete",
            List.of(rvPod("pod-1", "1"), rvPod("pod-2", "2", "1"), rvPod("pod-3", "3")),
            List.of(rvPod("pod-1", "4"), rvPod("pod-2", "5", "2"), rvPod("pod-4", "6")),
            "6",
            List.of(
                new EventRecord("delete", "default/pod-3", "3", "", false),
                new EventRecord("update", "default/pod-1", "4", "4", false),
                new EventRecord("update", "default/pod-2", "5", "5", false),
                new EventRecord("add", "default/pod-4", "6", "6", false))));
  }

  /**
   * {@code TestReplaceEvents}: a relist given to the FIFO gives the same events and store, with
   * atomic events and without: deletions first (with the store already without them), then updates
   * and adds in list order.
   */
  @ParameterizedTest(name = "atomic {0}")
  @ValueSource(booleans = {false, true})
  void replaceEvents(boolean atomic) {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    ThreadSafeIndexer<Pod> store = store();
    RealFifo<Pod> fifo = fifo(atomic, store);
    EventRecorder recorder = new EventRecorder(store, Keys::metaNamespaceKey);
    SteppedController<Pod> c = deltaController(fifo, source, store, recorder).start().settle();
    assertThat(c.controller.hasSynced()).isTrue();

    for (ReplaceCase tc : replaceCases()) {
      recorder.history.clear();
      tc.initialObjs().forEach(fifo::add);
      c.settle();
      assertThat(recorder.history).as("%s: setup events", tc.name()).hasSize(tc.initialObjs().size());
      recorder.history.clear();

      fifo.replace(tc.replacedItems(), tc.rv());
      c.settle();

      List<Pod> items = new ArrayList<>(store.list());
      items.sort(Comparator.comparing(Keys::metaNamespaceKey));
      assertThat(items).as(tc.name()).isEqualTo(tc.replacedItems());
      assertThat(sortDeleteEventsByKey(recorder.history)).as(tc.name()).isEqualTo(tc.expected());
    }
  }

  /**
   * {@code TestResetWatch}: changes the watch never delivered come, after the reset, from the
   * relist: an update and an add, neither in the initial list.
   */
  @ParameterizedTest(name = "atomic {0}")
  @ValueSource(booleans = {false, true})
  void resetWatch(boolean atomic) {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    source.add(pod("default", "pod-1"));
    ThreadSafeIndexer<Pod> store = store();
    RealFifo<Pod> fifo = fifo(atomic, store);
    EventRecorder recorder = new EventRecorder(store, Keys::metaNamespaceKey);
    SteppedController<Pod> c = deltaController(fifo, source, store, recorder).start().settle();
    assertThat(c.controller.hasSynced()).isTrue();

    assertThat(recorder.history).hasSize(1);
    assertThat(recorder.history.get(0).action()).isEqualTo("add");
    assertThat(recorder.history.get(0).key()).isEqualTo("default/pod-1");
    assertThat(recorder.history.get(0).isInInitialList()).isTrue();

    recorder.history.clear();
    clock.advance(Duration.ofMinutes(1)); // the watch has been open a while
    source.endWatches(); // ModifyDropWatch, AddDropWatch, ResetWatch
    source.modify(pod("default", "pod-1"));
    source.add(pod("default", "pod-2"));
    source.compact();
    c.settleThroughBackoffs();

    assertThat(recorder.history)
        .extracting(EventRecord::action, EventRecord::key, EventRecord::isInInitialList)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("update", "default/pod-1", false),
            org.assertj.core.groups.Tuple.tuple("add", "default/pod-2", false));
  }

  /** {@code TestStoreResourceVersion}: the store's resourceVersion follows each event's. */
  @Test
  void storeResourceVersion() {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    source.add(pod("default", "pod-1"));
    ThreadSafeIndexer<Pod> store = store();
    EventRecorder recorder = new EventRecorder(store, Keys::metaNamespaceKey);
    SteppedController<Pod> c =
        deltaController(fifo(true, store), source, store, recorder).start().settle();
    assertThat(c.controller.hasSynced()).isTrue();
    assertThat(recorder.history).hasSize(1);
    assertThat(recorder.history.get(0))
        .extracting(EventRecord::action, EventRecord::key, EventRecord::isInInitialList)
        .containsExactly("add", "default/pod-1", true);

    recorder.history.clear();
    source.modify(pod("default", "pod-1", Map.of("foo", "bar")));
    c.settle();
    assertThat(recorder.history).hasSize(1);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo(recorder.history.get(0).eventRv());

    recorder.history.clear();
    source.delete(pod("default", "pod-1"));
    c.settle();
    assertThat(recorder.history).hasSize(1);
    assertThat(recorder.history.get(0).action()).isEqualTo("delete");
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo(recorder.history.get(0).eventRv());
  }

  /**
   * {@code TestStoreResourceVersionWithNonMetaTransform}: objects the transform left without
   * metadata do not move the store's resourceVersion; a relist still does.
   */
  @Test
  void storeResourceVersionWithNonMetaTransform() {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    source.add(pod("default", "pod-1"));
    KeyFunc<Pod> keyFunc = p -> "pod-1"; // does not rely on object metadata
    ThreadSafeIndexer<Pod> store = new ThreadSafeIndexer<>(keyFunc, Map.of());
    RealFifo<Pod> fifo =
        RealFifo.<Pod>builder(keyFunc)
            .transform(ControllerClientGoTest::withoutMetadata)
            .build();
    EventRecorder recorder = new EventRecorder(store, keyFunc);
    SteppedController<Pod> c = deltaController(fifo, source, store, recorder).start().settle();
    assertThat(c.controller.hasSynced()).isTrue();
    assertThat(recorder.history).hasSize(1);
    assertThat(recorder.history.get(0))
        .extracting(EventRecord::action, EventRecord::key, EventRecord::isInInitialList)
        .containsExactly("add", "pod-1", true);

    String replaceRv = store.lastStoreSyncResourceVersion();
    assertThat(replaceRv).isEqualTo(source.resourceVersion());
    recorder.history.clear();
    source.modify(pod("default", "pod-1", Map.of("foo", "bar")));
    c.settle();
    assertThat(recorder.history).hasSize(1);
    assertThat(store.lastStoreSyncResourceVersion()).as("unchanged by the transform")
        .isEqualTo(replaceRv);

    recorder.history.clear();
    clock.advance(Duration.ofMinutes(1)); // the watch has been open a while
    source.endWatches(); // ModifyDropWatch, then ResetWatch
    source.modify(pod("default", "pod-1", Map.of("foo", "bar2")));
    source.compact();
    c.settleThroughBackoffs();
    assertThat(recorder.history).hasSize(1);
    assertThat(store.lastStoreSyncResourceVersion()).as("the relist's")
        .isEqualTo(source.resourceVersion());
  }

  /**
   * {@code TestStoreResourceVersionWithNonMetaTransform} with two objects in the initial list. Not
   * client-go's case (its fake source refuses the streaming list, so its reflector lists), but the
   * same informer on a source that streams.
   */
  @Test
  void storeResourceVersionWithNonMetaTransform_streamingTwoObjects() {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    source.add(pod("default", "pod-1"));
    source.add(pod("default", "pod-2"));
    KeyFunc<Pod> keyFunc =
        p -> p.getMetadata() != null ? p.getMetadata().getName() : p.getSpec().getHostname();
    ThreadSafeIndexer<Pod> store = new ThreadSafeIndexer<>(keyFunc, Map.of());
    RealFifo<Pod> fifo =
        RealFifo.<Pod>builder(keyFunc)
            .transform(ControllerClientGoTest::withoutMetadata)
            .build();
    EventRecorder recorder = new EventRecorder(store, keyFunc);
    deltaController(fifo, source, store, recorder).start().settle();

    assertThat(store.listKeys()).containsExactlyInAnyOrder("pod-1", "pod-2");
  }

  /** The transform of the non-meta cases: the pod's name, in a pod without metadata. */
  private static Pod withoutMetadata(Pod p) {
    return new PodBuilder().withNewSpec().withHostname(p.getMetadata().getName()).endSpec().build();
  }

  record BatchCase(
      String name,
      List<String> deltas,
      Set<String> failing,
      int expectedSuccessCount,
      List<String> expectedReceived) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BatchCase> processDeltasInBatchCases() {
    return Stream.of(
        new BatchCase(
            "all transaction succeeding should works",
            List.of("testname1"), Set.of(), 1, List.of("testname1")),
        new BatchCase(
            "all transaction failing should not trigger listener",
            List.of("testname1"), Set.of("testname1"), 0, List.of()),
        new BatchCase(
            "partial transaction failing should only trigger successful events to listener #1",
            List.of("testname1", "testname2"), Set.of("testname2"), 1, List.of("testname1")),
        new BatchCase(
            "partial transaction failing should only trigger successful events to listener #2",
            List.of("testname1", "testname2", "testname3"), Set.of("testname2"), 2,
            List.of("testname1", "testname3")));
  }

  /**
   * {@code TestProcessDeltasInBatch}: in a batch, the writes that fail are skipped and the others
   * applied and delivered in order.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("processDeltasInBatchCases")
  void processDeltasInBatch(BatchCase tc) throws Exception {
    ThreadSafeIndexer<ConfigMap> store =
        new ThreadSafeIndexer<>(
            Keys::metaNamespaceKey,
            Map.of(
                "failing",
                cm -> {
                  if (tc.failing().contains(cm.getMetadata().getName())) {
                    throw new IllegalStateException("test error");
                  }
                  return List.of();
                }));
    List<String> received = new ArrayList<>();
    DeltaProcessor.Sink<ConfigMap> listener =
        new DeltaProcessor.Sink<>() {
          @Override
          public void underLock(List<Notification<ConfigMap>> notifications) {
            notifications.forEach(n -> received.add(n.subject().getMetadata().getName()));
          }

          @Override
          public void afterUnlock() {}
        };
    DeltaProcessor<ConfigMap> p = new DeltaProcessor<>("configmaps", store, null, listener);
    List<Delta<ConfigMap>> deltas =
        tc.deltas().stream()
            .map(n -> new Delta<ConfigMap>(DeltaType.ADDED,
                TestObjects.configMap("testnamespace", n, Map.of())))
            .toList();

    String logged =
        LogCapture.stderrOf(
            () -> {
              if (deltas.size() == 1) {
                p.process(deltas.get(0), true);
              } else {
                p.processBatch(deltas, true);
              }
            });

    assertThat(store.list()).hasSize(tc.expectedSuccessCount());
    assertThat(received).isEqualTo(tc.expectedReceived());
    for (String f : tc.failing()) {
      assertThat(logged).contains("testnamespace/" + f).contains("test error");
    }
    if (tc.failing().isEmpty()) {
      assertThat(logged).isEmpty();
    }
  }

  /**
   * {@code TestDeletionHandlingObjectToName}: a tombstone names the object it stands for
   * (client-go's {@code ObjectToName} is {@link Keys#split} of the key here).
   */
  @Test
  void deletionHandlingObjectToName() {
    ConfigMap cm = TestObjects.configMap("testnamespace", "testname", Map.of());
    String stringKey = Keys.metaNamespaceKey(cm);
    DeletedFinalStateUnknown<ConfigMap> deleted = new DeletedFinalStateUnknown<>(stringKey, cm);

    Keys.NamespacedName expected = Keys.split(Keys.metaNamespaceKey(cm));
    Keys.NamespacedName actual = Keys.split(Keys.deletionHandlingMetaNamespaceKey(deleted));

    assertThat(actual).isEqualTo(expected);
    assertThat(actual).isEqualTo(new Keys.NamespacedName("testnamespace", "testname"));
  }

  // ---- NewInformer -----------------------------------------------------------------------------

  private LockstepListerWatcher<Pod> lockstep(boolean streaming) {
    return new LockstepListerWatcher<>(TestPods.fakeSource(), streaming);
  }

  private SimpleInformer<Pod> simpleInformer(
      LockstepListerWatcher<Pod> lw,
      Duration resync,
      ResourceEventHandler<Pod> handler,
      UnaryOperator<SimpleInformer.Options.Builder<Pod>> options) {
    return closing(
        options
            .apply(
                SimpleInformer.options(lw, handler)
                    .name("pods")
                    .resyncPeriod(resync)
                    .clock(clock)
                    .scheduler(clock)
                    .executor(lw.tasks))
            .build());
  }

  /**
   * {@code ExampleNewInformer}: an informer whose handler deletes from the source everything added,
   * and reports the deletions.
   */
  @Test
  void exampleNewInformer() {
    LockstepListerWatcher<Pod> lw = lockstep(true);
    Set<String> deletions = new TreeSet<>();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            lw.fake.delete(pod(null, obj.getMetadata().getName()));
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            deletions.add(Keys.deletionHandlingMetaNamespaceKey(obj));
          }
        };
    SimpleInformer<Pod> informer =
        simpleInformer(lw, Duration.ofMillis(100), handler, UnaryOperator.identity());
    informer.start();
    lw.settle();

    for (String name : List.of("a-hello", "b-controller", "c-framework")) {
      lw.fake.add(pod(null, name));
    }
    lw.settle();

    assertThat(deletions).containsExactly("a-hello", "b-controller", "c-framework");
    assertThat(informer.store().list()).isEmpty();
  }

  /**
   * {@code TestHammerController}: three threads add, modify and delete at random (seeded) while
   * the informer runs and a fourth moves the clock through resyncs; real threads, with the
   * processing on the reflector's and the clock's threads. Once all are done and the reflector has
   * read everything, each key's events make a valid history ending in the source's state, and the
   * cache equals the source.
   */
  @Test
  void hammerController() throws Exception {
    LockstepListerWatcher<Pod> lw = lockstep(true);
    SharedIndexInformerTest.Recorder handler = new SharedIndexInformerTest.Recorder();
    SimpleInformer<Pod> informer =
        simpleInformer(lw, Duration.ofMillis(100), handler, b -> b.executor(Runnable::run));
    assertThat(informer.hasSynced()).as("before start").isFalse();
    informer.start();
    lw.settle();
    assertThat(informer.hasSynced()).as("after the initial sync").isTrue();

    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int thread = t;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(1000 + thread);
                List<String> current = new ArrayList<>();
                int created = 0;
                for (int i = 0; i < 100; i++) {
                  Pod p;
                  if (current.isEmpty() || random.nextInt(3) == 1) {
                    String name = "t" + thread + "-" + created++;
                    current.add(name);
                    p = pod("default", name, Map.of("n", Integer.toString(i)));
                    lw.fake.add(p);
                    continue;
                  }
                  String name = current.get(random.nextInt(current.size()));
                  p = pod("default", name, Map.of("n", Integer.toString(i)));
                  if (random.nextBoolean()) {
                    lw.fake.modify(p);
                  } else {
                    current.remove(name);
                    lw.fake.delete(p);
                  }
                }
              },
              "hammer-" + t));
    }
    threads.add(
        new Thread(
            () -> {
              for (int i = 0; i < 50; i++) {
                clock.advance(Duration.ofMillis(100));
              }
            },
            "hammer-clock"));
    for (Thread t : threads) {
      t.setDaemon(true);
      t.setUncaughtExceptionHandler((th, e) -> {
        synchronized (failures) {
          failures.add(e);
        }
      });
      t.start();
    }
    for (Thread t : threads) {
      t.join(Duration.ofSeconds(60).toMillis());
      assertThat(t.isAlive()).as("%s still running", t.getName()).isFalse();
    }
    lw.settle();

    assertThat(failures).isEmpty();
    Map<String, Pod> expected = lw.fake.objects();
    assertThat(informer.store().listKeys()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (Pod p : informer.store().list()) {
      assertThat(rvOf(p)).isEqualTo(rvOf(expected.get(Keys.metaNamespaceKey(p))));
    }
    // client-go's outputSet: the operations done on each key, in order.
    Map<String, List<String>> outputSet = new HashMap<>();
    for (String call : handler.calls) {
      String[] parts = call.split(" ");
      String key = parts[1].substring(0, parts[1].indexOf('@'));
      outputSet.computeIfAbsent(key, k -> new ArrayList<>()).add(parts[0]);
    }
    assertThat(outputSet).isNotEmpty();
    outputSet.forEach(
        (key, events) -> {
          boolean present = false;
          for (String e : events) {
            assertThat(present)
                .as("%s: %s while %s in %s", key, e, present ? "present" : "absent", events)
                .isEqualTo(!e.equals("add"));
            present = !e.equals("delete");
          }
          assertThat(present).as("%s: %s", key, events).isEqualTo(expected.containsKey(key));
        });
  }

  /**
   * {@code TestUpdate}: an update seen by the handler goes from the added state to the modified
   * one; the handler's delete of the final state then reaches it as a delete. The source cannot
   * stream, as client-go's {@code toListWatcherWithUnSupportedWatchListSemantics}.
   */
  @Test
  void update() {
    LockstepListerWatcher<Pod> lw = lockstep(false);
    Set<List<String>> allowed =
        Set.of(List.of("from", "to"), List.of("to", "to"), List.of("from", "from"));
    List<String> violations = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            String from = oldObj.getMetadata().getLabels().get("check");
            String to = newObj.getMetadata().getLabels().get("check");
            if (!allowed.contains(List.of(from, to))) {
              violations.add(from + " -> " + to + " for " + newObj.getMetadata().getName());
            }
            if ("true".equals(newObj.getMetadata().getLabels().get("final"))) {
              lw.fake.delete(checkPod(newObj.getMetadata().getName(), to, true));
            }
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            deleted.add(obj.getMetadata().getName());
          }
        };
    SimpleInformer<Pod> informer = simpleInformer(lw, Duration.ZERO, handler, UnaryOperator.identity());
    informer.start();
    lw.settle(); // the watch is open

    int threads = 3;
    for (int i = 0; i < threads; i++) {
      String name = "a-" + i + "-0";
      lw.fake.add(checkPod(name, "from", false));
      lw.fake.modify(checkPod(name, "to", true));
    }
    lw.settle();

    assertThat(violations).isEmpty();
    assertThat(deleted).containsExactlyInAnyOrder("a-0-0", "a-1-0", "a-2-0");
    assertThat(informer.store().list()).isEmpty();
    assertThat(lw.fake.listCalls()).as("the source cannot stream: a list").isNotEmpty();
  }

  private static Pod checkPod(String name, String check, boolean last) {
    Map<String, String> labels = new HashMap<>();
    labels.put("check", check);
    if (last) {
      labels.put("final", "true");
    }
    return pod(null, name, labels);
  }

  /**
   * {@code TestPanicPropagated}, with kinformer's behaviour (see the class doc): the handler's
   * exception is logged with its message and the pod's key, and the informer goes on.
   */
  @Test
  void panicPropagated() throws Exception {
    LockstepListerWatcher<Pod> lw = lockstep(true);
    List<String> calls = new ArrayList<>();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add(obj.getMetadata().getName());
            throw new IllegalStateException("Just panic.");
          }
        };
    SimpleInformer<Pod> informer =
        simpleInformer(lw, Duration.ofMillis(100), handler, UnaryOperator.identity());
    informer.start();
    lw.settle();

    String logged =
        LogCapture.stderrOf(
            () -> {
              lw.fake.add(pod(null, "test"));
              lw.settle();
              lw.fake.add(pod(null, "next"));
              lw.settle();
            });

    assertThat(logged).contains("Just panic.").contains("test").contains("next");
    assertThat(calls).containsExactly("test", "next");
    assertThat(informer.store().listKeys()).containsExactlyInAnyOrder("test", "next");
  }

  private static Pod makePod(String name, String generation) {
    Map<String, String> labels = new HashMap<>();
    labels.put("generation", generation);
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace("namespace").withLabels(labels).endMetadata()
        .withNewSpec().withHostname("hostname").withSubdomain("subdomain").endSpec()
        .build();
  }

  private static Pod expectedPod(String name, String generation) {
    Pod pod = makePod(name, generation);
    pod.getSpec().setHostname("new-hostname");
    pod.getSpec().setSubdomain("");
    pod.getSpec().setNodeName("nodename");
    pod.getMetadata().setResourceVersion("");
    return pod;
  }

  record Event(String type, @Nullable Pod previous, @Nullable Pod current) {}

  /**
   * {@code TestTransformingInformer}: the handler and the cache see only transformed objects, old
   * and new.
   */
  @Test
  void transformingInformer() {
    LockstepListerWatcher<Pod> lw = lockstep(true);
    lw.fake.add(makePod("pod1", "1"));
    lw.fake.modify(makePod("pod1", "2"));
    List<Event> events = new ArrayList<>();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            events.add(new Event("ADDED", null, obj));
          }

          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            events.add(new Event("MODIFIED", oldObj, newObj));
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            events.add(new Event("DELETED", obj, null));
          }
        };
    UnaryOperator<Pod> podTransformer =
        pod -> {
          pod.getSpec().setHostname("new-hostname");
          pod.getSpec().setSubdomain("");
          pod.getSpec().setNodeName("nodename");
          pod.getMetadata().setResourceVersion(""); // to simplify comparisons
          return pod;
        };
    SimpleInformer<Pod> informer =
        simpleInformer(lw, Duration.ZERO, handler, b -> b.transform(podTransformer));
    informer.start();
    lw.settle();

    assertThat(events).containsExactly(new Event("ADDED", null, expectedPod("pod1", "2")));
    assertThat(informer.store().list()).containsExactlyInAnyOrder(expectedPod("pod1", "2"));
    events.clear();

    lw.fake.add(makePod("pod2", "1"));
    lw.settle();
    assertThat(events).containsExactly(new Event("ADDED", null, expectedPod("pod2", "1")));
    assertThat(informer.store().list())
        .containsExactlyInAnyOrder(expectedPod("pod1", "2"), expectedPod("pod2", "1"));
    events.clear();

    lw.fake.add(makePod("pod3", "1"));
    lw.settle();
    assertThat(events).containsExactly(new Event("ADDED", null, expectedPod("pod3", "1")));
    events.clear();

    lw.fake.modify(makePod("pod2", "2"));
    lw.settle();
    assertThat(events)
        .containsExactly(new Event("MODIFIED", expectedPod("pod2", "1"), expectedPod("pod2", "2")));
    events.clear();

    lw.fake.delete(makePod("pod1", "2"));
    lw.settle();
    assertThat(events).containsExactly(new Event("DELETED", expectedPod("pod1", "2"), null));
    assertThat(informer.store().list())
        .containsExactlyInAnyOrder(expectedPod("pod2", "2"), expectedPod("pod3", "1"));
  }

  /**
   * {@code TestTransformingInformerRace}: through many resyncs no object is transformed twice and
   * the cache only ever holds transformed objects. client-go reads the store from goroutines for a
   * second to catch races; here the cache is read after every resync, on the test thread.
   */
  @Test
  void transformingInformerRace() {
    LockstepListerWatcher<Pod> lw = lockstep(true);
    String label = "to-be-transformed";
    int numObjs = 5;
    for (int i = 0; i < numObjs; i++) {
      Map<String, String> labels = new HashMap<>();
      labels.put(label, "true");
      lw.fake.add(
          new PodBuilder()
              .withNewMetadata().withName("pod-" + i).withNamespace("namespace").withLabels(labels)
              .endMetadata()
              .withNewSpec().withHostname("hostname").endSpec()
              .build());
    }
    AtomicBoolean badTransform = new AtomicBoolean();
    UnaryOperator<Pod> podTransformer =
        pod -> {
          if (!"true".equals(pod.getMetadata().getLabels().get(label))) {
            badTransform.set(true);
            throw new IllegalStateException("object already transformed: " + pod);
          }
          pod.getMetadata().getLabels().put(label, "false");
          return pod;
        };
    SharedIndexInformerTest.Recorder handler = new SharedIndexInformerTest.Recorder();
    SimpleInformer<Pod> informer =
        simpleInformer(lw, Duration.ofMillis(5), handler, b -> b.transform(podTransformer));
    informer.start();
    lw.settle();
    assertThat(handler.calls).hasSize(numObjs);

    int resyncs = 200;
    for (int r = 0; r < resyncs; r++) {
      clock.advance(Duration.ofMillis(5));
      lw.settle();
      for (int i = 0; i < numObjs; i++) {
        String key = "namespace/pod-" + i;
        Pod pod = informer.store().getByKey(key).orElseThrow(() -> new AssertionError(key));
        assertThat(pod.getMetadata().getLabels()).containsEntry(label, "false");
      }
    }

    assertThat(badTransform).as("unexpected transformation happened").isFalse();
    assertThat(handler.calls).hasSize(numObjs * (1 + resyncs));
  }
}

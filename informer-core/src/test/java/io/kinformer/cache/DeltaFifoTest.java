package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.added;
import static io.kinformer.cache.DeltaFifoTestPods.deleted;
import static io.kinformer.cache.DeltaFifoTestPods.key;
import static io.kinformer.cache.DeltaFifoTestPods.known;
import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static io.kinformer.cache.DeltaFifoTestPods.popQueued;
import static io.kinformer.cache.DeltaFifoTestPods.replaced;
import static io.kinformer.cache.DeltaFifoTestPods.rv;
import static io.kinformer.cache.DeltaFifoTestPods.sync;
import static io.kinformer.cache.DeltaFifoTestPods.tombstone;
import static io.kinformer.cache.DeltaFifoTestPods.transforms;
import static io.kinformer.cache.DeltaFifoTestPods.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Adding, deleting, popping, closing, keying and transforming (delta_fifo_test.go). */
class DeltaFifoTest {

  private final List<DeltaFifo<Pod>> fifos = new ArrayList<>();

  private DeltaFifo<Pod> fifo(@Nullable Store<Pod> knownObjects) {
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(knownObjects).build();
    fifos.add(f);
    return f;
  }

  private DeltaFifo<Pod> fifo() {
    return fifo(null);
  }

  @AfterEach
  void invariantsHold() {
    fifos.forEach(DeltaFifo::checkInvariants);
  }

  @Test
  void pop_whenKeyGetsMoreDeltas_keepsItsFirstPlaceAndReturnsAllDeltas() throws Exception {
    // TestDeltaFIFO_detectLineJumpers
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.add(pod("bar", 1));
    f.add(pod("foo", 11));
    f.add(pod("foo", 13));
    f.add(pod("zab", 30));

    assertThat(popQueued(f))
        .containsExactly(added(pod("foo", 10)), added(pod("foo", 11)), added(pod("foo", 13)));

    f.add(pod("foo", 14)); // a popped key goes to the back
    assertThat(f.listKeys()).containsExactly(key("bar"), key("zab"), key("foo"));
    assertThat(popQueued(f)).containsExactly(added(pod("bar", 1)));
    assertThat(popQueued(f)).containsExactly(added(pod("zab", 30)));
    assertThat(popQueued(f)).containsExactly(added(pod("foo", 14)));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void addUpdateDelete_accumulateUnderOneKey_andPopRemovesIt() throws Exception {
    // TestDeltaFIFO_addUpdate
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.update(pod("foo", 12));
    f.delete(pod("foo", 15));

    assertThat(f.listKeys()).containsExactly(key("foo"));
    assertThat(f.list()).containsExactly(pod("foo", 15));
    assertThat(f.getByKey(key("foo"))).contains(pod("foo", 15));
    assertThat(f.get(pod("foo", 0))).contains(pod("foo", 15));
    assertThat(f.getDeltas(key("foo")))
        .contains(List.of(added(pod("foo", 10)), updated(pod("foo", 12)), deleted(pod("foo", 15))));

    assertThat(popQueued(f)).hasSize(3);
    assertThat(f.getDeltas(key("foo"))).isEmpty();
    assertThat(f.getByKey(key("foo"))).isEmpty();
    assertThat(f.size()).isZero();
  }

  /** A scripted sequence of writes and the deltas it must leave under key ns/foo. */
  record DedupCase(
      String name,
      List<Pod> knownObjects,
      Consumer<DeltaFifo<Pod>> ops,
      List<Delta<Pod>> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<DedupCase> dedupCases() {
    Pod v1 = pod("foo", 1);
    Pod v2 = pod("foo", 2);
    Pod v3 = pod("foo", 3);
    return Stream.of(
        new DedupCase(
            "two deletions collapse into the older",
            List.of(v1),
            f -> {
              f.delete(v2);
              f.delete(v3);
            },
            List.of(deleted(v2))),
        new DedupCase(
            "a deletion after a tombstone replaces it",
            List.of(v1),
            f -> {
              f.replace(List.of(), "10");
              f.delete(v2);
            },
            List.of(deleted(v2))),
        new DedupCase(
            "a tombstone after a deletion is dropped",
            List.of(),
            f -> {
              f.add(v1);
              f.delete(v2);
              f.replace(List.of(), "10");
            },
            List.of(added(v1), deleted(v2))),
        new DedupCase(
            "add, delete, add, delete are all kept",
            List.of(),
            f -> {
              f.add(v1);
              f.delete(v1);
              f.add(v2);
              f.delete(v2);
            },
            List.of(added(v1), deleted(v1), added(v2), deleted(v2))),
        new DedupCase(
            "identical updates are kept",
            List.of(),
            f -> {
              f.update(v1);
              f.update(v1);
            },
            List.of(updated(v1), updated(v1))),
        new DedupCase(
            "identical adds are kept",
            List.of(),
            f -> {
              f.add(v1);
              f.add(v1);
            },
            List.of(added(v1), added(v1))),
        new DedupCase(
            "an update after a deletion is kept",
            List.of(v1),
            f -> {
              f.delete(v1);
              f.update(v2);
            },
            List.of(deleted(v1), updated(v2))),
        new DedupCase(
            "a deletion, an update, a deletion are all kept",
            List.of(v1),
            f -> {
              f.delete(v1);
              f.update(v2);
              f.delete(v3);
            },
            List.of(deleted(v1), updated(v2), deleted(v3))),
        new DedupCase(
            "a sync then a deletion are kept",
            List.of(v1),
            f -> {
              f.resync();
              f.delete(v1);
            },
            List.of(sync(v1), deleted(v1))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dedupCases")
  void queue_mergesOnlyConsecutiveDeletions(DedupCase c) throws Exception {
    DeltaFifo<Pod> f = fifo(known(c.knownObjects().toArray(Pod[]::new)));
    c.ops().accept(f);
    assertThat(f.listKeys()).containsExactly(key("foo"));
    assertThat(popQueued(f)).containsExactlyElementsOf(c.expected());
  }

  @Test
  void delete_whenNeitherQueuedNorKnown_isIgnored() throws Exception {
    // TestDeltaFIFO_enqueueingNoLister
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.update(pod("bar", 15));
    f.add(pod("qux", 17));
    f.delete(pod("qux", 18));
    f.delete(pod("baz", 20)); // never seen

    assertThat(f.listKeys()).containsExactly(key("foo"), key("bar"), key("qux"));
    assertThat(popQueued(f)).containsExactly(added(pod("foo", 10)));
    assertThat(popQueued(f)).containsExactly(updated(pod("bar", 15)));
    assertThat(popQueued(f)).containsExactly(added(pod("qux", 17)), deleted(pod("qux", 18)));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void delete_whenOnlyInKnownObjects_isQueued() throws Exception {
    // TestDeltaFIFO_enqueueingWithLister
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5), pod("bar", 6), pod("baz", 7)));
    f.add(pod("foo", 10));
    f.update(pod("bar", 15));
    f.delete(pod("baz", 20));
    f.delete(pod("nope", 21)); // neither known nor queued

    assertThat(rv(popQueued(f).get(0).unwrap())).isEqualTo(10);
    assertThat(rv(popQueued(f).get(0).unwrap())).isEqualTo(15);
    assertThat(popQueued(f)).containsExactly(deleted(pod("baz", 20)));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void delete_whenQueuedButNotKnown_isQueued() {
    // TestDeltaFIFO_DeleteExistingNonPropagated
    DeltaFifo<Pod> f = fifo(known());
    f.add(pod("foo", 5));
    f.delete(pod("foo", 6));
    assertThat(f.getDeltas(key("foo")))
        .contains(List.of(added(pod("foo", 5)), deleted(pod("foo", 6))));
  }

  @Test
  void add_whenKeyFunctionThrows_throwsAndQueuesNothing() {
    DeltaFifo<Pod> f = DeltaFifo.<Pod>builder(DeltaFifoTest::namedOnlyKey).build();
    fifos.add(f);
    Pod nameless = new PodBuilder().withNewMetadata().withNamespace("ns").endMetadata().build();

    assertThatThrownBy(() -> f.add(nameless))
        .isInstanceOfSatisfying(
            KeyException.class,
            e -> {
              assertThat(e.obj()).isSameAs(nameless);
              assertThat(e.getCause())
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessage("no metadata.name");
            });
    assertThatThrownBy(() -> f.update(nameless)).isInstanceOf(KeyException.class);
    assertThatThrownBy(() -> f.delete(nameless)).isInstanceOf(KeyException.class);
    assertThatThrownBy(() -> f.get(nameless)).isInstanceOf(KeyException.class);
    assertThatThrownBy(() -> f.keyOf(nameless)).isInstanceOf(KeyException.class);
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.hasSynced()).isFalse();
  }

  @Test
  void add_whenObjectHasNoName_queuesItUnderClientGosKey() throws Exception {
    DeltaFifo<Pod> f = fifo();
    Pod nameless = new PodBuilder().withNewMetadata().withNamespace("ns").endMetadata().build();
    f.add(nameless);
    assertThat(f.listKeys()).containsExactly("ns/");
  }

  @Test
  void add_whenKeyFunctionReturnsNull_throwsKeyException() {
    DeltaFifo<Pod> f = DeltaFifo.<Pod>builder(p -> null).build();
    fifos.add(f);
    assertThatThrownBy(() -> f.add(pod("foo", 1)))
        .isInstanceOf(KeyException.class)
        .hasMessageEndingWith("the key function returned null");
    assertThat(f.isEmpty()).isTrue();
  }

  /** An object and the key DeltaFifo.keyOf must give it. */
  record KeyOfCase(String name, Object obj, String expectedKey) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<KeyOfCase> keyOfCases() {
    // TestDeltaFIFO_KeyOf, plus the tombstone with an object and a longer delta list
    return Stream.of(
        new KeyOfCase("an object", pod("a", 1), key("a")),
        new KeyOfCase(
            "a tombstone without object", new DeletedFinalStateUnknown<Pod>("B", null), "B"),
        new KeyOfCase(
            "a tombstone with object", new DeletedFinalStateUnknown<>("B2", pod("x", 1)), "B2"),
        new KeyOfCase("deltas of an object", List.of(added(pod("c", 1))), key("c")),
        new KeyOfCase(
            "deltas ending with a tombstone without object",
            List.of(
                added(pod("x", 1)),
                new Delta<Pod>(DeltaType.DELETED, new DeletedFinalStateUnknown<Pod>("D", null))),
            "D"),
        new KeyOfCase(
            "deltas: the newest decides", List.of(added(pod("e", 1)), updated(pod("f", 2))),
            key("f")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keyOfCases")
  void keyOf_understandsDeltasAndTombstones(KeyOfCase c) {
    assertThat(fifo().keyOf(c.obj())).isEqualTo(c.expectedKey());
  }

  @Test
  void keyOf_emptyDeltas_throwsZeroLengthKeyError() {
    List<Delta<Pod>> none = List.of();
    assertThatThrownBy(() -> fifo().keyOf(none))
        .isInstanceOfSatisfying(
            KeyException.class,
            e -> {
              assertThat(e.obj()).isSameAs(none);
              assertThat(e.getCause()).hasMessage("0 length Deltas object; can't get key");
            });
  }

  @Test
  void keyOf_whenNotAnObjectOfTheFifo_throwsKeyError() {
    DeltaFifo<Pod> f = fifo();
    assertThatThrownBy(() -> f.keyOf("ns/foo"))
        .isInstanceOf(KeyException.class)
        .hasCauseInstanceOf(ClassCastException.class);
    assertThatThrownBy(() -> f.keyOf(List.of("not a delta")))
        .isInstanceOf(KeyException.class)
        .hasMessageEndingWith("a list that is not of deltas has no key");
  }

  @Test
  void keyOf_withKeysKeyFunc_understandsExplicitKeys() {
    DeltaFifo<Object> f = DeltaFifo.builder(Keys.keyFunc()).build();
    assertThat(f.keyOf(new ExplicitKey("ns/x"))).isEqualTo("ns/x");
    assertThat(f.keyOf(List.of(new Delta<>(DeltaType.ADDED, new ExplicitKey("ns/y")))))
        .isEqualTo("ns/y");
  }

  /** A key function that refuses objects without a name. */
  static String namedOnlyKey(Pod p) {
    if (p.getMetadata().getName() == null) {
      throw new IllegalArgumentException("no metadata.name");
    }
    return Keys.metaNamespaceKey(p);
  }

  @Test
  void pop_whenInitialListDrained_reportsIsInInitialListOnlyForItsItems() throws Exception {
    DeltaFifo<Pod> f = fifo();
    List<Boolean> flags = new ArrayList<>();
    DeltaFifo.PopProcessor<Pod> record = (deltas, isInInitialList) -> flags.add(isInInitialList);

    f.replace(List.of(pod("a", 1), pod("b", 1)), "1");
    f.add(pod("c", 2)); // a watch event queued behind the initial list
    f.pop(record);
    f.pop(record);
    f.pop(record);
    f.add(pod("d", 3));
    f.pop(record);

    assertThat(flags).containsExactly(true, true, false, false);
  }

  @Test
  void pop_whenAddCameBeforeAnyReplace_isNotInInitialList() throws Exception {
    DeltaFifo<Pod> f = fifo();
    AtomicReference<Boolean> flag = new AtomicReference<>();
    f.add(pod("a", 1));
    f.pop((deltas, isInInitialList) -> flag.set(isInInitialList));
    assertThat(flag.get()).isFalse();
  }

  @Test
  void pop_whenProcessorThrows_propagatesAndDropsTheKey() throws Exception {
    // client-go 0.36 returns the process error and does not requeue (ErrRequeue is gone).
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.update(pod("foo", 11));
    f.add(pod("bar", 1));
    IllegalStateException boom = new IllegalStateException("boom");

    assertThatThrownBy(
            () ->
                f.pop(
                    (deltas, initial) -> {
                      throw boom;
                    }))
        .isSameAs(boom);

    assertThat(f.listKeys()).containsExactly(key("bar"));
    assertThat(f.getDeltas(key("foo"))).isEmpty();
    assertThat(popQueued(f)).containsExactly(added(pod("bar", 1)));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void pop_whenProcessorOfTheInitialListThrows_stillCountsTowardsSynced() throws Exception {
    DeltaFifo<Pod> f = fifo();
    f.replace(List.of(pod("foo", 1)), "1");

    assertThatThrownBy(
            () ->
                f.pop(
                    (deltas, initial) -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");

    assertThat(f.hasSynced()).isTrue();
    assertThat(f.synced()).isCompleted();
  }

  @Test
  void pop_whenProcessing_holdsTheLockSoWritersWait() throws Exception {
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    AtomicBoolean writerDoneDuringProcess = new AtomicBoolean(true);
    Thread writer = new Thread(() -> f.add(pod("bar", 1)), "kinformer-test-writer");

    f.pop(
        (deltas, initial) -> {
          writer.start();
          // The writer must be parked on the FIFO's lock while we process.
          await().until(() -> writer.getState() == Thread.State.WAITING);
          writerDoneDuringProcess.set(!f.listKeys().isEmpty());
        });
    writer.join();

    assertThat(writerDoneDuringProcess).isFalse();
    assertThat(f.listKeys()).containsExactly(key("bar"));
  }

  @Test
  void close_whenPopsAreBlocked_unblocksThemWithEmpty() throws Exception {
    // TestDeltaFIFO_PopShouldUnblockWhenClosed
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5)));
    int jobs = 3;
    Map<Integer, Optional<List<Delta<Pod>>>> results = new ConcurrentHashMap<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      int id = i;
      Thread t =
          new Thread(
              () -> {
                try {
                  results.put(id, f.pop((deltas, initial) -> {}));
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "kinformer-test-pop-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    await().until(() -> f.blockedPopCount() == jobs);

    f.close();

    await().until(() -> results.size() + failures.size() == jobs);
    assertThat(failures).isEmpty();
    assertThat(results.values()).allSatisfy(r -> assertThat(r).isEmpty());
    assertThat(f.isClosed()).isTrue();
    for (Thread t : threads) {
      t.join();
    }
  }

  @Test
  void pop_afterClose_drainsQueuedKeysThenReturnsEmpty() throws Exception {
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    f.close();
    f.close(); // idempotent

    assertThat(popQueued(f)).containsExactly(added(pod("foo", 1)));
    assertThat(f.pop((deltas, initial) -> {})).isEmpty();
  }

  @Test
  void pop_whenInterrupted_throwsAndPopsNothing() {
    DeltaFifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> f.pop((deltas, initial) -> {}))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(f.listKeys()).containsExactly(key("foo"));
  }

  @Test
  void pop_withConcurrentProducers_keepsEachProducersOrder() throws Exception {
    // TestDeltaFIFO_basic
    DeltaFifo<Pod> f = fifo();
    int amount = 500;
    Thread a = producer(f, "a", amount);
    Thread b = producer(f, "b", amount);
    a.start();
    b.start();

    Map<String, Integer> last = new ConcurrentHashMap<>(Map.of("a", 0, "b", 0));
    for (int i = 0; i < 2 * amount; i++) {
      Pod p = f.pop((deltas, initial) -> {}).orElseThrow().get(0).unwrap();
      String producer = p.getMetadata().getName().substring(0, 1);
      assertThat(rv(p)).isGreaterThan(last.get(producer));
      last.put(producer, rv(p));
    }
    a.join();
    b.join();
    assertThat(last).containsEntry("a", amount).containsEntry("b", amount);
    assertThat(f.isEmpty()).isTrue();
  }

  private static Thread producer(DeltaFifo<Pod> f, String prefix, int amount) {
    Thread t =
        new Thread(
            () -> {
              for (int i = 1; i <= amount; i++) {
                f.add(pod(prefix + i, i));
              }
            },
            "kinformer-test-producer-" + prefix);
    t.setDaemon(true);
    return t;
  }

  @Test
  void transform_appliesOnceToEachObject_andNeverToTombstonesOrSyncs() throws Exception {
    // TestDeltaFIFO_transformer
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .transform(DeltaFifoTestPods::countTransforms)
            .build();
    fifos.add(f);
    f.add(pod("foo", 10));
    f.add(pod("bar", 11));
    f.update(pod("foo", 12));
    f.delete(pod("foo", 15));
    f.replace(List.of(), "");
    f.add(pod("bar", 16));
    f.replace(List.of(), "");

    assertThat(f.listKeys()).containsExactly(key("foo"), key("bar"));
    List<Delta<Pod>> foo = popQueued(f);
    // ADDED, UPDATED, DELETED: the replace's tombstone collapsed into the real deletion.
    assertThat(foo)
        .extracting(Delta::type)
        .containsExactly(DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED);
    assertThat(foo).allSatisfy(d -> assertThat(transforms(d.unwrap())).isEqualTo(1));
    Delta<Pod> fooNewest = foo.get(2);
    assertThat(fooNewest.type()).isEqualTo(DeltaType.DELETED);
    assertThat(fooNewest.isFinalStateUnknown()).isFalse();
    assertThat(rv(fooNewest.unwrap())).isEqualTo(15);

    List<Delta<Pod>> bar = popQueued(f);
    // ADDED 11, tombstone(11) from the first replace, ADDED 16, tombstone(16) from the second.
    assertThat(bar)
        .extracting(Delta::type)
        .containsExactly(DeltaType.ADDED, DeltaType.DELETED, DeltaType.ADDED, DeltaType.DELETED);
    Delta<Pod> barNewest = bar.get(3);
    assertThat(barNewest.isFinalStateUnknown()).isTrue();
    assertThat(rv(barNewest.unwrap())).isEqualTo(16);
    assertThat(bar).allSatisfy(d -> assertThat(transforms(d.unwrap())).isEqualTo(1));
  }

  @ParameterizedTest(name = "emitDeltaTypeReplaced={0}")
  @ValueSource(booleans = {false, true})
  void transform_isAppliedToRelistedButNotToResyncedObjects(boolean emitReplaced)
      throws Exception {
    // client-go transforms what Replace queues, SYNC or REPLACED, but not what Resync queues.
    DeltaFifoTestStore<Pod> store = known();
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .knownObjects(store)
            .transform(DeltaFifoTestPods::countTransforms)
            .emitDeltaTypeReplaced(emitReplaced)
            .build();
    fifos.add(f);
    f.replace(List.of(pod("foo", 1)), "1");
    List<Delta<Pod>> listed = popQueued(f);
    assertThat(listed)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.type()).isEqualTo(emitReplaced ? DeltaType.REPLACED : DeltaType.SYNC);
              assertThat(transforms(d.unwrap())).isEqualTo(1);
            });
    store.add(listed.get(0).unwrap()); // what the informer would do

    f.resync();

    assertThat(popQueued(f))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.type()).isEqualTo(DeltaType.SYNC);
              assertThat(transforms(d.unwrap())).isEqualTo(1);
            });
  }

  @Test
  void replaceTransformed_queuesTheObjectsWithoutTransformingThemAgain() throws Exception {
    UnaryOperator<Pod> transform = DeltaFifoTestPods::countTransforms;
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .knownObjects(known(pod("gone", 1)))
            .transform(transform)
            .build();
    fifos.add(f);
    TransformingStore<Pod> store = f;
    assertThat(store.transformer()).isSameAs(transform);

    // What a reflector streaming the initial list does: transform as items arrive, hand over.
    Pod streamed = store.transformer().apply(pod("foo", 1));
    store.replaceTransformed(List.of(streamed), "1");

    assertThat(popQueued(f))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.type()).isEqualTo(DeltaType.SYNC);
              assertThat(d.unwrap()).isSameAs(streamed);
              assertThat(transforms(d.unwrap())).isEqualTo(1);
            });
    // Deletions are inferred as by replace, and the first call sets the sync count as replace.
    assertThat(f.hasSynced()).isFalse();
    assertThat(popQueued(f)).containsExactly(tombstone(pod("gone", 1)));
    assertThat(f.hasSynced()).isTrue();
  }

  @Test
  void transformer_withoutTransform_isNull() {
    assertThat(fifo().transformer()).isNull();
  }

  @Test
  void transform_whenItThrows_queuesNothing() {
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .transform(
                p -> {
                  if (p.getMetadata().getName().equals("bad")) {
                    throw new IllegalStateException("cannot transform");
                  }
                  return p;
                })
            .build();
    fifos.add(f);

    assertThatThrownBy(() -> f.replace(List.of(pod("good", 1), pod("bad", 1)), "1"))
        .hasMessage("cannot transform");
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.hasSynced()).isFalse();
  }

  @Test
  void builder_whenNameBlank_throws() {
    assertThatThrownBy(() -> DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).name(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\" \"");
  }

  @Test
  void toString_namesTheFifo() {
    assertThat(DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).name("pods").build())
        .hasToString("DeltaFifo[pods]");
  }

  @Test
  void replacedAndTombstoneHelpers_matchWhatTheFifoEmits() throws Exception {
    // Guards the expectations the other tests build with the helpers.
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .knownObjects(known(pod("gone", 1)))
            .emitDeltaTypeReplaced(true)
            .build();
    fifos.add(f);
    f.replace(List.of(pod("foo", 1)), "1");
    assertThat(popQueued(f)).containsExactly(replaced(pod("foo", 1)));
    assertThat(popQueued(f)).containsExactly(tombstone(pod("gone", 1)));
    assertThat(tombstone(pod("gone", 1)).object())
        .isEqualTo(new DeletedFinalStateUnknown<>("ns/gone", pod("gone", 1)));
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.added;
import static io.kinformer.cache.DeltaFifoTestPods.deleted;
import static io.kinformer.cache.DeltaFifoTestPods.key;
import static io.kinformer.cache.DeltaFifoTestPods.known;
import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static io.kinformer.cache.DeltaFifoTestPods.popQueued;
import static io.kinformer.cache.DeltaFifoTestPods.relistedAs;
import static io.kinformer.cache.DeltaFifoTestPods.replaced;
import static io.kinformer.cache.DeltaFifoTestPods.sync;
import static io.kinformer.cache.DeltaFifoTestPods.tombstone;
import static io.kinformer.cache.DeltaFifoTestPods.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replace (relist), resync and hasSynced (delta_fifo_test.go). The relist cases run twice, with
 * client-go's default ({@code SYNC} for listed objects) and with {@code emitDeltaTypeReplaced}.
 */
class DeltaFifoReplaceTest {

  private final List<DeltaFifo<Pod>> fifos = new ArrayList<>();

  private DeltaFifo<Pod> fifo(@Nullable Store<Pod> knownObjects) {
    return fifo(knownObjects, false);
  }

  private DeltaFifo<Pod> fifo(@Nullable Store<Pod> knownObjects, boolean emitReplaced) {
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .knownObjects(knownObjects)
            .emitDeltaTypeReplaced(emitReplaced)
            .build();
    fifos.add(f);
    return f;
  }

  /** Every case of {@code cases}, once per value of emitDeltaTypeReplaced. */
  private static <C> Stream<Arguments> inBothModes(Stream<C> cases) {
    return cases.flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
  }

  @AfterEach
  void invariantsHold() {
    fifos.forEach(DeltaFifo::checkInvariants);
  }

  private static List<List<Delta<Pod>>> popAll(DeltaFifo<Pod> f) throws InterruptedException {
    List<List<Delta<Pod>>> popped = new ArrayList<>();
    while (!f.isEmpty()) {
      popped.add(popQueued(f));
    }
    return popped;
  }

  /** Writes to a FIFO whose only key is ns/foo, and the deltas that key must then hold. */
  record QueueOnlyCase(String name, Consumer<DeltaFifo<Pod>> ops, List<Delta<Pod>> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<QueueOnlyCase> queueOnlyCases() {
    Pod obj = pod("foo", 2);
    Pod objV2 = pod("foo", 3);
    return Stream.of(
        new QueueOnlyCase(
            "an added object is deleted by the replace",
            f -> {
              f.add(obj);
              f.replace(List.of(), "0");
            },
            List.of(added(obj), tombstone(obj))),
        new QueueOnlyCase(
            "a replaced object gets a single deletion",
            f -> {
              f.add(obj);
              f.replace(List.of(obj), "0");
              f.replace(List.of(), "0");
            },
            List.of(added(obj), replaced(obj), tombstone(obj))),
        new QueueOnlyCase(
            "a deleted object gets no second deletion",
            f -> {
              f.add(obj);
              f.delete(obj);
              f.replace(List.of(), "0");
            },
            List.of(added(obj), deleted(obj))),
        new QueueOnlyCase(
            "an object listed twice gets a single deletion",
            f -> {
              f.add(obj);
              f.replace(List.of(obj), "0");
              f.replace(List.of(obj), "0");
              f.replace(List.of(), "0");
            },
            List.of(added(obj), replaced(obj), replaced(obj), tombstone(obj))),
        new QueueOnlyCase(
            "an added object gets a single deletion from several replaces",
            f -> {
              f.add(obj);
              f.replace(List.of(), "0");
              f.replace(List.of(), "1");
            },
            List.of(added(obj), tombstone(obj))),
        new QueueOnlyCase(
            "an added, deleted and re-added object is deleted with its newest state",
            f -> {
              f.add(obj);
              f.delete(obj);
              f.add(objV2);
              f.replace(List.of(), "0");
            },
            List.of(added(obj), deleted(obj), added(objV2), tombstone(objV2))));
  }

  static Stream<Arguments> queueOnlyCasesInBothModes() {
    return inBothModes(queueOnlyCases());
  }

  // TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue: objects queued by the watch and
  // not popped yet are not in knownObjects, yet a relist that lacks them must delete them.
  @ParameterizedTest(name = "{0}, emitDeltaTypeReplaced={1}")
  @MethodSource("queueOnlyCasesInBothModes")
  void replace_whenQueuedKeyMissingWithEmptyKnownObjects_emitsDeletion(
      QueueOnlyCase c, boolean emitReplaced) throws Exception {
    DeltaFifo<Pod> f = fifo(known(), emitReplaced);
    c.ops().accept(f);
    assertThat(popAll(f)).containsExactly(relistedAs(emitReplaced, c.expected()));
  }

  @ParameterizedTest(name = "{0}, emitDeltaTypeReplaced={1}")
  @MethodSource("queueOnlyCasesInBothModes")
  void replace_whenQueuedKeyMissingWithoutKnownObjects_emitsDeletion(
      QueueOnlyCase c, boolean emitReplaced) throws Exception {
    DeltaFifo<Pod> f = fifo(null, emitReplaced);
    c.ops().accept(f);
    assertThat(popAll(f)).containsExactly(relistedAs(emitReplaced, c.expected()));
  }

  /** Known objects, writes, and every key's deltas in pop order. */
  record ReplaceCase(
      String name,
      @Nullable List<Pod> knownObjects,
      Consumer<DeltaFifo<Pod>> ops,
      List<List<Delta<Pod>>> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ReplaceCase> replaceCases() {
    List<Pod> known = List.of(pod("foo", 5), pod("bar", 6), pod("baz", 7));
    return Stream.of(
        new ReplaceCase(
            "a queued deletion absorbs the tombstone; a known key gets one",
            known,
            f -> {
              f.delete(pod("baz", 10));
              f.replace(List.of(pod("foo", 5)), "0");
            },
            List.of(
                List.of(deleted(pod("baz", 10))),
                List.of(replaced(pod("foo", 5))),
                List.of(tombstone(pod("bar", 6))))),
        new ReplaceCase(
            "a queued add is deleted with the queued state",
            known,
            f -> {
              f.add(pod("baz", 10));
              f.replace(List.of(pod("foo", 5)), "0");
            },
            List.of(
                List.of(added(pod("baz", 10)), tombstone(pod("baz", 10))),
                List.of(replaced(pod("foo", 5))),
                List.of(tombstone(pod("bar", 6))))),
        new ReplaceCase(
            "a deleted and re-added object is deleted with the newest queued state",
            known,
            f -> {
              f.delete(pod("bar", 6));
              f.add(pod("bar", 100));
              f.replace(List.of(pod("foo", 5)), "0");
            },
            List.of(
                List.of(deleted(pod("bar", 6)), added(pod("bar", 100)), tombstone(pod("bar", 100))),
                List.of(replaced(pod("foo", 5))),
                List.of(tombstone(pod("baz", 7))))),
        new ReplaceCase(
            "a relisted, then vanished object is deleted with the relisted state, not the known",
            known,
            f -> {
              f.replace(List.of(pod("bar", 100), pod("foo", 5)), "0");
              f.replace(List.of(pod("foo", 5)), "0");
            },
            List.of(
                List.of(replaced(pod("bar", 100)), tombstone(pod("bar", 100))),
                List.of(replaced(pod("foo", 5)), replaced(pod("foo", 5))),
                List.of(tombstone(pod("baz", 7))))),
        new ReplaceCase(
            "without knownObjects only queued keys are deleted",
            null,
            f -> {
              f.add(pod("baz", 10));
              f.replace(List.of(pod("foo", 5)), "0");
            },
            List.of(
                List.of(added(pod("baz", 10)), tombstone(pod("baz", 10))),
                List.of(replaced(pod("foo", 5))))),
        new ReplaceCase(
            "an unchanged listed object gets the relist's delta type",
            List.of(pod("foo", 5)),
            f -> f.replace(List.of(pod("foo", 5)), "0"),
            List.of(List.of(replaced(pod("foo", 5))))),
        new ReplaceCase(
            "a queued add is relisted behind it and popped once",
            List.of(),
            f -> {
              // TestDeltaFIFO_addReplace
              f.add(pod("foo", 10));
              f.replace(List.of(pod("foo", 15)), "0");
            },
            List.of(List.of(added(pod("foo", 10)), replaced(pod("foo", 15))))),
        new ReplaceCase(
            "a relisted object after a queued deletion is queued behind it",
            List.of(pod("foo", 1)),
            f -> {
              // TestDeltaFIFO_replaceWithDeleteDeltaIn (kubernetes#83810)
              f.delete(pod("foo", 1));
              f.replace(List.of(pod("foo", 2)), "0");
            },
            List.of(List.of(deleted(pod("foo", 1)), replaced(pod("foo", 2))))),
        new ReplaceCase(
            "a known and queued key absent from the list gets one tombstone with the queued state",
            known,
            f -> {
              f.update(pod("foo", 8));
              f.replace(List.of(pod("bar", 6), pod("baz", 7)), "0");
            },
            List.of(
                List.of(updated(pod("foo", 8)), tombstone(pod("foo", 8))),
                List.of(replaced(pod("bar", 6))),
                List.of(replaced(pod("baz", 7))))));
  }

  static Stream<Arguments> replaceCasesInBothModes() {
    return inBothModes(replaceCases());
  }

  // TestDeltaFIFO_ReplaceMakesDeletions, ..._ReplaceMakesDeletionsReplaced, ..._ReplaceDeltaType
  @ParameterizedTest(name = "{0}, emitDeltaTypeReplaced={1}")
  @MethodSource("replaceCasesInBothModes")
  void replace_whenKnownKeyMissing_emitsDeletedFinalStateUnknown(
      ReplaceCase c, boolean emitReplaced) throws Exception {
    Store<Pod> knownObjects =
        c.knownObjects() == null ? null : known(c.knownObjects().toArray(Pod[]::new));
    DeltaFifo<Pod> f = fifo(knownObjects, emitReplaced);
    c.ops().accept(f);
    assertThat(popAll(f))
        .containsExactlyElementsOf(
            c.expected().stream().map(deltas -> relistedAs(emitReplaced, deltas)).toList());
  }

  @Test
  void replace_byDefault_queuesSyncForListedObjects() throws Exception {
    // NewDeltaFIFOWithOptions without EmitDeltaTypeReplaced
    DeltaFifo<Pod> f = DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).build();
    fifos.add(f);
    f.replace(List.of(pod("foo", 5)), "0");
    assertThat(popQueued(f)).containsExactly(sync(pod("foo", 5)));
  }

  /**
   * A knownObjects whose listing still has a key it no longer holds, as when an indexer is written
   * outside the FIFO between the two reads.
   */
  private record VanishingStore(List<String> listedKeys, Store<Pod> holding)
      implements Store<Pod> {

    @Override
    public List<String> listKeys() {
      return listedKeys;
    }

    @Override
    public Optional<Pod> getByKey(String key) {
      return holding.getByKey(key);
    }

    @Override
    public Optional<Pod> get(Pod obj) {
      return holding.get(obj);
    }

    @Override
    public List<Pod> list() {
      return holding.list();
    }

    @Override
    public void add(Pod obj) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public void update(Pod obj) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public void delete(Pod obj) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public void replace(Collection<? extends Pod> objects, String resourceVersion) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public void resync() {}
  }

  @Test
  void replace_whenKnownKeyVanishesDuringTheRelist_queuesATombstoneWithoutObject()
      throws Exception {
    Store<Pod> holding = known(pod("bar", 6));
    DeltaFifo<Pod> f =
        fifo(new VanishingStore(List.of(key("gone"), key("bar")), holding), false);

    String log = LogCapture.stderrOf(() -> f.replace(List.of(), "0"));

    assertThat(log)
        .contains("WARN")
        .contains("key=ns/gone vanished from knownObjects during replace");
    assertThat(f.listKeys()).containsExactly(key("gone"), key("bar"));
    assertThat(f.getDeltas(key("gone")))
        .contains(
            List.of(
                new Delta<>(
                    DeltaType.DELETED, new DeletedFinalStateUnknown<Pod>(key("gone"), null))));
    // No state is known, so the readers that give objects have none for the key.
    assertThat(f.getByKey(key("gone"))).isEmpty();
    assertThat(f.list()).containsExactly(pod("bar", 6));
    assertThat(f.keyOf(f.getDeltas(key("gone")).orElseThrow())).isEqualTo(key("gone"));
    // Both tombstones count towards the first relist's population.
    List<Boolean> initial = new ArrayList<>();
    f.pop((deltas, isInInitialList) -> initial.add(isInInitialList));
    assertThat(f.hasSynced()).isFalse();
    f.pop((deltas, isInInitialList) -> initial.add(isInInitialList));
    assertThat(initial).containsExactly(true, true);
    assertThat(f.hasSynced()).isTrue();
  }

  @Test
  void replace_whenAKeyCannotBeComputed_throwsKeyErrorAndChangesNothing() {
    DeltaFifo<Pod> f =
        DeltaFifo.<Pod>builder(DeltaFifoTest::namedOnlyKey).knownObjects(known(pod("old", 1)))
            .build();
    fifos.add(f);
    Pod nameless = new PodBuilder().withNewMetadata().withNamespace("ns").endMetadata().build();

    assertThatThrownBy(() -> f.replace(List.of(pod("foo", 1), nameless), "0"))
        .isInstanceOfSatisfying(
            KeyException.class,
            e -> {
              assertThat(e.obj()).isSameAs(nameless);
              assertThat(e.getCause()).hasMessage("no metadata.name");
            });
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.hasSynced()).isFalse();
  }

  @Test
  void resync_queuesSyncForKnownKeysWithoutPendingDeltas() throws Exception {
    // TestDeltaFIFO_Resync, ..._ResyncNonExisting, ..._UpdateResyncRace
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5), pod("bar", 6), pod("baz", 7)));
    f.update(pod("bar", 8));
    f.delete(pod("baz", 9));

    f.resync();

    assertThat(popAll(f))
        .containsExactly(
            List.of(updated(pod("bar", 8))),
            List.of(deleted(pod("baz", 9))),
            List.of(sync(pod("foo", 5))));
  }

  @Test
  void resync_whenKeyHasOnlyAQueuedDeletion_queuesNoSync() throws Exception {
    // TestDeltaFIFO_ResyncNonExisting
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5)));
    f.delete(pod("foo", 10));
    f.resync();
    assertThat(popAll(f)).containsExactly(List.of(deleted(pod("foo", 10))));
  }

  @Test
  void resync_whenKnownKeyVanishes_skipsIt() throws Exception {
    DeltaFifo<Pod> f =
        fifo(new VanishingStore(List.of(key("gone"), key("bar")), known(pod("bar", 6))));
    f.resync();
    assertThat(popAll(f)).containsExactly(List.of(sync(pod("bar", 6))));
  }

  @Test
  void resync_whenRepeatedBeforePop_queuesOneSyncPerKey() throws Exception {
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5)));
    f.resync();
    f.resync();
    assertThat(popAll(f)).containsExactly(List.of(sync(pod("foo", 5))));
  }

  @Test
  void resync_withoutKnownObjects_doesNothing() {
    DeltaFifo<Pod> f = fifo(null);
    f.resync();
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void resync_doesNotPopulate() {
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5)));
    f.resync();
    assertThat(f.hasSynced()).isFalse();
  }

  /** A scripted history and whether the FIFO has synced after it. */
  record SyncCase(String name, List<FifoAction> actions, boolean expectedSynced) {
    @Override
    public String toString() {
      return name;
    }
  }

  @FunctionalInterface
  interface FifoAction {
    void apply(DeltaFifo<Pod> f) throws InterruptedException;
  }

  static Stream<SyncCase> syncCases() {
    FifoAction replaceTwo = f -> f.replace(List.of(pod("a", 1), pod("b", 2)), "0");
    FifoAction pop = DeltaFifoTestPods::popQueued;
    return Stream.of(
        new SyncCase("nothing happened", List.of(), false),
        new SyncCase("an add came first", List.of(f -> f.add(pod("a", 1))), true),
        new SyncCase("an update came first", List.of(f -> f.update(pod("a", 1))), true),
        new SyncCase("an ignored delete came first", List.of(f -> f.delete(pod("a", 1))), true),
        new SyncCase("an empty replace", List.of(f -> f.replace(List.of(), "0")), true),
        new SyncCase("a replace of two, nothing popped", List.of(replaceTwo), false),
        new SyncCase("a replace of two, one popped", List.of(replaceTwo, pop), false),
        new SyncCase("a replace of two, both popped", List.of(replaceTwo, pop, pop), true),
        new SyncCase(
            "a replace listing one key twice, popped once",
            List.of(f -> f.replace(List.of(pod("a", 1), pod("a", 2)), "0"), pop),
            true),
        new SyncCase(
            "a second replace does not reset the count",
            List.of(replaceTwo, pop, pop, replaceTwo),
            true),
        new SyncCase(
            "an add after the replace does not sync it early",
            List.of(replaceTwo, f -> f.add(pod("c", 3)), pop),
            false));
  }

  // TestDeltaFIFO_HasSynced
  @ParameterizedTest(name = "{0}")
  @MethodSource("syncCases")
  void hasSynced_followsTheFirstReplacesPopulation(SyncCase c) throws Exception {
    DeltaFifo<Pod> f = fifo(null);
    for (FifoAction a : c.actions()) {
      a.apply(f);
    }
    assertThat(f.hasSynced()).isEqualTo(c.expectedSynced());
    assertThat(f.synced().isDone()).isEqualTo(c.expectedSynced());
  }

  @Test
  void hasSynced_countsInferredDeletionsOfTheFirstReplace() throws Exception {
    // TestDeltaFIFO_HasSyncedCorrectOnDeletion
    DeltaFifo<Pod> f = fifo(known(pod("foo", 5), pod("bar", 6), pod("baz", 7)));
    f.replace(List.of(pod("foo", 5)), "0");
    CompletableFuture<Void> synced = f.synced();

    List<List<Delta<Pod>>> expected =
        List.of(
            List.of(sync(pod("foo", 5))),
            List.of(tombstone(pod("bar", 6))),
            List.of(tombstone(pod("baz", 7))));
    for (List<Delta<Pod>> e : expected) {
      assertThat(f.hasSynced()).isFalse();
      assertThat(synced).isNotDone();
      List<Boolean> initial = new ArrayList<>();
      List<Delta<Pod>> popped = f.pop((deltas, isInInitialList) -> initial.add(isInInitialList))
          .orElseThrow();
      assertThat(popped).isEqualTo(e);
      assertThat(initial).containsExactly(true);
    }
    assertThat(f.hasSynced()).isTrue();
    assertThat(synced).isCompleted();
  }

  @Test
  void synced_whenCopyIsCompletedByCaller_doesNotSyncTheFifo() {
    DeltaFifo<Pod> f = fifo(null);
    f.synced().complete(null);
    assertThat(f.synced()).isNotDone();
    assertThat(f.hasSynced()).isFalse();
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RealFifo}, with the cases of client-go v0.36's {@code the_real_fifo_test.go} that apply.
 * Everything runs on the test thread: the FIFO is popped only when something is queued, so no call
 * blocks.
 */
class RealFifoTest {

  private static RealFifo<Pod> atomicFifo() {
    return RealFifo.<Pod>builder(Keys::metaNamespaceKey).build();
  }

  private static RealFifo<Pod> fifoKnowing(Store<Pod> known) {
    return RealFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(known).build();
  }

  private static Store<Pod> storeOf(Pod... pods) {
    Indexer<Pod> s = Indexers.newIndexer(Keys::metaNamespaceKey, java.util.Map.of());
    for (Pod p : pods) {
      s.add(p);
    }
    return s;
  }

  /** Pops one delta and returns it. */
  private static Delta<Pod> pop(RealFifo<Pod> f) throws InterruptedException {
    List<Delta<Pod>> out = new ArrayList<>();
    assertThat(f.pop((d, initial) -> out.add(d))).isTrue();
    return out.get(0);
  }

  /** Pops one batch (one or more deltas) and returns it. */
  private static List<Delta<Pod>> popBatch(RealFifo<Pod> f) throws InterruptedException {
    List<Delta<Pod>> out = new ArrayList<>();
    assertThat(f.popBatch((ds, initial) -> out.addAll(ds), (d, initial) -> out.add(d))).isTrue();
    return out;
  }

  private static String describe(Delta<Pod> d) {
    if (!d.type().isBatchable()) {
      return d.type() + (d.object() instanceof Delta.BookmarkInfo b ? " " + b.resourceVersion() : "");
    }
    Pod p = d.unwrap();
    return d.type() + " " + p.getMetadata().getName() + "@" + p.getMetadata().getResourceVersion()
        + (d.isFinalStateUnknown() ? " (unknown)" : "");
  }

  private static List<String> describeAll(List<Delta<Pod>> ds) {
    return ds.stream().map(RealFifoTest::describe).toList();
  }

  @Test
  void addUpdateDelete_areQueuedInArrivalOrder_withNothingMerged() throws Exception {
    RealFifo<Pod> f = atomicFifo();
    f.add(pod("ns", "a", "1"));
    f.update(pod("ns", "b", "2"));
    f.update(pod("ns", "a", "3"));
    f.delete(pod("ns", "a", "4"));
    f.delete(pod("ns", "a", "4"));

    assertThat(describeAll(f.queuedDeltas()))
        .containsExactly("ADDED a@1", "UPDATED b@2", "UPDATED a@3", "DELETED a@4", "DELETED a@4");
    assertThat(describe(pop(f))).isEqualTo("ADDED a@1");
    assertThat(f.size()).isEqualTo(4);
  }

  @Test
  void transform_isAppliedOnceToEachObject_beforeQueueing() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    RealFifo<Pod> f =
        RealFifo.<Pod>builder(Keys::metaNamespaceKey)
            .transform(
                p -> {
                  calls.incrementAndGet();
                  p.getMetadata().setResourceVersion(p.getMetadata().getResourceVersion() + "t");
                  return p;
                })
            .build();

    f.add(pod("ns", "a", "1"));
    f.replace(List.of(pod("ns", "b", "2")), "2");
    f.replaceTransformed(List.of(pod("ns", "c", "3")), "3");

    assertThat(calls).as("replaceTransformed does not transform again").hasValue(2);
    assertThat(describe(pop(f))).isEqualTo("ADDED a@1t");
    Delta.ReplacedAllInfo<?> info = (Delta.ReplacedAllInfo<?>) pop(f).object();
    assertThat(((Pod) info.objects().get(0)).getMetadata().getResourceVersion()).isEqualTo("2t");
    assertThat(f.transformer()).isNotNull();
  }

  @Test
  void replace_withAtomicEvents_isOneDeltaWithTheObjectsAndTheResourceVersion() throws Exception {
    RealFifo<Pod> f = atomicFifo();
    f.add(pod("ns", "queued", "1"));
    Pod a = pod("ns", "a", "5");
    Pod b = pod("ns", "b", "6");

    f.replace(List.of(a, b), "7");

    assertThat(f.size()).as("the FIFO adds no deletions of its own").isEqualTo(2);
    pop(f);
    Delta<Pod> d = pop(f);
    assertThat(d.type()).isEqualTo(DeltaType.REPLACED_ALL);
    Delta.ReplacedAllInfo<?> info = (Delta.ReplacedAllInfo<?>) d.object();
    assertThat(info.resourceVersion()).isEqualTo("7");
    assertThat(List.<Object>copyOf(info.objects())).containsExactly(a, b);
    assertThatThrownBy(d::unwrap).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void resyncAndBookmark_withAtomicEvents_areOneDeltaEach() throws Exception {
    RealFifo<Pod> f = atomicFifo();
    f.resync();
    f.bookmark("42");

    assertThat(describeAll(f.queuedDeltas())).containsExactly("SYNC_ALL", "BOOKMARK 42");
    assertThat(pop(f).object()).isSameAs(Delta.SyncAllInfo.INSTANCE);
  }

  @Test
  void replace_withoutAtomicEvents_deletesWhatIsQueuedOrKnownButNotListed() throws Exception {
    // client-go's TestRealFIFO_ReplaceMakesDeletions and ...ForObjectsOnlyInQueue.
    Store<Pod> known = storeOf(pod("ns", "known-gone", "1"), pod("ns", "kept", "2"));
    RealFifo<Pod> f = fifoKnowing(known);
    f.add(pod("ns", "queued-gone", "3"));
    f.update(pod("ns", "queued-gone", "4"));
    f.add(pod("ns", "queued-deleted", "5"));
    f.delete(pod("ns", "queued-deleted", "6"));
    f.bookmark("7");

    f.replace(List.of(pod("ns", "kept", "8"), pod("ns", "new", "9")), "9");

    assertThat(describeAll(f.queuedDeltas()))
        .containsExactly(
            "ADDED queued-gone@3",
            "UPDATED queued-gone@4",
            "ADDED queued-deleted@5",
            "DELETED queued-deleted@6",
            "DELETED queued-gone@4 (unknown)",
            "DELETED known-gone@1 (unknown)",
            "REPLACED kept@8",
            "REPLACED new@9");
  }

  @Test
  void resync_withoutAtomicEvents_syncsKnownKeysWithNothingQueued() {
    // client-go's TestRealFIFO_Resync and TestRealFIFO_UpdateResyncRace.
    RealFifo<Pod> f = fifoKnowing(storeOf(pod("ns", "a", "1"), pod("ns", "b", "2")));
    f.update(pod("ns", "b", "3"));

    f.resync();

    assertThat(describeAll(f.queuedDeltas())).containsExactly("UPDATED b@3", "SYNC a@1");
  }

  @Test
  void builder_withKnownObjectsAndUnlockWhileProcessing_isRefused() {
    assertThatThrownBy(
            () ->
                RealFifo.<Pod>builder(Keys::metaNamespaceKey)
                    .knownObjects(storeOf())
                    .unlockWhileProcessing(true)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("atomic events");
  }

  record SyncCase(String name, List<Consumer<RealFifo<Pod>>> actions, boolean synced) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Consumer<RealFifo<Pod>> popOne() {
    return f -> {
      try {
        f.pop((d, initial) -> {});
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    };
  }

  static Stream<SyncCase> syncCases() {
    return Stream.of(
        new SyncCase("nothing yet", List.of(), false),
        new SyncCase("an add before any replace", List.of(f -> f.add(pod("ns", "a", "1"))), true),
        new SyncCase(
            "an empty replace is still one delta to process",
            List.of(f -> f.replace(List.of(), "0")),
            false),
        new SyncCase(
            "an empty replace, processed", List.of(f -> f.replace(List.of(), "0"), popOne()), true),
        new SyncCase(
            "a replace not yet popped",
            List.of(f -> f.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "2")), "2")),
            false),
        new SyncCase(
            "a replace popped and processed",
            List.of(
                f -> f.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "2")), "2"), popOne()),
            true),
        new SyncCase(
            "deltas queued before the replace are part of it",
            List.of(
                f -> f.bookmark("1"),
                f -> f.replace(List.of(pod("ns", "a", "1")), "2"),
                popOne()),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("syncCases")
  void hasSynced_followsTheFirstReplace(SyncCase c) {
    // client-go's TestRealFIFO_HasSynced, with atomic events.
    RealFifo<Pod> f = atomicFifo();
    c.actions().forEach(a -> a.accept(f));
    assertThat(f.hasSynced()).isEqualTo(c.synced());
    if (c.synced()) {
      assertThat(f.synced()).isCompleted();
    } else {
      assertThat(f.synced()).isNotDone();
    }
  }

  @Test
  void hasSynced_becomesTrueOnlyAfterTheFirstListWasProcessed() throws Exception {
    RealFifo<Pod> f = atomicFifo();
    f.replace(List.of(pod("ns", "a", "1")), "1");
    List<Boolean> seenWhileProcessing = new ArrayList<>();

    f.pop(
        (d, initial) -> {
          assertThat(initial).isTrue();
          seenWhileProcessing.add(f.hasSynced());
        });

    assertThat(seenWhileProcessing).containsExactly(false);
    assertThat(f.hasSynced()).isTrue();
    assertThat(f.synced()).isCompleted();
  }

  @Test
  void hasSynced_whenTheProcessorThrows_stillCountsTheDeltaOff() {
    RealFifo<Pod> f = atomicFifo();
    f.replace(List.of(pod("ns", "a", "1")), "1");

    assertThatThrownBy(
            () ->
                f.pop(
                    (d, initial) -> {
                      throw new IllegalStateException("processing failed");
                    }))
        .hasMessage("processing failed");
    assertThat(f.hasSynced()).isTrue();
    assertThat(f.size()).as("never requeued").isZero();
  }

  record BatchCase(
      String name,
      List<String> initialList,
      List<Consumer<RealFifo<Pod>>> actions,
      int batchSize,
      List<List<String>> expectedBatches) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Consumer<RealFifo<Pod>> update(String name) {
    return f -> f.update(pod("ns", name, "9"));
  }

  static Stream<BatchCase> batchCases() {
    int unlimited = 999_999;
    return Stream.of(
        new BatchCase(
            "the initial list is one atomic delta, then unique updates batch",
            List.of("a", "b"),
            List.of(update("c"), update("d")),
            unlimited,
            List.of(List.of("REPLACED_ALL"), List.of("UPDATED c@9", "UPDATED d@9"))),
        new BatchCase(
            "a repeated key closes the batch",
            List.of(),
            List.of(update("a"), update("b"), update("a"), update("c")),
            unlimited,
            List.of(
                List.of("REPLACED_ALL"),
                List.of("UPDATED a@9", "UPDATED b@9"),
                List.of("UPDATED a@9", "UPDATED c@9"))),
        new BatchCase(
            "the batch size bounds a batch",
            List.of(),
            List.of(update("a"), update("b"), update("c")),
            2,
            List.of(List.of("REPLACED_ALL"), List.of("UPDATED a@9", "UPDATED b@9"),
                List.of("UPDATED c@9"))),
        new BatchCase(
            "an unbatchable delta is processed alone and closes the batch",
            List.of(),
            List.of(update("a"), f -> f.bookmark("5"), update("b"), f -> f.resync(), update("c")),
            unlimited,
            List.of(
                List.of("REPLACED_ALL"),
                List.of("UPDATED a@9"),
                List.of("BOOKMARK 5"),
                List.of("UPDATED b@9"),
                List.of("SYNC_ALL"),
                List.of("UPDATED c@9"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("batchCases")
  void popBatch_takesTheLongestBatchableRunFromTheHead(BatchCase c) throws Exception {
    // client-go's TestRealFIFO_PopMultipleDeltaInBatch, with atomic events.
    RealFifo<Pod> f = RealFifo.<Pod>builder(Keys::metaNamespaceKey).batchSize(c.batchSize()).build();
    f.replace(c.initialList().stream().map(n -> pod("ns", n, "1")).toList(), "1");
    c.actions().forEach(a -> a.accept(f));

    List<List<String>> batches = new ArrayList<>();
    while (f.size() > 0) {
      batches.add(describeAll(popBatch(f)));
    }
    assertThat(batches).isEqualTo(c.expectedBatches());
  }

  @Test
  void popBatch_neverMixesTheFirstListWithLaterDeltas_withoutAtomicEvents() throws Exception {
    RealFifo<Pod> f =
        RealFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(storeOf()).batchSize(2).build();
    f.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "1"), pod("ns", "c", "1")), "1");
    f.update(pod("ns", "d", "2"));

    assertThat(describeAll(popBatch(f))).containsExactly("REPLACED a@1", "REPLACED b@1");
    assertThat(describeAll(popBatch(f))).as("c ends the first list").containsExactly("REPLACED c@1");
    assertThat(f.hasSynced()).isTrue();
    assertThat(describeAll(popBatch(f))).containsExactly("UPDATED d@2");
  }

  @Test
  void processing_releasesProducers_unlessTwoFullBatchesWait() throws Exception {
    RealFifo<Pod> f = RealFifo.<Pod>builder(Keys::metaNamespaceKey).batchSize(2).build();
    for (String n : List.of("a", "b", "c", "d", "e", "f")) {
      f.add(pod("ns", n, "1"));
    }
    List<Boolean> held = new ArrayList<>();
    BatchProcessorProbe probe = new BatchProcessorProbe(f, held);

    f.popBatch(probe, (d, i) -> {}); // 4 left: two full batches wait
    f.popBatch(probe, (d, i) -> {}); // 2 left
    assertThat(held).containsExactly(true, false);
    assertThat(f.isHoldingProducers()).isFalse();
  }

  /** Records, while processing, whether producers are held back. */
  private record BatchProcessorProbe(RealFifo<Pod> f, List<Boolean> held)
      implements RealFifo.BatchProcessor<Pod> {
    @Override
    public void process(List<Delta<Pod>> deltas, boolean isInInitialList) {
      held.add(f.isHoldingProducers());
      f.add(pod("ns", "from-the-consumer", "2")); // the consumer never waits for itself
    }
  }

  @Test
  void processing_withUnlockWhileProcessingOff_alwaysHoldsProducers() throws Exception {
    RealFifo<Pod> f =
        RealFifo.<Pod>builder(Keys::metaNamespaceKey).unlockWhileProcessing(false).build();
    f.add(pod("ns", "a", "1"));
    List<Boolean> held = new ArrayList<>();
    f.pop((d, i) -> held.add(f.isHoldingProducers()));
    assertThat(held).containsExactly(true);
  }

  @Test
  void pop_onAClosedEmptyFifo_returnsFalse_butDrainsWhatIsQueuedFirst() throws Exception {
    RealFifo<Pod> f = atomicFifo();
    f.add(pod("ns", "a", "1"));
    f.close();

    assertThat(describe(pop(f))).isEqualTo("ADDED a@1");
    assertThat(f.pop((d, i) -> {})).isFalse();
    assertThat(f.popBatch((ds, i) -> {}, (d, i) -> {})).isFalse();
    assertThat(f.isClosed()).isTrue();
  }

  @Test
  void keyOf_understandsDeltasListsAndTombstones() {
    // client-go's TestRealFIFO_KeyOf.
    RealFifo<Pod> f = atomicFifo();
    Pod a = pod("ns", "a", "1");
    assertThat(f.keyOf(a)).isEqualTo("ns/a");
    assertThat(f.keyOf(new Delta<>(DeltaType.ADDED, a))).isEqualTo("ns/a");
    assertThat(f.keyOf(List.of(new Delta<>(DeltaType.ADDED, pod("ns", "x", "1")),
        new Delta<>(DeltaType.UPDATED, a)))).isEqualTo("ns/a");
    assertThat(f.keyOf(new DeletedFinalStateUnknown<>("other/key", a))).isEqualTo("other/key");
    assertThatThrownBy(() -> f.keyOf(List.of())).isInstanceOf(KeyException.class)
        .hasRootCauseMessage(DeltaFifo.ZERO_LENGTH_DELTAS);
    assertThatThrownBy(() -> f.keyOf(Delta.syncAll())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void listAndGet_showTheNewestQueuedStatePerKey() {
    RealFifo<Pod> f = atomicFifo();
    f.add(pod("ns", "a", "1"));
    f.update(pod("ns", "a", "2"));
    f.add(pod("ns", "b", "3"));
    f.resync();

    assertThat(f.listKeys()).containsExactly("ns/a", "ns/b");
    assertThat(f.getByKey("ns/a").orElseThrow().getMetadata().getResourceVersion()).isEqualTo("2");
  }

  @Test
  void add_whenTheKeyFunctionFails_queuesNothing_andNamesTheObject() {
    RealFifo<Pod> f =
        RealFifo.<Pod>builder(
                p -> {
                  throw new IllegalStateException("no key");
                })
            .name("pods")
            .build();
    assertThatThrownBy(() -> f.add(pod("ns", "a", "1")))
        .isInstanceOf(KeyException.class)
        .hasMessageContaining("name=\"a\"")
        .hasRootCauseMessage("no key");
    assertThat(f.size()).isZero();
    assertThat(f.hasSynced()).isFalse();
  }
}

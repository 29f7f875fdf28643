package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Parity of {@link DeltaFifo} with client-go's {@code DeltaFIFO} (with and without {@code
 * EmitDeltaTypeReplaced}), checked against an oracle: {@link GoDeltaFifo} below follows
 * {@code delta_fifo.go} statement by statement ({@code Add}, {@code Update}, {@code Delete}, {@code
 * queueActionLocked} with {@code dedupDeltas}, {@code Replace}, {@code Resync} with {@code
 * syncKeyLocked}, {@code Pop} with a process function that may fail, {@code checkSynced_locked}).
 * Random histories of writes, relists, resyncs and pops, with and without {@code knownObjects}
 * (which each successful pop updates as the informer does), must give the same queue, the same
 * deltas per key, the same popped deltas and {@code isInInitialList}, the same {@code hasSynced}
 * and the same known objects after every step.
 *
 * <p>One choice is fixed where client-go leaves it open: its {@code Replace} visits the queued keys
 * in map order (random); the oracle visits them in queue order, as {@link DeltaFifo} documents.
 */
class DeltaFifoClientGoParityTest {

  private static final int HISTORIES = 5_000;
  private static final int STEPS = 40;
  private static final int PODS = 4;

  @Test
  void everyStep_matchesClientGoDeltaFifo() throws InterruptedException {
    for (int seed = 0; seed < HISTORIES; seed++) {
      runHistory(seed);
    }
  }

  private static void runHistory(int seed) throws InterruptedException {
    SplittableRandom random = new SplittableRandom(seed);
    boolean withKnown = random.nextBoolean();
    boolean emitReplaced = random.nextBoolean();
    Store<Pod> ourKnown = withKnown ? new DeltaFifoTestStore<>(Keys::metaNamespaceKey) : null;
    Store<Pod> goKnown = withKnown ? new DeltaFifoTestStore<>(Keys::metaNamespaceKey) : null;
    DeltaFifo<Pod> fifo =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
            .knownObjects(ourKnown)
            .emitDeltaTypeReplaced(emitReplaced)
            .build();
    GoDeltaFifo oracle = new GoDeltaFifo(goKnown, emitReplaced);
    List<String> history = new ArrayList<>();
    history.add(
        "seed "
            + seed
            + (withKnown ? ", with knownObjects" : ", no knownObjects")
            + (emitReplaced ? ", emitDeltaTypeReplaced" : ""));
    int rv = 1;
    for (int step = 0; step < STEPS; step++) {
      String name = "p" + random.nextInt(PODS);
      int op = random.nextInt(8);
      switch (op) {
        case 0 -> {
          Pod p = pod(name, rv++);
          history.add("add " + name);
          fifo.add(p);
          oracle.add(p);
        }
        case 1 -> {
          Pod p = pod(name, rv++);
          history.add("update " + name);
          fifo.update(p);
          oracle.update(p);
        }
        case 2 -> {
          Pod p = pod(name, rv++);
          history.add("delete " + name);
          fifo.delete(p);
          oracle.delete(p);
        }
        case 3 -> {
          List<Pod> list = new ArrayList<>();
          for (int i = 0; i < PODS; i++) {
            if (random.nextBoolean()) {
              list.add(pod("p" + i, rv++));
            }
          }
          history.add("replace " + list.stream().map(p -> p.getMetadata().getName()).toList());
          fifo.replace(list, "");
          oracle.replace(list);
        }
        case 4 -> {
          history.add("resync");
          fifo.resync();
          oracle.resync();
        }
        default -> {
          boolean fail = op == 7;
          history.add(fail ? "pop, processing fails" : "pop");
          if (oracle.queue.isEmpty()) {
            assertThat(fifo.isEmpty()).as("%s", history).isTrue();
            break;
          }
          boolean[] ourInitial = new boolean[1];
          List<List<Delta<Pod>>> processed = new ArrayList<>();
          try {
            fifo.pop(
                (deltas, isInInitialList) -> {
                  ourInitial[0] = isInInitialList;
                  processed.add(deltas);
                  if (fail) {
                    throw new IllegalStateException("processing failed");
                  }
                  apply(ourKnown, deltas);
                });
          } catch (IllegalStateException e) {
            assertThat(fail).as("pop failed after %s", history).isTrue();
          }
          GoDeltaFifo.Popped theirs = oracle.pop(fail);
          assertThat(processed).as("processed deltas after %s", history)
              .containsExactly(theirs.deltas());
          assertThat(ourInitial[0]).as("isInInitialList after %s", history)
              .isEqualTo(theirs.isInInitialList());
        }
      }
      assertThat(fifo.listKeys()).as("queue after %s", history).isEqualTo(oracle.queue);
      for (String key : oracle.queue) {
        assertThat(fifo.getDeltas(key)).as("deltas of %s after %s", key, history)
            .hasValue(oracle.items.get(key));
      }
      assertThat(fifo.hasSynced()).as("hasSynced after %s", history)
          .isEqualTo(oracle.syncedClosed);
      if (withKnown) {
        assertThat(ourKnown.list()).as("knownObjects after %s", history)
            .isEqualTo(goKnown.list());
      }
      fifo.checkInvariants();
    }
  }

  /** The informer's processDeltas, reduced to its effect on the known objects. */
  private static void apply(@Nullable Store<Pod> known, List<Delta<Pod>> deltas) {
    if (known == null) {
      return;
    }
    for (Delta<Pod> d : deltas) {
      if (d.type() == DeltaType.DELETED) {
        known.delete(d.unwrap());
      } else {
        known.update(d.unwrap());
      }
    }
  }

  /** client-go's DeltaFIFO, transliterated (single-threaded: the lock is left out). */
  private static final class GoDeltaFifo {

    record Popped(List<Delta<Pod>> deltas, boolean isInInitialList) {}

    final List<String> queue = new ArrayList<>();
    final Map<String, List<Delta<Pod>>> items = new HashMap<>();
    final @Nullable Store<Pod> knownObjects;
    final boolean emitDeltaTypeReplaced;
    boolean populated;
    int initialPopulationCount;
    boolean syncedClosed;

    GoDeltaFifo(@Nullable Store<Pod> knownObjects, boolean emitDeltaTypeReplaced) {
      this.knownObjects = knownObjects;
      this.emitDeltaTypeReplaced = emitDeltaTypeReplaced;
    }

    void checkSyncedLocked() {
      if (populated && initialPopulationCount == 0) {
        syncedClosed = true;
      }
    }

    static String keyOf(Object obj) {
      return obj instanceof DeletedFinalStateUnknown<?> d
          ? d.key()
          : Keys.metaNamespaceKey((Pod) obj);
    }

    void add(Pod obj) {
      populated = true;
      checkSyncedLocked();
      queueActionLocked(DeltaType.ADDED, obj);
    }

    void update(Pod obj) {
      populated = true;
      checkSyncedLocked();
      queueActionLocked(DeltaType.UPDATED, obj);
    }

    void delete(Pod obj) {
      String id = keyOf(obj);
      populated = true;
      checkSyncedLocked();
      if (knownObjects == null) {
        if (!items.containsKey(id)) {
          return;
        }
      } else if (knownObjects.getByKey(id).isEmpty() && !items.containsKey(id)) {
        return;
      }
      queueActionLocked(DeltaType.DELETED, obj);
    }

    void queueActionLocked(DeltaType type, Object obj) {
      String id = keyOf(obj);
      List<Delta<Pod>> newDeltas = new ArrayList<>(items.getOrDefault(id, List.of()));
      newDeltas.add(new Delta<>(type, obj));
      dedupDeltas(newDeltas);
      if (!items.containsKey(id)) {
        queue.add(id);
      }
      items.put(id, newDeltas);
    }

    static void dedupDeltas(List<Delta<Pod>> deltas) {
      int n = deltas.size();
      if (n < 2) {
        return;
      }
      Delta<Pod> a = deltas.get(n - 1);
      Delta<Pod> b = deltas.get(n - 2);
      if (b.type() != DeltaType.DELETED || a.type() != DeltaType.DELETED) {
        return;
      }
      deltas.set(n - 2, b.object() instanceof DeletedFinalStateUnknown<?> ? a : b);
      deltas.remove(n - 1);
    }

    void replace(List<Pod> list) {
      Set<String> keys = new HashSet<>();
      DeltaType action = emitDeltaTypeReplaced ? DeltaType.REPLACED : DeltaType.SYNC;
      for (Pod item : list) {
        keys.add(keyOf(item));
        queueActionLocked(action, item);
      }
      int queuedDeletions = 0;
      for (String k : new ArrayList<>(queue)) {
        if (keys.contains(k)) {
          continue;
        }
        List<Delta<Pod>> oldItem = items.get(k);
        Object deletedObj = oldItem.get(oldItem.size() - 1).object();
        if (deletedObj instanceof DeletedFinalStateUnknown<?> d) {
          deletedObj = d.obj();
        }
        queuedDeletions++;
        queueActionLocked(DeltaType.DELETED, new DeletedFinalStateUnknown<>(k, deletedObj));
      }
      if (knownObjects != null) {
        for (String k : knownObjects.listKeys()) {
          if (keys.contains(k) || !items.getOrDefault(k, List.of()).isEmpty()) {
            continue;
          }
          Pod deletedObj = knownObjects.getByKey(k).orElseThrow();
          queuedDeletions++;
          queueActionLocked(DeltaType.DELETED, new DeletedFinalStateUnknown<>(k, deletedObj));
        }
      }
      if (!populated) {
        populated = true;
        initialPopulationCount = keys.size() + queuedDeletions;
        checkSyncedLocked();
      }
    }

    void resync() {
      if (knownObjects == null) {
        return;
      }
      for (String k : knownObjects.listKeys()) {
        Optional<Pod> obj = knownObjects.getByKey(k);
        if (obj.isEmpty()) {
          continue;
        }
        String id = keyOf(obj.get());
        if (!items.getOrDefault(id, List.of()).isEmpty()) {
          continue;
        }
        queueActionLocked(DeltaType.SYNC, obj.get());
      }
    }

    /** Pop with a process function that applies the deltas, or fails without applying them. */
    Popped pop(boolean processFails) {
      boolean isInInitialList = !syncedClosed;
      String id = queue.remove(0);
      if (initialPopulationCount > 0) {
        initialPopulationCount--;
        checkSyncedLocked();
      }
      List<Delta<Pod>> item = items.remove(id);
      if (!processFails) {
        apply(knownObjects, item);
      }
      return new Popped(item, isInInitialList);
    }
  }
}

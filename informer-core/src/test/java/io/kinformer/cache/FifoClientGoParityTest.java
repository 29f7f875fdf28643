package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Parity of {@link Fifo} with client-go 0.36's {@code FIFO}, checked against an oracle: {@link
 * GoFifo} below follows {@code fifo.go} statement by statement ({@code Add}, {@code Delete}, {@code
 * Replace}, {@code Resync}, {@code Pop} with its deferred {@code checkSynced}). Random histories of
 * writes, relists, resyncs and pops (some of whose processing fails) must give the same queued
 * objects in the same pop order, the same popped object and {@code isInInitialList}, and the same
 * {@code hasSynced} after every step.
 *
 * <p>One choice is fixed where client-go leaves it open: its {@code Replace} queues in map order
 * (random), the oracle in list order, as {@link Fifo} documents. One deliberate divergence is
 * marked in the oracle: when {@code Pop} skips the place of a deleted key of the first list, Go
 * defers the sync check until its {@code Pop} returns, so that the next object, although queued
 * after the list, is still reported {@code isInInitialList}, and a {@code Pop} blocked on an empty
 * line keeps {@code HasSynced} false. {@link Fifo} checks at once (see {@code FifoTest}). Pops are
 * only made when an object is queued, since they would block otherwise.
 */
class FifoClientGoParityTest {

  private static final int HISTORIES = 5_000;
  private static final int STEPS = 40;
  private static final int PODS = 4;

  @Test
  void everyStep_matchesClientGoFifo() throws InterruptedException {
    for (int seed = 0; seed < HISTORIES; seed++) {
      runHistory(seed);
    }
  }

  private static void runHistory(int seed) throws InterruptedException {
    SplittableRandom random = new SplittableRandom(seed);
    Fifo<Pod> fifo = Fifo.create(Keys::metaNamespaceKey);
    GoFifo oracle = new GoFifo();
    List<String> history = new ArrayList<>();
    history.add("seed " + seed);
    int rv = 1;
    for (int step = 0; step < STEPS; step++) {
      String name = "p" + random.nextInt(PODS);
      int op = random.nextInt(8);
      switch (op) {
        case 0, 1 -> {
          Pod p = pod(name, rv++);
          history.add((op == 0 ? "add " : "update ") + name);
          if (op == 0) {
            fifo.add(p);
          } else {
            fifo.update(p);
          }
          oracle.add(p);
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
          if (oracle.items.isEmpty()) {
            assertThat(fifo.isEmpty()).as("%s", history).isTrue();
            break;
          }
          List<Pod> processed = new ArrayList<>();
          List<Boolean> initial = new ArrayList<>();
          try {
            fifo.pop(
                (obj, isInInitialList) -> {
                  processed.add(obj);
                  initial.add(isInInitialList);
                  if (fail) {
                    throw new IllegalStateException("processing failed");
                  }
                });
          } catch (IllegalStateException e) {
            assertThat(fail).as("pop failed after %s", history).isTrue();
          }
          GoFifo.Popped theirs = oracle.pop();
          assertThat(processed).as("popped after %s", history).containsExactly(theirs.obj());
          assertThat(initial).as("isInInitialList after %s", history)
              .containsExactly(theirs.isInInitialList());
        }
      }
      assertThat(fifo.listKeys()).as("keys after %s", history).isEqualTo(oracle.inLine());
      assertThat(fifo.list()).as("objects after %s", history)
          .isEqualTo(oracle.inLine().stream().map(oracle.items::get).toList());
      assertThat(fifo.hasSynced()).as("hasSynced after %s", history)
          .isEqualTo(oracle.syncedClosed);
      fifo.checkInvariants();
    }
  }

  /** client-go's FIFO, transliterated (single-threaded: the lock is left out). */
  private static final class GoFifo {

    record Popped(Pod obj, boolean isInInitialList) {}

    final Map<String, Pod> items = new HashMap<>();
    final List<String> queue = new ArrayList<>();
    boolean populated;
    int initialPopulationCount;
    boolean syncedClosed;

    void checkSynced() {
      if (populated && initialPopulationCount == 0) {
        syncedClosed = true;
      }
    }

    void add(Pod obj) {
      String id = Keys.metaNamespaceKey(obj);
      populated = true;
      checkSynced();
      if (!items.containsKey(id)) {
        queue.add(id);
      }
      items.put(id, obj);
    }

    void delete(Pod obj) {
      String id = Keys.metaNamespaceKey(obj);
      populated = true;
      checkSynced();
      items.remove(id);
    }

    /** Needs a queued object: a Go Pop would otherwise block. */
    Popped pop() {
      int deferredChecks = 0;
      while (true) {
        boolean isInInitialList = !syncedClosed;
        String id = queue.remove(0);
        if (initialPopulationCount > 0) {
          initialPopulationCount--;
          deferredChecks++;
        }
        Pod item = items.remove(id);
        if (item == null) {
          // Divergence: Go leaves this check to its deferred calls; Fifo checks at once.
          if (deferredChecks > 0) {
            deferredChecks--;
            checkSynced();
          }
          continue;
        }
        // process(item, isInInitialList) runs here; then the deferred checks, at return.
        for (int i = 0; i < deferredChecks; i++) {
          checkSynced();
        }
        return new Popped(item, isInInitialList);
      }
    }

    void replace(List<Pod> list) {
      Map<String, Pod> listed = new LinkedHashMap<>();
      for (Pod item : list) {
        listed.put(Keys.metaNamespaceKey(item), item);
      }
      if (!populated) {
        populated = true;
        initialPopulationCount = listed.size();
        checkSynced();
      }
      items.clear();
      items.putAll(listed);
      queue.clear();
      queue.addAll(listed.keySet());
    }

    void resync() {
      Set<String> inQueue = new HashSet<>(queue);
      for (String id : new ArrayList<>(items.keySet())) {
        if (!inQueue.contains(id)) {
          queue.add(id);
        }
      }
    }

    /** The queued keys in pop order. */
    List<String> inLine() {
      Set<String> keys = new LinkedHashSet<>();
      for (String id : queue) {
        if (items.containsKey(id)) {
          keys.add(id);
        }
      }
      return List.copyOf(keys);
    }
  }
}

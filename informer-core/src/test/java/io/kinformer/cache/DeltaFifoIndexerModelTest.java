package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based test of the informer's core pair: a {@link DeltaFifo} built with {@code
 * knownObjects(indexer)} and {@code emitDeltaTypeReplaced(true)} (so that a relist's deltas are
 * told from a resync's, as client-go's informers did) and a processing step that pops a key and
 * applies its deltas to the indexer exactly as {@code DefaultSharedIndexInformer.applyDelta} does
 * ({@code SYNC}, {@code REPLACED}, {@code ADDED}, {@code UPDATED}: add or update; {@code DELETED}:
 * delete {@link Delta#unwrap()}).
 *
 * <p>{@link ModelCheck} generates histories of operations, and shrinks a failing one to a short
 * history: server-side changes to a handful of pods, delivered to the FIFO as watch events while
 * the watch is up and missed while it is down; the watch breaking; relists (a {@code replace} with
 * the server's full state, after which the watch is up again); resyncs; pops of one key or of every
 * queued key; and closing the FIFO. Two reference models are kept beside the system: the server
 * ("what exists, at which resourceVersion") and a consumer that replays the deltas returned by
 * {@code pop}, as an event handler would see them.
 *
 * <p>Checked after every step: the FIFO's own invariants; {@code hasSynced()} and the synced future
 * against a model of the first list's pop count; the consumer's view equals the indexer; the
 * namespace index agrees with the indexer's content; {@code isClosed()}; with a transform, exactly
 * one transform call per object given to the FIFO and only transformed objects in the indexer; and,
 * while the watch is up, "FIFO plus indexer" is exactly the server (for each key, the newest queued
 * delta if the key is queued, else the indexer's object). Checked on every pop: {@code
 * isInInitialList}; all deltas of a pop share one key; per key, the resourceVersions the consumer
 * sees never go backwards, a {@code SYNC} re-delivers exactly the consumer's current object and a
 * tombstone carries exactly the consumer's current object; a pop of a closed, empty FIFO returns
 * empty at once. Checked at the end, after a final relist and a drain: the indexer and the consumer
 * equal the server, and the FIFO has synced. A coverage check makes sure the generated histories do
 * reach tombstones, syncs and watch deletions.
 *
 * <p>Tries: {@value #TRIES} per case; {@code -Dkinformer.fuzz.tries=N} runs N (see {@link
 * ModelCheck}).
 */
class DeltaFifoIndexerModelTest {

  /** How many distinct pods the server knows: few, so that histories revisit keys. */
  private static final int PODS = 6;

  private static final int MAX_STEPS = 80;
  private static final int TRIES = 300;

  private static final String EVEN = "even";
  private static final String ODD = "odd";

  private static final String TRANSFORMED = "kinformer.io/transformed";

  /**
   * How the informer starts: listing first (the watch is down until the first relist), or
   * watching an empty server from the start (so it misses nothing, and writes populate the FIFO
   * before any replace); and whether the FIFO has a transform (which marks each object with an
   * annotation, on a copy).
   */
  record Case(String name, boolean watchingFromStart, boolean transform) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    return List.of(
        new Case("list first, watch after the first relist", false, false),
        new Case("watch an empty server from the start", true, false),
        new Case("list first, with a transform", false, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void randomHistory_afterFinalRelistAndDrain_indexerAndConsumerEqualServer(Case c) {
    Coverage coverage = new Coverage();
    ModelCheck<Op> check =
        ModelCheck.forAll(
                "DeltaFifo+Indexer model, " + c.name(), TRIES, DeltaFifoIndexerModelTest::history)
            .simplifyWith(DeltaFifoIndexerModelTest::simpler);
    check.check(
        history -> {
          ModelRun run = new ModelRun(c.watchingFromStart(), c.transform());
          for (int step = 0; step < history.size(); step++) {
            Op op = history.get(step);
            run.apply(op);
            run.checkStep("after step " + step + " " + op);
          }

          run.relist();
          run.checkStep("after the final relist");
          run.drain();
          run.checkStep("after the final drain");

          assertThat(run.indexerState())
              .as("indexer after final relist+drain")
              .isEqualTo(run.server());
          assertThat(run.consumerState())
              .as("consumer after final relist+drain")
              .isEqualTo(run.server());
          assertThat(run.fifo.hasSynced()).as("hasSynced after final relist+drain").isTrue();
          assertThat(run.fifo.isEmpty()).isTrue();
          coverage.record(run);
        });

    int tries = check.tries();
    assertThat(coverage.tries).isEqualTo(tries);
    assertThat(coverage.withTombstone)
        .as("histories that popped a tombstone, of %d", tries)
        .isGreaterThanOrEqualTo(tries / 10);
    assertThat(coverage.withSync)
        .as("histories that popped a SYNC, of %d", tries)
        .isGreaterThanOrEqualTo(tries / 10);
    assertThat(coverage.withWatchDeletion)
        .as("histories that popped a watch deletion, of %d", tries)
        .isGreaterThanOrEqualTo(tries / 10);
  }

  /** A random history: up to {@value #MAX_STEPS} steps, weighted towards changes and pops. */
  static List<Op> history(SplittableRandom random) {
    int length = random.nextInt(MAX_STEPS + 1);
    List<Op> ops = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      int roll = random.nextInt(24);
      if (roll < 10) {
        ops.add(new Change(random.nextInt(PODS), random.nextInt(3) == 0));
      } else if (roll < 12) {
        ops.add(new WatchDown());
      } else if (roll < 14) {
        ops.add(new Relist());
      } else if (roll < 16) {
        ops.add(new Resync());
      } else if (roll < 22) {
        ops.add(new PopOne());
      } else if (roll < 23) {
        ops.add(new PopAll());
      } else {
        ops.add(new Close());
      }
    }
    return ops;
  }

  /** Simpler variants of a step, for shrinking. */
  static List<Op> simpler(Op op) {
    if (op instanceof Change c) {
      List<Op> out = new ArrayList<>(2);
      if (c.delete()) {
        out.add(new Change(c.pod(), false));
      }
      if (c.pod() > 1) {
        out.add(new Change(c.pod() % 2, c.delete()));
      }
      return out;
    }
    if (op instanceof PopAll) {
      return List.of(new PopOne());
    }
    return List.of();
  }

  /** How many tries reached the interesting corners. */
  private static final class Coverage {
    int tries;
    int withTombstone;
    int withSync;
    int withWatchDeletion;

    void record(ModelRun run) {
      tries++;
      withTombstone += run.tombstonesSeen > 0 ? 1 : 0;
      withSync += run.syncsSeen > 0 ? 1 : 0;
      withWatchDeletion += run.watchDeletionsSeen > 0 ? 1 : 0;
    }
  }

  /** One step of a generated history. */
  sealed interface Op permits Change, WatchDown, Relist, Resync, PopOne, PopAll, Close {}

  /**
   * A server-side change to pod {@code pod}: created if absent, else deleted if {@code delete},
   * else modified. Delivered to the FIFO as a watch event while the watch is up.
   */
  record Change(int pod, boolean delete) implements Op {}

  /** The watch breaks: changes are missed until the next relist. */
  record WatchDown() implements Op {}

  /** A relist: {@code replace} with the server's objects; the watch is up again afterwards. */
  record Relist() implements Op {}

  /** A periodic resync. */
  record Resync() implements Op {}

  /** The informer pops one key, if one is queued. */
  record PopOne() implements Op {}

  /** The informer pops until the FIFO is empty. */
  record PopAll() implements Op {}

  /**
   * The FIFO is closed (as on informer shutdown): queued keys are still handed out, writes are
   * still accepted, and a pop of an empty FIFO returns empty instead of blocking.
   */
  record Close() implements Op {}

  /** The system under test, the server model, the consumer model and the hasSynced model. */
  private static final class ModelRun {

    final Indexer<Pod> indexer = Indexers.newNamespaceIndexer();
    final DeltaFifo<Pod> fifo;
    final boolean transform;

    /** Calls of the transform, and how many the model expects: one per object given. */
    int transformCalls;

    int expectedTransformCalls;
    boolean closed;

    /** The server: pods by key, and the last resourceVersion handed out. */
    final Map<String, Pod> serverPods = new LinkedHashMap<>();

    long serverRv;
    boolean watching;

    /** The consumer: the state built by replaying popped deltas, and the newest RV per key. */
    final Map<String, Pod> consumer = new HashMap<>();

    final Map<String, Long> newestRvSeen = new HashMap<>();

    /** The hasSynced model (client-go's populated / initialPopulationCount). */
    boolean populated;

    int initialPopsLeft;
    boolean synced;

    int handedOutWhenEmpty;
    int tombstonesSeen;
    int syncsSeen;
    int watchDeletionsSeen;

    ModelRun(boolean watchingFromStart, boolean transform) {
      // The server starts empty, so a watch that is up from the start misses nothing.
      this.watching = watchingFromStart;
      this.transform = transform;
      this.fifo =
          DeltaFifo.<Pod>builder(Keys::metaNamespaceKey)
              .knownObjects(indexer)
              .emitDeltaTypeReplaced(true)
              .transform(transform ? this::mark : null)
              .name("model")
              .build();
    }

    private Pod mark(Pod p) {
      transformCalls++;
      return new PodBuilder(p)
          .editMetadata()
          .addToAnnotations(TRANSFORMED, "true")
          .endMetadata()
          .build();
    }

    void apply(Op op) throws InterruptedException {
      if (op instanceof Change c) {
        change(c);
      } else if (op instanceof WatchDown) {
        watching = false;
      } else if (op instanceof Relist) {
        relist();
      } else if (op instanceof Resync) {
        fifo.resync();
      } else if (op instanceof PopOne) {
        popOne();
      } else if (op instanceof PopAll) {
        drain();
      } else if (op instanceof Close) {
        fifo.close();
        closed = true;
      } else {
        throw new IllegalStateException("unknown op " + op);
      }
    }

    void change(Change c) {
      String name = "p" + c.pod();
      String namespace = c.pod() % 2 == 0 ? EVEN : ODD;
      String key = namespace + "/" + name;
      Pod next = pod(namespace, name, ++serverRv);
      Pod current = serverPods.get(key);
      if (current == null) {
        serverPods.put(key, next);
        if (watching) {
          fifo.add(next);
          onWrite();
        }
      } else if (c.delete()) {
        serverPods.remove(key);
        if (watching) {
          // A watch DELETED event carries the object at the deletion's resourceVersion.
          fifo.delete(next);
          onWrite();
        }
      } else {
        serverPods.put(key, next);
        if (watching) {
          fifo.update(next);
          onWrite();
        }
      }
    }

    void relist() {
      List<Pod> listed = List.copyOf(serverPods.values());
      fifo.replace(listed, Long.toString(serverRv));
      expectedTransformCalls += transform ? listed.size() : 0;
      if (!populated) {
        populated = true;
        initialPopsLeft = listed.size();
      }
      checkSynced();
      watching = true;
    }

    void drain() throws InterruptedException {
      int bound = fifo.size();
      while (!fifo.isEmpty()) {
        assertThat(bound--).as("pops needed to drain the FIFO").isPositive();
        popOne();
      }
    }

    void popOne() throws InterruptedException {
      if (fifo.isEmpty()) {
        if (closed) {
          assertThat(fifo.pop((deltas, initial) -> handedOutWhenEmpty++))
              .as("pop of a closed, empty FIFO")
              .isEmpty();
          assertThat(handedOutWhenEmpty).as("processor calls when closed and empty").isZero();
        }
        return; // else pop would block
      }
      boolean expectInitial = !synced;
      List<List<Delta<Pod>>> handed = new ArrayList<>(1);
      List<Boolean> initialFlags = new ArrayList<>(1);
      Optional<List<Delta<Pod>>> popped =
          fifo.pop(
              (deltas, isInInitialList) -> {
                // No assertions here: this runs under the FIFO's lock, as in the informer.
                handed.add(deltas);
                initialFlags.add(isInInitialList);
                for (Delta<Pod> d : deltas) {
                  applyTo(indexer, d);
                }
              });
      if (initialPopsLeft > 0) {
        initialPopsLeft--;
      }
      checkSynced();

      assertThat(popped).as("pop of a non-empty FIFO").isPresent();
      assertThat(handed).as("processor calls per pop").hasSize(1);
      assertThat(popped.get()).as("pop returns what the processor got").isEqualTo(handed.get(0));
      assertThat(initialFlags.get(0)).as("isInInitialList").isEqualTo(expectInitial);
      replay(popped.get());
    }

    /** The consumer replays one pop, checking the per-key order of what it sees. */
    void replay(List<Delta<Pod>> deltas) {
      assertThat(deltas).as("deltas of one pop").isNotEmpty();
      String key = keyOf(deltas.get(0));
      for (Delta<Pod> d : deltas) {
        assertThat(keyOf(d)).as("key of every delta in the pop of %s", key).isEqualTo(key);
        Pod current = consumer.get(key);
        long rv = rv(d.unwrap());
        Long newest = newestRvSeen.get(key);
        String what =
            d.type()
                + (d.isFinalStateUnknown() ? " tombstone" : "")
                + " rv "
                + rv
                + " for key "
                + key
                + " (consumer has "
                + describe(current)
                + ")";
        switch (d.type()) {
          case SYNC -> {
            syncsSeen++;
            assertThat(current)
                .as("a SYNC re-delivers the consumer's object: %s", what)
                .isNotNull();
            assertThat(rv)
                .as("a SYNC re-delivers the consumer's object: %s", what)
                .isEqualTo(rv(current));
          }
          case DELETED -> {
            if (d.isFinalStateUnknown()) {
              tombstonesSeen++;
              assertThat(current)
                  .as("a tombstone deletes an object the consumer has: %s", what)
                  .isNotNull();
              assertThat(rv)
                  .as("a tombstone carries the consumer's newest object: %s", what)
                  .isEqualTo(rv(current));
            } else {
              watchDeletionsSeen++;
              assertStrictlyNewer(rv, newest, what);
            }
          }
          case ADDED, UPDATED -> assertStrictlyNewer(rv, newest, what);
          case REPLACED -> {
            if (newest != null) {
              assertThat(rv)
                  .as("a REPLACED never goes back in time: %s", what)
                  .isGreaterThanOrEqualTo(newest);
            }
          }
          default -> throw new IllegalStateException("unknown delta type " + d.type());
        }
        newestRvSeen.merge(key, rv, Math::max);
        if (d.type() == DeltaType.DELETED) {
          consumer.remove(key);
        } else {
          consumer.put(key, d.unwrap());
        }
      }
    }

    private static void assertStrictlyNewer(long rv, Long newest, String what) {
      if (newest != null) {
        assertThat(rv)
            .as("a watch event is newer than all seen before: %s", what)
            .isGreaterThan(newest);
      }
    }

    void onWrite() {
      expectedTransformCalls += transform ? 1 : 0;
      populated = true;
      checkSynced();
    }

    void checkSynced() {
      if (!synced && populated && initialPopsLeft == 0) {
        synced = true;
      }
    }

    void checkStep(String when) {
      fifo.checkInvariants();
      assertThat(fifo.hasSynced()).as("hasSynced %s", when).isEqualTo(synced);
      assertThat(fifo.synced().isDone()).as("synced() is done %s", when).isEqualTo(synced);
      assertThat(consumerState()).as("consumer equals indexer %s", when).isEqualTo(indexerState());
      checkNamespaceIndex(when);
      assertThat(fifo.isClosed()).as("isClosed %s", when).isEqualTo(closed);
      assertThat(transformCalls)
          .as("transform calls: one per object given to the FIFO, %s", when)
          .isEqualTo(expectedTransformCalls);
      for (Pod p : indexer.list()) {
        assertThat(p.getMetadata().getAnnotations().containsKey(TRANSFORMED))
            .as("%s in the indexer is transformed iff there is a transform, %s", p, when)
            .isEqualTo(transform);
      }
      if (watching) {
        assertThat(pendingState())
            .as("while the watch is up, FIFO plus indexer equal the server, %s", when)
            .isEqualTo(server());
      }
    }

    private void checkNamespaceIndex(String when) {
      Set<String> namespaces = new TreeSet<>();
      for (Pod p : indexer.list()) {
        namespaces.add(p.getMetadata().getNamespace());
      }
      assertThat(new TreeSet<>(indexer.listIndexFuncValues(Indexers.NAMESPACE)))
          .as("namespace index values %s", when)
          .isEqualTo(namespaces);
      for (String ns : List.of(EVEN, ODD)) {
        Set<String> expected = new TreeSet<>();
        for (String key : indexer.listKeys()) {
          if (key.startsWith(ns + "/")) {
            expected.add(key);
          }
        }
        assertThat(new TreeSet<>(indexer.indexKeys(Indexers.NAMESPACE, ns)))
            .as("namespace index %s %s", ns, when)
            .isEqualTo(expected);
      }
    }

    /** Key to RV of what the informer will have once the queue is drained. */
    Map<String, Long> pendingState() {
      Map<String, Long> out = new TreeMap<>(indexerState());
      Set<String> queued = new HashSet<>(fifo.listKeys());
      for (String key : queued) {
        List<Delta<Pod>> deltas = fifo.getDeltas(key).orElseThrow();
        Delta<Pod> newest = deltas.get(deltas.size() - 1);
        if (newest.type() == DeltaType.DELETED) {
          out.remove(key);
        } else {
          out.put(key, rv(newest.unwrap()));
        }
      }
      return out;
    }

    Map<String, Long> server() {
      return rvs(serverPods.values());
    }

    Map<String, Long> indexerState() {
      return rvs(indexer.list());
    }

    Map<String, Long> consumerState() {
      return rvs(consumer.values());
    }
  }

  /** What {@code DefaultSharedIndexInformer.applyDelta} does to the indexer. */
  private static void applyTo(Indexer<Pod> indexer, Delta<Pod> d) {
    switch (d.type()) {
      case SYNC, REPLACED, ADDED, UPDATED -> {
        Pod obj = d.unwrap();
        if (indexer.get(obj).isPresent()) {
          indexer.update(obj);
        } else {
          indexer.add(obj);
        }
      }
      case DELETED -> indexer.delete(d.unwrap());
      default -> throw new IllegalStateException("unknown delta type " + d.type());
    }
  }

  private static String keyOf(Delta<Pod> d) {
    return d.object() instanceof DeletedFinalStateUnknown<?> t
        ? t.key()
        : Keys.metaNamespaceKey(d.unwrap());
  }

  private static Map<String, Long> rvs(Iterable<Pod> pods) {
    Map<String, Long> out = new TreeMap<>();
    for (Pod p : pods) {
      Long previous = out.put(Keys.metaNamespaceKey(p), rv(p));
      assertThat(previous).as("duplicate key %s", Keys.metaNamespaceKey(p)).isNull();
    }
    return out;
  }

  private static long rv(Pod p) {
    return Long.parseLong(p.getMetadata().getResourceVersion());
  }

  private static String describe(Pod p) {
    return p == null ? "nothing" : "rv " + rv(p);
  }

  private static Pod pod(String namespace, String name, long rv) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withResourceVersion(Long.toString(rv))
        .endMetadata()
        .build();
  }
}

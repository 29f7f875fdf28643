package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * client-go v0.36's {@code tools/cache/the_real_fifo_test.go}, case by case: each test names its Go
 * counterpart. The objects are client-go's {@code testFifoObject} ({@link FifoObj}, keyed by name);
 * client-go's {@code literalListerGetter} is a {@link DeltaFifoTestStore} (insertion order, as the
 * literal list). {@code NewRealFIFO(keyFunc, knownObjects, nil)} is a FIFO built with {@link
 * RealFifo.Builder#knownObjects} (no atomic events); setting {@code emitAtomicEvents} (and {@code
 * emitDeltaTypeBookmark}) is a FIFO built without known objects, which emits both. Where client-go
 * pops from a goroutine and waits 50 ms for what should not come, these pop on the test thread and
 * check that the queue is empty.
 *
 * <p>Not ported: the commented-out and removed DeltaFIFO cases that the Go file keeps only as
 * comments ({@code requeueOnPop}, {@code ReplaceDeltaType}, the {@code emitDeltaTypeReplaced} case
 * of {@code ReplaceMakesDeletionsForObjectsOnlyInQueue}): client-go's RealFIFO has none of them.
 */
class RealFifoClientGoTest {

  // ---- client-go's testFifoObject and helpers -----------------------------------------------

  /** client-go's {@code testFifoObject}: a name (the key) and a value. */
  record FifoObj(String name, Object val) {}

  /** client-go's {@code rvAndXfrm}: a value that counts how often it was transformed. */
  static final class RvAndXfrm {
    final int rv;
    int xfrm;

    RvAndXfrm(int rv, int xfrm) {
      this.rv = rv;
      this.xfrm = xfrm;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof RvAndXfrm r && r.rv == rv && r.xfrm == xfrm;
    }

    @Override
    public int hashCode() {
      return Objects.hash(rv, xfrm);
    }

    @Override
    public String toString() {
      return "{rv=" + rv + ", xfrm=" + xfrm + "}";
    }
  }

  private static FifoObj obj(String name, Object val) {
    return new FifoObj(name, val);
  }

  private static String keyOf(FifoObj o) {
    return o.name();
  }

  /** client-go's {@code literalListerGetter}. */
  private static Store<FifoObj> known(FifoObj... objs) {
    Store<FifoObj> s = new DeltaFifoTestStore<>(RealFifoClientGoTest::keyOf);
    for (FifoObj o : objs) {
      s.add(o);
    }
    return s;
  }

  /** The known objects most cases start from. */
  private static Store<FifoObj> fooBarBaz() {
    return known(obj("foo", 5), obj("bar", 6), obj("baz", 7));
  }

  /** client-go's {@code NewRealFIFO(testFifoObjectKeyFunc, knownObjects, nil)}. */
  private static RealFifo<FifoObj> fifo(Store<FifoObj> knownObjects) {
    return RealFifo.<FifoObj>builder(RealFifoClientGoTest::keyOf).knownObjects(knownObjects).build();
  }

  /** client-go's FIFO with {@code emitAtomicEvents} (and {@code emitDeltaTypeBookmark}) set. */
  private static RealFifo<FifoObj> atomicFifo() {
    return RealFifo.<FifoObj>builder(RealFifoClientGoTest::keyOf).build();
  }

  private static Delta<FifoObj> delta(DeltaType type, Object obj) {
    return new Delta<>(type, obj);
  }

  private static DeletedFinalStateUnknown<FifoObj> tombstone(String key, FifoObj obj) {
    return new DeletedFinalStateUnknown<>(key, obj);
  }

  /** client-go's {@code Pop(f)}: pops one delta (the FIFO must not be empty). */
  private static Delta<FifoObj> pop(RealFifo<FifoObj> f) {
    return popWithInitial(f).delta();
  }

  private record Popped(Delta<FifoObj> delta, boolean isInInitialList) {}

  /** client-go's {@code pop2}: one delta and its {@code isInInitialList}. */
  private static Popped popWithInitial(RealFifo<FifoObj> f) {
    assertThat(f.size()).as("pop would block on an empty FIFO").isPositive();
    List<Popped> out = new ArrayList<>();
    try {
      assertThat(f.pop((d, initial) -> out.add(new Popped(d, initial)))).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    return out.get(0);
  }

  /** client-go's {@code popN} followed by {@code collapseDeltas}. */
  private static List<Delta<FifoObj>> popN(RealFifo<FifoObj> f, int count) {
    List<Delta<FifoObj>> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(pop(f));
    }
    return out;
  }

  /** client-go's {@code testRealFIFOPop(f).val}. */
  private static Object popVal(RealFifo<FifoObj> f) {
    return ((FifoObj) pop(f).object()).val();
  }

  /** One {@code PopBatch}: the deltas handed over and whether they were of the initial list. */
  private static List<Delta<FifoObj>> popBatch(RealFifo<FifoObj> f, List<FifoObj> initialSeen) {
    assertThat(f.size()).as("popBatch would block on an empty FIFO").isPositive();
    List<Delta<FifoObj>> out = new ArrayList<>();
    try {
      f.popBatch(
          (ds, initial) -> {
            out.addAll(ds);
            if (initial) {
              ds.forEach(d -> initialSeen.add((FifoObj) d.object()));
            }
          },
          (d, initial) -> {
            out.add(d);
            if (initial) {
              initialSeen.add((FifoObj) d.object());
            }
          });
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    return out;
  }

  // ---- the cases -------------------------------------------------------------------------------

  /**
   * {@code TestRealFIFO_basic}: two producers of 500 adds each, interleaved (here by a seeded
   * random on the test thread instead of two goroutines), come out in each producer's order.
   */
  @Test
  void basic() {
    RealFifo<FifoObj> f = fifo(known());
    int amount = 500;
    SplittableRandom random = new SplittableRandom(20);
    int a = 0;
    long b = 0;
    while (a < amount || b < amount) {
      if (b == amount || (a < amount && random.nextBoolean())) {
        f.add(obj("a" + (char) a, a + 1));
        a++;
      } else {
        f.add(obj("b" + (char) b, b + 1));
        b++;
      }
    }

    int lastInt = 0;
    long lastLong = 0;
    for (int i = 0; i < amount * 2; i++) {
      Object val = popVal(f);
      if (val instanceof Integer n) {
        assertThat(n).as("int out of order").isGreaterThan(lastInt);
        lastInt = n;
      } else {
        assertThat((Long) val).as("long out of order").isGreaterThan(lastLong);
        lastLong = (Long) val;
      }
    }
    assertThat(lastInt).isEqualTo(amount);
    assertThat(lastLong).isEqualTo(amount);
  }

  /**
   * {@code TestRealFIFO_replaceWithDeleteDeltaIn}: a relist that lists a key whose deletion is
   * queued queues the listed object after the deletion (kubernetes#83810).
   */
  @Test
  void replaceWithDeleteDeltaIn() {
    FifoObj oldObj = obj("foo", 1);
    FifoObj newObj = obj("foo", 2);
    RealFifo<FifoObj> f = fifo(known(oldObj));

    f.delete(oldObj);
    f.replace(List.of(newObj), "");

    assertThat(f.queuedDeltas())
        .containsExactly(delta(DeltaType.DELETED, oldObj), delta(DeltaType.REPLACED, newObj));
  }

  record OpsCase(String name, Consumer<RealFifo<FifoObj>> operations, List<Delta<FifoObj>> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<OpsCase> replaceMakesDeletionsForObjectsOnlyInQueueCases() {
    FifoObj o = obj("foo", 2);
    FifoObj oV2 = obj("foo", 3);
    return Stream.of(
        new OpsCase(
            "Added object should be deleted on Replace",
            f -> {
              f.add(o);
              f.replace(List.of(), "0");
            },
            List.of(delta(DeltaType.ADDED, o), delta(DeltaType.DELETED, tombstone("foo", o)))),
        new OpsCase(
            "Deleted object should have only a single Delete",
            f -> {
              f.add(o);
              f.delete(o);
              f.replace(List.of(), "0");
            },
            List.of(delta(DeltaType.ADDED, o), delta(DeltaType.DELETED, o))),
        new OpsCase(
            "Synced objects should have a single delete",
            f -> {
              f.add(o);
              f.replace(List.of(o), "0");
              f.replace(List.of(o), "0");
              f.replace(List.of(), "0");
            },
            List.of(
                delta(DeltaType.ADDED, o),
                delta(DeltaType.REPLACED, o),
                delta(DeltaType.REPLACED, o),
                delta(DeltaType.DELETED, tombstone("foo", o)))),
        new OpsCase(
            "Added objects should have a single delete on multiple Replaces",
            f -> {
              f.add(o);
              f.replace(List.of(), "0");
              f.replace(List.of(), "1");
            },
            List.of(delta(DeltaType.ADDED, o), delta(DeltaType.DELETED, tombstone("foo", o)))),
        new OpsCase(
            "Added and deleted and added object should be deleted",
            f -> {
              f.add(o);
              f.delete(o);
              f.add(oV2);
              f.replace(List.of(), "0");
            },
            List.of(
                delta(DeltaType.ADDED, o),
                delta(DeltaType.DELETED, o),
                delta(DeltaType.ADDED, oV2),
                delta(DeltaType.DELETED, tombstone("foo", oV2)))),
        new OpsCase(
            "Bookmark object should not be added without atomic",
            f -> {
              f.bookmark("123");
              f.replace(List.of(), "0");
              f.replace(List.of(), "1");
            },
            List.of()));
  }

  /**
   * {@code TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue}: a relist deletes what only the
   * queue knows, once.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("replaceMakesDeletionsForObjectsOnlyInQueueCases")
  void replaceMakesDeletionsForObjectsOnlyInQueue(OpsCase c) {
    RealFifo<FifoObj> f = fifo(known());
    c.operations().accept(f);
    assertThat(popN(f, f.size())).isEqualTo(c.expected());
    assertThat(f.size()).isZero();
  }

  /** {@code TestRealFIFO_addUpdate}: add, update and delete of one key are all queued, in order. */
  @Test
  void addUpdate() throws Exception {
    RealFifo<FifoObj> f = fifo(known());
    f.add(obj("foo", 10));
    f.update(obj("foo", 12));
    f.delete(obj("foo", 15));

    assertThat(f.queuedDeltas())
        .containsExactly(
            delta(DeltaType.ADDED, obj("foo", 10)),
            delta(DeltaType.UPDATED, obj("foo", 12)),
            delta(DeltaType.DELETED, obj("foo", 15)));
    assertThat(popVal(f)).isEqualTo(10);
    assertThat(popVal(f)).isEqualTo(12);
    assertThat(popVal(f)).isEqualTo(15);
    assertThat(f.size()).isZero();

    f.close();
    assertThat(f.pop((d, initial) -> {})).as("closed and empty").isFalse();
  }

  /**
   * {@code TestRealFIFO_transformer}: every object is transformed exactly once; tombstones made by a
   * relist carry the transformed object and are not transformed again.
   */
  @Test
  void transformer() {
    AtomicInteger calls = new AtomicInteger();
    java.util.function.UnaryOperator<FifoObj> xfrm =
        o -> {
          calls.incrementAndGet();
          ((RvAndXfrm) o.val()).xfrm++;
          return o;
        };
    RealFifo<FifoObj> f =
        RealFifo.<FifoObj>builder(RealFifoClientGoTest::keyOf)
            .knownObjects(known())
            .transform(xfrm)
            .build();
    f.add(mk("foo", 10));
    f.add(mk("bar", 11));
    f.update(mk("foo", 12));
    f.delete(mk("foo", 15));
    f.replace(List.of(), "");
    f.add(mk("bar", 16));
    f.replace(List.of(), "");

    List<Delta<FifoObj>> expected =
        List.of(
            delta(DeltaType.ADDED, transformed("foo", 10)),
            delta(DeltaType.ADDED, transformed("bar", 11)),
            delta(DeltaType.UPDATED, transformed("foo", 12)),
            delta(DeltaType.DELETED, transformed("foo", 15)),
            delta(DeltaType.DELETED, tombstone("bar", transformed("bar", 11))),
            delta(DeltaType.ADDED, transformed("bar", 16)),
            delta(DeltaType.DELETED, tombstone("bar", transformed("bar", 16))));
    List<Delta<FifoObj>> actual = f.queuedDeltas();
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.get(i).type()).as("type %d", i).isEqualTo(expected.get(i).type());
      assertThat(f.keyOf(actual.get(i))).as("key %d", i).isEqualTo(f.keyOf(expected.get(i)));
    }
    for (int i = 0; i < expected.size(); i++) {
      assertThat(pop(f)).as("pop %d", i).isEqualTo(expected.get(i));
    }
    assertThat(calls).as("one transform per object given").hasValue(5);
  }

  private static FifoObj mk(String name, int rv) {
    return obj(name, new RvAndXfrm(rv, 0));
  }

  private static FifoObj transformed(String name, int rv) {
    return obj(name, new RvAndXfrm(rv, 1));
  }

  /** {@code TestRealFIFO_enqueueingNoLister}: without compression every change is queued. */
  @Test
  void enqueueingNoLister() {
    RealFifo<FifoObj> f = fifo(known());
    f.add(obj("foo", 10));
    f.update(obj("bar", 15));
    f.add(obj("qux", 17));
    f.delete(obj("qux", 18));
    f.delete(obj("baz", 20)); // RealFIFO queues everything

    for (int expect : List.of(10, 15, 17, 18, 20)) {
      assertThat(popVal(f)).isEqualTo(expect);
    }
    assertThat(f.size()).isZero();
  }

  /** {@code TestRealFIFO_enqueueingWithLister}: the delete of a known key is queued. */
  @Test
  void enqueueingWithLister() {
    RealFifo<FifoObj> f = fifo(fooBarBaz());
    f.add(obj("foo", 10));
    f.update(obj("bar", 15));
    f.delete(obj("baz", 20));

    for (int expect : List.of(10, 15, 20)) {
      assertThat(popVal(f)).isEqualTo(expect);
    }
    assertThat(f.size()).isZero();
  }

  /** {@code TestRealFIFO_addReplace}: an add, then a relist listing the key: both delivered. */
  @Test
  void addReplace() throws Exception {
    RealFifo<FifoObj> f = fifo(known());
    f.add(obj("foo", 10));
    f.replace(List.of(obj("foo", 15)), "0");

    assertThat(popVal(f)).isEqualTo(10);
    assertThat(popVal(f)).isEqualTo(15);
    assertThat(f.size()).as("item did not get removed").isZero();
    f.close();
    assertThat(f.pop((d, initial) -> {})).isFalse();
  }

  /** {@code TestRealFIFO_ResyncNonExisting}: a resync skips a key with a queued delete. */
  @Test
  void resyncNonExisting() {
    RealFifo<FifoObj> f = fifo(known(obj("foo", 5)));
    f.delete(obj("foo", 10));
    f.resync();

    assertThat(f.queuedDeltas()).extracting(Delta::type).containsExactly(DeltaType.DELETED);
  }

  /** {@code TestRealFIFO_Resync}: a resync queues a Sync for a known key. */
  @Test
  void resync() {
    RealFifo<FifoObj> f = fifo(known(obj("foo", 5)));
    f.resync();

    assertThat(f.queuedDeltas()).containsExactly(delta(DeltaType.SYNC, obj("foo", 5)));
  }

  /** {@code TestRealFIFO_DeleteExistingNonPropagated}: add then delete queues both. */
  @Test
  void deleteExistingNonPropagated() {
    RealFifo<FifoObj> f = fifo(known());
    f.add(obj("foo", 5));
    f.delete(obj("foo", 6));

    assertThat(f.queuedDeltas()).extracting(Delta::type)
        .containsExactly(DeltaType.ADDED, DeltaType.DELETED);
  }

  /**
   * {@code TestRealFIFO_ReplaceMakesDeletions}: the deletions a relist infers, from the queue and
   * from the known objects, come before the listed objects.
   */
  @Test
  void replaceMakesDeletions() {
    // With a pre-existing Delete.
    RealFifo<FifoObj> f = fifo(fooBarBaz());
    f.delete(obj("baz", 10));
    f.replace(List.of(obj("foo", 5)), "0");
    assertThat(popN(f, 3))
        .containsExactly(
            delta(DeltaType.DELETED, obj("baz", 10)),
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 6))),
            delta(DeltaType.REPLACED, obj("foo", 5)));

    // Starting with an Add instead of a Delete.
    f = fifo(fooBarBaz());
    f.add(obj("baz", 10));
    f.replace(List.of(obj("foo", 5)), "0");
    assertThat(popN(f, 4))
        .containsExactly(
            delta(DeltaType.ADDED, obj("baz", 10)),
            delta(DeltaType.DELETED, tombstone("baz", obj("baz", 10))),
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 6))),
            delta(DeltaType.REPLACED, obj("foo", 5)));

    // Deleting and recreating the object in the queue, then deleting it by a Replace.
    f = fifo(fooBarBaz());
    f.delete(obj("bar", 6));
    f.add(obj("bar", 100));
    f.replace(List.of(obj("foo", 5)), "0");
    assertThat(popN(f, 5))
        .containsExactly(
            delta(DeltaType.DELETED, obj("bar", 6)),
            delta(DeltaType.ADDED, obj("bar", 100)),
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 100))),
            delta(DeltaType.DELETED, tombstone("baz", obj("baz", 7))),
            delta(DeltaType.REPLACED, obj("foo", 5)));

    // Syncing first, so that the delete uses the latest version.
    f = fifo(fooBarBaz());
    f.replace(List.of(obj("bar", 100), obj("foo", 5)), "0");
    f.replace(List.of(obj("foo", 5)), "0");
    assertThat(popN(f, 5))
        .containsExactly(
            delta(DeltaType.DELETED, tombstone("baz", obj("baz", 7))),
            delta(DeltaType.REPLACED, obj("bar", 100)),
            delta(DeltaType.REPLACED, obj("foo", 5)),
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 100))),
            delta(DeltaType.REPLACED, obj("foo", 5)));

    // With no known objects.
    f = fifo(known());
    f.add(obj("baz", 10));
    f.replace(List.of(obj("foo", 5)), "0");
    assertThat(popN(f, 3))
        .containsExactly(
            delta(DeltaType.ADDED, obj("baz", 10)),
            delta(DeltaType.DELETED, tombstone("baz", obj("baz", 10))),
            delta(DeltaType.REPLACED, obj("foo", 5)));
    assertThat(f.size()).isZero();
  }

  /** {@code TestRealFIFO_ReplaceMakesDeletionsReplaced}: the listed object is a Replaced delta. */
  @Test
  void replaceMakesDeletionsReplaced() {
    RealFifo<FifoObj> f = fifo(fooBarBaz());
    f.delete(obj("baz", 10));
    f.replace(List.of(obj("foo", 6)), "0");

    assertThat(popN(f, 3))
        .containsExactly(
            delta(DeltaType.DELETED, obj("baz", 10)),
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 6))),
            delta(DeltaType.REPLACED, obj("foo", 6)));
  }

  /** {@code TestRealFIFO_UpdateResyncRace}: a resync skips a key with a queued update. */
  @Test
  void updateResyncRace() {
    RealFifo<FifoObj> f = fifo(known(obj("foo", 5)));
    f.update(obj("foo", 6));
    f.resync();

    assertThat(pop(f)).isEqualTo(delta(DeltaType.UPDATED, obj("foo", 6)));
    assertThat(f.size()).isZero();
  }

  /**
   * {@code TestRealFIFO_HasSyncedCorrectOnDeletion}: the deletions a first relist infers are part
   * of the initial list, and the FIFO syncs only once all were popped.
   */
  @Test
  void hasSyncedCorrectOnDeletion() {
    RealFifo<FifoObj> f = fifo(fooBarBaz());
    f.replace(List.of(obj("foo", 5)), "0");

    List<Delta<FifoObj>> expected =
        List.of(
            delta(DeltaType.DELETED, tombstone("bar", obj("bar", 6))),
            delta(DeltaType.DELETED, tombstone("baz", obj("baz", 7))),
            delta(DeltaType.REPLACED, obj("foo", 5)));
    for (Delta<FifoObj> e : expected) {
      assertThat(f.hasSynced()).isFalse();
      Popped p = popWithInitial(f);
      assertThat(p.delta()).isEqualTo(e);
      assertThat(p.isInInitialList()).as("initial list item").isTrue();
    }
    assertThat(f.hasSynced()).isTrue();
  }

  /** {@code TestRealFIFO_detectLineJumpers}: a later change of a key never jumps the queue. */
  @Test
  void detectLineJumpers() {
    RealFifo<FifoObj> f = fifo(known());
    f.add(obj("foo", 10));
    f.add(obj("bar", 1));
    f.add(obj("foo", 11));
    f.add(obj("foo", 13));
    f.add(obj("zab", 30));

    assertThat(popVal(f)).isEqualTo(10);
    f.add(obj("foo", 14)); // ensure foo doesn't jump back in line
    for (int expect : List.of(1, 11, 13, 30, 14)) {
      assertThat(popVal(f)).isEqualTo(expect);
    }
  }

  /** {@code TestRealFIFO_KeyOf}: keys of objects, tombstones and lists of deltas. */
  @Test
  void keyOf() {
    RealFifo<FifoObj> f = atomicFifo();
    assertThat(f.keyOf(obj("A", 0))).isEqualTo("A");
    assertThat(f.keyOf(new DeletedFinalStateUnknown<FifoObj>("B", null))).isEqualTo("B");
    assertThat(f.keyOf(List.of(delta(DeltaType.ADDED, obj("C", 0))))).isEqualTo("C");
    assertThat(
            f.keyOf(List.of(delta(DeltaType.DELETED, new DeletedFinalStateUnknown<FifoObj>("D", null)))))
        .isEqualTo("D");
  }

  record SyncCase(String name, List<Consumer<RealFifo<FifoObj>>> actions, boolean synced) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<SyncCase> hasSyncedCases() {
    Consumer<RealFifo<FifoObj>> pop = RealFifoClientGoTest::pop;
    return Stream.of(
        new SyncCase("no action", List.of(), false),
        new SyncCase("an add", List.of(f -> f.add(obj("a", 1))), true),
        new SyncCase("an empty replace", List.of(f -> f.replace(List.of(), "0")), true),
        new SyncCase(
            "a replace of two",
            List.of(f -> f.replace(List.of(obj("a", 1), obj("b", 2)), "0")),
            false),
        new SyncCase(
            "a replace of two, one popped",
            List.of(f -> f.replace(List.of(obj("a", 1), obj("b", 2)), "0"), pop),
            false),
        new SyncCase(
            "a replace of two, both popped",
            List.of(f -> f.replace(List.of(obj("a", 1), obj("b", 2)), "0"), pop, pop),
            true),
        new SyncCase(
            "a replace listing a key twice, both popped",
            List.of(f -> f.replace(List.of(obj("a", 1), obj("a", 2)), "0"), pop, pop),
            true));
  }

  /** {@code TestRealFIFO_HasSynced}. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("hasSyncedCases")
  void hasSynced(SyncCase c) {
    RealFifo<FifoObj> f = fifo(known());
    c.actions().forEach(a -> a.accept(f));
    assertThat(f.hasSynced()).isEqualTo(c.synced());
  }

  /**
   * {@code TestRealFIFO_PopShouldUnblockWhenClosed}: pops waiting on an empty FIFO return once it is
   * closed. Real threads, as the case is about threads blocked in pop; whether each is already
   * waiting when the FIFO closes or pops after, it must return false having processed nothing.
   */
  @Test
  void popShouldUnblockWhenClosed() throws Exception {
    RealFifo<FifoObj> f = fifo(known(obj("foo", 5)));
    int jobs = 10;
    List<Thread> threads = new ArrayList<>();
    AtomicInteger returnedFalse = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();
    for (int i = 0; i < jobs; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  if (!f.pop((d, initial) -> processed.incrementAndGet())) {
                    returnedFalse.incrementAndGet();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "pop-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }

    f.close();

    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(t.isAlive()).as("%s still blocked in pop after close", t.getName()).isFalse();
    }
    assertThat(returnedFalse).hasValue(jobs);
    assertThat(processed).hasValue(0);
  }

  record BatchCase(
      String name,
      List<FifoObj> initialItems,
      List<Consumer<RealFifo<FifoObj>>> actions,
      int batchSize,
      List<List<Delta<FifoObj>>> expectedBatches) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BatchCase> popMultipleDeltaInBatchCases() {
    int unlimited = 999_999;
    FifoObj o1 = obj("foo1", 5);
    FifoObj o2 = obj("foo2", 5);
    FifoObj o3 = obj("foo3", 5);
    FifoObj o4 = obj("foo4", 5);
    DeltaType r = DeltaType.REPLACED;
    DeltaType u = DeltaType.UPDATED;
    return Stream.of(
        new BatchCase(
            "non-split: pop unique items should work",
            List.of(o1, o2, o3),
            List.of(),
            unlimited,
            List.of(List.of(delta(r, o1), delta(r, o2), delta(r, o3)))),
        new BatchCase(
            "split due to initial list: initial 2 items with 2 updates should have 2 batches",
            List.of(o1, o2),
            List.of(f -> f.update(o3), f -> f.update(o4)),
            2,
            List.of(List.of(delta(r, o1), delta(r, o2)), List.of(delta(u, o3), delta(u, o4)))),
        new BatchCase(
            "split due to non-unique#1: update single item for multiple items should have separate"
                + " batch",
            List.of(o1),
            List.of(f -> f.update(o1), f -> f.update(o1)),
            unlimited,
            List.of(List.of(delta(r, o1)), List.of(delta(u, o1)), List.of(delta(u, o1)))),
        new BatchCase(
            "split due to non-unique#2: update 3 item for with non-unique item at the end should"
                + " have separate batch",
            List.of(o1, o2),
            List.of(f -> f.update(o2), f -> f.update(o3)),
            unlimited,
            List.of(List.of(delta(r, o1), delta(r, o2)), List.of(delta(u, o2), delta(u, o3)))),
        new BatchCase(
            "split due to non-unique#3: update 3 item for with non-unique item in the mid should"
                + " have separate batch",
            List.of(o1, o2, o3),
            List.of(f -> f.update(o2)),
            unlimited,
            List.of(List.of(delta(r, o1), delta(r, o2), delta(r, o3)), List.of(delta(u, o2)))),
        new BatchCase(
            "split due to batch size#1: batching initial list should work",
            List.of(o1, o2, o3),
            List.of(),
            2,
            List.of(List.of(delta(r, o1), delta(r, o2)), List.of(delta(r, o3)))),
        new BatchCase(
            "split due to batch size#2: batching incoming non-initial deltas should work",
            List.of(),
            List.of(f -> f.update(o1), f -> f.update(o2), f -> f.update(o3)),
            2,
            List.of(List.of(delta(u, o1), delta(u, o2)), List.of(delta(u, o3)))),
        new BatchCase(
            "split due to batch size#3: pop 4 mixed initial & non-initial items with 2 batch size"
                + " should have 3 batch",
            List.of(o1, o2, o3),
            List.of(f -> f.update(o4)),
            2,
            List.of(
                List.of(delta(r, o1), delta(r, o2)), List.of(delta(r, o3)), List.of(delta(u, o4)))));
  }

  /**
   * {@code TestRealFIFO_PopMultipleDeltaInBatch}: a batch is the longest run of distinct keys from
   * the head, bounded by the batch size and by the end of the initial list.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("popMultipleDeltaInBatchCases")
  void popMultipleDeltaInBatch(BatchCase c) {
    RealFifo<FifoObj> f =
        RealFifo.<FifoObj>builder(RealFifoClientGoTest::keyOf)
            .knownObjects(known(c.initialItems().toArray(FifoObj[]::new)))
            .batchSize(c.batchSize())
            .build();
    f.replace(c.initialItems(), "123");
    c.actions().forEach(a -> a.accept(f));

    List<List<Delta<FifoObj>>> batches = new ArrayList<>();
    List<FifoObj> initialSeen = new ArrayList<>();
    while (f.size() > 0) {
      batches.add(popBatch(f, initialSeen));
    }
    f.close();

    assertThat(batches).isEqualTo(c.expectedBatches());
    assertThat(initialSeen).as("isInInitialList").isEqualTo(c.initialItems());
  }

  /**
   * {@code TestRealFIFO_PopBrokenItemsInBatch}. client-go's case appends unkeyable objects to the
   * queue's slice directly, bypassing {@code addToItems_locked}, which refuses them as this FIFO
   * does; so here they are refused at enqueue (a {@link KeyException}, nothing queued) and the
   * batches hold only keyed deltas. What client-go does with an unkeyable delta inside the queue
   * (close the batch after it) has no counterpart: a queued delta here always has its key.
   */
  @Test
  void popBrokenItemsInBatch() {
    FifoObj ok1 = obj("foo1", 5);
    FifoObj ok2 = obj("foo2", 5);
    FifoObj fail3 = obj("foo3", 5);
    FifoObj fail4 = obj("foo4", 5);
    RealFifo<FifoObj> f =
        RealFifo.<FifoObj>builder(
                o -> {
                  if (o.equals(fail3) || o.equals(fail4)) {
                    throw new IllegalStateException("test key func error");
                  }
                  return o.name();
                })
            .knownObjects(known())
            .batchSize(999_999)
            .build();

    for (FifoObj o : List.of(fail3, ok1, ok2, fail4)) {
      if (o == fail3 || o == fail4) {
        assertThatThrownBy(() -> f.add(o))
            .isInstanceOf(KeyException.class)
            .hasRootCauseMessage("test key func error");
      } else {
        f.add(o);
      }
    }

    List<FifoObj> initialSeen = new ArrayList<>();
    assertThat(popBatch(f, initialSeen))
        .containsExactly(delta(DeltaType.ADDED, ok1), delta(DeltaType.ADDED, ok2));
    assertThat(f.size()).isZero();
    assertThat(initialSeen).as("an add before any replace syncs the FIFO").isEmpty();
  }

  static Stream<OpsCase> replaceAtomicCases() {
    FifoObj o = obj("foo", 2);
    return Stream.of(
        new OpsCase(
            "Base replace",
            f -> f.replace(List.of(), "123"),
            List.of(Delta.replacedAll(List.of(), "123"))),
        new OpsCase(
            "Added object exists in deltas on Atomic Replace",
            f -> {
              f.add(o);
              f.replace(List.of(), "123");
            },
            List.of(delta(DeltaType.ADDED, o), Delta.replacedAll(List.of(), "123"))),
        new OpsCase(
            "Multiple replaces run in order",
            f -> {
              f.add(o);
              f.replace(List.of(o), "10");
              f.replace(List.of(o), "20");
              f.replace(List.of(), "56");
            },
            List.of(
                delta(DeltaType.ADDED, o),
                Delta.replacedAll(List.of(o), "10"),
                Delta.replacedAll(List.of(o), "20"),
                Delta.replacedAll(List.of(), "56"))),
        new OpsCase(
            "Bookmark object should not be included in Replace",
            f -> {
              f.bookmark("123");
              f.replace(List.of(), "1234");
            },
            List.of(Delta.bookmark("123"), Delta.replacedAll(List.of(), "1234"))));
  }

  /**
   * {@code TestRealFIFO_ReplaceAtomic}: with atomic events a relist is one {@code ReplacedAll}
   * delta, queued after what came before it, bookmarks included.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("replaceAtomicCases")
  void replaceAtomic(OpsCase c) {
    RealFifo<FifoObj> f = atomicFifo();
    c.operations().accept(f);
    assertThat(popN(f, f.size())).isEqualTo(c.expected());
    assertThat(f.size()).isZero();
  }

  /** {@code TestRealFIFO_ReplaceAtomicPop}: an add, then the atomic relist, popped in order. */
  @Test
  void replaceAtomicPop() throws Exception {
    RealFifo<FifoObj> f = atomicFifo();
    f.add(obj("foo", 10));
    f.replace(List.of(obj("foo", 15)), "20");

    assertThat(pop(f)).isEqualTo(delta(DeltaType.ADDED, obj("foo", 10)));
    Delta<FifoObj> replaced = pop(f);
    assertThat(replaced.type()).isEqualTo(DeltaType.REPLACED_ALL);
    Delta.ReplacedAllInfo<?> info = (Delta.ReplacedAllInfo<?>) replaced.object();
    assertThat(List.<Object>copyOf(info.objects())).containsExactly(obj("foo", 15));
    assertThat(info.resourceVersion()).isEqualTo("20");
    assertThat(f.size()).as("item did not get removed").isZero();
    f.close();
    assertThat(f.pop((d, initial) -> {})).isFalse();
  }

  static Stream<OpsCase> resyncAtomicCases() {
    FifoObj o = obj("foo", 2);
    return Stream.of(
        new OpsCase("Base resync", RealFifo::resync, List.of(Delta.syncAll())),
        new OpsCase(
            "Added object exists in deltas on Atomic Resync",
            f -> {
              f.add(o);
              f.resync();
            },
            List.of(delta(DeltaType.ADDED, o), Delta.syncAll())));
  }

  /** {@code TestRealFIFO_ResyncAtomic}: with atomic events a resync is one {@code SyncAll}. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("resyncAtomicCases")
  void resyncAtomic(OpsCase c) {
    RealFifo<FifoObj> f = atomicFifo();
    c.operations().accept(f);
    assertThat(popN(f, f.size())).isEqualTo(c.expected());
    assertThat(f.size()).isZero();
  }
}

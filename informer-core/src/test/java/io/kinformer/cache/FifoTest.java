package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.key;
import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static io.kinformer.cache.DeltaFifoTestPods.rv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The plain FIFO (client-go's fifo_test.go, and the 0.36 semantics of Pop and Delete). */
class FifoTest {

  private final List<Fifo<Pod>> fifos = new ArrayList<>();

  private Fifo<Pod> fifo() {
    Fifo<Pod> f = Fifo.create(Keys::metaNamespaceKey);
    fifos.add(f);
    return f;
  }

  @AfterEach
  void invariantsHold() {
    fifos.forEach(Fifo::checkInvariants);
  }

  /** Pops one object that must be queued (so the test fails instead of blocking if it is not). */
  private static Pod popQueued(Fifo<Pod> f) throws InterruptedException {
    if (f.isEmpty()) {
      throw new AssertionError("expected a queued object, but the FIFO is empty");
    }
    return f.pop((obj, isInInitialList) -> {}).orElseThrow();
  }

  @Test
  void addAndUpdate_keepOnlyTheNewestObject_andPopRemovesIt() throws Exception {
    // TestFIFO_addUpdate
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.update(pod("foo", 15));

    assertThat(f.list()).containsExactly(pod("foo", 15));
    assertThat(f.listKeys()).containsExactly(key("foo"));
    assertThat(f.get(pod("foo", 0))).contains(pod("foo", 15));

    assertThat(popQueued(f)).isEqualTo(pod("foo", 15));
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.getByKey(key("foo"))).isEmpty();
  }

  @Test
  void replace_afterAdd_replacesTheQueuedObject() throws Exception {
    // TestFIFO_addReplace
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.replace(List.of(pod("foo", 15)), "15");

    assertThat(popQueued(f)).isEqualTo(pod("foo", 15));
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.get(pod("foo", 0))).isEmpty();
  }

  @Test
  void add_whenKeyIsQueued_keepsItsPlace() throws Exception {
    // TestFIFO_detectLineJumpers
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 10));
    f.add(pod("bar", 1));
    f.add(pod("foo", 11));
    f.add(pod("foo", 13));
    f.add(pod("zab", 30));

    assertThat(rv(popQueued(f))).isEqualTo(13);
    f.add(pod("foo", 14)); // a popped key goes to the back
    assertThat(rv(popQueued(f))).isEqualTo(1);
    assertThat(rv(popQueued(f))).isEqualTo(30);
    assertThat(rv(popQueued(f))).isEqualTo(14);
  }

  @Test
  void delete_dropsTheObjectAndPopSkipsItsPlace() throws Exception {
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    f.add(pod("bar", 2));
    f.delete(pod("foo", 3));

    assertThat(f.listKeys()).containsExactly(key("bar"));
    assertThat(f.getByKey(key("foo"))).isEmpty();
    assertThat(popQueued(f)).isEqualTo(pod("bar", 2));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void add_afterDelete_isPoppedAtTheKeysFirstPlace() throws Exception {
    // client-go keeps the deleted key's place in its queue; a re-added key is popped there.
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    f.add(pod("bar", 2));
    f.delete(pod("foo", 3));
    f.add(pod("foo", 4));

    assertThat(f.listKeys()).containsExactly(key("foo"), key("bar"));
    assertThat(popQueued(f)).isEqualTo(pod("foo", 4));
    assertThat(popQueued(f)).isEqualTo(pod("bar", 2));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void replace_makesTheQueueExactlyTheList_inListOrder() throws Exception {
    Fifo<Pod> f = fifo();
    f.add(pod("old", 1));
    f.replace(List.of(pod("b", 2), pod("a", 3), pod("b", 4)), "4");

    assertThat(f.listKeys()).containsExactly(key("b"), key("a"));
    assertThat(f.list()).containsExactly(pod("b", 4), pod("a", 3));
    assertThat(popQueued(f)).isEqualTo(pod("b", 4));
    assertThat(popQueued(f)).isEqualTo(pod("a", 3));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void resync_whenEveryKeyHasItsPlace_changesNothing() throws Exception {
    Fifo<Pod> f = fifo();
    f.add(pod("a", 1));
    f.add(pod("b", 2));
    f.resync();
    assertThat(f.listKeys()).containsExactly(key("a"), key("b"));
    assertThat(popQueued(f)).isEqualTo(pod("a", 1));
    assertThat(popQueued(f)).isEqualTo(pod("b", 2));
    assertThat(f.isEmpty()).isTrue();
  }

  @Test
  void pop_whenProcessorThrows_propagatesAndDoesNotRequeue() throws Exception {
    // client-go 0.36: Pop returns the process error; ErrRequeue and AddIfNotPresent are gone.
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    f.add(pod("bar", 2));
    IllegalStateException boom = new IllegalStateException("boom");

    assertThatThrownBy(
            () ->
                f.pop(
                    (obj, initial) -> {
                      throw boom;
                    }))
        .isSameAs(boom);

    assertThat(f.listKeys()).containsExactly(key("bar"));
    assertThat(f.getByKey(key("foo"))).isEmpty();
  }

  @Test
  void pop_whenInitialListDrained_reportsIsInInitialListOnlyForItsObjects() throws Exception {
    Fifo<Pod> f = fifo();
    List<Boolean> flags = new ArrayList<>();
    Fifo.PopProcessor<Pod> record = (obj, isInInitialList) -> flags.add(isInInitialList);

    f.replace(List.of(pod("a", 1), pod("b", 1)), "1");
    f.add(pod("c", 2));
    f.pop(record);
    f.pop(record);
    f.pop(record);

    assertThat(flags).containsExactly(true, true, false);
  }

  @Test
  void pop_ofTheLastInitialObject_syncsOnlyAfterItsProcessorReturned() throws Exception {
    Fifo<Pod> f = fifo();
    f.replace(List.of(pod("a", 1)), "1");
    AtomicReference<Boolean> syncedDuringProcessing = new AtomicReference<>();

    f.pop((obj, initial) -> syncedDuringProcessing.set(f.hasSynced()));

    assertThat(syncedDuringProcessing.get()).isFalse();
    assertThat(f.hasSynced()).isTrue();
    assertThat(f.synced()).isCompleted();
  }

  @Test
  void pop_whenTheLastInitialObjectsProcessorThrows_stillSyncs() {
    Fifo<Pod> f = fifo();
    f.replace(List.of(pod("a", 1)), "1");

    assertThatThrownBy(
            () ->
                f.pop(
                    (obj, initial) -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");

    assertThat(f.hasSynced()).isTrue();
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
    void apply(Fifo<Pod> f) throws InterruptedException;
  }

  static Stream<SyncCase> syncCases() {
    FifoAction replaceTwo = f -> f.replace(List.of(pod("a", 1), pod("b", 2)), "0");
    FifoAction pop = FifoTest::popQueued;
    return Stream.of(
        // TestFIFO_HasSynced
        new SyncCase("nothing happened", List.of(), false),
        new SyncCase("an add came first", List.of(f -> f.add(pod("a", 1))), true),
        new SyncCase("an empty replace", List.of(f -> f.replace(List.of(), "0")), true),
        new SyncCase("a replace of two, nothing popped", List.of(replaceTwo), false),
        new SyncCase("a replace of two, one popped", List.of(replaceTwo, pop), false),
        new SyncCase("a replace of two, both popped", List.of(replaceTwo, pop, pop), true),
        // and the other writes
        new SyncCase("an update came first", List.of(f -> f.update(pod("a", 1))), true),
        new SyncCase("a delete came first", List.of(f -> f.delete(pod("a", 1))), true),
        new SyncCase(
            "a replace listing one key twice, popped once",
            List.of(f -> f.replace(List.of(pod("a", 1), pod("a", 2)), "0"), pop),
            true),
        new SyncCase(
            "a replace of two, one deleted, the other popped",
            List.of(replaceTwo, f -> f.delete(pod("a", 1)), pop),
            true),
        new SyncCase(
            "an add after the replace does not sync it early",
            List.of(replaceTwo, f -> f.add(pod("c", 3)), pop),
            false),
        new SyncCase(
            "a second replace does not reset the count",
            List.of(replaceTwo, pop, pop, replaceTwo),
            true),
        new SyncCase("a resync does not populate", List.of(Fifo::resync), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("syncCases")
  void hasSynced_followsTheFirstReplacesPopulation(SyncCase c) throws Exception {
    Fifo<Pod> f = fifo();
    for (FifoAction a : c.actions()) {
      a.apply(f);
    }
    assertThat(f.hasSynced()).isEqualTo(c.expectedSynced());
    assertThat(f.synced().isDone()).isEqualTo(c.expectedSynced());
  }

  @Test
  void pop_afterSkippingTheLastInitialPlace_reportsALaterObjectNotInInitialList()
      throws Exception {
    // client-go defers the sync check of a skipped place until its Pop returns, so it would
    // report "c", queued after the list, as part of it.
    Fifo<Pod> f = fifo();
    f.replace(List.of(pod("a", 1), pod("b", 2)), "0");
    popQueued(f);
    f.add(pod("c", 3));
    f.delete(pod("b", 2));
    List<Boolean> flags = new ArrayList<>();

    Pod popped = f.pop((obj, isInInitialList) -> flags.add(isInInitialList)).orElseThrow();

    assertThat(popped).isEqualTo(pod("c", 3));
    assertThat(flags).containsExactly(false);
    assertThat(f.hasSynced()).isTrue();
  }

  @Test
  void hasSynced_whenTheLastInitialPlacesWereDeleted_syncsWhilePopWaits() throws Exception {
    // client-go defers this check until its Pop returns, that is until a later object arrives;
    // with nothing left to process for those places, we sync as they are skipped.
    Fifo<Pod> f = fifo();
    f.replace(List.of(pod("a", 1), pod("b", 2)), "0");
    popQueued(f);
    f.delete(pod("b", 2));
    List<Optional<Pod>> popped = new CopyOnWriteArrayList<>();
    Thread popper = popper(f, popped, "kinformer-test-fifo-pop");
    popper.start();

    await().until(() -> f.blockedPopCount() == 1);
    assertThat(f.hasSynced()).isTrue();

    f.close();
    popper.join();
    assertThat(popped).containsExactly(Optional.empty());
  }

  @Test
  void close_whenPopsAreBlocked_unblocksThemWithEmpty() throws Exception {
    // TestFIFO_PopShouldUnblockWhenClosed
    Fifo<Pod> f = fifo();
    int jobs = 3;
    List<Optional<Pod>> results = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      Thread t = popper(f, results, "kinformer-test-fifo-pop-" + i);
      threads.add(t);
      t.start();
    }
    await().until(() -> f.blockedPopCount() == jobs);

    f.close();

    for (Thread t : threads) {
      t.join();
    }
    assertThat(results).hasSize(jobs).allSatisfy(r -> assertThat(r).isEmpty());
    assertThat(f.isClosed()).isTrue();
  }

  @Test
  void pop_afterClose_drainsQueuedObjectsThenReturnsEmpty() throws Exception {
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    f.close();
    f.close(); // idempotent

    assertThat(popQueued(f)).isEqualTo(pod("foo", 1));
    assertThat(f.pop((obj, initial) -> {})).isEmpty();
  }

  @Test
  void pop_whenInterrupted_throwsAndPopsNothing() {
    Fifo<Pod> f = fifo();
    f.add(pod("foo", 1));
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> f.pop((obj, initial) -> {}))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(f.listKeys()).containsExactly(key("foo"));
  }

  @Test
  void pop_withConcurrentProducers_keepsEachProducersOrder() throws Exception {
    // TestFIFO_basic
    Fifo<Pod> f = fifo();
    int amount = 500;
    List<Thread> producers = new ArrayList<>();
    for (String prefix : List.of("a", "b")) {
      Thread t =
          new Thread(
              () -> {
                for (int i = 1; i <= amount; i++) {
                  f.add(pod(prefix + i, i));
                }
              },
              "kinformer-test-fifo-producer-" + prefix);
      producers.add(t);
      t.start();
    }

    Map<String, Integer> last = new ConcurrentHashMap<>(Map.of("a", 0, "b", 0));
    for (int i = 0; i < 2 * amount; i++) {
      Pod p = f.pop((obj, initial) -> {}).orElseThrow();
      String producer = p.getMetadata().getName().substring(0, 1);
      assertThat(rv(p)).isGreaterThan(last.get(producer));
      last.put(producer, rv(p));
    }
    for (Thread t : producers) {
      t.join();
    }
    assertThat(last).containsEntry("a", amount).containsEntry("b", amount);
  }

  @Test
  void fifo_behavesAsAStore() {
    // TestFIFOCache
    StoreContract.check(fifo());
  }

  @Test
  void writes_whenKeyFunctionThrows_throwKeyExceptionAndChangeNothing() {
    IllegalArgumentException refusal = new IllegalArgumentException("no key for you");
    Fifo<Pod> f =
        Fifo.create(
            p -> {
              if (p.getMetadata().getName().equals("bad")) {
                throw refusal;
              }
              return Keys.metaNamespaceKey(p);
            });
    fifos.add(f);
    Pod bad = pod("bad", 1);

    for (FifoAction write :
        List.<FifoAction>of(
            x -> x.add(bad),
            x -> x.update(bad),
            x -> x.delete(bad),
            x -> x.replace(List.of(pod("good", 1), bad), "1"),
            x -> x.get(bad))) {
      assertThatThrownBy(() -> write.apply(f))
          .isInstanceOfSatisfying(
              KeyException.class,
              e -> {
                assertThat(e.obj()).isSameAs(bad);
                assertThat(e.getCause()).isSameAs(refusal);
              });
    }
    assertThat(f.isEmpty()).isTrue();
    assertThat(f.hasSynced()).isFalse();
  }

  private static Thread popper(Fifo<Pod> f, List<Optional<Pod>> results, String name) {
    Thread t =
        new Thread(
            () -> {
              try {
                results.add(f.pop((obj, initial) -> {}));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            name);
    t.setDaemon(true);
    return t;
  }
}

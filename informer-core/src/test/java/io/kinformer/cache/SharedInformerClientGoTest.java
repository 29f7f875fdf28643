package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.keysToRv;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.InformerTestSupport.ReplayingHandler;
import io.kinformer.cache.SharedIndexInformerTest.Recorder;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * client-go v0.36's {@code tools/cache/shared_informer_test.go}, case by case: each test names
 * its Go counterpart. Where the Go tests run goroutines, sleep and poll, these run the whole
 * informer on the test's thread ({@link SteppedInformer}): they step the reflector, run the queued
 * processing and delivery tasks and move a {@link FakeClock}, so every interleaving they assert is
 * the one they chose. The Go tests' {@code FakeControllerSource} is a {@link FakeListerWatcher}.
 * A stepped reflector starts its next cycle at once where a running one backs off, so the cases
 * that move Go's fake clock through that backoff step on instead.
 * Go's race-only cases ({@code TestSharedInformerInitializationRace}, {@code
 * TestSharedInformerStartRace}, {@code TestSharedInformerHandlerAbuse}) have no assertions and
 * rely on the race detector, which Java lacks: they are ported as the outcomes those races must
 * not change, checked at chosen interleavings. {@code TestShutdown} relies on goleak: here nothing
 * may be left scheduled, queued or open after close.
 */
class SharedInformerClientGoTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<SteppedInformer<Pod>> informers = new ArrayList<>();

  @AfterEach
  void closeAll() {
    informers.forEach(SteppedInformer::close);
  }

  private SteppedInformer<Pod> stepped(UnaryOperator<SharedIndexInformer.Builder<Pod>> options) {
    return stepped("pods", source, options);
  }

  private SteppedInformer<Pod> stepped(
      String name,
      FakeListerWatcher<Pod> src,
      UnaryOperator<SharedIndexInformer.Builder<Pod>> options) {
    SteppedInformer<Pod> i = new SteppedInformer<>(name, src, clock, options);
    informers.add(i);
    return i;
  }

  /** As Go's {@code NewSharedInformer(source, &v1.Pod{}, resync)}. */
  private SteppedInformer<Pod> informer(Duration defaultResync) {
    return stepped(b -> b.defaultResync(defaultResync));
  }

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** A handler with a name, which the informer uses for it in its logs. */
  abstract static class Named implements ResourceEventHandler<Pod> {
    private final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Go's {@code testListener}: the names of the objects it was told about by add or update. */
  static final class Names extends Named {
    final List<String> received = new ArrayList<>();

    Names(String name) {
      super(name);
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      received.add(obj.getMetadata().getName());
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      received.add(newObj.getMetadata().getName());
    }

    void reset() {
      received.clear();
    }
  }

  /** Whether the reflector waits on a watch that has nothing to read. */
  private boolean waitsOnWatch(SteppedInformer<Pod> i) {
    ReflectorState s = i.reflector().state();
    return (s instanceof ReflectorState.Watching || s instanceof ReflectorState.Streaming)
        && i.source.openWatchCount() > 0
        && i.source.readableOnOpenWatches() == 0;
  }

  /** Steps the reflector until it waits on the watch, running none of the queued tasks. */
  private void readWithoutProcessing(SteppedInformer<Pod> i) {
    for (int n = 0; !waitsOnWatch(i); n++) {
      assertThat(n).as("steps").isLessThan(1000);
      i.step();
    }
  }

  /**
   * Steps the reflector until its cycle ends, and returns why. A running reflector backs off here
   * before the next cycle (the Go tests move their fake clock through that backoff); a stepped one
   * starts the next cycle at its next {@link SteppedInformer#step()}.
   */
  private ReflectorException stepUntilTheCycleEnds(SteppedInformer<Pod> i) {
    for (int n = 0; n < 1000; n++) {
      if (i.reflector().state() instanceof ReflectorState.Idle idle && idle.lastFailure() != null) {
        return idle.lastFailure();
      }
      assertThat(waitsOnWatch(i)).as("waits on the watch in " + i.reflector().state()).isFalse();
      i.step();
    }
    throw new AssertionError("the cycle did not end in 1000 steps");
  }

  private static IndexFunc<Pod> labelKeys() {
    return p ->
        p.getMetadata().getLabels() == null
            ? List.of()
            : List.copyOf(p.getMetadata().getLabels().keySet());
  }

  /** {@code TestIndexer}. */
  @Test
  void indexer_answersForObjectsAddedLater_andAnIndexAddedLaterCoversTheCache() {
    Pod pod1 = pod("ns", "pod1", Map.of("a", "a-val", "b", "b-val1"));
    Pod pod2 = pod("ns", "pod2", Map.of("b", "b-val2"));
    Pod pod3 = pod("ns", "pod3", Map.of("a", "a-val2"));
    source.add(pod1);
    source.add(pod2);
    SteppedInformer<Pod> i = informer(SECOND);
    i.informer.addIndexers(Map.of("labels", labelKeys()));
    i.start().settle();
    ReadOnlyIndexer<Pod> indexer = i.informer.getIndexer();

    assertThat(indexer.byIndex("labels", "a")).containsExactly(pod1);

    source.add(pod3);
    i.settle();
    assertThat(indexer.byIndex("labels", "a")).containsExactlyInAnyOrder(pod1, pod3);

    i.informer.addIndexers(Map.of("labels-again", labelKeys()));
    assertThat(indexer.byIndex("labels-again", "a")).containsExactlyInAnyOrder(pod1, pod3);
    assertThat(indexer.listIndexFuncValues("labels")).containsExactlyInAnyOrder("a", "b");
    assertThat(indexer.listIndexFuncValues("labels-again")).containsExactlyInAnyOrder("a", "b");
  }

  /** {@code TestListenerResyncPeriods}. */
  @Test
  void listenersResync_eachOnItsOwnPeriod() {
    listenerResyncPeriods(Duration.ZERO);
  }

  /**
   * {@code TestListenerResyncPeriodsDelayed}: as {@code TestListenerResyncPeriods}, but the
   * initial list is queued for every listener a second before any delivery runs (Go delays its
   * {@code sharedProcessor.run}, which once deadlocked against the first {@code distribute}).
   */
  @Test
  void listenersResync_eachOnItsOwnPeriod_whenDeliveryStartsLate() {
    listenerResyncPeriods(SECOND);
  }

  private void listenerResyncPeriods(Duration startupDelay) {
    source.add(pod("ns", "pod1"));
    source.add(pod("ns", "pod2"));
    SteppedInformer<Pod> i = informer(SECOND);
    Names listener1 = new Names("listener1"); // never resyncs
    Names listener2 = new Names("listener2");
    Names listener3 = new Names("listener3");
    i.informer.addEventHandler(listener1, Duration.ZERO);
    i.informer.addEventHandler(listener2, Duration.ofSeconds(2));
    i.informer.addEventHandler(listener3, Duration.ofSeconds(3));
    List<Names> listeners = List.of(listener1, listener2, listener3);
    i.start();
    readWithoutProcessing(i);
    clock.advance(startupDelay);
    i.tasks.runAll();

    for (Names l : listeners) {
      assertThat(l.received).as(l.toString()).containsExactlyInAnyOrder("pod1", "pod2");
      l.reset();
    }

    clock.advance(Duration.ofSeconds(2).minus(startupDelay));
    i.settle();
    assertThat(listener2.received).containsExactlyInAnyOrder("pod1", "pod2");
    assertThat(listener1.received).isEmpty();
    assertThat(listener3.received).isEmpty();
    listeners.forEach(Names::reset);

    clock.advance(SECOND);
    i.settle();
    assertThat(listener3.received).containsExactlyInAnyOrder("pod1", "pod2");
    assertThat(listener1.received).isEmpty();
    assertThat(listener2.received).isEmpty();
  }

  private static Duration resyncPeriodOf(ResourceEventHandlerRegistration r) {
    return ((ProcessorListener<?>) r).resyncPeriod;
  }

  /**
   * {@code TestResyncCheckPeriod}. Go reads the informer's {@code resyncCheckPeriod} after each
   * registration; here it shows in each listener's effective period, and once started, as the
   * delay of the informer's resync check.
   */
  @Test
  void resyncCheckPeriod_beforeStart_followsTheShortestHandlerPeriod() {
    SteppedInformer<Pod> i = informer(Duration.ofHours(12));

    ResourceEventHandlerRegistration h1 =
        i.informer.addEventHandler(new Names("listener1"), Duration.ZERO);
    assertThat(resyncPeriodOf(h1)).isEqualTo(Duration.ZERO);

    ResourceEventHandlerRegistration h2 =
        i.informer.addEventHandler(new Names("listener2"), Duration.ofMinutes(1));
    assertThat(resyncPeriodOf(h1)).isEqualTo(Duration.ZERO);
    assertThat(resyncPeriodOf(h2))
        .as("not raised to 12h: the check period came down to 1 min")
        .isEqualTo(Duration.ofMinutes(1));

    ResourceEventHandlerRegistration h3 =
        i.informer.addEventHandler(new Names("listener3"), Duration.ofSeconds(55));
    assertThat(resyncPeriodOf(h1)).isEqualTo(Duration.ZERO);
    assertThat(resyncPeriodOf(h2)).isEqualTo(Duration.ofMinutes(1));
    assertThat(resyncPeriodOf(h3)).isEqualTo(Duration.ofSeconds(55));

    ResourceEventHandlerRegistration h4 =
        i.informer.addEventHandler(new Names("listener4"), Duration.ofSeconds(5));
    assertThat(resyncPeriodOf(h1)).isEqualTo(Duration.ZERO);
    assertThat(resyncPeriodOf(h2)).isEqualTo(Duration.ofMinutes(1));
    assertThat(resyncPeriodOf(h3)).isEqualTo(Duration.ofSeconds(55));
    assertThat(resyncPeriodOf(h4)).isEqualTo(Duration.ofSeconds(5));

    i.start().settle();
    assertThat(clock.pendingDelays())
        .as("the resync check, every 5 s")
        .containsExactly(Duration.ofSeconds(5));
  }

  static Stream<Arguments> interleavingsOfStart() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(Arguments.of(-1, false)); // before start
    for (int steps = 0; steps <= 5; steps++) {
      cases.add(Arguments.of(steps, false));
      cases.add(Arguments.of(steps, true));
    }
    return cases.stream();
  }

  /**
   * {@code TestSharedInformerInitializationRace} (kubernetes#59822: a handler added while the
   * informer starts): whether it joins before start, or after any step of the first streaming list
   * (the watch request, each ADDED, the end bookmark), with the queued processing run or not, it
   * is told about each object of the initial list exactly once, as part of that list.
   */
  @ParameterizedTest(name = "added after {0} reflector steps, tasks run first: {1}")
  @MethodSource("interleavingsOfStart")
  void handlerAddedWhileTheInformerStarts_seesTheInitialListOnce(int steps, boolean runTasks) {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    SteppedInformer<Pod> i = informer(SECOND);
    Recorder r = new Recorder();
    ResourceEventHandlerRegistration reg;
    if (steps < 0) {
      reg = i.informer.addEventHandler(r);
      i.start();
    } else {
      i.start();
      for (int s = 0; s < steps; s++) {
        i.step();
      }
      if (runTasks) {
        i.tasks.runAll();
      }
      reg = i.informer.addEventHandler(r);
    }
    i.settle();

    assertThat(r.calls).containsExactlyInAnyOrder("add ns/a@2 initial", "add ns/b@3 initial");
    assertThat(reg.hasSynced()).isTrue();
  }

  /**
   * {@code TestSharedInformerWatchDisruption}: while the watch is down, pod3 is added and pod2
   * modified, and the source forgets its history (Go's {@code AddDropWatch}, {@code
   * ModifyDropWatch}, {@code ResetWatch}); the next cycle relists. A handler
   * without resync hears only what changed; one with resync also hears the unchanged pod1, as it
   * was due at the last resync check.
   */
  @Test
  void watchDisruption_relistTellsEachHandlerWhatChanged_andResyncingOnesTheRest() {
    source.add(pod("ns", "pod1")); // rv 2
    source.add(pod("ns", "pod2")); // rv 3
    SteppedInformer<Pod> i = informer(SECOND);
    Recorder noResync = new Recorder();
    Recorder resync = new Recorder();
    i.informer.addEventHandler(noResync, Duration.ZERO);
    i.informer.addEventHandler(resync, SECOND);
    i.start().settle();
    for (Recorder r : List.of(noResync, resync)) {
      assertThat(r.calls)
          .containsExactlyInAnyOrder("add ns/pod1@2 initial", "add ns/pod2@3 initial");
      r.calls.clear();
    }

    source.endWatches();
    source.add(pod("ns", "pod3")); // rv 4, not sent: no watch is open
    source.modify(pod("ns", "pod2")); // rv 5, not sent
    i.tasks.runAll();
    assertThat(noResync.calls).as("nobody saw the changes").isEmpty();
    assertThat(resync.calls).as("nobody saw the changes").isEmpty();

    clock.advance(SECOND); // the resync check: only `resync` is due
    i.tasks.runAll();
    assertThat(noResync.calls).isEmpty();
    assertThat(resync.calls)
        .as("resynced with the cache's (old) state")
        .containsExactlyInAnyOrder("update ns/pod1@2->2", "update ns/pod2@3->3");
    resync.calls.clear();

    source.compact();
    // The watch ends; the re-watch finds its resourceVersion expired, which ends the cycle.
    assertThat(stepUntilTheCycleEnds(i).phase())
        .isEqualTo(ReflectorException.Phase.WATCH_ERROR_EVENT);
    i.backOff(); // as Go moves its clock through the backoff
    i.settle(); // the next cycle

    assertThat(noResync.calls).containsExactly("update ns/pod2@3->5", "add ns/pod3@4");
    assertThat(resync.calls)
        .containsExactly("update ns/pod1@2->2", "update ns/pod2@3->5", "add ns/pod3@4");
  }

  /**
   * {@code TestSharedInformerErrorHandling}: a list that fails reaches the watch error handler.
   * Go's fake source cannot stream, so its first request is a list: here too.
   */
  @Test
  void listError_reachesTheWatchErrorHandler() throws Exception {
    source.add(pod("ns", "pod1"));
    source.failNextList(new RuntimeException("Access Denied"));
    SteppedInformer<Pod> i = stepped(b -> b.defaultResync(SECOND).streamingList(false));
    List<ReflectorException> errors = new ArrayList<>();
    i.informer.setWatchErrorHandler(errors::add);

    String log = LogCapture.stderrOf(() -> stepUntilTheCycleEnds(i.start()));

    assertThat(errors)
        .singleElement()
        .satisfies(e -> assertThat(e).hasStackTraceContaining("Access Denied"));
    assertThat(log).contains("Access Denied");
    assertThat(i.informer.hasSynced()).isFalse();

    i.backOff();
    i.settle(); // the next cycle lists again, and succeeds
    assertThat(i.informer.hasSynced()).isTrue();
    assertThat(errors).hasSize(1);
  }

  /**
   * {@code TestSharedInformerStartRace}: the transform and the watch error handler are set before
   * start and refused after it (Go: "informer has already started"), under the same lock as start,
   * so that no setter can race the informer's use of them.
   */
  @Test
  void transformAndWatchErrorHandler_areAcceptedBeforeStart_andRefusedOnceStarted() {
    SteppedInformer<Pod> i = informer(SECOND);
    assertThatCode(
            () -> {
              i.informer.setTransform(p -> p);
              i.informer.setWatchErrorHandler(e -> {});
            })
        .doesNotThrowAnyException();

    i.start();

    assertThatIllegalStateException()
        .isThrownBy(() -> i.informer.setTransform(p -> p))
        .withMessageContaining("has started");
    assertThatIllegalStateException()
        .isThrownBy(() -> i.informer.setWatchErrorHandler(e -> {}))
        .withMessageContaining("has started");
  }

  /** {@code TestSharedInformerTransformer}: handlers and the cache see transformed objects. */
  @Test
  void transform_isAppliedBeforeObjectsAreCachedAndDelivered() {
    source.add(pod("ns", "pod1"));
    source.add(pod("ns", "pod2"));
    SteppedInformer<Pod> i = informer(SECOND);
    i.informer.setTransform(
        p -> {
          String upper = p.getMetadata().getName().toUpperCase(Locale.ROOT);
          return new PodBuilder(p).editMetadata().withName(upper).endMetadata().build();
        });
    Names listener = new Names("listenerTransformer");
    i.informer.addEventHandler(listener);

    i.start().settle();

    assertThat(listener.received).containsExactlyInAnyOrder("POD1", "POD2");
    assertThat(i.informer.getIndexer().listKeys()).containsExactlyInAnyOrder("ns/POD1", "ns/POD2");
  }

  /**
   * {@code TestSharedInformerRemoveHandler}. Go counts the informer's listeners; here a removed
   * handler shows as removed and is told nothing, the other one still is.
   */
  @Test
  void removeEventHandler_removesOnlyThatHandler() {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    Recorder handler1 = new Recorder();
    Recorder handler2 = new Recorder();
    ResourceEventHandlerRegistration handle1 = i.informer.addEventHandler(handler1);
    ResourceEventHandlerRegistration handle2 = i.informer.addEventHandler(handler2);

    i.informer.removeEventHandler(handle2);
    assertThat(handle2.isRemoved()).isTrue();
    assertThat(handle1.isRemoved()).isFalse();
    i.start().settle();
    assertThat(handler1.calls).containsExactly("add ns/pod1@2 initial");
    assertThat(handler2.calls).isEmpty();

    i.informer.removeEventHandler(handle1);
    assertThat(handle1.isRemoved()).isTrue();
    source.add(pod("ns", "pod2"));
    i.settle();
    assertThat(handler1.calls).containsExactly("add ns/pod1@2 initial");
    assertThat(handler2.calls).isEmpty();
  }

  /**
   * {@code TestSharedInformerRemoveForeignHandler}: removing (or shutting down) a registration of
   * another informer does nothing.
   */
  @Test
  void removeEventHandler_ofAnotherInformersRegistration_doesNothing() throws Exception {
    source.add(pod("ns", "pod1"));
    FakeListerWatcher<Pod> source2 = TestPods.fakeSource();
    source2.add(pod("ns", "pod1"));
    SteppedInformer<Pod> informer = informer(SECOND);
    SteppedInformer<Pod> informer2 = stepped("pods-2", source2, b -> b.defaultResync(SECOND));
    Recorder handler1 = new Recorder();
    Recorder handler2 = new Recorder();
    ResourceEventHandlerRegistration handle1 = informer.informer.addEventHandler(handler1);
    ResourceEventHandlerRegistration handle2 = informer.informer.addEventHandler(handler2);

    informer2.informer.removeEventHandler(handle1);
    assertThat(informer2.informer.shutDownEventHandler(handle2, Duration.ZERO)).isTrue();

    assertThat(handle1.isRemoved()).isFalse();
    assertThat(handle2.isRemoved()).isFalse();
    informer.start().settle();
    informer2.start().settle();
    assertThat(handler1.calls).containsExactly("add ns/pod1@2 initial");
    assertThat(handler2.calls).containsExactly("add ns/pod1@2 initial");

    informer.informer.removeEventHandler(handle2);
    assertThat(handle2.isRemoved()).isTrue();
    assertThat(handle1.isRemoved()).isFalse();
    informer.informer.removeEventHandler(handle1);
    assertThat(handle1.isRemoved()).isTrue();
    source.add(pod("ns", "pod2"));
    informer.settle();
    assertThat(handler1.calls).containsExactly("add ns/pod1@2 initial");
    assertThat(handler2.calls).containsExactly("add ns/pod1@2 initial");
  }

  /**
   * {@code TestSharedInformerMultipleRegistration}: one handler registered twice is two
   * registrations; removing one leaves the other.
   */
  @Test
  void sameHandlerRegisteredTwice_isTwoRegistrations_removedOneByOne() {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    Recorder handler = new Recorder();
    ResourceEventHandlerRegistration reg1 = i.informer.addEventHandler(handler);
    ResourceEventHandlerRegistration reg2 = i.informer.addEventHandler(handler);
    assertThat(reg1).isNotSameAs(reg2);
    assertThat(reg1.isRemoved()).isFalse();
    assertThat(reg2.isRemoved()).isFalse();
    i.start().settle();
    assertThat(handler.calls).containsExactly("add ns/pod1@2 initial", "add ns/pod1@2 initial");
    handler.calls.clear();

    i.informer.removeEventHandler(reg1);
    assertThat(reg1.isRemoved()).isTrue();
    assertThat(reg2.isRemoved()).isFalse();
    source.add(pod("ns", "pod2"));
    i.settle();
    assertThat(handler.calls).containsExactly("add ns/pod2@3");
    handler.calls.clear();

    i.informer.removeEventHandler(reg2);
    assertThat(reg2.isRemoved()).isTrue();
    source.add(pod("ns", "pod3"));
    i.settle();
    assertThat(handler.calls).isEmpty();
  }

  /** {@code TestRemovingRemovedSharedInformer}: removing a removed registration is fine. */
  @Test
  void removeEventHandler_twice_isANoOpTheSecondTime() throws Exception {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    ResourceEventHandlerRegistration reg = i.informer.addEventHandler(new Recorder());

    i.informer.removeEventHandler(reg);
    assertThat(reg.isRemoved()).isTrue();
    assertThatCode(() -> i.informer.removeEventHandler(reg)).doesNotThrowAnyException();
    assertThat(i.informer.shutDownEventHandler(reg, Duration.ZERO)).isTrue();
    assertThat(reg.isRemoved()).isTrue();
  }

  /**
   * {@code TestSharedInformerHandlerAbuse}: handlers (resyncing every second) added and removed at
   * random while objects are added, modified and deleted, the reflector reads, deliveries run and
   * time moves, in a random but reproducible order. Each handler still registered ends with
   * exactly the cache, having been told a consistent history; a removed one is told nothing more.
   * Once the informer is closed, adding is refused ("stopped already") and removing is harmless.
   */
  @Test
  void handlersAddedAndRemovedAtRandomWhileEventsFlow_eachSeesAConsistentHistory() {
    Random random = new Random(20);
    SteppedInformer<Pod> i = informer(SECOND);
    i.start().settle();
    Map<ReplayingHandler, ResourceEventHandlerRegistration> live = new HashMap<>();
    Map<ReplayingHandler, Integer> callsAtRemoval = new HashMap<>();
    List<String> objs = new ArrayList<>();
    for (int op = 0; op < 5000; op++) {
      switch (random.nextInt(8)) {
        case 0, 1 -> {
          ReplayingHandler h = new ReplayingHandler("h" + op);
          live.put(h, i.informer.addEventHandler(h, SECOND));
        }
        case 2 -> {
          if (!live.isEmpty()) {
            List<ReplayingHandler> hs = new ArrayList<>(live.keySet());
            hs.sort((a, b) -> a.name.compareTo(b.name));
            ReplayingHandler h = hs.get(random.nextInt(hs.size()));
            i.informer.removeEventHandler(live.remove(h));
            callsAtRemoval.put(h, h.calls.get());
          }
        }
        case 3, 4 -> mutate(random, objs, op);
        case 5 -> {
          if (source.readableOnOpenWatches() > 0) {
            i.step();
          }
        }
        case 6 -> i.tasks.runAll();
        default -> clock.advance(Duration.ofMillis(random.nextInt(400)));
      }
    }
    i.settle();

    Map<String, String> cache = keysToRv(i.informer.getIndexer().list());
    assertThat(cache).isEqualTo(keysToRv(source.objects().values()));
    assertThat(live).isNotEmpty();
    assertThat(callsAtRemoval.values())
        .as("removed after being told something")
        .anyMatch(c -> c > 0);
    for (ReplayingHandler h : live.keySet()) {
      assertThat(h.violations).as(h.name).isEmpty();
      assertThat(h.view()).as(h.name).isEqualTo(cache);
      assertThat(live.get(h).hasSynced()).as(h.name).isTrue();
    }
    callsAtRemoval.forEach(
        (h, calls) -> {
          assertThat(h.violations).as(h.name).isEmpty();
          assertThat(h.calls.get()).as(h.name + " after removal").isEqualTo(calls);
        });

    i.close();
    assertThatIllegalStateException()
        .isThrownBy(() -> i.informer.addEventHandler(new Recorder(), SECOND))
        .withMessageContaining("stopped already");
    assertThatCode(() -> live.values().forEach(i.informer::removeEventHandler))
        .doesNotThrowAnyException();
  }

  /** One random change to the source, as Go's abuse test makes them; {@code objs} holds names. */
  private void mutate(Random random, List<String> objs, int i) {
    if (objs.isEmpty()) {
      objs.add("pod" + i);
      source.add(pod("ns", "pod" + i));
      return;
    }
    switch (random.nextInt(3)) {
      case 0 -> {
        objs.add("pod" + i);
        source.add(pod("ns", "pod" + i));
      }
      case 1 -> source.modify(pod("ns", objs.get(random.nextInt(objs.size()))));
      default -> source.delete(pod("ns", objs.remove(random.nextInt(objs.size()))));
    }
  }

  /** {@code TestStateSharedInformer}: started and stopped, before, while and after running. */
  @Test
  void isStartedAndIsStopped_beforeWhileAndAfterRunning() {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    Names listener = new Names("listener");
    i.informer.addEventHandler(listener, Duration.ZERO);
    assertThat(i.informer.isStarted()).as("started after creation").isFalse();
    assertThat(i.informer.isStopped()).as("stopped after creation").isFalse();

    i.start().settle();
    assertThat(listener.received).containsExactly("pod1");
    assertThat(i.informer.isStarted()).isTrue();
    assertThat(i.informer.isStopped()).isFalse();

    i.close();
    assertThat(i.informer.isStopped()).isTrue();
    assertThat(i.informer.isStarted()).as("still started after it stopped").isTrue();
  }

  /** {@code TestAddOnStoppedSharedInformer}. */
  @Test
  void addEventHandler_toAStoppedInformer_isRefused() {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    i.start();
    i.close();
    assertThat(i.informer.isStopped()).isTrue();

    assertThatIllegalStateException()
        .isThrownBy(() -> i.informer.addEventHandler(new Names("listener"), Duration.ZERO))
        .withMessageStartingWith("handler listener was not added to shared informer")
        .withMessageEndingWith("because it has stopped already");
  }

  /** {@code TestRemoveOnStoppedSharedInformer}. */
  @Test
  void removeEventHandler_fromAStoppedInformer_isFine() {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    ResourceEventHandlerRegistration handle =
        i.informer.addEventHandler(new Names("listener"), Duration.ZERO);
    i.start();
    i.close();
    assertThat(i.informer.isStopped()).isTrue();

    assertThatCode(() -> i.informer.removeEventHandler(handle)).doesNotThrowAnyException();
    assertThat(handle.isRemoved()).isTrue();
  }

  /** {@code TestRemoveWhileActive}. */
  @Test
  void removeEventHandler_whileRunning_stopsItsEvents() {
    SteppedInformer<Pod> i = informer(Duration.ZERO);
    Names listener = new Names("listener");
    ResourceEventHandlerRegistration handle = i.informer.addEventHandler(listener);
    i.start().settle();
    source.add(pod("ns", "pod1"));
    i.settle();
    assertThat(listener.received).containsExactly("pod1");

    i.informer.removeEventHandler(handle);
    assertThat(handle.isRemoved()).isTrue();

    source.add(pod("ns", "pod2"));
    i.settle();
    assertThat(listener.received).containsExactly("pod1");
  }

  /** {@code TestAddWhileActive}. */
  @Test
  void addEventHandler_whileRunning_syncsOnceItHasSeenTheCache_thenFollowsChanges() {
    SteppedInformer<Pod> i = informer(Duration.ZERO);
    Names listener1 = new Names("originalListener");
    Names listener2 = new Names("listener2");
    ResourceEventHandlerRegistration handle1 = i.informer.addEventHandler(listener1);
    assertThat(handle1.hasSynced()).as("synced before start").isFalse();

    i.start().settle();
    source.add(pod("ns", "pod1"));
    i.settle();
    assertThat(listener1.received).containsExactly("pod1");
    assertThat(handle1.synced()).isCompleted();
    assertThat(handle1.hasSynced()).isTrue();

    ResourceEventHandlerRegistration handle2 = i.informer.addEventHandler(listener2);
    assertThat(handle2.hasSynced()).as("synced before delivering anything").isFalse();
    assertThat(handle2.synced()).isNotDone();

    source.add(pod("ns", "pod2"));
    i.settle();
    assertThat(listener2.received).containsExactly("pod1", "pod2");
    assertThat(handle2.hasSynced()).isTrue();
    assertThat(handle2.synced()).isCompleted();
    assertThat(handle1.isRemoved()).isFalse();
    assertThat(handle2.isRemoved()).isFalse();
    assertThat(listener1.received).containsExactly("pod1", "pod2");
  }

  /** What goleak checks in Go: nothing of the informer is left scheduled, queued or open. */
  private void assertNothingLeft(SteppedInformer<Pod> i) {
    i.tasks.runAll(); // whatever close() queued runs to its end and queues nothing more
    assertThat(i.tasks.size()).isZero();
    assertThat(clock.pendingDelays()).as("scheduled on the clock").isEmpty();
    assertThat(i.source.openWatchCount()).as("open watches").isZero();
  }

  /**
   * {@code TestShutdown}, "no-context": a handler added before start; once the informer is closed
   * nothing is left, and removing the handler afterwards is fine.
   */
  @Test
  void shutdown_handlerAddedBeforeStart_nothingLeftAfterClose() {
    SteppedInformer<Pod> i = informer(SECOND);
    ResourceEventHandlerRegistration handler = i.informer.addEventHandler(new Recorder());
    i.start().settle();
    assertThat(i.informer.hasSynced()).isTrue();

    i.close();

    assertThat(i.reflector().state()).isInstanceOf(ReflectorState.Stopped.class);
    assertNothingLeft(i);
    assertThatCode(() -> i.informer.removeEventHandler(handler)).doesNotThrowAnyException();
  }

  /** {@code TestShutdown}, "no-context-later": a handler added and removed after sync. */
  @Test
  void shutdown_handlerAddedAfterSync_nothingLeftAfterClose() {
    SteppedInformer<Pod> i = informer(SECOND);
    i.start().settle();
    assertThat(i.informer.hasSynced()).isTrue();
    ResourceEventHandlerRegistration handler = i.informer.addEventHandler(new Recorder());
    i.informer.removeEventHandler(handler);
    assertThat(handler.isRemoved()).isTrue();

    i.close();

    assertThat(i.reflector().state()).isInstanceOf(ReflectorState.Stopped.class);
    assertNothingLeft(i);
  }

  /** {@code TestShutdown}, "no-run": an informer never started has nothing running. */
  @Test
  void shutdown_neverStarted_nothingRuns() {
    SteppedInformer<Pod> i = informer(SECOND);
    i.informer.addEventHandler(new Recorder());
    assertNothingLeft(i);

    i.close();

    assertThat(i.informer.isStarted()).isFalse();
    assertNothingLeft(i);
  }

  /** A handler that throws on every add, and notes when it was called. */
  private final class Throwing extends Named {
    final List<Duration> addedAt = new ArrayList<>();

    Throwing(String name) {
      super(name);
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      addedAt.add(Duration.ofNanos(clock.nanoTime()));
      throw new IllegalStateException("fake panic");
    }
  }

  private static int occurrences(String hay, String needle) {
    int count = 0;
    for (int at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length())) {
      count++;
    }
    return count;
  }

  /**
   * {@code TestEventPanics}, "simple": a handler that throws is logged (Go: "Observed a panic").
   *
   * <p>kinformer differs from client-go here: its registration still syncs, since the call for the
   * initial add did end; client-go's never does, as it counts an initial add as finished only
   * after {@code OnAdd} returned normally ({@code shared_informer.go}, {@code
   * processorListener.run}: {@code p.handler.OnAdd(...)} then {@code p.syncTracker.Finished()};
   * kubernetes#129024, which the Go test mentions).
   */
  @Test
  void throwingHandler_isLogged() throws Exception {
    source.add(pod("ns", "pod1"));
    SteppedInformer<Pod> i = informer(SECOND);
    Throwing handler = new Throwing("panicky");
    ResourceEventHandlerRegistration handle = i.informer.addEventHandler(handler);

    String log = LogCapture.stderrOf(() -> i.start().settle());

    assertThat(i.informer.hasSynced()).isTrue();
    assertThat(handler.addedAt).hasSize(1);
    assertThat(log)
        .contains("handler panicky threw on add of ns/pod1")
        .contains("IllegalStateException: fake panic");
    assertThat(handle.hasSynced()).as("kinformer: synced although the initial add threw").isTrue();
  }

  /**
   * {@code TestEventPanics}, "many": two handlers, each named in the log, throw on every one of 5
   * initial adds; each throw is logged with the handler's name, and each handler is called again
   * only a second after it threw.
   */
  @Test
  void throwingHandlers_eachThrowIsLoggedWithTheHandlersName_andPausesThatHandlerASecond()
      throws Exception {
    int numPods = 5;
    for (int p = 1; p <= numPods; p++) {
      source.add(pod("ns", "pod" + p));
    }
    SteppedInformer<Pod> i = informer(SECOND);
    Throwing handler1 = new Throwing("fake-event-handler-1");
    Throwing handler2 = new Throwing("fake-event-handler-2");
    i.informer.addEventHandler(handler1);
    i.informer.addEventHandler(handler2);

    String log =
        LogCapture.stderrOf(
            () -> {
              i.start().settle();
              assertThat(i.informer.hasSynced()).isTrue();
              for (int p = 1; p < numPods; p++) {
                clock.advance(Duration.ofMillis(999));
                i.settle();
                assertThat(handler1.addedAt).as("paused").hasSize(p);
                clock.advance(Duration.ofMillis(1));
                i.settle();
              }
            });

    List<Duration> everySecond =
        Stream.iterate(Duration.ZERO, d -> d.plus(SECOND)).limit(numPods).toList();
    for (Throwing h : List.of(handler1, handler2)) {
      assertThat(h.addedAt).as(h.toString()).isEqualTo(everySecond);
      assertThat(occurrences(log, "handler " + h + " threw on add of ns/pod"))
          .as(h.toString())
          .isEqualTo(numPods);
    }
    assertThat(occurrences(log, "fake panic")).isEqualTo(2 * numPods);
  }
}

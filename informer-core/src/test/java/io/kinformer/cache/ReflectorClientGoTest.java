package io.kinformer.cache;

import static io.kinformer.cache.ScriptedListerWatcher.INTERNAL;
import static io.kinformer.cache.ScriptedListerWatcher.added;
import static io.kinformer.cache.ScriptedListerWatcher.bookmark;
import static io.kinformer.cache.ScriptedListerWatcher.deleted;
import static io.kinformer.cache.ScriptedListerWatcher.error;
import static io.kinformer.cache.ScriptedListerWatcher.initialEventsEnd;
import static io.kinformer.cache.ScriptedListerWatcher.modified;
import static io.kinformer.cache.ScriptedListerWatcher.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.kinformer.cache.ReflectorException.Phase;
import io.kinformer.cache.ReflectorState.BackingOff;
import io.kinformer.cache.ReflectorState.Idle;
import io.kinformer.cache.ReflectorState.Stopped;
import io.kinformer.time.Backoff;
import io.kinformer.time.testing.FakeClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * client-go v0.36's {@code tools/cache/reflector_test.go}, ported case by case: each test's Javadoc
 * names its Go counterpart. Where client-go cancels the reflector's context, these tests close the
 * reflector from a hook of {@link HookedListerWatcher} (on the thread that drives it, at the same
 * point of the request); where a Go test cancels and then runs {@code ListAndWatch} again with a
 * fresh context, the cycle here ends with a very short watch instead (which leaves the
 * resourceVersion as it was, as a cancel does), since a closed reflector does not run again. All on
 * the test thread: {@link Reflector#listAndWatch()} for whole cycles, {@link Reflector#step()} for
 * single transitions and for cycles that back off inside (a wait would block the test thread on the
 * {@link FakeClock}), {@link Reflector#start()} on a direct executor where the time waited is the
 * point.
 *
 * <p>{@code listAndWatch()} throws what ended a cycle where client-go's returns nil after logging
 * it (a very short watch, an ERROR event, a failed resync): the tests assert the exception.
 *
 * <p>Not ported:
 *
 * <ul>
 *   <li>{@code TestGetTypeDescriptionFromObject}, {@code TestGetExpectedGVKFromObject}: Go's
 *       reflect types and {@code unstructured.Unstructured}; a kinformer reflector is typed by
 *       generics and checks kinds with {@link Reflector.Builder#expectedKind}, tested in {@link
 *       #reflectorWatchHandler()}.
 *   <li>{@code TestIsUnsupportedTableObject}: server-side {@code meta.k8s.io Table} objects in an
 *       untyped watch; a kinformer {@link ListerWatcher} decodes into the typed class.
 *   <li>{@code TestReflectorListExtract}: Go's garbage collection of list items that share the
 *       list's backing array ({@code ExtractListWithAlloc}, {@code SetFinalizer}); Java lists hold
 *       references, nothing to port.
 *   <li>{@code BenchmarkReflectorResyncChanMany}, {@code BenchmarkExtractList}, {@code
 *       BenchmarkEachListItem}, {@code BenchmarkExtractListWithAlloc}, {@code
 *       BenchmarkEachListItemWithAlloc}, {@code BenchmarkReflectorList}: benchmarks, not tests.
 * </ul>
 */
class ReflectorClientGoTest {

  private static final InformerException CONNECTION_REFUSED =
      new InformerException("connect failed", new ConnectException("Connection refused"));

  /** apierrors.NewTooManyRequests("too many requests", 1), as a refusal and as an ERROR event. */
  private static final ApiException TOO_MANY_REFUSAL =
      new ApiException(
          429, "TooManyRequests", "too many requests", Duration.ofSeconds(1), List.of(), false);

  private static final ApiException TOO_MANY_EVENT =
      new ApiException(
          429, "TooManyRequests", "too many requests", Duration.ofSeconds(1), List.of(), true);

  /** apierrors.NewResourceExpired(...), as a list refusal. */
  private static final ApiException LIST_EXPIRED =
      new ApiException(
          410, "Expired", "The resourceVersion for the provided watch is too old.", null,
          List.of(), false);

  private final FakeClock clock = new FakeClock();
  private final ScriptedListerWatcher script = new ScriptedListerWatcher(clock);
  private final HookedListerWatcher lw = new HookedListerWatcher(script);
  private final RecordingStore<Pod> store = new RecordingStore<>();
  private @Nullable Reflector<Pod> reflector;

  private Reflector.Builder<Pod> builder(Store<Pod> s) {
    return Reflector.builder("pods", lw, s).clock(clock).scheduler(clock).random(new Random(7));
  }

  private Reflector.Builder<Pod> builder() {
    return builder(store);
  }

  /** Builds the reflector that {@link #stop()} closes. */
  private Reflector<Pod> build(Reflector.Builder<Pod> b) {
    reflector = b.build();
    return reflector;
  }

  /** Closes the reflector, as client-go's tests cancel its context. */
  private Runnable stop() {
    return () -> {
      if (reflector != null) {
        reflector.close();
      }
    };
  }

  private static Backoff.Policy exponential(
      FakeClock clock, Duration initial, Duration max, double jitter, Duration resetAfter) {
    return (c, r) ->
        Backoff.exponential(initial, max, 2.0, jitter, resetAfter, clock, new Random(3));
  }

  /** Runs one cycle; returns what ended it, or null if it returned (the reflector was closed). */
  private static @Nullable ReflectorException cycle(Reflector<Pod> r) {
    try {
      r.listAndWatch();
      return null;
    } catch (ReflectorException e) {
      return e;
    }
  }

  /** Steps {@code r} until the cycle ends (Idle) or it stops, not waiting out any backoff. */
  private static List<ReflectorState> stepCycle(Reflector<Pod> r) {
    List<ReflectorState> states = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      ReflectorState s = r.step();
      states.add(s);
      if (s instanceof Idle || s instanceof Stopped) {
        return states;
      }
    }
    throw new AssertionError("the cycle did not end: " + states.subList(0, 20));
  }

  /**
   * Runs {@code r}'s loop ({@link Reflector#start()} on a direct executor) on this thread, moving
   * the clock on by every wait, until it no longer waits; returns the waits.
   */
  private List<Duration> runWaitingOutBackoffs(Reflector<Pod> r) {
    r.start();
    List<Duration> waits = new ArrayList<>();
    while (r.state() instanceof BackingOff b) {
      if (waits.size() > 1000) {
        throw new AssertionError("still backing off after " + waits.size() + " waits");
      }
      waits.add(b.delay());
      clock.advance(b.delay());
    }
    return waits;
  }

  /**
   * client-go's two {@code ListAndWatch} calls, the first ended by a very short watch (where
   * client-go cancels at the watch), the second stopped as its watch opens; the store holds {@code
   * first}, then {@code second} objects.
   */
  private void listTwice(Reflector<Pod> r, int first, int second) {
    lw.onWatchCall(2, stop());
    assertThat(cycle(r).phase()).isEqualTo(Phase.WATCH_TOO_SHORT);
    assertThat(store.list()).hasSize(first);
    assertThat(cycle(r)).isNull();
    assertThat(store.list()).hasSize(second);
  }

  private List<String> listRequests() {
    return lw.requests().stream().filter(q -> q.startsWith("list")).toList();
  }

  private static Pod[] pods(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> pod("pod-" + i, "" + i)).toArray(Pod[]::new);
  }

  private static Pod podWithHostname(String name, String rv, String hostname) {
    Pod p = pod(name, rv);
    PodSpec spec = new PodSpec();
    spec.setHostname(hostname);
    p.setSpec(spec);
    return p;
  }

  // ---- stopping and closing watches -----------------------------------------------------------

  /**
   * client-go's {@code TestCloseWatchChannelOnError}: a watch that brings an ERROR event is
   * closed. In 1.36 the first watch is a streaming list, which falls back to a list after the error;
   * the watch that follows the list stops the reflector.
   */
  @Test
  void closeWatchChannelOnError() {
    script.watch(error(INTERNAL)).list("1").watch();
    lw.onWatchCall(2, stop());
    Reflector<Pod> r = build(builder());

    assertThat(cycle(r)).isNull();

    assertThat(lw.watches.get(0).closed()).as("the watch that brought the error").isTrue();
    assertThat(lw.watches.get(1).closed()).isTrue();
    assertThat(lw.requests()).containsExactly("stream", "list rv=0 limit=500", "watch rv=1");
    assertThat(r.state()).isInstanceOf(Stopped.class);
  }

  /**
   * client-go's {@code TestRunUntil}: stopping a running reflector while it handles a watch ends
   * the run loop and closes the watch.
   */
  @Test
  void runUntil() {
    script.watch(added("bar", "1"));
    lw.afterEvents(1, 1, stop());
    Reflector<Pod> r = build(builder().executor(Runnable::run));

    r.start(); // runs on this thread until the hook closes the reflector

    assertThat(r.state()).isInstanceOf(Stopped.class);
    assertThat(r.isRunning()).isFalse();
    assertThat(lw.watches.get(0).closed()).isTrue();
    assertThat(clock.hasPendingTasks()).as("no wait nor resync left scheduled").isFalse();
    assertThat(lw.requests()).containsExactly("stream");
  }

  /** client-go's {@code TestReflectorResyncChan}: the resync timer fires after its period. */
  @Test
  void reflectorResyncChan() {
    script.cannotStream().list("1");
    Reflector<Pod> r = build(builder().resync(Duration.ofMillis(1), () -> true));
    r.step(); // Listing
    r.step(); // listed: Watching, the resync timer started

    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(1));
    assertThat(store.resyncs).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(store.resyncs).isEqualTo(1);
    r.close();
  }

  /**
   * client-go's {@code TestReflectorWatchStoppedBefore}: a reflector stopped before it runs makes
   * neither a list nor a watch.
   */
  @Test
  void reflectorWatchStoppedBefore() {
    Reflector<Pod> r = build(builder());
    r.close();

    r.listAndWatch();

    assertThat(r.step()).isInstanceOf(Stopped.class);
    assertThat(lw.requests()).isEmpty();
  }

  /**
   * client-go's {@code TestReflectorWatchStoppedAfter}: stopping the reflector once its watch has
   * started closes that watch, and no other is opened.
   */
  @Test
  void reflectorWatchStoppedAfter() {
    script.cannotStream().list("1").watch();
    lw.afterEvents(1, 0, stop());
    Reflector<Pod> r = build(builder());

    assertThat(cycle(r)).isNull();

    assertThat(lw.watches).hasSize(1);
    assertThat(lw.watches.get(0).closed()).isTrue();
    assertThat(lw.requests()).containsExactly("list rv=0 limit=500", "watch rv=1");
  }

  /**
   * client-go's {@code TestReflectorHandleWatchStoppedBefore}: a watch open when the reflector is
   * stopped, before its events are read, is closed and not read.
   */
  @Test
  void reflectorHandleWatchStoppedBefore() {
    script.cannotStream().list("1").watch(added("a", "2"));
    Reflector<Pod> r = build(builder());
    r.step(); // Listing
    r.step(); // Watching, not opened yet
    r.step(); // opened
    assertThat(lw.watches).hasSize(1);

    r.close();

    assertThat(r.step()).isInstanceOf(Stopped.class);
    assertThat(lw.watches.get(0).closed()).isTrue();
    assertThat(lw.watches.get(0).reads).isZero();
    assertThat(store.calls).containsExactly("replace [] 1");
  }

  /**
   * client-go's {@code TestReflectorHandleWatchStoppedAfter}: stopping the reflector while it reads
   * the watch ends the read and closes the watch.
   */
  @Test
  void reflectorHandleWatchStoppedAfter() {
    script.cannotStream().list("1").watch(added("a", "2"));
    lw.afterEvents(1, 0, stop());
    Reflector<Pod> r = build(builder());
    r.step(); // Listing
    r.step(); // Watching
    r.step(); // opened

    assertThat(r.step()).as("the read the stop interrupts").isInstanceOf(Stopped.class);
    assertThat(lw.watches.get(0).reads).isEqualTo(1);
    assertThat(lw.watches.get(0).closed()).isTrue();
    assertThat(store.calls).containsExactly("replace [] 1");
  }

  /**
   * client-go's {@code TestReflectorHandleWatchResultChanClosedBefore}: a watch whose stream is
   * already over is a very short watch, and is closed.
   */
  @Test
  void reflectorHandleWatchResultChanClosedBefore() {
    script.cannotStream().list("1").watch();
    Reflector<Pod> r = build(builder());

    ReflectorException e = cycle(r);

    assertThat(e).isNotNull();
    assertThat(e.phase()).isEqualTo(Phase.WATCH_TOO_SHORT);
    assertThat(e).hasMessageContaining("very short watch");
    assertThat(lw.watches.get(0).closed()).isTrue();
  }

  /**
   * client-go's {@code TestReflectorHandleWatchResultChanClosedAfter}: a watch whose stream ends
   * 10 ms after it started, with no event, is a very short watch, and is closed.
   */
  @Test
  void reflectorHandleWatchResultChanClosedAfter() {
    script.cannotStream().list("1").watch(Duration.ofMillis(10));
    Reflector<Pod> r = build(builder());

    ReflectorException e = cycle(r);

    assertThat(e).isNotNull();
    assertThat(e.phase()).isEqualTo(Phase.WATCH_TOO_SHORT);
    assertThat(lw.watches.get(0).closed()).isTrue();
  }

  /**
   * client-go's {@code TestReflectorWatchHandler}: watch events reach the store, an object of
   * another type is rejected (logged), and the last resourceVersion is that of the last event.
   */
  @Test
  void reflectorWatchHandler() throws Exception {
    Pod rejected = pod("rejected", "");
    rejected.setKind("Service");
    script.cannotStream().list("10", pod("foo", ""), pod("bar", ""))
        .watch(
            WatchEvent.of(WatchEventType.ADDED, rejected), deleted("foo", ""),
            modified("bar", "55"), added("baz", "32"));
    lw.afterEvents(1, 4, stop());
    Reflector<Pod> r = build(builder().expectedKind("v1", "Pod"));

    String logged = LogCapture.stderrOf(() -> assertThat(cycle(r)).isNull());

    assertThat(logged).contains("unexpected watch event object of kind v1 Service");
    assertThat(store.getByKey("ns/foo")).isEmpty();
    assertThat(store.getByKey("ns/rejected")).isEmpty();
    assertThat(store.keysToRv()).containsExactly(Map.entry("ns/bar", "55"),
        Map.entry("ns/baz", "32"));
    assertThat(r.lastSyncResourceVersion()).isEqualTo("32");
  }

  /**
   * client-go's {@code TestReflectorStopWatch}: a reflector stopped before it opens its watch does
   * not open it.
   */
  @Test
  void reflectorStopWatch() {
    script.cannotStream().list("1");
    Reflector<Pod> r = build(builder());
    r.step(); // Listing
    assertThat(r.step()).isInstanceOf(ReflectorState.Watching.class);

    r.close();

    assertThat(r.step()).isInstanceOf(Stopped.class);
    assertThat(lw.requests()).containsExactly("list rv=0 limit=500");
  }

  // ---- whole cycles -------------------------------------------------------------------------

  /** A request's options in a line, timeout only as present or not (its value is random). */
  static String describe(ListOptions o) {
    StringBuilder sb = new StringBuilder();
    if (o.resourceVersion() != null) {
      sb.append(" rv=").append(o.resourceVersion());
    }
    if (o.resourceVersionMatch() != null) {
      sb.append(" match=").append(o.resourceVersionMatch());
    }
    if (o.limit() != null) {
      sb.append(" limit=").append(o.limit());
    }
    if (o.continueToken() != null) {
      sb.append(" continue=").append(o.continueToken());
    }
    if (o.allowWatchBookmarks()) {
      sb.append(" bookmarks");
    }
    if (o.sendInitialEvents() != null) {
      sb.append(" sendInitialEvents=").append(o.sendInitialEvents());
    }
    if (o.timeoutSeconds() != null) {
      sb.append(" timeout");
    }
    return sb.toString().trim();
  }

  /**
   * client-go's {@code TestReflectorListAndWatch}, "UseWatchList enabled": the streaming list and
   * the events that follow its end bookmark on the same watch.
   */
  @Test
  void reflectorListAndWatch_useWatchListEnabled() {
    script.watch(
        added("foo", "1"), initialEventsEnd("1"), modified("foo", "2"), added("bar", "3"),
        added("baz", "4"), added("qux", "5"), added("zoo", "6"));
    lw.afterEvents(1, 7, stop());
    Reflector<Pod> r = build(builder());

    assertThat(cycle(r)).isNull();

    assertThat(store.keysToRv()).containsExactly(
        Map.entry("ns/foo", "2"), Map.entry("ns/bar", "3"), Map.entry("ns/baz", "4"),
        Map.entry("ns/qux", "5"), Map.entry("ns/zoo", "6"));
    assertThat(lw.requestOptions).extracting(ReflectorClientGoTest::describe)
        .containsExactly("match=NotOlderThan bookmarks sendInitialEvents=true timeout");
  }

  /**
   * client-go's {@code TestReflectorListAndWatch}, "UseWatchList disabled": a list at "0" paged by
   * 500, then a watch from the list's resourceVersion.
   */
  @Test
  void reflectorListAndWatch_useWatchListDisabled() {
    script.list("1", pod("foo", "1"))
        .watch(modified("foo", "2"), added("bar", "3"), added("baz", "4"), added("qux", "5"),
            added("zoo", "6"));
    lw.afterEvents(1, 5, stop());
    Reflector<Pod> r = build(builder().streamingList(false));

    assertThat(cycle(r)).isNull();

    assertThat(store.keysToRv()).containsExactly(
        Map.entry("ns/foo", "2"), Map.entry("ns/bar", "3"), Map.entry("ns/baz", "4"),
        Map.entry("ns/qux", "5"), Map.entry("ns/zoo", "6"));
    assertThat(lw.requestOptions).extracting(ReflectorClientGoTest::describe)
        .containsExactly("rv=0 limit=500", "rv=1 bookmarks timeout");
  }

  /** One row of client-go's {@code TestReflectorListAndWatchWithErrors}. */
  private record ErrorsRow(
      @Nullable ListResult<Pod> list,
      @Nullable RuntimeException listErr,
      List<WatchEvent<Pod>> events,
      @Nullable RuntimeException watchErr) {}

  private static ListResult<Pod> podList(String rv, Pod... pods) {
    return new ListResult<>(List.of(pods), rv, null, null);
  }

  /**
   * client-go's {@code TestReflectorListAndWatchWithErrors}: a new reflector per row over one
   * store; each list replaces what the watches before it left, a list or watch error is what the
   * cycle ends with.
   */
  @Test
  void reflectorListAndWatchWithErrors() {
    InformerException listErr = new InformerException("a list error");
    InformerException watchErr = new InformerException("a watch error");
    List<ErrorsRow> table = List.of(
        new ErrorsRow(podList("1"), null,
            List.of(added("foo", "2"), added("bar", "3")), null),
        new ErrorsRow(podList("3", pod("foo", "2"), pod("bar", "3")), null,
            List.of(deleted("foo", "4"), added("qux", "5")), null),
        new ErrorsRow(null, listErr, List.of(), null),
        new ErrorsRow(podList("5", pod("bar", "3"), pod("qux", "5")), null, List.of(), watchErr),
        new ErrorsRow(podList("5", pod("bar", "3"), pod("qux", "5")), null,
            List.of(added("baz", "6")), null),
        new ErrorsRow(podList("6", pod("bar", "3"), pod("qux", "5"), pod("baz", "6")), null,
            List.of(), null));

    for (int line = 0; line < table.size(); line++) {
      ErrorsRow row = table.get(line);
      if (row.list() != null) {
        // The list is what the store holds now.
        Map<String, String> expected = new LinkedHashMap<>();
        row.list().items().forEach(p -> expected.put(Keys.metaNamespaceKey(p),
            p.getMetadata().getResourceVersion()));
        assertThat(store.keysToRv()).as("row %d", line)
            .containsExactlyInAnyOrderEntriesOf(expected);
      }
      ScriptedListerWatcher rowScript = new ScriptedListerWatcher(clock).cannotStream();
      HookedListerWatcher rowLw = new HookedListerWatcher(rowScript);
      if (row.listErr() != null) {
        rowScript.listFails(row.listErr());
      } else {
        rowScript.list(row.list().resourceVersion(), row.list().items().toArray(Pod[]::new));
      }
      if (row.watchErr() != null) {
        rowScript.watchFails(row.watchErr());
      } else {
        rowScript.watch(row.events().toArray());
      }
      rowLw.afterEvents(1, row.events().size(), stop());
      reflector = Reflector.builder("pods", rowLw, store).clock(clock).scheduler(clock).build();

      ReflectorException e = cycle(reflector);

      if (row.listErr() != null) {
        assertThat(e).as("row %d", line).isNotNull();
        assertThat(e.phase()).isEqualTo(Phase.LIST);
        assertThat(e.getCause()).isSameAs(row.listErr());
      } else if (row.watchErr() != null) {
        assertThat(e).as("row %d", line).isNotNull();
        assertThat(e.phase()).isEqualTo(Phase.WATCH_START);
        assertThat(e.getCause()).isSameAs(row.watchErr());
      } else {
        assertThat(e).as("row %d", line).isNull();
      }
    }
  }

  // ---- backoff ------------------------------------------------------------------------------

  static Stream<int[]> initConnBackoffCases() {
    return Stream.of(new int[] {5}, new int[] {40});
  }

  /**
   * client-go's {@code TestReflectorListAndWatchInitConnBackoff}: a refused connection is retried
   * within the cycle after a backoff that grows exponentially up to its cap (here 1 ms doubling to
   * 50 ms, jitter 1.0). In 1.36 the first watch is the streaming list. client-go bounds the time
   * its fake-clock stepper advanced; here the clock moves by exactly the delays, so each delay is
   * checked against [base, 2 × base).
   */
  @ParameterizedTest(name = "{0} connection failures")
  @MethodSource("initConnBackoffCases")
  void reflectorListAndWatchInitConnBackoff(int[] fails) {
    int numConnFails = fails[0];
    for (int i = 0; i < numConnFails; i++) {
      script.watchFails(CONNECTION_REFUSED);
    }
    script.watch();
    lw.onWatchCall(numConnFails + 1, stop());
    Duration max = Duration.ofMillis(50);
    Reflector<Pod> r =
        build(builder().executor(Runnable::run)
            .backoff(exponential(clock, Duration.ofMillis(1), max, 1.0,
                Duration.ofMillis(100))));
    long start = clock.nanoTime();

    List<Duration> waits = runWaitingOutBackoffs(r);

    Duration elapsed = Duration.ofNanos(clock.nanoTime() - start);
    assertThat(waits).hasSize(numConnFails);
    Duration lower = Duration.ZERO;
    for (int i = 0; i < numConnFails; i++) {
      Duration base = Duration.ofMillis(Math.min(1L << Math.min(i, 20), max.toMillis()));
      assertThat(waits.get(i)).as("wait %d", i).isBetween(base, base.multipliedBy(2));
      lower = lower.plus(base);
    }
    assertThat(elapsed).isBetween(lower, lower.multipliedBy(2));
    assertThat(lw.requests()).hasSize(numConnFails + 1).containsOnly("stream");
    assertThat(r.state()).isInstanceOf(Stopped.class);
  }

  /**
   * client-go's {@code TestNewReflectorWithCustomBackoff}, "default backoff": two refused
   * connections, waited out with client-go's default backoff (0.8 s doubling, jitter 1.0).
   */
  @Test
  void newReflectorWithCustomBackoff_defaultBackoff() {
    script.watchFails(CONNECTION_REFUSED).watchFails(CONNECTION_REFUSED).watch();
    lw.onWatchCall(3, stop());
    Reflector<Pod> r = build(builder().executor(Runnable::run));
    long start = clock.nanoTime();

    List<Duration> waits = runWaitingOutBackoffs(r);

    assertThat(waits).hasSize(2);
    assertThat(waits.get(0)).isBetween(Duration.ofMillis(800), Duration.ofMillis(1600));
    assertThat(waits.get(1)).isBetween(Duration.ofMillis(1600), Duration.ofMillis(3200));
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isLessThanOrEqualTo(
        Duration.ofSeconds(10));
  }

  /**
   * client-go's {@code TestNewReflectorWithCustomBackoff}, "custom backoff": 10 ms doubling to a
   * 100 ms cap without jitter waits 10 + 20 + 40 + 80 + 100 = 250 ms over five refused connections.
   */
  @Test
  void newReflectorWithCustomBackoff_customBackoff() {
    for (int i = 0; i < 5; i++) {
      script.watchFails(CONNECTION_REFUSED);
    }
    script.watch();
    lw.onWatchCall(6, stop());
    Reflector<Pod> r =
        build(builder().executor(Runnable::run)
            .backoff(exponential(clock, Duration.ofMillis(10), Duration.ofMillis(100), 0.0,
                Duration.ofMinutes(2))));
    long start = clock.nanoTime();

    List<Duration> waits = runWaitingOutBackoffs(r);

    assertThat(waits).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20),
        Duration.ofMillis(40), Duration.ofMillis(80), Duration.ofMillis(100));
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(250));
  }

  /** client-go's {@code fakeDelayFunc}: counts the delays asked for, each zero. */
  private static final class CountingBackoff implements Backoff {
    int calls;

    @Override
    public Duration next() {
      calls++;
      return Duration.ZERO;
    }

    @Override
    public void reset() {}
  }

  /**
   * client-go's {@code TestBackoffOnTooManyRequests}: a 429 opening the watch and a 429 ERROR event
   * each back off once before re-watching; the third watch, closed at once, ends the cycle.
   */
  @Test
  void backoffOnTooManyRequests() {
    CountingBackoff backoff = new CountingBackoff();
    script.cannotStream().list("1")
        .watchFails(TOO_MANY_REFUSAL).watch(error(TOO_MANY_EVENT)).watch();
    Reflector<Pod> r = build(builder().backoff((clk, rnd) -> backoff));

    List<ReflectorState> states = stepCycle(r);

    assertThat(backoff.calls).isEqualTo(2);
    assertThat(states).filteredOn(BackingOff.class::isInstance).hasSize(2);
    assertThat(states.get(states.size() - 1)).isInstanceOfSatisfying(Idle.class,
        i -> assertThat(i.lastFailure().phase()).isEqualTo(Phase.WATCH_TOO_SHORT));
    assertThat(lw.requests()).containsExactly("list rv=0 limit=500", "watch rv=1", "watch rv=1",
        "watch rv=1");
  }

  /** client-go's {@code TestNoRelistOnTooManyRequests}: 429s on the watch never relist. */
  @Test
  void noRelistOnTooManyRequests() {
    CountingBackoff backoff = new CountingBackoff();
    script.cannotStream().list("1");
    for (int i = 0; i < 4; i++) {
      script.watchFails(TOO_MANY_REFUSAL);
    }
    script.watch();
    Reflector<Pod> r = build(builder().backoff((clk, rnd) -> backoff));

    stepCycle(r);

    assertThat(lw.requests()).filteredOn(q -> q.startsWith("list")).hasSize(1);
    assertThat(lw.requests()).filteredOn(q -> q.startsWith("watch")).hasSize(5);
  }

  /**
   * client-go's {@code TestRetryInternalError}: every watch call moves the clock a second (and a
   * minute more at {@code rewindTime}) and the watch brings an InternalError; such watches are
   * re-watched at once while the run of errors is within MaxInternalErrorRetryDuration, and a
   * minute without one starts a new run. The table is {@link ReflectorTest}'s, client-go's cases
   * ("retries off", "retries on, all calls fail", "retries on, one call successful").
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kinformer.cache.ReflectorTest#internalCases")
  void retryInternalError(ReflectorTest.InternalCase tc) {
    ApiException err =
        new ApiException(500, "InternalError",
            "Internal error occurred: etcdserver: no leader", null, List.of(), true);
    script.cannotStream().list("1");
    for (int i = 0; i < 60; i++) {
      script.watch(error(err));
    }
    lw.onWatchCall(counter -> {
      if (counter == tc.rewindAt()) {
        clock.advance(Duration.ofMinutes(1));
      }
      clock.advance(Duration.ofSeconds(1));
    });
    Reflector<Pod> r =
        build(builder().backoff((clk, rnd) -> new CountingBackoff())
            .maxInternalErrorRetryDuration(tc.max()));

    ReflectorException e = cycle(r);

    assertThat(e).isNotNull();
    assertThat(e.phase()).isEqualTo(Phase.WATCH_ERROR_EVENT);
    assertThat(lw.watches.size() - 1).isEqualTo(tc.wantRetries());
  }

  // ---- resync -------------------------------------------------------------------------------

  /**
   * client-go's {@code TestReflectorResync}: the store's resync is called every period while
   * watching; the one that fails ends the cycle (client-go's {@code ListAndWatch} returns nil then:
   * this one throws it).
   */
  @Test
  void reflectorResync() {
    IllegalStateException rerr = new IllegalStateException("expected resync reached");
    AtomicInteger iteration = new AtomicInteger();
    script.cannotStream().list("0").watch(Duration.ofMillis(5));
    Reflector<Pod> r =
        build(builder().resync(Duration.ofMillis(1), () -> {
          if (iteration.incrementAndGet() == 2) {
            store.failResync = rerr; // client-go's ResyncFunc failing its second call
          }
          return true;
        }));

    ReflectorException e = cycle(r);

    assertThat(e).isNotNull();
    assertThat(e.phase()).isEqualTo(Phase.RESYNC);
    assertThat(e.getCause()).isSameAs(rerr);
    assertThat(store.resyncs).isEqualTo(2);
  }

  // ---- list paging and resourceVersions ------------------------------------------------------

  /**
   * client-go's {@code TestReflectorWatchListPageSize}: an explicit page size pages a list at a
   * resourceVersion too (the reflector gets to rv 10 by a first cycle here, where client-go sets
   * it).
   */
  @Test
  void reflectorWatchListPageSize() {
    Pod[] all = pods(0, 10);
    script.cannotStream().list("10").watch()
        .page("10", "C1", all[0], all[1], all[2], all[3])
        .page("10", "C2", all[4], all[5], all[6], all[7])
        .page("10", null, all[8], all[9])
        .watch();
    Reflector<Pod> r = build(builder().pageSize(4));

    listTwice(r, 0, 10);

    assertThat(lw.requests()).containsExactly("list rv=0 limit=4", "watch rv=10",
        "list rv=10 limit=4", "list continue=C1 limit=4", "list continue=C2 limit=4",
        "watch rv=10");
  }

  /**
   * client-go's {@code TestReflectorNotPaginatingNotConsistentReads}: a relist at a
   * resourceVersion is not paged, so that the watch cache can serve it.
   */
  @Test
  void reflectorNotPaginatingNotConsistentReads() {
    script.cannotStream().list("10").watch().list("10", pods(0, 10)).watch();
    Reflector<Pod> r = build(builder());

    listTwice(r, 0, 10);

    assertThat(lw.requests()).containsExactly("list rv=0 limit=500", "watch rv=10",
        "list rv=10", "watch rv=10");
  }

  /**
   * client-go's {@code TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled}: when the
   * first list at "0" came back paged (no watch cache), later lists at a resourceVersion are paged
   * by the default 500 as well.
   */
  @Test
  void reflectorPaginatingNonConsistentReadsIfWatchCacheDisabled() {
    Pod[] all = pods(0, 10);
    for (int i = 0; i < 2; i++) {
      script.page("10", "C1", all[0], all[1], all[2], all[3])
          .page("10", "C2", all[4], all[5], all[6], all[7])
          .page("10", null, all[8], all[9])
          .watch();
    }
    script.cannotStream();
    Reflector<Pod> r = build(builder());

    listTwice(r, 10, 10);

    assertThat(lw.requests()).containsExactly(
        "list rv=0 limit=500", "list continue=C1 limit=500", "list continue=C2 limit=500",
        "watch rv=10",
        "list rv=10 limit=500", "list continue=C1 limit=500", "list continue=C2 limit=500",
        "watch rv=10");
  }

  /**
   * client-go's {@code TestReflectorResyncWithResourceVersion}: a relist asks for the last
   * resourceVersion seen, so that a partitioned server cannot take the reflector back in time.
   */
  @Test
  void reflectorResyncWithResourceVersion() {
    Pod[] all = pods(0, 8);
    script.cannotStream().list("10", all[0], all[1], all[2], all[3]).watch()
        .list("11", all).watch();
    Reflector<Pod> r = build(builder());

    listTwice(r, 4, 8);

    assertThat(listRequests()).containsExactly("list rv=0 limit=500", "list rv=10");
  }

  /**
   * client-go's {@code TestReflectorExpiredExactResourceVersion}: a relist at an expired
   * resourceVersion (Kubernetes 1.16 without watch cache) is retried at once at "".
   */
  @Test
  void reflectorExpiredExactResourceVersion() {
    Pod[] all = pods(0, 8);
    script.cannotStream().list("10", all[0], all[1], all[2], all[3]).watch()
        .listFails(LIST_EXPIRED).list("11", all).watch();
    Reflector<Pod> r = build(builder());

    listTwice(r, 4, 8);

    assertThat(listRequests()).containsExactly("list rv=0 limit=500", "list rv=10", "list");
  }

  /**
   * client-go's {@code TestReflectorFullListIfExpired}: when a continue page of a paged relist
   * expires, the pager lists again in full (unpaged) at the resourceVersion first asked for.
   */
  @Test
  void reflectorFullListIfExpired() {
    Pod[] all = pods(0, 8);
    script.cannotStream().list("10", all[0], all[1], all[2], all[3]).watch()
        .page("11", "C1", all[0], all[1], all[2], all[3]).listFails(LIST_EXPIRED)
        .list("11", all).watch();
    Reflector<Pod> r = build(builder().pageSize(4));

    listTwice(r, 4, 8);

    assertThat(listRequests()).containsExactly(
        "list rv=0 limit=4", "list rv=10 limit=4", "list continue=C1 limit=4", "list rv=10");
  }

  /**
   * client-go's {@code TestReflectorFullListIfTooLarge}: a relist refused as a too large
   * resourceVersion is retried at once at "", in each of the three forms servers have sent it in:
   * the {@code ResourceVersionTooLarge} cause (1.18.6+), a cause message (1.17.0–1.18.5), the
   * status message (before 1.17).
   */
  @Test
  void reflectorFullListIfTooLarge() {
    ApiException byCause =
        new ApiException(504, "Timeout", "Timeout: too large resource version",
            Duration.ofSeconds(1), List.of("ResourceVersionTooLarge"), false);
    ApiException byCauseMessage =
        new ApiException(504, "Timeout", "Timeout: too large resource version",
            Duration.ofSeconds(1), List.of(""), List.of("Too large resource version"), false);
    ApiException byMessage =
        new ApiException(504, "Timeout", "Timeout: Too large resource version",
            Duration.ofSeconds(1), List.of(), false);
    script.cannotStream().list("20").watch()
        .listFails(byCause).list("30").watch()
        .listFails(byCauseMessage).list("40").watch()
        .listFails(byMessage).list("50").watch();
    Reflector<Pod> r = build(builder());

    for (int i = 0; i < 4; i++) {
      assertThat(cycle(r).phase()).isEqualTo(Phase.WATCH_TOO_SHORT);
    }

    assertThat(listRequests()).containsExactly(
        "list rv=0 limit=500", "list rv=20", "list", "list rv=30", "list", "list rv=40", "list");
    assertThat(r.lastSyncResourceVersion()).isEqualTo("50");
  }

  // ---- watch options and resourceVersions -----------------------------------------------------

  record WatchTimeoutCase(@Nullable Duration minWatchTimeout, long expectedMinTimeoutSeconds) {}

  static Stream<Named<WatchTimeoutCase>> watchTimeoutCases() {
    return Stream.of(
        Named.of("no timeout", new WatchTimeoutCase(null, 5 * 60)),
        Named.of("small timeout not honored", new WatchTimeoutCase(Duration.ofSeconds(1), 5 * 60)),
        Named.of("30m timeout", new WatchTimeoutCase(Duration.ofMinutes(30), 30 * 60)));
  }

  /**
   * client-go's {@code TestWatchTimeout}: the watch asks for a timeout between the minimum and
   * twice it, the minimum being at least 5 minutes. In 1.36 the first watch is the streaming list.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("watchTimeoutCases")
  void watchTimeout(WatchTimeoutCase tc) {
    script.watch();
    lw.onWatchCall(1, stop());
    Reflector.Builder<Pod> b = builder().random(new Random());
    if (tc.minWatchTimeout() != null) {
      b.minWatchTimeout(tc.minWatchTimeout());
    }
    Reflector<Pod> r = build(b);

    assertThat(cycle(r)).isNull();

    Long got = lw.requestOptions.get(0).timeoutSeconds();
    assertThat(got).isBetween(tc.expectedMinTimeoutSeconds(), 2 * tc.expectedMinTimeoutSeconds());
  }

  /**
   * client-go's {@code TestReflectorResourceVersionUpdate}: the store learns the resourceVersion of
   * every event, the bookmark's included (client-go's {@code ResourceVersionUpdater}; here the
   * store's {@link Store#lastStoreSyncResourceVersion()}, read after each event).
   */
  @Test
  void reflectorResourceVersionUpdate() {
    ThreadSafeIndexer<Pod> s = new ThreadSafeIndexer<>(Keys.metaNamespaceKeyFunc(), Map.of());
    script.cannotStream().list("10")
        .watch(added("a", "10"), modified("a", "20"), bookmark("30"), deleted("a", "40"));
    List<String> resourceVersions = new ArrayList<>();
    for (int k = 1; k <= 4; k++) {
      lw.afterEvents(1, k, () -> resourceVersions.add(s.lastStoreSyncResourceVersion()));
    }
    lw.afterEvents(1, 4, () -> {
      resourceVersions.add(s.lastStoreSyncResourceVersion());
      stop().run();
    });
    Reflector<Pod> r = build(builder(s));

    assertThat(cycle(r)).isNull();

    assertThat(resourceVersions).containsExactly("10", "20", "30", "40");
    assertThat(r.lastSyncResourceVersion()).isEqualTo("40");
  }

  // ---- store interplay ------------------------------------------------------------------------

  /**
   * client-go's {@code TestReflectorReplacesStoreOnUnsafeDelete}: an object the server deleted
   * without a watch event (an unsafe delete of a corrupt object, announced by a StoreReadError
   * ERROR event) is gone after the relist that the error leads to; the objects listed stay.
   */
  @Test
  void reflectorReplacesStoreOnUnsafeDelete() throws Exception {
    Pod preExisting = pod("foo-1", "1");
    Pod[] listed = {preExisting, pod("foo-2", "2"), pod("foo-3", "3")};
    ApiException storeReadError =
        new ApiException(500, "StoreReadError",
            "failed to prepare current and previous objects: corrupt object has been deleted",
            null, List.of(), true);
    script.cannotStream().list("3", listed).watch(added("foo", "4"), error(storeReadError))
        .list("5", listed).watch();
    lw.onWatchCall(2, stop());
    Reflector<Pod> r = build(builder().executor(Runnable::run));

    String logged = LogCapture.stderrOf(() -> {
      r.start();
      assertThat(r.state()).isInstanceOf(BackingOff.class);
      assertThat(store.getByKey("ns/foo")).as("before the relist").isPresent();
      assertThat(store.getByKey("ns/foo-1")).isPresent();
      runWaitingOutBackoffs(r);
    });

    assertThat(logged).contains("watch ended with an error; will retry")
        .contains("corrupt object has been deleted");
    assertThat(r.lastSyncResourceVersion()).isEqualTo("5");
    assertThat(store.calls).containsExactly(
        "replace [ns/foo-1, ns/foo-2, ns/foo-3] 3", "add ns/foo 4",
        "replace [ns/foo-1, ns/foo-2, ns/foo-3] 5");
    assertThat(store.keysToRv()).containsOnlyKeys("ns/foo-1", "ns/foo-2", "ns/foo-3");
    assertThat(lw.requests()).containsExactly("list rv=0 limit=500", "watch rv=3", "list rv=4",
        "watch rv=5");
  }

  /** The objects a RealFIFO's queued deltas leave, by key (a relist's included). */
  private static Map<String, Pod> queuedState(RealFifo<Pod> fifo) {
    Map<String, Pod> objects = new LinkedHashMap<>();
    for (Delta<Pod> d : fifo.queuedDeltas()) {
      if (d.type() == DeltaType.REPLACED_ALL) {
        @SuppressWarnings("unchecked")
        Delta.ReplacedAllInfo<Pod> info = (Delta.ReplacedAllInfo<Pod>) d.object();
        objects.clear();
        info.objects().forEach(p -> objects.put(Keys.metaNamespaceKey(p), p));
      } else if (d.type().isBatchable()) {
        Pod p = d.unwrap();
        if (d.type() == DeltaType.DELETED) {
          objects.remove(Keys.metaNamespaceKey(p));
        } else {
          objects.put(Keys.metaNamespaceKey(p), p);
        }
      }
    }
    return objects;
  }

  static Stream<String> storeTransformerCases() {
    return Stream.of("real-fifo", "delta-fifo");
  }

  /**
   * client-go's {@code TestReflectorRespectStoreTransformer}: the objects of a streaming list reach
   * the store transformed, and so does a later event. Divergence: client-go transforms each
   * streamed object twice (into its temporary store, then again in the store's {@code Replace}) and
   * counts 5 calls; kinformer transforms each once as it arrives and hands the store the
   * transformed objects ({@link TransformingStore#replaceTransformed}), so 3.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("storeTransformerCases")
  void reflectorRespectStoreTransformer(String name) {
    AtomicInteger transformerInvoked = new AtomicInteger();
    UnaryOperator<Pod> transform = p -> {
      transformerInvoked.incrementAndGet();
      p.getSpec().setHostname("transformed");
      return p;
    };
    RealFifo<Pod> realFifo = null;
    DeltaFifo<Pod> deltaFifo = null;
    Store<Pod> s;
    if (name.equals("real-fifo")) {
      realFifo = RealFifo.builder(Keys.<Pod>metaNamespaceKeyFunc()).transform(transform).build();
      s = realFifo;
    } else {
      deltaFifo = DeltaFifo.builder(Keys.<Pod>metaNamespaceKeyFunc()).transform(transform).build();
      s = deltaFifo;
    }
    script.watch(
        WatchEvent.of(WatchEventType.ADDED, podWithHostname("foo-1", "1", "test")),
        WatchEvent.of(WatchEventType.ADDED, podWithHostname("foo-2", "2", "test")),
        initialEventsEnd("3"),
        WatchEvent.of(WatchEventType.ADDED, podWithHostname("foo-3", "3", "test")));
    lw.afterEvents(1, 4, stop());
    Reflector<Pod> r = build(builder(s));

    assertThat(cycle(r)).isNull();

    assertThat(r.lastSyncResourceVersion()).isEqualTo("3");
    Collection<Pod> items = realFifo != null ? queuedState(realFifo).values() : deltaFifo.list();
    assertThat(items).hasSize(3)
        .allSatisfy(p -> assertThat(p.getSpec().getHostname()).isEqualTo("transformed"));
    assertThat(transformerInvoked).hasValue(3);
    assertThat(lw.requests()).as("no list in WatchList mode").containsExactly("stream");
  }
}

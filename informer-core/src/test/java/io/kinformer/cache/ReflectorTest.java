package io.kinformer.cache;

import static io.kinformer.cache.ScriptedListerWatcher.EXPIRED;
import static io.kinformer.cache.ScriptedListerWatcher.FORBIDDEN;
import static io.kinformer.cache.ScriptedListerWatcher.INTERNAL;
import static io.kinformer.cache.ScriptedListerWatcher.STREAMING_REFUSED;
import static io.kinformer.cache.ScriptedListerWatcher.TOO_LARGE;
import static io.kinformer.cache.ScriptedListerWatcher.TOO_LARGE_BY_MESSAGE;
import static io.kinformer.cache.ScriptedListerWatcher.TOO_MANY;
import static io.kinformer.cache.ScriptedListerWatcher.added;
import static io.kinformer.cache.ScriptedListerWatcher.bookmark;
import static io.kinformer.cache.ScriptedListerWatcher.error;
import static io.kinformer.cache.ScriptedListerWatcher.initialEventsEnd;
import static io.kinformer.cache.ScriptedListerWatcher.modified;
import static io.kinformer.cache.ScriptedListerWatcher.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ReflectorException.Phase;
import io.kinformer.time.Backoff;
import io.kinformer.time.testing.FakeClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reflector's behaviour as client-go v0.36's {@code reflector_test.go} and {@code
 * reflector_watchlist_test.go} pin it, as tables: a script of what the server answers, and the
 * requests, states and store writes that follow. Everything runs on the test thread: {@link
 * Reflector#listAndWatch()} for whole cycles, {@link Reflector#step()} for single transitions,
 * {@link Reflector#start()} on a direct executor for the waits between cycles, time on a {@link
 * FakeClock}.
 */
class ReflectorTest {

  /** A pause inside a watch, so that it does not count as very short. */
  private static final Duration LATER = Duration.ofSeconds(2);

  @RegisterExtension final StderrCapture stderr = new StderrCapture();

  private final FakeClock clock = new FakeClock();
  private final ScriptedListerWatcher lw = new ScriptedListerWatcher(clock);
  private final RecordingStore<Pod> store = new RecordingStore<>();
  private final List<ReflectorException> reported = new ArrayList<>();

  private Reflector.Builder<Pod> builder() {
    return Reflector.builder("pods", lw, store)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(7))
        .backoff(unjittered(clock))
        .watchErrorHandler(reported::add);
  }

  private static Backoff.Policy unjittered(FakeClock clock) {
    return (c, r) -> Backoff.exponential(
        Duration.ofMillis(800), Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2), clock,
        new Random(1));
  }

  /** Runs {@code n} cycles; returns the phase of what ended each (null if it returned). */
  private static List<@Nullable Phase> cycles(Reflector<Pod> r, int n) {
    List<@Nullable Phase> ends = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try {
        r.listAndWatch();
        ends.add(null);
      } catch (ReflectorException e) {
        ends.add(e.phase());
      }
    }
    return ends;
  }

  // ---- whole cycles ---------------------------------------------------------------------------

  record Case(
      String name,
      UnaryOperator<Reflector.Builder<Pod>> config,
      Consumer<ScriptedListerWatcher> script,
      List<Phase> cycleEnds,
      List<String> requests,
      @Nullable List<String> storeCalls) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static UnaryOperator<Reflector.Builder<Pod>> listing() {
    return b -> b.streamingList(false);
  }

  static Stream<Case> cycleCases() {
    Phase event = Phase.WATCH_ERROR_EVENT;
    return Stream.of(
        new Case(
            "410 ERROR event: ends the cycle; the relist asks for the last RV, unpaged",
            listing(),
            s -> s.list("5", pod("a", "4")).watch(LATER, error(EXPIRED))
                .list("6").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=6"),
            List.of("replace [ns/a] 5", "replace [] 6")),
        new Case(
            "ERROR event other than 410 (500): relists (no internal-error retry by default)",
            listing(),
            s -> s.list("5").watch(LATER, error(INTERNAL)).list("6").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=6"),
            null),
        new Case(
            "watch refused (403): ends the cycle and relists at the last RV",
            listing(),
            s -> s.list("5").watchFails(FORBIDDEN).list("5").watch(LATER, error(EXPIRED)),
            List.of(Phase.WATCH_START, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=5"),
            null),
        new Case(
            "watch refused with HTTP 410 (older servers): relists at the last RV",
            listing(),
            s -> s.list("5").watchFails(EXPIRED).list("6").watch(LATER, error(EXPIRED)),
            List.of(Phase.WATCH_START, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=6"),
            null),
        new Case(
            "clean end after events: re-watches from the last RV in the same cycle",
            listing(),
            s -> s.list("5").watch(LATER, added("b", "6"), modified("b", "7"))
                .watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=7"),
            List.of("replace [] 5", "add ns/b 6", "update ns/b 7")),
        new Case(
            "connection reset mid-watch: re-watches from the last RV, no relist",
            listing(),
            s -> s.list("5").watch(LATER, added("b", "6"), TestPods.connectionReset())
                .watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=6"),
            null),
        new Case(
            "quiet watch ending after more than a second: re-watches",
            listing(),
            s -> s.list("5").watch(LATER).watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=5"),
            null),
        new Case(
            "very short watch (under a second, no event): ends the cycle and relists",
            listing(),
            s -> s.list("5").watch().list("5").watch(LATER, error(EXPIRED)),
            List.of(Phase.WATCH_TOO_SHORT, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=5"),
            null),
        new Case(
            "stream that cannot be decoded: ends the cycle and relists",
            listing(),
            s -> s.list("5").watch(LATER, new InformerException("malformed event"))
                .list("5").watch(LATER, error(EXPIRED)),
            List.of(Phase.WATCH_STREAM, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=5"),
            null),
        new Case(
            "relist refused as too large (message only, 1.17): retried at once consistently",
            listing(),
            s -> s.list("5").watch(LATER, error(EXPIRED))
                .listFails(TOO_LARGE_BY_MESSAGE).list("8").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "list", "watch rv=8"),
            null),
        new Case(
            "relist refused as expired: retried at once consistently",
            listing(),
            s -> s.list("5").watch(LATER, error(EXPIRED))
                .listFails(EXPIRED).list("8").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "list", "watch rv=8"),
            null),
        new Case(
            "consistent retry failing too: ends the cycle; the next lists consistently, paged",
            listing(),
            s -> s.list("5").watch(LATER, error(EXPIRED))
                .listFails(EXPIRED).listFails(INTERNAL)
                .list("9").watch(LATER, error(EXPIRED)),
            List.of(event, Phase.LIST, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=5", "list", "list limit=500",
                "watch rv=9"),
            null),
        new Case(
            "expired continue token: one unpaged list at the RV first asked for",
            b -> b.streamingList(false).pageSize(2),
            s -> s.page("5", "t1", pod("a", "1"), pod("b", "2")).listFails(EXPIRED)
                .list("7", pod("a", "1"), pod("b", "2"), pod("c", "7"))
                .watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=2", "list continue=t1 limit=2", "list rv=0", "watch rv=7"),
            List.of("replace [ns/a, ns/b, ns/c] 7")),
        new Case(
            "pages of a paged list: the first page's RV is the list's",
            listing(),
            s -> s.page("5", "t1", pod("a", "1")).page("6", null, pod("b", "2"))
                .watch(LATER, error(EXPIRED)).list("6").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "list continue=t1 limit=500", "watch rv=5",
                "list rv=5 limit=500", "watch rv=6"),
            List.of("replace [ns/a, ns/b] 5", "replace [] 6")),
        new Case(
            "explicit page size: honoured on a relist at a RV too",
            b -> b.streamingList(false).pageSize(2),
            s -> s.list("5").watch(LATER, error(EXPIRED)).list("6").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=2", "watch rv=5", "list rv=5 limit=2", "watch rv=6"),
            null),
        new Case(
            "page size 0: never pages",
            b -> b.streamingList(false).pageSize(0),
            s -> s.list("5").watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0", "watch rv=5"),
            null),
        new Case(
            "bookmark: goes to the store and advances the RV",
            listing(),
            s -> s.list("5").watch(LATER, bookmark("9"), error(EXPIRED))
                .list("10").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("list rv=0 limit=500", "watch rv=5", "list rv=9", "watch rv=10"),
            List.of("replace [] 5", "bookmark 9", "replace [] 10")),
        new Case(
            "internal errors within MaxInternalErrorRetryDuration: re-watched at once",
            b -> b.streamingList(false).maxInternalErrorRetryDuration(Duration.ofSeconds(30)),
            s -> s.list("5").watch(LATER, error(INTERNAL)).watch(LATER, error(INTERNAL))
                .watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=5", "watch rv=5"),
            null),
        new Case(
            "list without a RV: a watch from the start ending in its ADDED events relists",
            listing(),
            s -> s.list("", pod("a", "3")).watch(LATER, added("a", "3"))
                .list("", pod("a", "3")).watch(LATER, error(EXPIRED)),
            List.of(Phase.WATCH_STREAM, event),
            List.of("list rv=0 limit=500", "watch", "list rv=0 limit=500", "watch"),
            List.of("replace [ns/a] ", "add ns/a 3", "replace [ns/a] ")),
        // ---- streaming lists (the default) ----
        new Case(
            "streaming list: the end bookmark replaces the store; the same watch goes on",
            b -> b,
            s -> s.watch(added("a", "3"), added("b", "2"), initialEventsEnd("7"), LATER,
                    modified("a", "8"), error(EXPIRED))
                .watch(initialEventsEnd("9"), LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("stream", "stream rv=8"),
            List.of("replace [ns/a, ns/b] 7", "update ns/a 8", "replace [] 9")),
        new Case(
            "stream ending before its end bookmark: streams again from the start",
            b -> b,
            s -> s.watch(added("a", "3"), LATER)
                .watch(added("a", "3"), initialEventsEnd("5"), LATER, error(EXPIRED)),
            List.of(event),
            List.of("stream", "stream"),
            List.of("replace [ns/a] 5")),
        new Case(
            "streaming refused (a server without WatchList): lists; the next cycle streams again",
            b -> b,
            s -> s.watchFails(STREAMING_REFUSED).list("5").watch(LATER, error(EXPIRED))
                .watchFails(STREAMING_REFUSED).list("6").watch(LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("stream", "list rv=0 limit=500", "watch rv=5", "stream rv=5", "list rv=5",
                "watch rv=6"),
            null),
        new Case(
            "ERROR event other than 410 on the stream: falls back to a list",
            b -> b,
            s -> s.watch(error(INTERNAL)).list("5").watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("stream", "list rv=0 limit=500", "watch rv=5"),
            null),
        new Case(
            "very short stream: falls back to a list",
            b -> b,
            s -> s.watch().list("5").watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("stream", "list rv=0 limit=500", "watch rv=5"),
            null),
        new Case(
            "410 on the stream: streams again at once from the start (consistent)",
            b -> b,
            s -> s.watch(initialEventsEnd("7"), LATER, error(EXPIRED))
                .watch(error(EXPIRED))
                .watch(initialEventsEnd("9"), LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("stream", "stream rv=7", "stream"),
            null),
        new Case(
            "too large RV on the stream (504 event): streams again at once from the start",
            b -> b,
            s -> s.watch(initialEventsEnd("7"), LATER, error(EXPIRED))
                .watch(error(TOO_LARGE))
                .watch(initialEventsEnd("9"), LATER, error(EXPIRED)),
            List.of(event, event),
            List.of("stream", "stream rv=7", "stream"),
            null),
        new Case(
            "a ListerWatcher that cannot stream: lists",
            b -> b,
            s -> s.cannotStream().list("5").watch(LATER, error(EXPIRED)),
            List.of(event),
            List.of("list rv=0 limit=500", "watch rv=5"),
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cycleCases")
  void listAndWatch_whenTheServerAnswersAsScripted_makesClientGosRequests(Case c) {
    c.script().accept(lw);
    Reflector<Pod> r = c.config().apply(builder()).build();

    assertThat(cycles(r, c.cycleEnds().size())).containsExactlyElementsOf(c.cycleEnds());
    assertThat(lw.requests).containsExactlyElementsOf(c.requests());
    if (c.storeCalls() != null) {
      assertThat(store.calls).containsExactlyElementsOf(c.storeCalls());
    }
    assertThat(lw.exhausted()).as("every scripted answer used").isTrue();
  }

  // ---- single transitions ---------------------------------------------------------------------

  record StepCase(
      String name,
      UnaryOperator<Reflector.Builder<Pod>> config,
      Consumer<ScriptedListerWatcher> script,
      List<String> states,
      List<String> requests) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** A state in a line: {@code Watching rv=5}, {@code BackingOff WATCH_START then REWATCH}. */
  static String describe(ReflectorState s) {
    if (s instanceof ReflectorState.Idle i) {
      return i.lastFailure() == null ? "Idle" : "Idle " + i.lastFailure().phase();
    }
    if (s instanceof ReflectorState.Listing l) {
      return "Listing rv=" + l.resourceVersion();
    }
    if (s instanceof ReflectorState.Paging p) {
      return "Paging rv=" + p.resourceVersion() + " continue=" + p.continueToken();
    }
    if (s instanceof ReflectorState.Streaming st) {
      return "Streaming rv=" + st.resourceVersion() + " objects=" + st.objects();
    }
    if (s instanceof ReflectorState.Watching w) {
      return "Watching rv=" + w.resourceVersion();
    }
    if (s instanceof ReflectorState.BackingOff b) {
      return "BackingOff " + b.cause().phase() + " then " + b.then();
    }
    return "Stopped";
  }

  static Stream<StepCase> stepCases() {
    InformerException refused =
        new InformerException("connect failed", new ConnectException("Connection refused"));
    return Stream.of(
        new StepCase(
            "429 opening the watch: backs off, then re-watches in the same cycle",
            listing(),
            s -> s.list("5").watchFails(TOO_MANY).watch(LATER, error(EXPIRED)),
            List.of("Listing rv=0", "Watching rv=5", "BackingOff WATCH_START then REWATCH",
                "Watching rv=5", "Watching rv=5", "Idle WATCH_ERROR_EVENT"),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=5")),
        new StepCase(
            "connection refused opening the watch: backs off, then re-watches",
            listing(),
            s -> s.list("5").watchFails(refused).watch(LATER, error(EXPIRED)),
            List.of("Listing rv=0", "Watching rv=5", "BackingOff WATCH_START then REWATCH",
                "Watching rv=5", "Watching rv=5", "Idle WATCH_ERROR_EVENT"),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=5")),
        new StepCase(
            "429 ERROR event: backs off, then re-watches",
            listing(),
            s -> s.list("5").watch(LATER, error(TOO_MANY)).watch(LATER, error(EXPIRED)),
            List.of("Listing rv=0", "Watching rv=5", "Watching rv=5",
                "BackingOff WATCH_ERROR_EVENT then REWATCH", "Watching rv=5", "Watching rv=5",
                "Idle WATCH_ERROR_EVENT"),
            List.of("list rv=0 limit=500", "watch rv=5", "watch rv=5")),
        new StepCase(
            "429 on the stream: backs off, then streams again",
            b -> b,
            s -> s.watchFails(TOO_MANY).watch(added("a", "3"), initialEventsEnd("5")),
            List.of("Streaming rv= objects=0", "BackingOff WATCH_START then RESTREAM",
                "Streaming rv= objects=0", "Streaming rv= objects=0", "Streaming rv= objects=1",
                "Watching rv=5"),
            List.of("stream", "stream")),
        new StepCase(
            "paged list: Paging until the last page",
            listing(),
            s -> s.page("5", "t1", pod("a", "1")).page("5", "t2", pod("b", "1")).list("5"),
            List.of("Listing rv=0", "Paging rv=0 continue=t1", "Paging rv=0 continue=t2",
                "Watching rv=5"),
            List.of("list rv=0 limit=500", "list continue=t1 limit=500",
                "list continue=t2 limit=500")),
        new StepCase(
            "rewatchOnWatchError: an ERROR event other than 410 backs off and re-watches",
            b -> b.streamingList(false).rewatchOnWatchError(true),
            s -> s.list("5").watch(LATER, error(INTERNAL)),
            List.of("Listing rv=0", "Watching rv=5", "Watching rv=5",
                "BackingOff WATCH_ERROR_EVENT then REWATCH", "Watching rv=5"),
            List.of("list rv=0 limit=500", "watch rv=5")),
        new StepCase(
            "rewatchOnWatchError: a 410 still ends the cycle",
            b -> b.streamingList(false).rewatchOnWatchError(true),
            s -> s.list("5").watch(LATER, error(EXPIRED)),
            List.of("Listing rv=0", "Watching rv=5", "Watching rv=5", "Idle WATCH_ERROR_EVENT"),
            List.of("list rv=0 limit=500", "watch rv=5")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stepCases")
  void step_fromEachState_goesWhereClientGoGoes(StepCase c) {
    c.script().accept(lw);
    Reflector<Pod> r = c.config().apply(builder()).build();
    assertThat(describe(r.state())).isEqualTo("Idle");

    List<String> states = new ArrayList<>();
    for (int i = 0; i < c.states().size(); i++) {
      states.add(describe(r.step()));
    }

    assertThat(states).containsExactlyElementsOf(c.states());
    assertThat(lw.requests).containsExactlyElementsOf(c.requests());
  }

  @Test
  void streamingList_whileOnlyInitialEventsCame_doesNotAdvanceTheResourceVersion() {
    lw.watch(added("a", "9"), added("b", "3"), modified("a", "10"), initialEventsEnd("11"));
    Reflector<Pod> r = builder().build();
    List<String> rvs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      r.step();
      rvs.add(r.lastSyncResourceVersion());
    }
    // start, opened, ADDED, ADDED, MODIFIED (past the ADDED ones, still buffered), end bookmark
    assertThat(rvs).containsExactly("", "", "", "", "", "11");
    assertThat(store.calls).containsExactly("replace [ns/a, ns/b] 11");
  }

  @Test
  void streamingList_intoATransformingStore_transformsOnceAsObjectsArrive() {
    store.transform =
        p -> {
          Pod copy = pod(p.getMetadata().getName(), p.getMetadata().getResourceVersion());
          copy.getMetadata().setLabels(Map.of("stripped", "true"));
          return copy;
        };
    lw.watch(added("a", "3"), added("b", "4"), initialEventsEnd("5"));
    Reflector<Pod> r = builder().build();
    for (int i = 0; i < 5; i++) {
      r.step();
    }
    assertThat(store.calls).containsExactly("replaceTransformed [ns/a, ns/b] 5");
    assertThat(store.transformCalls).isEqualTo(2);
    assertThat(store.list()).allSatisfy(p -> assertThat(p.getMetadata().getLabels())
        .containsEntry("stripped", "true"));
  }

  // ---- watch options --------------------------------------------------------------------------

  @Test
  void watchOptions_askForBookmarksAndAFiveToTenMinuteTimeout_evenWithAShorterMinimum() {
    lw.watch(initialEventsEnd("5"), LATER).watch(LATER, error(EXPIRED));
    Reflector<Pod> r = builder().minWatchTimeout(Duration.ofMinutes(1)).build();
    cycles(r, 1);

    ListOptions stream = lw.watchOptions.get(0);
    assertThat(stream.sendInitialEvents()).isTrue();
    assertThat(stream.resourceVersionMatch()).isEqualTo(ListOptions.NOT_OLDER_THAN);
    ListOptions watch = lw.watchOptions.get(1);
    assertThat(watch.sendInitialEvents()).isNull();
    assertThat(watch.resourceVersionMatch()).isNull();
    for (ListOptions o : lw.watchOptions) {
      assertThat(o.allowWatchBookmarks()).isTrue();
      assertThat(o.timeoutSeconds()).isBetween(300L, 599L);
    }
  }

  // ---- internal errors (client-go's TestRetryInternalError) -----------------------------------

  record InternalCase(String name, Duration max, int rewindAt, int wantRetries) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<InternalCase> internalCases() {
    return Stream.of(
        new InternalCase("retries off", Duration.ZERO, 0, 0),
        new InternalCase("retries on, all calls fail", Duration.ofSeconds(30), 0, 31),
        new InternalCase("retries on, a minute's pause resets", Duration.ofSeconds(30), 10, 40));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("internalCases")
  void internalErrorEvents_areReWatchedForAtMostTheMaximumDuration(InternalCase c) {
    lw.list("1");
    for (int i = 1; i <= 60; i++) {
      Duration pause = i == c.rewindAt() ? Duration.ofSeconds(61) : Duration.ofSeconds(1);
      lw.watch(pause, error(INTERNAL));
    }
    Reflector<Pod> r = builder().streamingList(false).maxInternalErrorRetryDuration(c.max()).build();

    assertThat(cycles(r, 1)).containsExactly(Phase.WATCH_ERROR_EVENT);
    long watches = lw.requests.stream().filter(q -> q.startsWith("watch")).count();
    assertThat(watches - 1).isEqualTo(c.wantRetries());
  }

  // ---- store, resync and kind failures ----------------------------------------------------------

  @Test
  void storeThrowingAnError_onAWatchEvent_endsTheCycle_andTheNextRelists() {
    store.failNextAdd = new AssertionError("a transform's bug");
    lw.list("5").watch(LATER, added("a", "6")).list("6").watch(LATER, error(EXPIRED));
    Reflector<Pod> r = builder().streamingList(false).build();

    assertThat(cycles(r, 2)).containsExactly(Phase.STORE, Phase.WATCH_ERROR_EVENT);
    assertThat(lw.requests).containsExactly("list rv=0 limit=500", "watch rv=5", "list rv=5",
        "watch rv=6");
  }

  @Test
  void storeThrowingAVirtualMachineError_isRethrown_notRetried() {
    store.failNextAdd = new StackOverflowError("deep");
    lw.list("5").watch(LATER, added("a", "6"));
    Reflector<Pod> r = builder().streamingList(false).build();

    assertThatThrownBy(r::listAndWatch).isInstanceOf(StackOverflowError.class);
  }

  @Test
  void resyncThatThrows_endsTheWatchCycle() {
    store.failResync = new IllegalStateException("queue closed");
    lw.list("5").watch(LATER, added("a", "6"));
    Reflector<Pod> r =
        builder().streamingList(false).resync(Duration.ofSeconds(1), () -> true).build();

    assertThat(cycles(r, 1)).containsExactly(Phase.RESYNC);
    assertThat(store.resyncs).isEqualTo(1);
    assertThat(lw.requests).containsExactly("list rv=0 limit=500", "watch rv=5");
    assertThat(clock.hasPendingTasks()).as("the resync timer ends with the cycle").isFalse();
  }

  @Test
  void resync_whileWatching_callsTheStoreEveryPeriod() {
    lw.list("5").watch(Duration.ofSeconds(35), error(EXPIRED));
    Reflector<Pod> r =
        builder().streamingList(false).resync(Duration.ofSeconds(10), () -> true).build();

    cycles(r, 1);
    assertThat(store.resyncs).isEqualTo(3);
  }

  @Test
  void watchEventOfAnotherKind_isLoggedAndSkipped() {
    Pod other = pod("x", "6");
    other.setKind("NotAPod");
    lw.list("5")
        .watch(LATER, WatchEvent.of(WatchEventType.ADDED, other), added("b", "7"), error(EXPIRED));
    Reflector<Pod> r = builder().streamingList(false).expectedKind("v1", "Pod").build();

    cycles(r, 1);
    assertThat(store.calls).containsExactly("replace [] 5", "add ns/b 7");
    assertThat(stderr.text()).contains("unexpected watch event object of kind v1 NotAPod");
  }

  // ---- start(): cycles with backoff in between ------------------------------------------------

  @Test
  void start_afterEachCycle_waitsTheBackoffThenRelists() {
    lw.listFails(INTERNAL).listFails(INTERNAL).list("5").watch(LATER, error(EXPIRED)).list("6");
    Reflector<Pod> r = builder().streamingList(false).executor(Runnable::run).build();

    r.start();
    List<Duration> waits = new ArrayList<>();
    while (r.state() instanceof ReflectorState.BackingOff b && waits.size() < 3) {
      waits.add(b.delay());
      assertThat(clock.nextDelay()).contains(b.delay());
      clock.advance(b.delay());
    }

    assertThat(waits).containsExactly(
        Duration.ofMillis(800), Duration.ofMillis(1600), Duration.ofMillis(3200));
    assertThat(lw.requests).containsExactly("list rv=0 limit=500", "list rv=0 limit=500",
        "list rv=0 limit=500", "watch rv=5", "list rv=5", "watch rv=6");
    r.close();
    assertThat(r.state()).isInstanceOf(ReflectorState.Stopped.class);
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void start_withRetryAfterLongerThanTheBackoff_waitsRetryAfter() {
    ApiException busy =
        new ApiException(503, "ServiceUnavailable", "busy", Duration.ofSeconds(7), List.of(),
            false);
    lw.listFails(busy);
    Reflector<Pod> r = builder().streamingList(false).executor(Runnable::run).build();

    r.start();
    assertThat(r.state()).isInstanceOfSatisfying(ReflectorState.BackingOff.class,
        b -> assertThat(b.delay()).isEqualTo(Duration.ofSeconds(7)));
    r.close();
  }

  @Test
  void listAndWatch_afterStart_isRefused() {
    lw.listFails(INTERNAL);
    Reflector<Pod> r = builder().streamingList(false).executor(Runnable::run).build();
    r.start();
    assertThatThrownBy(r::listAndWatch).isInstanceOf(IllegalStateException.class);
    r.close();
  }

  @Test
  void listAndWatch_afterClose_returnsAndStaysStopped() {
    Reflector<Pod> r = builder().build();
    r.close();
    r.listAndWatch();
    assertThat(r.state()).isInstanceOf(ReflectorState.Stopped.class);
    assertThat(lw.requests).isEmpty();
  }

  @Test
  void everyFailure_reachesTheWatchErrorHandler() {
    lw.watchFails(STREAMING_REFUSED).list("5").watch(LATER, error(EXPIRED));
    Reflector<Pod> r = builder().build();
    cycles(r, 1);
    assertThat(reported).extracting(ReflectorException::phase)
        .containsExactly(Phase.WATCH_START, Phase.WATCH_ERROR_EVENT);
  }
}

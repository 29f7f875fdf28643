package io.kinformer.cache;

import static io.kinformer.cache.ScriptedListerWatcher.STREAMING_REFUSED;
import static io.kinformer.cache.ScriptedListerWatcher.initialEventsEnd;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.kinformer.cache.ReflectorException.Phase;
import io.kinformer.cache.ReflectorState.Idle;
import io.kinformer.cache.ReflectorState.Listing;
import io.kinformer.cache.ReflectorState.Stopped;
import io.kinformer.cache.ReflectorState.Streaming;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * client-go v0.36's {@code tools/cache/reflector_watchlist_test.go} (the streaming list, {@code
 * sendInitialEvents=true}), ported case by case: each test's Javadoc names its Go counterpart, and
 * each scenario keeps its Go name. client-go's context cancel is a close of the reflector from a
 * {@link HookedListerWatcher} hook; cycles are driven with {@link Reflector#step()}, which does not
 * wait out a backoff (client-go's tests wait it out on a real clock).
 *
 * <p>Not ported: {@code TestInitialEventsEndBookmarkTicker}, the warning every 10 s while a
 * streaming list waits for its end bookmark, which kinformer does not have (see {@link
 * Reflector}, "Where kinformer differs from client-go").
 */
class ReflectorWatchListClientGoTest {

  private final FakeClock clock = new FakeClock();
  private final ScriptedListerWatcher script = new ScriptedListerWatcher(clock);
  private final HookedListerWatcher lw = new HookedListerWatcher(script);
  private final RecordingStore<Pod> store = new RecordingStore<>();
  private @Nullable Reflector<Pod> reflector;

  private Reflector<Pod> build(ListerWatcher<Pod> source, boolean streamingList) {
    reflector =
        Reflector.builder("pods", source, store)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(7))
            .streamingList(streamingList)
            .build();
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

  /** client-go's {@code makePod}: a pod with its name as UID. */
  private static Pod makePod(String name, String rv) {
    Pod p = ScriptedListerWatcher.pod(name, rv);
    p.getMetadata().setUid(name);
    return p;
  }

  private static WatchEvent<Pod> event(WatchEventType type, Pod pod) {
    return WatchEvent.of(type, pod);
  }

  /** Steps {@code r} until the cycle ends (Idle) or it stops, not waiting out any backoff. */
  private static ReflectorState stepCycle(Reflector<Pod> r) {
    for (int i = 0; i < 10_000; i++) {
      ReflectorState s = r.step();
      if (s instanceof Idle || s instanceof Stopped) {
        return s;
      }
    }
    throw new AssertionError("the cycle did not end");
  }

  // ---- TestNewReflectorWithDisablementWatchList -------------------------------------------------

  record DisablementCase(
      boolean watchListClient, @Nullable Boolean lwSupports, boolean expectUseWatchList) {}

  static Stream<Named<DisablementCase>> disablementCases() {
    return Stream.of(
        Named.of("WatchListClient feature gate off, client supports WatchList semantics",
            new DisablementCase(false, true, false)),
        Named.of("WatchListClient feature gate on, client supports WatchList semantics",
            new DisablementCase(true, true, true)),
        Named.of("WatchListClient feature gate on, client doesn't support the WatchList semantics",
            new DisablementCase(true, false, false)),
        Named.of("WatchListClient feature gate on, client doesn't expose the"
                + " IsWatchListSemanticsUnSupported method",
            new DisablementCase(true, null, true)));
  }

  /**
   * client-go's {@code TestNewReflectorWithDisablementWatchList}: the reflector streams only when
   * streaming is on (client-go's WatchListClient gate; kinformer's {@link
   * Reflector.Builder#streamingList}) and the ListerWatcher does not say it cannot ({@link
   * ListerWatcher#supportsWatchList()}, true when not overridden). Seen in the first state.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("disablementCases")
  void newReflectorWithDisablementWatchList(DisablementCase c) {
    ListerWatcher<Pod> source;
    if (c.lwSupports() == null) {
      source =
          new ListerWatcher<>() { // does not override supportsWatchList()
            @Override
            public ListResult<Pod> list(ListOptions options, Cancellation cancellation) {
              return script.list(options, cancellation);
            }

            @Override
            public Watch<Pod> watch(ListOptions options, Cancellation cancellation) {
              return script.watch(options, cancellation);
            }
          };
    } else {
      if (!c.lwSupports()) {
        script.cannotStream();
      }
      source = script;
    }
    Reflector<Pod> r = build(source, c.watchListClient());

    ReflectorState first = r.step();

    assertThat(first).isInstanceOf(c.expectUseWatchList() ? Streaming.class : Listing.class);
  }

  // ---- TestWatchListResourceVersion ----------------------------------------------------------

  record ResourceVersionCase(List<WatchEvent<Pod>> watchEvents, String expectedResourceVersion) {}

  static Stream<Named<ResourceVersionCase>> watchListResourceVersionCases() {
    return Stream.of(
        Named.of("empty resource version", new ResourceVersionCase(List.of(), "")),
        Named.of("empty resource version without bookmark event",
            new ResourceVersionCase(List.of(event(WatchEventType.ADDED, makePod("p1", "1"))), "")),
        Named.of("non empty resource version with bookmark event and initial events annotation",
            new ResourceVersionCase(
                List.of(event(WatchEventType.ADDED, makePod("p1", "1")), initialEventsEnd("2")),
                "2")));
  }

  /**
   * client-go's {@code TestWatchListResourceVersion}: a streaming list takes no resourceVersion
   * from its initial ADDED events, only from its end bookmark.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("watchListResourceVersionCases")
  void watchListResourceVersion(ResourceVersionCase c) {
    script.watch(c.watchEvents().toArray());
    lw.afterEvents(1, c.watchEvents().size(), stop());
    Reflector<Pod> r = build(lw, true);

    assertThat(stepCycle(r)).isInstanceOf(Stopped.class);

    assertThat(r.lastSyncResourceVersion()).isEqualTo(c.expectedResourceVersion());
  }

  // ---- TestWatchList ---------------------------------------------------------------------------

  /** The options client-go expects of a streaming list request. */
  private static final String STREAM =
      "match=NotOlderThan bookmarks sendInitialEvents=true timeout";

  /** The options client-go expects of the first list. */
  private static final String LIST = "rv=0 limit=500";

  record WatchListCase(
      boolean disableUseWatchList,
      BiConsumer<ScriptedListerWatcher, HookedListerWatcher> setUp,
      List<String> expectedRequestOptions,
      int expectedWatchRequests,
      int expectedListRequests,
      List<Pod> expectedStoreContent,
      @Nullable String expectedError) {}

  private static Named<WatchListCase> scenario(
      String name,
      boolean disableUseWatchList,
      BiConsumer<ScriptedListerWatcher, HookedListerWatcher> setUp,
      List<String> expectedRequestOptions,
      int expectedWatchRequests,
      int expectedListRequests,
      List<Pod> expectedStoreContent,
      @Nullable String expectedError) {
    return Named.of(name, new WatchListCase(disableUseWatchList, setUp, expectedRequestOptions,
        expectedWatchRequests, expectedListRequests, expectedStoreContent, expectedError));
  }

  /** A streaming list refused with {@code refusal}: falls back to a list, then watches. */
  private static Named<WatchListCase> fallbackScenario(String name, RuntimeException refusal) {
    return scenario(
        name,
        false,
        (s, h) -> {
          s.watchFails(refusal)
              .list("1", makePod("p1", "1"))
              .watch(event(WatchEventType.ADDED, makePod("p2", "2")));
          h.afterEvents(2, 1, h.stop());
        },
        List.of(STREAM, LIST, "rv=1 bookmarks timeout"), 2, 1,
        List.of(makePod("p1", "1"), makePod("p2", "2")), null);
  }

  static Stream<Named<WatchListCase>> watchListCases() {
    ApiException expired =
        new ApiException(410, "Expired", "rv already expired", null, List.of(), false);
    ApiException busy =
        new ApiException(429, "TooManyRequests", "busy, check again later", Duration.ofSeconds(1),
            List.of(), false);
    Pod p1Modified = makePod("p1", "3");
    p1Modified.setSpec(new PodSpec());
    p1Modified.getSpec().setActiveDeadlineSeconds(12L);
    Pod notEnd = TestPods.bookmark("2");
    notEnd.getMetadata().setAnnotations(Map.of(WatchEvent.INITIAL_EVENTS_END_ANNOTATION, "false"));
    return Stream.of(
        scenario(
            "the reflector won't be synced if the bookmark event has been received",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1")));
              h.afterEvents(1, 1, h.stop());
            },
            List.of(STREAM), 1, 0, List.of(), null),
        scenario(
            "the reflector uses the old LIST/WATCH semantics if the UseWatchList is turned off",
            true,
            (s, h) -> {
              s.list("1", makePod("p1", "1")).watch();
              h.onWatchCall(1, h.stop());
            },
            List.of(LIST, "rv=1 bookmarks timeout"), 1, 1, List.of(makePod("p1", "1")), null),
        fallbackScenario(
            "returning any other error than apierrors.NewInvalid forces fallback",
            new InformerException("dummy error")),
        fallbackScenario(
            "the reflector can fall back to old LIST/WATCH semantics when a server doesn't"
                + " support streaming",
            STREAMING_REFUSED),
        scenario(
            "prove that the reflector is synced after receiving a bookmark event",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1")),
                  event(WatchEventType.ADDED, makePod("p2", "2")), initialEventsEnd("2"));
              h.afterEvents(1, 3, h.stop());
            },
            List.of(STREAM), 1, 0, List.of(makePod("p1", "1"), makePod("p2", "2")), null),
        scenario(
            "check if Updates and Deletes events are propagated during streaming (until the"
                + " bookmark is received)",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1")),
                  event(WatchEventType.ADDED, makePod("p2", "2")),
                  event(WatchEventType.MODIFIED, p1Modified),
                  event(WatchEventType.ADDED, makePod("p3", "4")),
                  event(WatchEventType.DELETED, makePod("p3", "5")),
                  initialEventsEnd("5"));
              h.afterEvents(1, 6, h.stop());
            },
            List.of(STREAM), 1, 0, List.of(makePod("p2", "2"), p1Modified), null),
        scenario(
            "checks if the reflector retries 429",
            false,
            (s, h) -> {
              s.watchFails(busy).watchFails(busy)
                  .watch(event(WatchEventType.ADDED, makePod("p1", "1")), initialEventsEnd("2"));
              h.afterEvents(3, 2, h.stop());
            },
            List.of(STREAM, STREAM, STREAM), 3, 0, List.of(makePod("p1", "1")), null),
        scenario(
            "check if stopping a watcher before sync results in creating a new watch-list"
                + " request",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1"))) // then stopped
                  .watch(event(WatchEventType.ADDED, makePod("p1", "1")), initialEventsEnd("1"));
              h.afterEvents(2, 2, h.stop());
            },
            List.of(STREAM, STREAM), 2, 0, List.of(makePod("p1", "1")), null),
        scenario(
            "stopping a watcher after synchronization results in creating a new watch request",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1")),
                      event(WatchEventType.ADDED, makePod("p2", "2")), initialEventsEnd("2"),
                      event(WatchEventType.ADDED, makePod("p3", "3"))) // then stopped
                  .watch(event(WatchEventType.ADDED, makePod("p4", "4")));
              h.afterEvents(2, 1, h.stop());
            },
            List.of(STREAM, "rv=3 bookmarks timeout"), 2, 0,
            List.of(makePod("p1", "1"), makePod("p2", "2"), makePod("p3", "3"),
                makePod("p4", "4")),
            null),
        scenario(
            "expiring an established watcher results in returning an error from the reflector",
            false,
            (s, h) -> s.watch(event(WatchEventType.ADDED, makePod("p1", "1")),
                    initialEventsEnd("2"), event(WatchEventType.ADDED, makePod("p3", "3")))
                .watchFails(expired),
            List.of(STREAM, "rv=3 bookmarks timeout"), 2, 0,
            List.of(makePod("p1", "1"), makePod("p3", "3")), "rv already expired"),
        scenario(
            "prove that the reflector is checking the value of the initialEventsEnd annotation",
            false,
            (s, h) -> {
              s.watch(event(WatchEventType.ADDED, makePod("p1", "1")),
                  event(WatchEventType.ADDED, makePod("p2", "2")),
                  event(WatchEventType.BOOKMARK, notEnd));
              h.afterEvents(1, 3, h.stop());
            },
            List.of(STREAM), 1, 0, List.of(), null));
  }

  /**
   * client-go's {@code TestWatchList}: the streaming list's requests, fallbacks, retries and
   * restarts, and what the store holds after them.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("watchListCases")
  void watchList(WatchListCase c) {
    lw.stopHook = stop();
    c.setUp().accept(script, lw);
    Reflector<Pod> r = build(lw, !c.disableUseWatchList());

    ReflectorState end = stepCycle(r);

    if (c.expectedError() == null) {
      assertThat(end).isInstanceOf(Stopped.class);
    } else {
      assertThat(end).isInstanceOfSatisfying(Idle.class, i -> {
        assertThat(i.lastFailure().phase()).isEqualTo(Phase.WATCH_START);
        assertThat(i.lastFailure().getCause()).hasMessageContaining(c.expectedError());
      });
    }
    assertThat(lw.requests()).filteredOn(q -> !q.startsWith("list"))
        .hasSize(c.expectedWatchRequests());
    assertThat(lw.requests()).filteredOn(q -> q.startsWith("list"))
        .hasSize(c.expectedListRequests());
    assertThat(lw.requestOptions).extracting(ReflectorClientGoTest::describe)
        .containsExactlyElementsOf(c.expectedRequestOptions());
    List<Pod> actual = new ArrayList<>(store.list());
    assertThat(actual).containsExactlyInAnyOrderElementsOf(c.expectedStoreContent());
  }
}

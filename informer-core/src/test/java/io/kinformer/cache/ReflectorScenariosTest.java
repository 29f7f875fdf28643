package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.Backoff;
import io.kinformer.time.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ports of client-go's {@code reflector_test.go} scenarios that {@link ReflectorTest} does not
 * cover: the backoff sequence and its reset, watch timeout bounds, the resourceVersion of each
 * (re)list, paging decisions and very short watches. Time is a {@link FakeClock}.
 */
class ReflectorScenariosTest {

  private static final ApiException SERVER_ERROR =
      new ApiException(500, "InternalError", "etcd down", null, List.of(), false);
  private static final ApiException EXPIRED =
      new ApiException(410, "Expired", "too old resource version: 2 (9)", null, List.of(), false);
  private static final ApiException TOO_LARGE =
      new ApiException(
          504,
          "Timeout",
          "Too large resource version",
          null,
          List.of("ResourceVersionTooLarge"),
          false);

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final RecordingStore<Pod> store = new RecordingStore<>();
  private final List<ReflectorException> errors = new CopyOnWriteArrayList<>();
  private Reflector<Pod> reflector;

  @AfterEach
  void close() {
    if (reflector != null) {
      reflector.close();
    }
  }

  /** Awaitility polling fast: these waits are for other threads to catch up, not for time. */
  static ConditionFactory await() {
    return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
  }

  private Reflector.Builder<Pod> builder(ListerWatcher<Pod> lw) {
    return Reflector.builder("pods", lw, store)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(11))
        .watchErrorHandler(errors::add);
  }

  private void start(Reflector.Builder<Pod> b) {
    reflector = b.build();
    reflector.start();
  }

  private static Backoff unjittered(FakeClock clock) {
    return Backoff.exponential(
        Duration.ofMillis(800),
        Duration.ofSeconds(30),
        2.0,
        0.0,
        Duration.ofMinutes(2),
        clock,
        new Random(1));
  }

  /** Waits for the reflector to schedule its retry; returns the delay and moves time to it. */
  private Duration advanceToRetry() {
    await().until(clock::hasPendingTasks);
    Duration d = clock.nextDelay().orElseThrow();
    clock.advance(d);
    return d;
  }

  private void awaitWatchOpen(int watchCalls) {
    await().until(() -> source.watchCalls().size() >= watchCalls && source.openWatchCount() == 1);
  }

  // ---- backoff --------------------------------------------------------------------------------

  record BackoffCase(String name, int failures, List<Duration> expectedDelays) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BackoffCase> backoffCases() {
    return Stream.of(
        new BackoffCase(
            "5 failures grow exponentially below the cap", 5, millis(800, 1600, 3200, 6400, 12800)),
        new BackoffCase(
            "9 failures flatten at the 30s cap",
            9,
            millis(800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000)));
  }

  private static List<Duration> millis(long... ms) {
    List<Duration> out = new ArrayList<>();
    for (long m : ms) {
      out.add(Duration.ofMillis(m));
    }
    return out;
  }

  /** client-go {@code TestReflectorListAndWatchInitConnBackoff}, with jitter 0: exact delays. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("backoffCases")
  void watchConnectionFailures_backOffWithTheExactUnjitteredSequence(BackoffCase c) {
    for (int i = 0; i < c.failures(); i++) {
      source.failNextWatch(new InformerException("connection refused"));
    }
    start(builder(source).backoff(unjittered(clock)));
    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < c.failures(); i++) {
      delays.add(advanceToRetry());
    }
    awaitWatchOpen(c.failures() + 1);

    assertThat(delays).containsExactlyElementsOf(c.expectedDelays());
    assertThat(errors)
        .hasSize(c.failures())
        .allSatisfy(e -> assertThat(e.phase()).isEqualTo(ReflectorException.Phase.WATCH_START));
    assertThat(source.listCalls()).as("a refused watch does not relist").hasSize(1);
  }

  /** The default backoff (client-go's numbers, jitter 1.0): each delay within [d, 2d). */
  @Test
  void defaultBackoff_staysWithinTheJitterBoundsOfEachStep() {
    int failures = 9;
    for (int i = 0; i < failures; i++) {
      source.failNextList(SERVER_ERROR);
    }
    start(builder(source).backoff(Backoff.clientGoDefault(clock, new Random(5))));
    List<Duration> unjittered = millis(800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000);
    for (int i = 0; i < failures; i++) {
      Duration d = advanceToRetry();
      Duration base = unjittered.get(i);
      assertThat(d).as("delay %d", i).isGreaterThanOrEqualTo(base).isLessThan(base.multipliedBy(2));
    }
    awaitWatchOpen(1);
  }

  record ResetCase(String name, Duration healthy, Duration expectedNextDelay) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ResetCase> resetCases() {
    return Stream.of(
        new ResetCase(
            "a failure after more than 2 healthy minutes starts over",
            Duration.ofSeconds(121),
            Duration.ofMillis(800)),
        new ResetCase(
            "a failure after a short healthy spell keeps growing",
            Duration.ofSeconds(60),
            Duration.ofMillis(12800)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("resetCases")
  void backoff_resetsOnlyAfterAHealthyPeriod(ResetCase c) {
    for (int i = 0; i < 4; i++) {
      source.failNextWatch(new InformerException("connection refused"));
    }
    start(builder(source).backoff(unjittered(clock)));
    for (int i = 0; i < 4; i++) {
      advanceToRetry(); // 0.8, 1.6, 3.2, 6.4 s
    }
    awaitWatchOpen(5);
    source.add(pod("ns", "a")); // the watch is healthy: it delivers
    await().until(() -> store.keysToRv().containsKey("ns/a"));
    clock.advance(c.healthy());

    // The healthy watch ends and the next one is refused: that failure is backed off.
    source.failNextWatch(new InformerException("connection refused"));
    source.endWatches();
    assertThat(advanceToRetry()).isEqualTo(c.expectedNextDelay());
    awaitWatchOpen(7);
  }

  // ---- watch timeout ---------------------------------------------------------------------------

  record TimeoutCase(String name, Duration minWatchTimeout, long randomBits, long expectedSeconds) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<TimeoutCase> timeoutCases() {
    return Stream.of(
        new TimeoutCase("default, lowest draw: 5 min", Duration.ZERO, 0L, 300),
        new TimeoutCase("default, highest draw: just under 10 min", Duration.ZERO, -1L, 599),
        new TimeoutCase("30 min, lowest draw", Duration.ofMinutes(30), 0L, 1800),
        new TimeoutCase("30 min, highest draw", Duration.ofMinutes(30), -1L, 3599));
  }

  /** client-go {@code TestWatchTimeout}: timeoutSeconds is in [min, 2*min). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("timeoutCases")
  void watchTimeout_isRandomisedBetweenMinAndTwiceMin(TimeoutCase c) {
    // nextDouble() of this generator is 0.0 for bits 0 and the largest double below 1 for -1.
    RandomGenerator fixed = () -> c.randomBits();
    Reflector.Builder<Pod> b = builder(source).random(fixed);
    if (!c.minWatchTimeout().isZero()) {
      b.minWatchTimeout(c.minWatchTimeout());
    }
    start(b);
    awaitWatchOpen(1);
    assertThat(source.watchCalls().get(0).timeoutSeconds()).isEqualTo(c.expectedSeconds());
  }

  @Test
  void watchTimeout_drawsAreSpreadOverTheWholeRange() {
    start(builder(source).random(new Random(42)));
    awaitWatchOpen(1);
    for (int i = 0; i < 20; i++) {
      source.add(pod("ns", "p" + i));
      int stored = i + 2;
      await().until(() -> store.calls.size() == stored);
      source.endWatches();
      awaitWatchOpen(i + 2);
    }
    List<Long> timeouts = source.watchCalls().stream().map(ListOptions::timeoutSeconds).toList();
    assertThat(timeouts).allSatisfy(t -> assertThat(t).isBetween(300L, 599L));
    assertThat(timeouts.stream().distinct().count()).as("not all the same").isGreaterThan(1);
  }

  // ---- which resourceVersion each list asks for ----------------------------------------------

  /** What a scripted list call does: succeed (null) or throw. */
  record RelistCase(String name, List<RuntimeException> listOutcomes, List<String> expectedLists) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<RelistCase> relistCases() {
    return Stream.of(
        new RelistCase(
            "first list at 0 and paged, relist after an expired watch at the last RV, unpaged",
            outcomes(null, null),
            List.of("rv=0 limit=500", "rv=2 limit=-")),
        new RelistCase(
            "relist refused as expired falls back to a consistent paged list",
            outcomes(null, EXPIRED, null),
            List.of("rv=0 limit=500", "rv=2 limit=-", "rv= limit=500")),
        new RelistCase(
            "relist refused as too large falls back to a consistent paged list",
            outcomes(null, TOO_LARGE, null),
            List.of("rv=0 limit=500", "rv=2 limit=-", "rv= limit=500")),
        new RelistCase(
            "a failed consistent list stays consistent until one succeeds",
            outcomes(null, EXPIRED, SERVER_ERROR, null, null),
            List.of(
                "rv=0 limit=500",
                "rv=2 limit=-",
                "rv= limit=500",
                "rv= limit=500",
                "rv=2 limit=-")),
        new RelistCase(
            "an expired first list at 0 falls back to a consistent list",
            outcomes(EXPIRED, null),
            List.of("rv=0 limit=500", "rv= limit=500")),
        new RelistCase(
            "a failed first list retries at 0",
            outcomes(SERVER_ERROR, null),
            List.of("rv=0 limit=500", "rv=0 limit=500")));
  }

  private static List<RuntimeException> outcomes(RuntimeException... outcomes) {
    return java.util.Arrays.asList(outcomes);
  }

  /**
   * client-go's {@code relistResourceVersion} table ({@code
   * TestReflectorResyncWithResourceVersion}, {@code TestReflectorExpiredExactResourceVersion},
   * {@code TestReflectorFullListIfExpired}, {@code TestReflectorFullListIfTooLarge}). Each time the
   * reflector watches, the watch is ended with a 410 ERROR event, which forces the next list.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("relistCases")
  void relist_asksForTheResourceVersionClientGoWould(RelistCase c) {
    source.add(pod("ns", "a")); // rv 2
    Deque<RuntimeException> script = new ArrayDeque<>();
    for (RuntimeException o : c.listOutcomes()) {
      script.add(o == null ? SUCCEED : o); // a deque cannot hold null
    }
    List<String> lists = new CopyOnWriteArrayList<>();
    ListerWatcher<Pod> lw =
        new ListerWatcher<>() {
          @Override
          public ListResult<Pod> list(ListOptions options) {
            lists.add(
                "rv="
                    + (options.resourceVersion() == null ? "" : options.resourceVersion())
                    + " limit="
                    + (options.limit() == null ? "-" : options.limit()));
            RuntimeException outcome;
            synchronized (script) {
              outcome = script.isEmpty() ? SUCCEED : script.poll();
            }
            if (outcome != SUCCEED) {
              throw outcome;
            }
            return source.list(options);
          }

          @Override
          public Watch<Pod> watch(ListOptions options) {
            return source.watch(options);
          }
        };
    start(builder(lw));

    int handledWatches = 0;
    while (lists.size() < c.expectedLists().size()) {
      int seen = handledWatches;
      await()
          .until(
              () ->
                  clock.hasPendingTasks()
                      || (source.openWatchCount() == 1 && source.watchCalls().size() > seen));
      if (clock.hasPendingTasks()) {
        clock.advance(clock.nextDelay().orElseThrow());
      } else {
        handledWatches = source.watchCalls().size();
        source.sendToWatches(WatchEvent.error(withEvent(EXPIRED)));
        await().until(clock::hasPendingTasks);
      }
    }
    assertThat(lists).containsExactlyElementsOf(c.expectedLists());
  }

  /** Marks a scripted list call that succeeds. */
  private static final RuntimeException SUCCEED = new RuntimeException("succeed");

  private static ApiException withEvent(ApiException e) {
    return new ApiException(
        e.code(),
        e.reason().orElse(null),
        e.statusMessage().orElse(null),
        null,
        e.causeReasons(),
        true);
  }

  // ---- which failures relist
  // ---------------------------------------------------------------------

  /** How a failure reaches the reflector while it watches. */
  enum Delivery {
    /** The re-watch after a dropped connection is refused with this exception. */
    REFUSED_WATCH,
    /** The open watch receives an ERROR event with this status. */
    ERROR_EVENT
  }

  record FailureCase(
      String name,
      Delivery delivery,
      ApiException error,
      ReflectorException.Phase expectedPhase,
      @org.jspecify.annotations.Nullable String expectedRelistRv) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static ApiException api(int code, String reason, String... causes) {
    return new ApiException(code, reason, "failure " + code, null, List.of(causes), false);
  }

  static Stream<FailureCase> failureCases() {
    ReflectorException.Phase start = ReflectorException.Phase.WATCH_START;
    ReflectorException.Phase event = ReflectorException.Phase.WATCH_ERROR_EVENT;
    return Stream.of(
        new FailureCase(
            "429 on watch: back off, re-watch",
            Delivery.REFUSED_WATCH,
            api(429, "TooManyRequests"),
            start,
            null),
        new FailureCase(
            "500 on watch: back off, re-watch",
            Delivery.REFUSED_WATCH,
            api(500, "InternalError"),
            start,
            null),
        new FailureCase(
            "403 on watch: back off, re-watch",
            Delivery.REFUSED_WATCH,
            api(403, "Forbidden"),
            start,
            null),
        new FailureCase(
            "ERROR event 500: back off, re-watch",
            Delivery.ERROR_EVENT,
            api(500, "InternalError"),
            event,
            null),
        new FailureCase(
            "HTTP 410 on watch: relist at the last RV",
            Delivery.REFUSED_WATCH,
            api(410, "Gone"),
            start,
            "2"),
        new FailureCase(
            "ERROR event 410 Expired: relist at the last RV",
            Delivery.ERROR_EVENT,
            api(410, "Expired"),
            event,
            "2"),
        new FailureCase(
            "ERROR event reason Expired, other code: relist",
            Delivery.ERROR_EVENT,
            api(500, "Expired"),
            event,
            "2"),
        new FailureCase(
            "too large RV on watch: consistent relist",
            Delivery.REFUSED_WATCH,
            api(504, "Timeout", "ResourceVersionTooLarge"),
            start,
            ""),
        new FailureCase(
            "too large RV as ERROR event: consistent relist",
            Delivery.ERROR_EVENT,
            api(504, "Timeout", "ResourceVersionTooLarge"),
            event,
            ""));
  }

  /**
   * client-go {@code TestReflectorListAndWatchWithErrors}, {@code TestBackoffOnTooManyRequests},
   * {@code TestNoRelistOnTooManyRequests}, {@code TestRetryInternalError}: only "too old" and "too
   * large" relist; every other failure backs off and re-watches from the last RV (kinformer also
   * re-watches where client-go would relist). Each failure reaches the error handler.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("failureCases")
  void watchFailure_relistsOnlyWhenTheResourceVersionIsUnusable(FailureCase c) {
    source.add(pod("ns", "a")); // rv 2
    start(builder(source));
    awaitWatchOpen(1);
    if (c.delivery() == Delivery.REFUSED_WATCH) {
      source.failNextWatch(c.error());
      source.breakWatches(TestPods.connectionReset());
      advanceToRetry(); // the re-watch is refused
      await().until(() -> errors.size() == 2);
    } else {
      source.sendToWatches(WatchEvent.error(withEvent(c.error())));
      await().until(() -> errors.size() == 1);
    }
    ReflectorException last = errors.get(errors.size() - 1);
    assertThat(last.phase()).isEqualTo(c.expectedPhase());
    assertThat(last.apiError())
        .hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(c.error().code()));

    advanceToRetry();
    int watches = c.delivery() == Delivery.REFUSED_WATCH ? 3 : 2;
    awaitWatchOpen(watches);
    List<ListOptions> lists = source.listCalls();
    if (c.expectedRelistRv() == null) {
      assertThat(lists).hasSize(1);
      assertThat(source.watchCalls().get(watches - 1).resourceVersion()).isEqualTo("2");
    } else {
      assertThat(lists).hasSize(2);
      String rv = lists.get(1).resourceVersion();
      assertThat(rv == null ? "" : rv).isEqualTo(c.expectedRelistRv());
    }
    assertThat(store.keysToRv()).containsOnlyKeys("ns/a");
  }

  // ---- paging --------------------------------------------------------------------------------

  /**
   * client-go {@code TestReflectorPaginatingNonConsistentReadsIfWatchCacheDisabled}: a paged answer
   * to the list at "0" means the server has no watch cache, so later relists at a known RV are
   * paged too.
   */
  @Test
  void pagedListAtZero_makesLaterRelistsAtAKnownRvPaged() {
    for (int i = 0; i < 3; i++) {
      source.add(pod("ns", "p" + i)); // rv 2..4
    }
    start(builder(source).pageSize(2));
    awaitWatchOpen(1);
    source.sendToWatches(WatchEvent.error(withEvent(EXPIRED)));
    advanceToRetry();
    awaitWatchOpen(2);

    assertThat(source.listCalls())
        .extracting(o -> o.resourceVersion() + "/" + o.limit() + "/" + (o.continueToken() != null))
        .containsExactly("0/2/false", "null/2/true", "4/2/false", "null/2/true");
    assertThat(store.keysToRv()).hasSize(3);
  }

  /**
   * client-go {@code TestReflectorNotPaginatingNotConsistentReads}: the watch cache ignores limit.
   */
  @Test
  void unpagedListAtZero_keepsRelistsAtAKnownRvUnpaged() {
    for (int i = 0; i < 3; i++) {
      source.add(pod("ns", "p" + i));
    }
    source.ignoreLimit(true);
    start(builder(source).pageSize(2));
    awaitWatchOpen(1);
    source.sendToWatches(WatchEvent.error(withEvent(EXPIRED)));
    advanceToRetry();
    awaitWatchOpen(2);

    assertThat(source.listCalls())
        .extracting(o -> o.resourceVersion() + "/" + o.limit())
        .containsExactly("0/2", "4/null");
  }

  @Test
  void pageSizeZero_neverPages() {
    for (int i = 0; i < 3; i++) {
      source.add(pod("ns", "p" + i));
    }
    start(builder(source).pageSize(0));
    awaitWatchOpen(1);
    assertThat(source.listCalls()).extracting(ListOptions::limit).containsExactly((Long) null);
  }

  // ---- very short watches ----------------------------------------------------------------------

  record ShortWatchCase(
      String name, boolean deliverEventFirst, Duration openFor, boolean expectFailure) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ShortWatchCase> shortWatchCases() {
    return Stream.of(
        new ShortWatchCase("ends at once without events: a failure", false, Duration.ZERO, true),
        new ShortWatchCase(
            "ends within the second without events: a failure",
            false,
            Duration.ofMillis(999),
            true),
        new ShortWatchCase(
            "ends after a second without events: a normal end",
            false,
            Duration.ofSeconds(1),
            false),
        new ShortWatchCase(
            "ends at once after an event: a normal end", true, Duration.ZERO, false));
  }

  /**
   * client-go's {@code VeryShortWatchError}: a watch that ends at once is a failure, not an end.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("shortWatchCases")
  void veryShortWatch_isAFailureThatBacksOff(ShortWatchCase c) {
    start(builder(source));
    awaitWatchOpen(1);
    if (c.deliverEventFirst()) {
      source.add(pod("ns", "a"));
      await().until(() -> store.calls.size() == 2);
    }
    clock.advance(c.openFor());
    source.endWatches();

    if (c.expectFailure()) {
      await().until(() -> errors.size() == 1);
      assertThat(errors.get(0).phase()).isEqualTo(ReflectorException.Phase.WATCH_TOO_SHORT);
      advanceToRetry();
    }
    awaitWatchOpen(2);
    if (!c.expectFailure()) {
      assertThat(errors).isEmpty();
    }
    assertThat(source.listCalls()).as("neither case relists").hasSize(1);
    assertThat(source.watchCalls().get(1).resourceVersion())
        .isEqualTo(c.deliverEventFirst() ? "2" : "1");
  }

  // ---- close from the reflector's own thread ----------------------------------------------------

  @Test
  void close_fromTheWatchErrorHandler_returnsWithoutWaitingForItself() {
    source.failNextList(SERVER_ERROR);
    List<String> closed = new CopyOnWriteArrayList<>();
    reflector =
        builder(source)
            .watchErrorHandler(
                e -> {
                  reflector.close(); // without the self check this waits 30 s for itself
                  closed.add(Thread.currentThread().getName());
                })
            .build();
    reflector.start();

    await().until(() -> closed.size() == 1);
    assertThat(closed).containsExactly("kinformer-pods-reflector");
    await()
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().equals("kinformer-pods-reflector")));
    assertThat(clock.hasPendingTasks()).as("no retry after close").isFalse();
    assertThat(reflector.isRunning()).isFalse();
  }

  @Test
  void close_whileAListRequestHangs_interruptsItAndReturns() throws Exception {
    java.util.concurrent.CountDownLatch listing = new java.util.concurrent.CountDownLatch(1);
    List<String> outcome = new CopyOnWriteArrayList<>();
    ListerWatcher<Pod> hanging =
        new ListerWatcher<>() {
          @Override
          public ListResult<Pod> list(ListOptions options) {
            listing.countDown();
            try {
              new java.util.concurrent.CountDownLatch(1).await(); // a server that never answers
              throw new AssertionError("unreachable");
            } catch (InterruptedException e) {
              outcome.add("interrupted");
              Thread.currentThread().interrupt();
              throw new InformerException("list interrupted", e);
            }
          }

          @Override
          public Watch<Pod> watch(ListOptions options) {
            return source.watch(options);
          }
        };
    start(builder(hanging));
    assertThat(listing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(reflector::close, "test-closer");
    closer.start();
    // Without the interrupt, close() would wait 30 s for the list to answer.
    await().until(() -> !closer.isAlive());
    assertThat(outcome).containsExactly("interrupted");
    assertThat(errors).as("a failure caused by close() is not reported").isEmpty();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .doesNotContain("kinformer-pods-reflector");
  }

  @Test
  void close_returnsOnlyOnceTheReflectorThreadIsGone() {
    start(builder(source));
    awaitWatchOpen(1);
    reflector.close();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .doesNotContain("kinformer-pods-reflector");
  }
}

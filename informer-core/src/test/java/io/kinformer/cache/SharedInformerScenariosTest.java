package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.InformerTestSupport.fullStateRequests;
import static io.kinformer.cache.InformerTestSupport.keysToRv;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerTestSupport.ReplayingHandler;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ports of client-go's {@code shared_informer_test.go} and {@code controller_test.go} scenarios
 * that {@link SharedIndexInformerTest} does not cover: resync periods per handler, handler removal
 * during delivery, handlers added while events flow, and the convergence property: after any
 * history of changes, dropped watches and relists, each handler's replayed view equals the cache
 * and the source.
 */
class SharedInformerScenariosTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();

  private SharedIndexInformer<Pod> informer(SharedIndexInformer.Builder<Pod> b) {
    SharedIndexInformer<Pod> i = b.build();
    informers.add(i);
    return i;
  }

  private SharedIndexInformer.Builder<Pod> builder() {
    return SharedIndexInformer.builder("pods", source)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(3));
  }

  @AfterEach
  void closeAll() {
    informers.forEach(SharedIndexInformer::close);
  }

  private void awaitWatching(int watches) {
    await().until(() -> source.watchCalls().size() >= watches && source.openWatchCount() == 1);
  }

  /** Counts resyncs (updates with old == new) per handler. */
  static final class ResyncCounter implements ResourceEventHandler<Pod> {
    final List<String> resyncs = new CopyOnWriteArrayList<>();
    final List<String> adds = new CopyOnWriteArrayList<>();

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      adds.add(obj.getMetadata().getName());
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      if (oldObj == newObj) {
        resyncs.add(newObj.getMetadata().getName());
      }
    }
  }

  // ---- resync
  // ------------------------------------------------------------------------------------

  /**
   * client-go {@code TestListenerResyncPeriods} and {@code TestResyncCheckPeriod}: the informer
   * checks every 10 s; handlers every 20 s and 30 s are resynced on their own schedule, one that
   * never resyncs is left alone, and a handler added after start asking for 5 s gets the 10 s check
   * period (it cannot be checked more often).
   */
  @Test
  void resync_eachHandlerOnItsOwnPeriod_andALateShortPeriodIsRaisedToTheCheckPeriod() {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    SharedIndexInformer<Pod> informer = informer(builder().defaultResync(Duration.ofSeconds(10)));
    ResyncCounter never = new ResyncCounter();
    ResyncCounter every20 = new ResyncCounter();
    ResyncCounter every30 = new ResyncCounter();
    informer.addEventHandler(never, Duration.ZERO);
    informer.addEventHandler(every20, Duration.ofSeconds(20));
    informer.addEventHandler(every30, Duration.ofSeconds(30));
    informer.start();
    awaitWatching(1);
    ResyncCounter late = new ResyncCounter();
    informer.addEventHandler(late, Duration.ofSeconds(5));
    await().until(() -> late.adds.size() == 2 && every30.adds.size() == 2);

    // second → expected total resyncs (2 objects each) of {every20, every30, late}
    // One check period at a time: a tick that comes before the previous tick's SYNC deltas were
    // processed re-marks which handlers are due (client-go behaves the same).
    int[][] expected = {
      {10, 0, 0, 2}, {20, 2, 0, 4}, {30, 2, 2, 6}, {40, 4, 2, 8}, {50, 4, 2, 10}, {60, 6, 4, 12}
    };
    int now = 0;
    for (int[] step : expected) {
      clock.advance(Duration.ofSeconds(step[0] - now));
      now = step[0];
      await()
          .alias(
              "at "
                  + now
                  + "s: every20/every30/late resyncs are "
                  + step[1]
                  + "/"
                  + step[2]
                  + "/"
                  + step[3])
          .until(
              () ->
                  every20.resyncs.size() == step[1]
                      && every30.resyncs.size() == step[2]
                      && late.resyncs.size() == step[3]);
    }
    assertThat(never.resyncs).isEmpty();
    assertThat(every20.resyncs).containsOnly("a", "b");
  }

  /**
   * Divergence kept on purpose: with a zero default, a handler's period given before start still
   * makes the informer check (client-go would ignore it). After start, with no check running, a
   * handler's resync period cannot be honoured.
   */
  @Test
  void resync_withZeroDefault_handlerPeriodBeforeStartWorks_butNotOneAddedAfterStart() {
    source.add(pod("ns", "a"));
    SharedIndexInformer<Pod> informer = informer(builder());
    ResyncCounter early = new ResyncCounter();
    informer.addEventHandler(early, Duration.ofSeconds(15));
    informer.start();
    awaitWatching(1);
    // The initial list must be processed first: a resync skips keys whose deltas are queued.
    await().until(() -> early.adds.size() == 1);
    clock.advance(Duration.ofSeconds(15));
    await().until(() -> early.resyncs.size() == 1);

    SharedIndexInformer<Pod> other = informer(builder());
    other.start();
    await().until(other::hasSynced);
    ResyncCounter late = new ResyncCounter();
    other.addEventHandler(late, Duration.ofSeconds(15));
    await().until(() -> late.adds.size() == 1);
    for (int i = 2; i <= 5; i++) {
      clock.advance(Duration.ofSeconds(15));
      int resyncs = i;
      await().until(() -> early.resyncs.size() == resyncs);
    }
    assertThat(late.resyncs).isEmpty();
  }

  // ---- relist events

  /** A change made while the watch is down: {@code +name}, {@code ~name}, {@code -name}. */
  record RelistCase(
      String name, List<String> initial, List<String> changesWhileDown, List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<RelistCase> relistCases() {
    return Stream.of(
        new RelistCase(
            "create with no initial objects",
            List.of(),
            List.of("+pod-1"),
            List.of("add ns/pod-1@2")),
        new RelistCase(
            "delete all objects",
            List.of("pod-1", "pod-3"),
            List.of("-pod-1", "-pod-3"),
            List.of("delete ns/pod-1@2 unknown", "delete ns/pod-3@3 unknown")),
        new RelistCase(
            "create, update, delete",
            List.of("pod-1", "pod-2", "pod-3"),
            List.of("~pod-1", "~pod-2", "-pod-3", "+pod-4"),
            List.of(
                "add ns/pod-4@8",
                "delete ns/pod-3@4 unknown",
                "update ns/pod-1@2->5",
                "update ns/pod-2@3->6")),
        new RelistCase(
            // client-go's sharedProcessor counts a handler as due for resyncs until the first
            // resync check, which never comes without resync periods.
            "unchanged objects come as updates with the same resourceVersion",
            List.of("pod-1", "pod-2"),
            List.of("~pod-2"),
            List.of("update ns/pod-1@2->2", "update ns/pod-2@3->4")));
  }

  /**
   * client-go {@code TestReplaceEvents} and {@code TestResetWatch}: what a relist (forced here by
   * compaction while the watch was down) tells a handler: adds (not initial), updates from the
   * cached state, deletions with unknown final state, and updates with an unchanged
   * resourceVersion for what did not change.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("relistCases")
  void relist_tellsHandlersExactlyWhatChanged(RelistCase c) {
    for (String n : c.initial()) {
      source.add(pod("ns", n));
    }
    SharedIndexInformer<Pod> informer = informer(builder());
    List<String> calls = new CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add("add " + key(obj) + "@" + rvOf(obj) + (isInInitialList ? " initial" : ""));
          }

          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            calls.add("update " + key(newObj) + "@" + rvOf(oldObj) + "->" + rvOf(newObj));
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            calls.add(
                "delete " + key(obj) + "@" + rvOf(obj) + (finalStateUnknown ? " unknown" : ""));
          }
        });
    informer.start();
    awaitWatching(1);
    await().until(() -> calls.size() == c.initial().size());
    assertThat(calls).allMatch(line -> line.endsWith(" initial"));
    calls.clear();

    source.breakWatches(TestPods.connectionReset());
    for (String change : c.changesWhileDown()) {
      String n = change.substring(1);
      switch (change.charAt(0)) {
        case '+' -> source.add(pod("ns", n));
        case '~' -> source.modify(pod("ns", n, Map.of("changed", "yes")));
        default -> source.delete(pod("ns", n));
      }
    }
    source.compact();
    while (fullStateRequests(source) < 2 || source.openWatchCount() == 0) {
      await().until(() -> clock.hasPendingTasks() || source.openWatchCount() == 1);
      if (clock.hasPendingTasks()) {
        clock.advance(clock.nextDelay().orElseThrow());
      }
    }

    await().until(() -> calls.size() >= c.expected().size());
    assertThat(calls.stream().sorted().toList()).containsExactlyElementsOf(c.expected());
    assertThat(keysToRv(informer.getIndexer().list()))
        .isEqualTo(keysToRv(source.objects().values()));
  }

  private static String key(Pod p) {
    return Keys.metaNamespaceKey(p);
  }

  private static String rvOf(Pod p) {
    return p.getMetadata().getResourceVersion();
  }

  // ---- handler failures

  /**
   * The log is the contract here (PITFALLS: a handler exception logged without its stack trace):
   * WARN, naming the informer, the handler and the object's key, with the stack trace; delivery
   * goes on. slf4j-simple writes to whatever {@code System.err} is at the time.
   */
  @Test
  void throwingHandler_isLoggedWithHandlerKeyAndStackTrace_andDeliveryGoesOn() {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      SharedIndexInformer<Pod> informer = informer(builder());
      List<String> seen = new CopyOnWriteArrayList<>();
      informer.addEventHandler(
          new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod obj, boolean isInInitialList) {
              seen.add(obj.getMetadata().getName());
              if (obj.getMetadata().getName().equals("bad")) {
                throw new IllegalStateException("handler bug");
              }
            }

            @Override
            public String toString() {
              return "exploding-handler";
            }
          });
      source.add(pod("ns", "bad"));
      source.add(pod("ns", "good"));
      informer.start();
      await().until(() -> seen.size() == 1 && clock.nextDelay().isPresent());
      clock.advance(ProcessorListener.PAUSE_AFTER_FAILURE); // a failed handler resumes a second later
      await().until(() -> seen.size() == 2);
      await()
          .until(
              () -> captured.toString(java.nio.charset.StandardCharsets.UTF_8).contains("\tat "));
      String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertThat(log)
          .contains("WARN")
          .contains("informer=pods")
          .contains("exploding-handler")
          .contains("ns/bad")
          .contains("java.lang.IllegalStateException: handler bug")
          .doesNotContain("ns/good");
    } finally {
      System.setErr(original);
    }
  }

  // ---- removal
  // ------------------------------------------------------------------------------------

  @Test
  void removeEventHandler_whileItsHandlerIsBusy_dropsWhatIsQueuedButLetsTheCallFinish()
      throws Exception {
    SharedIndexInformer<Pod> informer = informer(builder());
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> slowCalls = new CopyOnWriteArrayList<>();
    ResourceEventHandlerRegistration slow =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                slowCalls.add(obj.getMetadata().getName());
                entered.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    ReplayingHandler other = new ReplayingHandler("other");
    informer.addEventHandler(other);
    informer.start();
    awaitWatching(1);
    for (int i = 0; i < 10; i++) {
      source.add(pod("ns", "p" + i));
    }
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    await().until(() -> slow.pendingNotifications() == 9);

    informer.removeEventHandler(slow);
    assertThat(slow.pendingNotifications()).isZero();
    release.countDown();
    await().until(() -> other.view().size() == 10);

    assertThat(slowCalls).containsExactly("p0");
    assertThat(slow.isRemoved()).isTrue();
    informer.removeEventHandler(slow); // idempotent
  }

  @Test
  void removeEventHandler_fromInsideItsOwnHandler_stopsAtOnce() {
    SharedIndexInformer<Pod> informer = informer(builder());
    AtomicReference<ResourceEventHandlerRegistration> self = new AtomicReference<>();
    List<String> calls = new CopyOnWriteArrayList<>();
    self.set(
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod obj, boolean isInInitialList) {
                calls.add(obj.getMetadata().getName());
                informer.removeEventHandler(self.get());
              }
            }));
    ReplayingHandler other = new ReplayingHandler("other");
    informer.addEventHandler(other);
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    informer.start();
    await().until(() -> other.view().size() == 5);
    await().until(() -> self.get().isRemoved());
    assertThat(calls).hasSize(1);
  }

  /** client-go {@code TestSharedInformerMultipleRegistration}. */
  @Test
  void sameHandlerRegisteredTwice_getsEverythingTwice_untilOneRegistrationIsRemoved() {
    SharedIndexInformer<Pod> informer = informer(builder());
    List<String> calls = new CopyOnWriteArrayList<>();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add(obj.getMetadata().getName());
          }
        };
    ResourceEventHandlerRegistration first = informer.addEventHandler(handler);
    ResourceEventHandlerRegistration second = informer.addEventHandler(handler);
    informer.start();
    awaitWatching(1);
    source.add(pod("ns", "a"));
    await().until(() -> calls.size() == 2);

    informer.removeEventHandler(first);
    assertThat(first.isRemoved()).isTrue();
    assertThat(second.isRemoved()).isFalse();
    source.add(pod("ns", "b"));
    await().until(() -> calls.contains("b"));
    source.add(pod("ns", "c"));
    await().until(() -> calls.contains("c"));
    assertThat(calls).containsExactly("a", "a", "b", "c");
  }

  /**
   * client-go {@code TestSharedInformerRemoveForeignHandler}: a registration of another informer is
   * ignored and stays registered where it belongs.
   */
  @Test
  void removeEventHandler_ofAnotherInformersRegistration_isANoOp() throws Exception {
    SharedIndexInformer<Pod> informer = informer(builder());
    SharedIndexInformer<Pod> other = informer(builder());
    ResourceEventHandlerRegistration reg = informer.addEventHandler(new ReplayingHandler("h"));
    other.removeEventHandler(reg);
    assertThat(other.shutDownEventHandler(reg, Duration.ofSeconds(1))).isTrue();
    assertThat(reg.isRemoved()).isFalse();
    informer.removeEventHandler(reg);
    other.removeEventHandler(reg);
    assertThat(reg.isRemoved()).isTrue();
  }

  // ---- handlers joining while events flow
  // ----------------------------------------------------------

  /** client-go {@code TestAddWhileActive}/{@code TestSharedInformerHandlerAbuse}, modest size. */
  @Test
  void handlersAddedConcurrentlyWhileEventsFlow_eachSeeTheCacheOnceThenLiveChanges()
      throws Exception {
    handlersAddedWhileEventsFlow(4, 8, 400, 31);
  }

  @Test
  @Tag("stress")
  void stress_manyHandlersAddedConcurrentlyWhileEventsFlow() throws Exception {
    for (int seed = 0; seed < 5; seed++) {
      handlersAddedWhileEventsFlow(8, 40, 5000, seed);
      closeAll();
      informers.clear();
    }
  }

  private void handlersAddedWhileEventsFlow(int threads, int handlersPerThread, int ops, long seed)
      throws Exception {
    FakeListerWatcher<Pod> src = TestPods.fakeSource();
    SharedIndexInformer<Pod> informer =
        informer(SharedIndexInformer.builder("pods", src).clock(clock).scheduler(clock));
    List<ReplayingHandler> handlers = new CopyOnWriteArrayList<>();
    ReplayingHandler first = new ReplayingHandler("before-start");
    handlers.add(first);
    informer.addEventHandler(first);
    informer.start();
    await().until(() -> src.openWatchCount() == 1);

    CountDownLatch go = new CountDownLatch(1);
    List<Thread> adders = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int h = 0; h < handlersPerThread; h++) {
                  ReplayingHandler r = new ReplayingHandler("late-" + id + "-" + h);
                  handlers.add(r);
                  informer.addEventHandler(r);
                  Thread.yield();
                }
              },
              "test-adder-" + t);
      adders.add(th);
      th.start();
    }
    go.countDown();
    Random random = new Random(seed);
    List<String> live = new ArrayList<>();
    for (int i = 0; i < ops; i++) {
      mutate(src, random, live, i);
    }
    for (Thread th : adders) {
      th.join(TimeUnit.SECONDS.toMillis(30));
    }

    awaitConverged(informer, src, handlers);
    assertThat(handlers).hasSize(1 + threads * handlersPerThread);
  }

  /** One random add, modify or delete on {@code src}; {@code live} holds the existing names. */
  private static void mutate(FakeListerWatcher<Pod> src, Random random, List<String> live, int i) {
    int op = live.isEmpty() ? 0 : random.nextInt(3);
    switch (op) {
      case 0 -> {
        String name = "p" + i;
        src.add(pod("ns", name));
        live.add(name);
      }
      case 1 -> src.modify(pod("ns", live.get(random.nextInt(live.size())), Map.of("i", "" + i)));
      default -> src.delete(pod("ns", live.remove(random.nextInt(live.size()))));
    }
  }

  private static void awaitConverged(
      SharedIndexInformer<Pod> informer, FakeListerWatcher<Pod> src, List<ReplayingHandler> hs) {
    Map<String, String> expected = keysToRv(src.objects().values());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                keysToRv(informer.getIndexer().list()).equals(expected)
                    && hs.stream().allMatch(h -> h.view().equals(expected)));
    for (ReplayingHandler h : hs) {
      assertThat(h.violations).as(h.name).isEmpty();
    }
  }

  /**
   * client-go {@code TestUpdate}: without faults, no state is dropped. Each handler (one fast, one
   * slow enough to make deltas pile up in the FIFO and its buffer) sees every change of every
   * object, in order: the FIFO only ever merges two consecutive deletions.
   */
  @Test
  void withoutFaults_everyHandlerSeesEveryChangeOfEveryObjectInOrder() {
    SharedIndexInformer<Pod> informer = informer(builder());
    Map<String, List<String>> fast = new java.util.concurrent.ConcurrentHashMap<>();
    Map<String, List<String>> slow = new java.util.concurrent.ConcurrentHashMap<>();
    informer.addEventHandler(historyOf(fast, false));
    informer.addEventHandler(historyOf(slow, true));
    informer.start();
    awaitWatching(1);

    Map<String, List<String>> expected = new java.util.TreeMap<>();
    Random random = new Random(17);
    for (int i = 0; i < 20; i++) {
      String name = "p" + i;
      List<String> h = new ArrayList<>();
      h.add("add@" + source.add(pod("ns", name)));
      int updates = random.nextInt(5);
      for (int u = 0; u < updates; u++) {
        h.add("update@" + source.modify(pod("ns", name, Map.of("u", "" + u))));
      }
      if (random.nextBoolean()) {
        h.add("delete@" + source.delete(pod("ns", name)));
      }
      expected.put("ns/" + name, h);
    }
    await().until(() -> new java.util.TreeMap<>(fast).equals(expected));
    await().until(() -> new java.util.TreeMap<>(slow).equals(expected));
  }

  private static ResourceEventHandler<Pod> historyOf(Map<String, List<String>> out, boolean slow) {
    return new ResourceEventHandler<>() {
      private void record(String what, Pod p) {
        if (slow) {
          Thread.yield();
        }
        out.computeIfAbsent(Keys.metaNamespaceKey(p), k -> new CopyOnWriteArrayList<>())
            .add(what + "@" + p.getMetadata().getResourceVersion());
      }

      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        record("add", obj);
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        record("update", newObj);
      }

      @Override
      public void onDelete(Pod obj, boolean finalStateUnknown) {
        record("delete", obj);
      }
    };
  }

  // ---- convergence property
  // ---------------------------------------------------------------------------

  record History(String name, long seed, int ops, boolean withFaults) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<History> histories() {
    return IntStream.range(0, 4)
        .mapToObj(s -> new History("seed " + s + ", 250 ops with faults", s, 250, true));
  }

  /**
   * The replayed view of every handler (including ones added late, mid-history) equals the cache
   * and the source, keys and resourceVersions, after random adds, modifies, deletes, dropped
   * watches, clean watch ends and relists forced by compaction; no handler ever sees an older
   * resourceVersion after a newer one for a key, except through a deletion with unknown final
   * state; deletions missed during a disconnect arrive with {@code finalStateUnknown}.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replayedViewOfEveryHandler_convergesToTheCacheAndTheSource(History h) {
    HistoryStats stats = runHistory(h);
    assertThat(stats.relists()).as("the history forced relists").isPositive();
    assertThat(stats.finalStateUnknownDeletes())
        .as("deletions missed while down reached the first handler as finalStateUnknown")
        .isPositive();
  }

  @Test
  @Tag("stress")
  void stress_convergenceOverLongHistories() {
    for (int s = 0; s < 20; s++) {
      runHistory(new History("stress " + s, 1000 + s, 3000, true));
      closeAll();
      informers.clear();
    }
  }

  record HistoryStats(int relists, int finalStateUnknownDeletes) {}

  /** Runs one history and checks convergence. */
  private HistoryStats runHistory(History h) {
    FakeListerWatcher<Pod> src = TestPods.fakeSource();
    FakeClock clk = new FakeClock();
    SharedIndexInformer<Pod> informer =
        informer(
            SharedIndexInformer.builder("pods", src)
                .clock(clk)
                .scheduler(clk)
                .random(new Random(h.seed())));
    List<ReplayingHandler> handlers = new ArrayList<>();
    handlers.add(new ReplayingHandler("before-start"));
    informer.addEventHandler(handlers.get(0));
    Random random = new Random(h.seed());
    List<String> live = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      mutate(src, random, live, -i - 1);
    }
    informer.start();
    await().until(() -> src.openWatchCount() == 1);

    for (int i = 0; i < h.ops(); i++) {
      int dice = random.nextInt(100);
      if (dice < 3) {
        ReplayingHandler late = new ReplayingHandler("late-" + i);
        handlers.add(late);
        informer.addEventHandler(late);
      } else if (h.withFaults() && dice < 9) {
        // Drop the watch; change things while disconnected; maybe compact so that the re-watch
        // is refused and the informer must relist.
        int watchesBefore = src.watchCalls().size();
        // The server stays unreachable for one attempt, so the changes below are missed.
        src.failNextWatch(
            new InformerException("connect failed", new ConnectException("Connection refused")));
        if (dice < 6) {
          src.breakWatches(TestPods.connectionReset());
        } else {
          src.endWatches();
        }
        int changes = random.nextInt(4);
        for (int c = 0; c < changes; c++) {
          mutate(src, random, live, i * 10 + c);
        }
        if (random.nextBoolean()) {
          src.compact();
        }
        reconnect(src, clk, watchesBefore);
      } else {
        mutate(src, random, live, i);
      }
    }
    awaitConverged(informer, src, handlers);
    return new HistoryStats(
        (int) fullStateRequests(src) - 1, handlers.get(0).finalStateUnknownDeletes.get());
  }

  /** Moves the fake clock through backoffs until a new watch is open. */
  private static void reconnect(FakeListerWatcher<Pod> src, FakeClock clk, int watchesBefore) {
    while (true) {
      await()
          .until(
              () ->
                  clk.hasPendingTasks()
                      || (src.openWatchCount() == 1 && src.watchCalls().size() > watchesBefore));
      if (!clk.hasPendingTasks()) {
        return;
      }
      clk.advance(clk.nextDelay().orElseThrow());
    }
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.InformerTestSupport.await;
import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.FakeClock;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReflectorTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final RecordingStore<Pod> store = new RecordingStore<>();
  private final List<ReflectorException> errors = new CopyOnWriteArrayList<>();
  private Reflector<Pod> reflector;

  private Reflector.Builder<Pod> builder() {
    return Reflector.builder("pods", source, store)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(7))
        .watchErrorHandler(errors::add);
  }

  private Reflector<Pod> start(Reflector.Builder<Pod> b) {
    reflector = b.build();
    reflector.start();
    return reflector;
  }

  @AfterEach
  void close() {
    if (reflector != null) {
      reflector.close();
    }
  }

  /** Waits until the reflector has scheduled its retry, then moves time to it. */
  private void advanceToRetry() {
    await().until(clock::hasPendingTasks);
    clock.advance(clock.nextDelay().orElseThrow());
  }

  /** The source, except that its lists carry no resourceVersion (as some aggregated APIs). */
  private ListerWatcher<Pod> listsWithoutResourceVersion() {
    return new ListerWatcher<>() {
      @Override
      public ListResult<Pod> list(ListOptions options) {
        return new ListResult<>(source.list(options).items(), "", null, null);
      }

      @Override
      public Watch<Pod> watch(ListOptions options) {
        return source.watch(options);
      }
    };
  }

  private void awaitWatches(int n) {
    await().until(() -> source.watchCalls().size() >= n && source.openWatchCount() == 1);
  }

  @Test
  void start_listsAtRv0ThenWatchesFromTheListRv() {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    start(builder());
    awaitWatches(1);

    assertThat(source.listCalls()).hasSize(1);
    ListOptions list = source.listCalls().get(0);
    assertThat(list.resourceVersion()).isEqualTo("0");
    assertThat(list.limit()).isEqualTo(500L);
    assertThat(store.calls).containsExactly("replace [ns/a, ns/b] 3");

    ListOptions watch = source.watchCalls().get(0);
    assertThat(watch.resourceVersion()).isEqualTo("3");
    assertThat(watch.allowWatchBookmarks()).isTrue();
    assertThat(watch.timeoutSeconds()).isBetween(300L, 599L);
    assertThat(reflector.lastSyncResourceVersion()).isEqualTo("3");
  }

  @Test
  void storeThrowingAnError_onAWatchEvent_isReported_andTheReflectorRelists() {
    start(builder());
    awaitWatches(1);
    store.failNextAdd = new AssertionError("a transform's bug");
    source.add(pod("ns", "a"));

    // As client-go after a store error: report, back off, relist (which brings the object in).
    advanceToRetry();
    await().until(() -> store.keysToRv().containsKey("ns/a"));
    assertThat(errors).anyMatch(e -> e.getCause() instanceof AssertionError);
    assertThat(source.listCalls()).hasSize(2);
  }

  @Test
  void list_followsContinueTokensAcrossPages() {
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    start(builder().pageSize(2));
    awaitWatches(1);

    assertThat(source.listCalls()).hasSize(3);
    assertThat(source.listCalls().get(1).continueToken()).isNotNull();
    assertThat(source.listCalls().get(1).resourceVersion()).isNull();
    assertThat(store.keysToRv()).containsOnlyKeys("ns/p0", "ns/p1", "ns/p2", "ns/p3", "ns/p4");
  }

  @Test
  void list_whenServerIgnoresLimit_takesEverythingInOnePage() {
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    source.ignoreLimit(true);
    start(builder().pageSize(2));
    awaitWatches(1);

    assertThat(source.listCalls()).hasSize(1);
    assertThat(store.keysToRv()).hasSize(5);
  }

  @Test
  void list_whenContinueTokenExpires_listsEverythingUnpagedAtTheSameRv() {
    for (int i = 0; i < 5; i++) {
      source.add(pod("ns", "p" + i));
    }
    // A write between two pages makes the fake's continue token expire, as compaction would.
    ListerWatcher<Pod> writesBetweenPages =
        new ListerWatcher<>() {
          private boolean written;

          @Override
          public ListResult<Pod> list(ListOptions options) {
            if (options.continueToken() != null && !written) {
              written = true;
              source.add(pod("ns", "late"));
            }
            return source.list(options);
          }

          @Override
          public Watch<Pod> watch(ListOptions options) {
            return source.watch(options);
          }
        };
    reflector =
        Reflector.builder("pods", writesBetweenPages, store)
            .clock(clock)
            .scheduler(clock)
            .pageSize(2)
            .build();
    reflector.start();
    awaitWatches(1);

    assertThat(source.listCalls())
        .extracting(ListOptions::resourceVersion, ListOptions::limit)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("0", 2L),
            org.assertj.core.groups.Tuple.tuple(null, 2L),
            org.assertj.core.groups.Tuple.tuple("0", null));
    assertThat(store.keysToRv()).hasSize(6);
  }

  @Test
  void watchEvents_areAppliedInOrderAndAdvanceTheResourceVersion() {
    start(builder());
    awaitWatches(1);
    Pod a = pod("ns", "a");
    source.add(a);
    source.modify(pod("ns", "a"));
    source.add(pod("ns", "b"));
    source.delete(pod("ns", "a"));

    await().until(() -> store.calls.size() == 5);
    assertThat(store.calls)
        .containsExactly(
            "replace [] 1", "add ns/a 2", "update ns/a 3", "add ns/b 4", "delete ns/a 5");
    assertThat(reflector.lastSyncResourceVersion()).isEqualTo("5");
  }

  @Test
  void bookmark_advancesTheResourceVersionWithoutTouchingTheStore() {
    start(builder());
    awaitWatches(1);
    source.add(pod("other", "x"));
    await().until(() -> store.calls.size() == 2);
    source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark("10")));
    await().until(() -> reflector.lastSyncResourceVersion().equals("10"));
    assertThat(store.calls).hasSize(2);
    source.endWatches();
    awaitWatches(2);
    assertThat(source.watchCalls().get(1).resourceVersion()).isEqualTo("10");
  }

  /**
   * client-go's list() stores a list without a resourceVersion as it is and watches from "": the
   * server starts that watch with an ADDED event per object, in no resourceVersion order, so none
   * of them may become the resourceVersion to resume from; the first other event may.
   */
  @Test
  void watchFromTheStart_endingBeforeAnyOtherEvent_relists() {
    // Still at resourceVersion "": a watch from "" again would not report what was deleted in
    // between, so the reflector lists again instead.
    source.add(pod("ns", "a"));
    ListerWatcher<Pod> noRv = listsWithoutResourceVersion();
    start(Reflector.builder("pods", noRv, store).clock(clock).scheduler(clock)
        .random(new Random(7)).watchErrorHandler(errors::add));
    awaitWatches(1);
    await().until(() -> store.calls.contains("add ns/a 2"));

    clock.advance(Duration.ofSeconds(2)); // past the "too short" second
    source.endWatches();

    await().until(() -> source.listCalls().size() == 2);
    assertThat(reflector.lastSyncResourceVersion()).isEmpty();
  }

  @Test
  void listWithoutResourceVersion_isStoredAndWatchedFromTheStart() {
    source.add(pod("ns", "a")); // rv 2
    source.add(pod("ns", "b")); // rv 3
    source.modify(pod("ns", "a")); // rv 4: the synthetic ADDED events come as a@4, b@3
    ListerWatcher<Pod> noRv = listsWithoutResourceVersion();
    reflector =
        Reflector.builder("pods", noRv, store)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(7))
            .watchErrorHandler(errors::add)
            .build();
    reflector.start();

    awaitWatches(1);
    await().until(() -> store.calls.size() == 3);
    assertThat(store.calls).containsExactly("replace [ns/a, ns/b] ", "add ns/a 4", "add ns/b 3");
    assertThat(source.watchCalls().get(0).resourceVersion()).isNull();
    assertThat(reflector.lastSyncResourceVersion())
        .as("no resourceVersion taken from the synthetic ADDED events")
        .isEmpty();

    source.modify(pod("ns", "b")); // rv 5
    await().until(() -> reflector.lastSyncResourceVersion().equals("5"));
    source.endWatches();
    awaitWatches(2);
    assertThat(source.watchCalls().get(1).resourceVersion()).isEqualTo("5");
    assertThat(source.listCalls()).hasSize(1);
    assertThat(errors).isEmpty();
  }

  @Test
  void watchEndingCleanly_rewatchesFromLastRvWithoutRelisting() {
    start(builder());
    awaitWatches(1);
    source.add(pod("ns", "a"));
    await().until(() -> reflector.lastSyncResourceVersion().equals("2"));
    source.endWatches();

    awaitWatches(2);
    assertThat(source.listCalls()).hasSize(1);
    assertThat(source.watchCalls().get(1).resourceVersion()).isEqualTo("2");
    assertThat(errors).isEmpty();
  }

  @Test
  void watchBreakingAfterEvents_rewatchesAtOnceFromLastRvWithoutRelisting() {
    start(builder());
    awaitWatches(1);
    source.add(pod("ns", "a"));
    await().until(() -> reflector.lastSyncResourceVersion().equals("2"));
    source.breakWatches(TestPods.connectionReset());
    source.add(pod("ns", "b")); // happens while disconnected

    awaitWatches(2);
    await().until(() -> store.keysToRv().containsKey("ns/b"));
    assertThat(source.listCalls()).hasSize(1);
    assertThat(source.watchCalls().get(1).resourceVersion()).isEqualTo("2");
    assertThat(errors).extracting(ReflectorException::phase)
        .containsExactly(ReflectorException.Phase.WATCH_STREAM);
    assertThat(clock.hasPendingTasks()).as("no backoff wait was scheduled").isFalse();
  }

  @Test
  void watchBreakingWithinASecondWithoutEvents_rewatchesAfterBackoffWithoutRelisting() {
    start(builder());
    awaitWatches(1);
    source.add(pod("ns", "a"));
    await().until(() -> reflector.lastSyncResourceVersion().equals("2"));
    source.endWatches();
    awaitWatches(2);
    source.breakWatches(TestPods.connectionReset()); // the new watch, no event yet, no time passed

    advanceToRetry();
    awaitWatches(3);
    assertThat(source.listCalls()).hasSize(1);
    assertThat(source.watchCalls().get(2).resourceVersion()).isEqualTo("2");
    assertThat(errors).extracting(ReflectorException::phase)
        .containsExactly(ReflectorException.Phase.WATCH_STREAM);
  }

  /**
   * A quiet resource behind a proxy that cuts idle connections: each watch breaks after a minute
   * without any event. client-go's stream watcher takes that for the end of the stream and the
   * reflector re-watches at once, every time; a backoff here would grow across the cuts.
   */
  @Test
  void quietWatchBrokenByTheNetwork_rewatchesAtOnceEveryTime() {
    start(builder());
    awaitWatches(1);
    for (int i = 0; i < 7; i++) {
      clock.advance(Duration.ofSeconds(60)); // no event, no bookmark for a minute
      source.breakWatches(TestPods.connectionReset());
      awaitWatches(i + 2);
      assertThat(clock.hasPendingTasks()).as("no backoff wait after cut %d", i).isFalse();
    }
    assertThat(source.watchCalls()).extracting(ListOptions::resourceVersion).containsOnly("1");
    assertThat(source.listCalls()).hasSize(1);
    assertThat(errors).extracting(ReflectorException::phase)
        .containsOnly(ReflectorException.Phase.WATCH_STREAM)
        .hasSize(7);
  }

  /**
   * A stream that breaks on what the server sent (here an event the codec refuses) is not
   * re-watched from the last resourceVersion, which would replay the same event forever: as
   * client-go (whose stream watcher makes it an ERROR event), the reflector backs off and relists.
   */
  @Test
  void watchBreakingOnBadServerData_relistsAfterBackoff() {
    start(builder());
    awaitWatches(1);
    source.add(pod("ns", "a"));
    await().until(() -> reflector.lastSyncResourceVersion().equals("2"));
    clock.advance(Duration.ofSeconds(60));
    source.breakWatches(
        new InformerException("malformed watch stream of v1/pods: unknown event type EXPLODED"));

    await().until(() -> errors.size() == 1);
    assertThat(errors.get(0).phase()).isEqualTo(ReflectorException.Phase.WATCH_STREAM);
    assertThat(source.watchCalls()).as("no re-watch before the backoff").hasSize(1);
    advanceToRetry();
    awaitWatches(2);
    assertThat(source.listCalls()).extracting(ListOptions::resourceVersion).containsExactly("0", "2");
    assertThat(source.watchCalls().get(1).resourceVersion()).isEqualTo("2");
  }

  @Test
  void expiredAsErrorEvent_relistsAtTheLastRv() {
    expiry_relists(false);
  }

  @Test
  void expiredAsHttp410_relistsAtTheLastRv() {
    expiry_relists(true);
  }

  private void expiry_relists(boolean asHttpError) {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "gone"));
    source.answerExpiredWatchWithHttpError(asHttpError);
    start(builder());
    awaitWatches(1);
    source.breakWatches(TestPods.connectionReset());
    source.delete(pod("ns", "gone"));
    source.add(pod("ns", "new"));
    source.compact();

    advanceToRetry(); // re-watch from rv 3, which is now too old
    await().until(() -> errors.size() == 2);
    ReflectorException expired = errors.get(1);
    assertThat(expired.phase())
        .isEqualTo(
            asHttpError
                ? ReflectorException.Phase.WATCH_START
                : ReflectorException.Phase.WATCH_ERROR_EVENT);
    assertThat(expired.apiError()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(410));

    advanceToRetry(); // relist
    awaitWatches(3);
    assertThat(source.listCalls()).hasSize(2);
    ListOptions relist = source.listCalls().get(1);
    assertThat(relist.resourceVersion()).isEqualTo("3");
    assertThat(relist.limit())
        .as("a relist at a known RV is unpaged, for the watch cache")
        .isNull();
    assertThat(store.keysToRv()).containsOnlyKeys("ns/a", "ns/new");
    assertThat(source.watchCalls().get(2).resourceVersion()).isEqualTo("5");
  }

  @Test
  void relistRefusedAsExpired_fallsBackToAConsistentList() {
    source.add(pod("ns", "a"));
    start(builder());
    awaitWatches(1);
    source.breakWatches(TestPods.connectionReset());
    source.compact();
    source.add(pod("ns", "b"));
    source.compact();
    source.failNextList(new ApiException(410, "Expired", "too old", null, List.of(), false));

    advanceToRetry(); // watch from 2 -> expired
    await().until(() -> errors.size() == 2);
    advanceToRetry(); // relist at 2 refused -> consistent list
    awaitWatches(3);
    assertThat(source.listCalls())
        .extracting(ListOptions::resourceVersion)
        .containsExactly("0", "2", null);
    assertThat(store.keysToRv()).containsOnlyKeys("ns/a", "ns/b");
  }

  @Test
  void consistentListFailingToo_reportsWhyItRanAsSuppressed() {
    ApiException expired = new ApiException(410, "Expired", "too old", null, List.of(), false);
    ApiException down = new ApiException(503, "ServiceUnavailable", "down", null, List.of(), false);
    source.failNextList(expired);
    source.failNextList(down);
    start(builder());

    await().until(() -> errors.size() == 1);
    ReflectorException failed = errors.get(0);
    assertThat(failed.phase()).isEqualTo(ReflectorException.Phase.LIST);
    assertThat(failed.getCause()).isSameAs(down);
    assertThat(failed.getSuppressed()).containsExactly(expired);
    assertThat(failed.getMessage()).contains("after the list at rv=0 was refused");
    assertThat(source.listCalls())
        .extracting(ListOptions::resourceVersion)
        .containsExactly("0", null);
  }

  @Test
  void tooLargeResourceVersion_relistsConsistently() {
    start(builder());
    awaitWatches(1);
    source.sendToWatches(
        WatchEvent.error(
            new ApiException(
                504,
                "Timeout",
                "Too large resource version",
                Duration.ofSeconds(1),
                List.of("ResourceVersionTooLarge"),
                true)));
    advanceToRetry();
    awaitWatches(2);
    assertThat(source.listCalls())
        .extracting(ListOptions::resourceVersion)
        .containsExactly("0", null);
  }

  @Test
  void retryAfter_lengthensTheBackoff() {
    start(builder());
    awaitWatches(1);
    source.failNextWatch(
        new ApiException(
            429, "TooManyRequests", "slow down", Duration.ofSeconds(45), List.of(), false));
    source.breakWatches(TestPods.connectionReset());
    advanceToRetry(); // re-watch -> 429
    await().until(() -> errors.size() == 2);
    await().until(clock::hasPendingTasks);
    assertThat(clock.nextDelay().orElseThrow()).isGreaterThanOrEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void listFailures_backOffExponentiallyAndEveryFailureReachesTheHandler() {
    for (int i = 0; i < 4; i++) {
      source.failNextList(
          new ApiException(503, "ServiceUnavailable", "down", null, List.of(), false));
    }
    start(builder());
    for (int i = 0; i < 4; i++) {
      advanceToRetry();
    }
    awaitWatches(1);
    assertThat(errors)
        .hasSize(4)
        .allSatisfy(e -> assertThat(e.phase()).isEqualTo(ReflectorException.Phase.LIST));
    assertThat(source.listCalls()).hasSize(5);
  }

  @Test
  void streamingList_replacesStoreAtTheEndBookmarkAndKeepsWatching() {
    source.add(pod("ns", "a"));
    source.add(pod("ns", "b"));
    start(builder().streamingList(true));
    await().until(() -> store.calls.size() == 1);
    assertThat(store.calls).containsExactly("replace [ns/a, ns/b] 3");
    assertThat(source.listCalls()).isEmpty();
    ListOptions opts = source.watchCalls().get(0);
    assertThat(opts.sendInitialEvents()).isTrue();
    assertThat(opts.resourceVersionMatch()).isEqualTo("NotOlderThan");

    source.add(pod("ns", "c"));
    await().until(() -> store.calls.size() == 2);
    assertThat(store.calls.get(1)).isEqualTo("add ns/c 4");
    assertThat(source.watchCalls()).hasSize(1);
  }

  @Test
  void streamingList_whenRefused_fallsBackToAList() {
    source.add(pod("ns", "a"));
    source.failNextWatch(
        new ApiException(
            422, "Invalid", "sendInitialEvents not supported", null, List.of(), false));
    start(builder().streamingList(true));
    awaitWatches(2);
    assertThat(source.listCalls()).hasSize(1);
    assertThat(store.keysToRv()).containsOnlyKeys("ns/a");
  }

  @Test
  void resync_runsEveryPeriodAndSurvivesAFailingResync() {
    store.failResync = new IllegalStateException("resync failed");
    start(builder().resync(Duration.ofSeconds(30), () -> true));
    awaitWatches(1);
    clock.advance(Duration.ofSeconds(30));
    assertThat(store.resyncs).isEqualTo(1);
    store.failResync = null;
    clock.advance(Duration.ofSeconds(30));
    assertThat(store.resyncs).isEqualTo(2);
  }

  @Test
  void resync_skippedWhenShouldResyncSaysNo() {
    start(builder().resync(Duration.ofSeconds(30), () -> false));
    awaitWatches(1);
    clock.advance(Duration.ofSeconds(90));
    assertThat(store.resyncs).isZero();
  }

  @Test
  void close_endsTheWatchAndTheThread() {
    start(builder());
    awaitWatches(1);
    reflector.close();
    assertThat(source.openWatchCount()).isZero();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .doesNotContain("kinformer-pods-reflector");
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  /**
   * A watch open blocked where an interrupt does not reach (OkHttp over HTTP/1.1 in a socket read):
   * close() cancels it through the lister-watcher, for the reflector's own thread.
   */
  @Test
  void close_cancelsACallThatIgnoresTheInterrupt() {
    List<Thread> cancelled = new CopyOnWriteArrayList<>();
    List<Thread> made = new CopyOnWriteArrayList<>();
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch cancel = new CountDownLatch(1);
    ListerWatcher<Pod> lw =
        new ListerWatcher<>() {
          @Override
          public ListResult<Pod> list(ListOptions options) {
            return source.list(options);
          }

          @Override
          public Watch<Pod> watch(ListOptions options) {
            opening.countDown();
            boolean interrupted = false;
            while (true) {
              try {
                cancel.await();
                break;
              } catch (InterruptedException e) {
                interrupted = true; // ignored, as a blocked socket read ignores it
              }
            }
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
            throw new InformerException("watch cancelled");
          }

          @Override
          public void cancelCalls(Thread thread) {
            cancelled.add(thread);
            cancel.countDown();
          }
        };
    reflector =
        Reflector.builder("pods", lw, store)
            .clock(clock)
            .scheduler(clock)
            .threadFactory(r -> {
              Thread t = new Thread(r, "test-pods-reflector");
              made.add(t);
              return t;
            })
            .build();
    reflector.start();
    await().until(() -> opening.getCount() == 0);

    reflector.close();
    assertThat(cancelled).isEqualTo(made).hasSize(1);
    assertThat(made.get(0).isAlive()).isFalse();
  }

  @Test
  void start_afterClose_isRefused() {
    reflector = builder().build();
    reflector.close();
    org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(reflector::start);
  }

  @Test
  void unstorableEvent_isSkippedAndTheWatchGoesOn() {
    start(builder());
    awaitWatches(1);
    Pod refused = pod("ns", "x");
    store.refuseNextAdd = new KeyException(refused, new IllegalArgumentException("refused"));
    source.sendToWatches(WatchEvent.of(WatchEventType.ADDED, refused));
    source.add(pod("ns", "ok"));
    await().until(() -> store.keysToRv().containsKey("ns/ok"));
    assertThat(Map.copyOf(store.keysToRv())).containsOnlyKeys("ns/ok");
  }

  @Test
  void isRoutineStreamEnd_brokenConnectionOrCauselessEnd_butNotBadServerData() {
    ReflectorException.Phase stream = ReflectorException.Phase.WATCH_STREAM;
    assertThat(Reflector.isRoutineStreamEnd(new ReflectorException("pods", stream, "broke",
        new InformerException("read failed", new EOFException("reset"))))).isTrue();
    assertThat(Reflector.isRoutineStreamEnd(
        new ReflectorException("pods", stream, "closed while streaming"))).isTrue();
    assertThat(Reflector.isRoutineStreamEnd(new ReflectorException("pods", stream, "broke",
        new InformerException("malformed watch stream of v1/pods: unknown event type")))).isFalse();
    assertThat(Reflector.isRoutineStreamEnd(new ReflectorException("pods",
        ReflectorException.Phase.LIST, "list failed", new IOException("x")))).isFalse();
  }
}

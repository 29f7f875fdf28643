package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reflector's own thread: {@link Reflector#start()} and {@link Reflector#close()} with a real
 * thread, a request that hangs, and a close from a callback on that thread. The waits here are for
 * the other thread to catch up, not for time (which is a {@link FakeClock}).
 */
class ReflectorLifecycleTest {

  private static final ApiException SERVER_ERROR =
      new ApiException(500, "InternalError", "etcd down", null, List.of(), false);

  @RegisterExtension final StderrCapture stderr = new StderrCapture();

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

  static ConditionFactory await() {
    return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
  }

  private Reflector.Builder<Pod> builder(ListerWatcher<Pod> lw) {
    return Reflector.builder("pods", lw, store)
        .clock(clock)
        .scheduler(clock)
        .random(new Random(11))
        .streamingList(false)
        .watchErrorHandler(errors::add);
  }

  private void start(Reflector.Builder<Pod> b) {
    reflector = b.build();
    reflector.start();
  }

  private void awaitWatchOpen(int watchCalls) {
    await().until(() -> source.watchCalls().size() >= watchCalls && source.openWatchCount() == 1);
  }

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
          public ListResult<Pod> list(ListOptions options, Cancellation cancellation) {
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
          public Watch<Pod> watch(ListOptions options, Cancellation cancellation) {
            return source.watch(options, cancellation);
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

  /**
   * A list that an interrupt does not end (as OkHttp over HTTP/1.1 blocked in a socket read): it
   * ends only when its cancellation is cancelled.
   */
  private ListerWatcher<Pod> listEndedOnlyByCancel(
      java.util.concurrent.CountDownLatch listing, List<String> outcome) {
    return new ListerWatcher<>() {
      @Override
      public ListResult<Pod> list(ListOptions options, Cancellation cancellation) {
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        Cancellation.Registration r = cancellation.onCancel(cancelled::countDown);
        try {
          listing.countDown();
          boolean interrupted = false;
          while (true) {
            try {
              cancelled.await();
              break;
            } catch (InterruptedException e) {
              interrupted = true; // ignored, as a blocked socket read ignores it
            }
          }
          outcome.add(interrupted ? "cancelled after an interrupt" : "cancelled");
          throw new InformerException("list cancelled");
        } finally {
          r.close();
        }
      }

      @Override
      public Watch<Pod> watch(ListOptions options, Cancellation cancellation) {
        return source.watch(options, cancellation);
      }
    };
  }

  @Test
  void close_whileAListIgnoresTheInterrupt_cancelsItsCancellation() throws Exception {
    java.util.concurrent.CountDownLatch listing = new java.util.concurrent.CountDownLatch(1);
    List<String> outcome = new CopyOnWriteArrayList<>();
    start(builder(listEndedOnlyByCancel(listing, outcome)));
    assertThat(listing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(reflector::close, "test-closer");
    closer.start();
    await().until(() -> !closer.isAlive());
    assertThat(outcome).containsExactly("cancelled after an interrupt");
    assertThat(errors).as("a failure caused by close() is not reported").isEmpty();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .doesNotContain("kinformer-pods-reflector");
  }

  @Test
  void close_whileListAndWatchListsOnTheCallersThread_cancelsTheList() throws Exception {
    java.util.concurrent.CountDownLatch listing = new java.util.concurrent.CountDownLatch(1);
    List<String> outcome = new CopyOnWriteArrayList<>();
    reflector = builder(listEndedOnlyByCancel(listing, outcome)).build();
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        reflector.listAndWatch();
      } catch (RuntimeException e) {
        thrown.set(e);
      }
    }, "test-caller");
    caller.start();
    assertThat(listing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    reflector.close();

    await().until(() -> !caller.isAlive());
    assertThat(outcome).as("not interrupted: the thread is the caller's")
        .containsExactly("cancelled");
    assertThat(thrown.get()).as("listAndWatch() returns normally once closed").isNull();
  }

  @Test
  void close_endsTheOpenWatchThroughItsCancellation() {
    java.util.concurrent.atomic.AtomicReference<Cancellation> given =
        new java.util.concurrent.atomic.AtomicReference<>();
    ListerWatcher<Pod> recording = new ListerWatcher<>() {
      @Override
      public ListResult<Pod> list(ListOptions options, Cancellation cancellation) {
        return source.list(options, cancellation);
      }

      @Override
      public Watch<Pod> watch(ListOptions options, Cancellation cancellation) {
        given.set(cancellation);
        return source.watch(options, cancellation);
      }
    };
    start(builder(recording));
    awaitWatchOpen(1);
    assertThat(given.get().isCancelled()).isFalse();

    reflector.close();

    assertThat(given.get().isCancelled()).isTrue();
    assertThat(source.openWatchCount()).isZero();
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

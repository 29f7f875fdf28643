package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kinformer.cache.ModelCheck;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based test of {@link WorkQueue}: {@link ModelCheck} generates sequences of {@code add},
 * {@code get}, {@code done}, {@code shutDown} and {@code shutDownWithDrain} over a few items, runs
 * them against the queue and against a reference model (client-go's queue in a dozen lines: a FIFO,
 * a dirty set and a processing set), and shrinks a failing sequence to a short one.
 *
 * <p>Checked after every step: {@code len()}, {@code isShuttingDown()} and the queue's own
 * invariants. Checked on every {@code get}: the item is the model's (dedup, FIFO among distinct
 * items, dirty-while-processing items requeued by {@code done} at the back), it is not being
 * processed already, and after shutdown an empty queue answers empty. A {@code get} that would
 * block is made on a helper thread, which must receive the next item queued, or empty on
 * shutdown; a {@code shutDownWithDrain} while items are processed runs on a helper thread too,
 * which must return once the last of them is done (or on {@code shutDown}) and not before. At the
 * end the queue is shut down and drained: every item the model still owes comes out, then {@code
 * get} answers empty, twice.
 *
 * <p>The same model is run against the plain queue and against the delaying and rate-limiting
 * queues, whose {@code add}/{@code get}/{@code done} must behave the same. For those two the
 * sequences also hold {@code addAfter} and steps of a {@link FakeClock}, and the model adds a map
 * of waiting items: an item waits until its ready time (keeping the earlier one when added again),
 * due items enter the queue in ready-time order (ties in the order first added), a zero delay adds
 * at once, and shutdown discards what still waits. ({@code addRateLimited} is left to the rate
 * limiter tests.)
 *
 * <p>Tries: {@value #TRIES} per case; {@code -Dkinformer.fuzz.tries=N} runs N. The timeout only
 * guards against a hang.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class WorkQueueModelTest {

  private static final int TRIES = 300;
  private static final int MAX_STEPS = 60;
  private static final List<String> ITEMS = List.of("a", "b", "c", "d");

  /**
   * A queue implementation under test, made on a fake clock; for a {@link DelayingQueue}, the
   * generated operations also include {@code addAfter} and moving the clock.
   */
  record Case(String name, Function<FakeClock, WorkQueue<String>> factory, boolean delaying) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    return List.of(
        new Case("WorkQueue", clock -> WorkQueue.create(options(clock)), false),
        new Case("DelayingQueue", clock -> DelayingQueue.create(options(clock)), true),
        new Case(
            "RateLimitingQueue",
            clock ->
                RateLimitingQueue.create(
                    RateLimiters.<String>defaultControllerRateLimiter(), options(clock)),
            true));
  }

  private static QueueOptions options(FakeClock clock) {
    return QueueOptions.builder().name("model").clockAndScheduler(clock).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void randomOperations_onEachQueue_behaveLikeTheModel(Case c) {
    ModelCheck.forAll(
            "work queue model, " + c.name(), TRIES, random -> operations(random, c.delaying()))
        .simplifyWith(WorkQueueModelTest::simpler)
        .check(
            ops -> {
              FakeClock clock = new FakeClock();
              ModelRun run = new ModelRun(c.factory().apply(clock), clock);
              try {
                for (int step = 0; step < ops.size(); step++) {
                  Op op = ops.get(step);
                  run.apply(op);
                  run.checkStep("after step " + step + " " + op);
                }
                run.finish();
              } finally {
                run.cleanUp();
              }
            });
  }

  /**
   * A regression test for a bug the model found: when two threads waited in {@code
   * shutDownWithDrain()} and the last item being processed was done while dirty (added again
   * during processing), {@code done} requeued it with a single {@code signal()}, which woke one
   * drainer only; the other waited on although nothing was being processed any more.
   */
  @Test
  void shutDownWithDrain_whenTwoWaitAndLastItemIsDoneWhileDirty_releasesBoth() {
    FakeClock clock = new FakeClock();
    WorkQueue<String> queue = WorkQueue.create(options(clock));
    ModelRun run = new ModelRun(queue, clock);
    try {
      queue.add("a");
      String item = queue.get().orElseThrow();
      queue.add("a"); // dirty while processing
      CompletableFuture<Void> first = run.start("drain-1", () -> drain(queue));
      CompletableFuture<Void> second = run.start("drain-2", () -> drain(queue));
      // Both must be parked in shutDownWithDrain's wait before the item is done.
      for (Thread t : run.threads) {
        await().until(() -> t.getState() == Thread.State.WAITING);
      }
      assertThat(first).isNotDone();
      assertThat(second).isNotDone();

      queue.done(item);

      awaitDone(first, "the first drainer returns");
      awaitDone(second, "the second drainer returns");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } finally {
      run.cleanUp();
    }
  }

  private static Void drain(WorkQueue<String> queue) throws InterruptedException {
    queue.shutDownWithDrain();
    return null;
  }

  static List<Op> operations(SplittableRandom random, boolean delaying) {
    int length = random.nextInt(MAX_STEPS + 1);
    List<Op> ops = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      if (delaying && random.nextInt(4) == 0) {
        if (random.nextBoolean()) {
          ops.add(
              new AddAfter(
                  ITEMS.get(random.nextInt(ITEMS.size())),
                  DELAYS_MS.get(random.nextInt(DELAYS_MS.size()))));
        } else {
          ops.add(new Advance(STEPS_MS.get(random.nextInt(STEPS_MS.size()))));
        }
        continue;
      }
      int roll = random.nextInt(40);
      if (roll < 16) {
        ops.add(new Add(ITEMS.get(random.nextInt(ITEMS.size()))));
      } else if (roll < 27) {
        ops.add(new Get());
      } else if (roll < 38) {
        ops.add(new Done(random.nextInt(ITEMS.size())));
      } else if (roll < 39) {
        ops.add(new ShutDown());
      } else {
        ops.add(new ShutDownWithDrain());
      }
    }
    return ops;
  }

  /** Delays for addAfter, in ms: zero adds at once; 10 s is the wake-up horizon. */
  private static final List<Long> DELAYS_MS = List.of(0L, 1L, 5L, 10L, 50L, 10_000L, 25_000L);

  /** Steps of the fake clock, in ms. */
  private static final List<Long> STEPS_MS = List.of(0L, 1L, 4L, 10L, 100L, 10_000L, 30_000L);

  static List<Op> simpler(Op op) {
    if (op instanceof AddAfter a) {
      List<Op> out = new ArrayList<>();
      out.add(new Add(a.item()));
      if (!a.item().equals("a")) {
        out.add(new AddAfter("a", a.delayMs()));
      }
      return out;
    }
    if (op instanceof Add a && !a.item().equals("a")) {
      return List.of(new Add("a"));
    }
    if (op instanceof Done d && d.index() > 0) {
      return List.of(new Done(0));
    }
    if (op instanceof ShutDownWithDrain) {
      return List.of(new ShutDown());
    }
    return List.of();
  }

  /** One step of a generated sequence. */
  sealed interface Op permits Add, Get, Done, ShutDown, ShutDownWithDrain, AddAfter, Advance {}

  /** {@code add(item)}. */
  record Add(String item) implements Op {}

  /** {@code get()}: on the test thread if it cannot block, else on a helper thread. */
  record Get() implements Op {}

  /** {@code done} for one of the items being processed (by index, in sorted order), if any. */
  record Done(int index) implements Op {}

  /** {@code shutDown()}. */
  record ShutDown() implements Op {}

  /** {@code shutDownWithDrain()}: on a helper thread while items are being processed. */
  record ShutDownWithDrain() implements Op {}

  /** {@code addAfter(item, delay)} on a delaying queue. */
  record AddAfter(String item, long delayMs) implements Op {}

  /** The fake clock moves on, running due wake-ups on the test thread. */
  record Advance(long ms) implements Op {}

  /** The queue, the reference model and the helper threads of one run. */
  private static final class ModelRun {

    final WorkQueue<String> queue;
    final FakeClock clock;

    /** The model of the delaying queue: item to {ready time in ms, order of first addAfter}. */
    final Map<String, long[]> waiting = new HashMap<>();

    long nowMs;
    long sequence;

    // The model: client-go's queue.
    final ArrayDeque<String> modelQueue = new ArrayDeque<>();
    final Set<String> dirty = new HashSet<>();
    final Set<String> processing = new HashSet<>();
    boolean shuttingDown;

    /** A get() blocked on the empty queue, on a helper thread; at most one. */
    CompletableFuture<Optional<String>> waitingGet;

    /** Calls of shutDownWithDrain() waiting for processing to end, each on a helper thread. */
    final List<CompletableFuture<Void>> waitingDrains = new ArrayList<>();

    final List<Thread> threads = new ArrayList<>();

    ModelRun(WorkQueue<String> queue, FakeClock clock) {
      this.queue = queue;
      this.clock = clock;
    }

    void apply(Op op) throws InterruptedException {
      if (op instanceof Add a) {
        add(a.item());
      } else if (op instanceof Get) {
        get();
      } else if (op instanceof Done d) {
        if (!processing.isEmpty()) {
          List<String> sorted = new ArrayList<>(new TreeSet<>(processing));
          done(sorted.get(d.index() % sorted.size()));
        }
      } else if (op instanceof ShutDown) {
        shutDown();
      } else if (op instanceof ShutDownWithDrain) {
        shutDownWithDrain();
      } else if (op instanceof AddAfter a) {
        addAfter(a.item(), a.delayMs());
      } else if (op instanceof Advance a) {
        advance(a.ms());
      } else {
        throw new IllegalStateException("unknown op " + op);
      }
    }

    void add(String item) {
      queue.add(item);
      modelAdd(item);
    }

    void addAfter(String item, long delayMs) {
      ((DelayingQueue<String>) queue).addAfter(item, Duration.ofMillis(delayMs));
      if (shuttingDown) {
        return;
      }
      if (delayMs <= 0) {
        modelAdd(item);
        return;
      }
      long readyAt = nowMs + delayMs;
      long[] entry = waiting.get(item);
      if (entry == null) {
        waiting.put(item, new long[] {readyAt, sequence++});
      } else {
        entry[0] = Math.min(entry[0], readyAt); // keeps the earlier time, and its place in ties
      }
    }

    /** Due items enter the queue in ready-time order, ties in the order first added. */
    void advance(long ms) {
      clock.advance(Duration.ofMillis(ms));
      nowMs += ms;
      List<Map.Entry<String, long[]>> due = new ArrayList<>();
      for (Map.Entry<String, long[]> e : waiting.entrySet()) {
        if (e.getValue()[0] <= nowMs) {
          due.add(e);
        }
      }
      due.sort(
          Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[0])
              .thenComparingLong(e -> e.getValue()[1]));
      for (Map.Entry<String, long[]> e : due) {
        waiting.remove(e.getKey());
        modelAdd(e.getKey());
      }
    }

    /** What {@code add} does to the model. */
    void modelAdd(String item) {
      if (shuttingDown || dirty.contains(item)) {
        return;
      }
      dirty.add(item);
      if (!processing.contains(item)) {
        modelQueue.addLast(item);
        releaseWaitingGet();
      }
    }

    void get() throws InterruptedException {
      if (modelQueue.isEmpty() && !shuttingDown) {
        if (waitingGet == null) {
          waitingGet = startGet();
        }
        return;
      }
      Optional<String> got = queue.get();
      expectGet(got, "get()");
    }

    void done(String item) {
      queue.done(item);
      processing.remove(item);
      if (dirty.contains(item)) {
        modelQueue.addLast(item);
        releaseWaitingGet();
      }
      if (processing.isEmpty()) {
        awaitDrainsReturned("the last processed item (" + item + ") is done");
      } else {
        checkDrainsWaiting();
      }
    }

    void shutDown() {
      queue.shutDown();
      shuttingDown = true;
      waiting.clear(); // shutdown discards items still waiting
      releaseWaitingGet();
      awaitDrainsReturned("shutDown() releases every waiting shutDownWithDrain()");
    }

    void shutDownWithDrain() throws InterruptedException {
      if (processing.isEmpty()) {
        queue.shutDownWithDrain(); // returns at once: nothing is being processed
        shuttingDown = true;
        waiting.clear(); // shutdown discards items still waiting
        releaseWaitingGet();
        return;
      }
      waitingDrains.add(
          start(
              "drain",
              () -> {
                queue.shutDownWithDrain();
                return null;
              }));
      // Wait until it is parked in its wait: if the queue was shut down already, a shutDown()
      // made before the drainer set its drain flag would not release it, rightly.
      Thread drainer = threads.get(threads.size() - 1);
      CompletableFuture<Void> f = waitingDrains.get(waitingDrains.size() - 1);
      await("shutDownWithDrain() waits while items are processed")
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(1))
          .until(() -> f.isDone() || drainer.getState() == Thread.State.WAITING);
      assertThat(queue.isShuttingDown()).as("shutDownWithDrain() shuts the queue down").isTrue();
      shuttingDown = true;
      waiting.clear(); // shutdown discards items still waiting
      releaseWaitingGet();
      checkDrainsWaiting();
    }

    private void checkDrainsWaiting() {
      for (CompletableFuture<Void> f : waitingDrains) {
        assertThat(f.isDone())
            .as("shutDownWithDrain returned while %s are processed", processing)
            .isFalse();
      }
    }

    /** If a get() is waiting and the model can serve it now, it must get the model's answer. */
    private void releaseWaitingGet() {
      if (waitingGet == null || (modelQueue.isEmpty() && !shuttingDown)) {
        return;
      }
      CompletableFuture<Optional<String>> f = waitingGet;
      waitingGet = null;
      awaitDone(f, "a get() that was waiting returns");
      expectGet(f.join(), "a get() that was waiting");
    }

    private void awaitDrainsReturned(String why) {
      for (CompletableFuture<Void> f : waitingDrains) {
        awaitDone(f, why + " (" + waitingDrains.size() + " drains were waiting)");
        f.join(); // rethrows what the drainer threw
      }
      waitingDrains.clear();
    }

    private void expectGet(Optional<String> got, String what) {
      String expected = modelQueue.pollFirst();
      if (expected == null) {
        assertThat(shuttingDown).as("model: %s on an empty queue must be shut down", what).isTrue();
        assertThat(got).as("%s on a shut-down, empty queue", what).isEmpty();
        return;
      }
      assertThat(got).as("%s", what).contains(expected);
      assertThat(processing)
          .as("%s handed out an item that is being processed", what)
          .doesNotContain(expected);
      processing.add(expected);
      dirty.remove(expected);
    }

    void checkStep(String when) {
      assertThat(queue.len()).as("len() %s", when).isEqualTo(modelQueue.size());
      assertThat(queue.isShuttingDown()).as("isShuttingDown() %s", when).isEqualTo(shuttingDown);
      if (waitingGet != null) {
        assertThat(waitingGet.isDone()).as("a get() returned early, %s", when).isFalse();
      }
      checkInvariants(queue);
    }

    /** Shuts down, drains what the model still owes, and checks that get() then answers empty. */
    void finish() throws InterruptedException {
      shutDown();
      while (!modelQueue.isEmpty() || !processing.isEmpty()) {
        // done() of a dirty item queues it again, even after shutdown.
        for (String item : new TreeSet<>(processing)) {
          done(item);
        }
        while (!modelQueue.isEmpty()) {
          Optional<String> got = queue.get();
          String expected = modelQueue.peekFirst();
          expectGet(got, "get() while draining after shutdown");
          done(expected);
        }
      }
      assertThat(queue.get()).as("get() on a shut-down, drained queue").isEmpty();
      assertThat(queue.get()).as("get() again on a shut-down, drained queue").isEmpty();
      assertThat(queue.len()).isZero();
      checkInvariants(queue);
    }

    /** Ends every helper thread: shutDown releases waiting gets and drains. */
    void cleanUp() {
      queue.shutDown();
      for (Thread t : threads) {
        await("helper thread " + t.getName() + " ends after shutDown()")
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(1))
            .until(() -> !t.isAlive());
      }
    }

    private CompletableFuture<Optional<String>> startGet() {
      return start("get", queue::get);
    }

    private <V> CompletableFuture<V> start(String role, Blocking<V> call) {
      CompletableFuture<V> f = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  f.complete(call.call());
                } catch (Throwable e) {
                  f.completeExceptionally(e);
                }
              },
              "kinformer-test-model-" + role);
      t.setDaemon(true);
      threads.add(t);
      t.start();
      return f;
    }
  }

  /** A blocking call made on a helper thread. */
  @FunctionalInterface
  private interface Blocking<V> {
    V call() throws Exception;
  }

  /**
   * Waits for a helper thread's call to return (polling every millisecond; Awaitility's default
   * bound of 10 s turns a call that never returns into a failure that can be shrunk).
   */
  private static void awaitDone(CompletableFuture<?> f, String why) {
    await(why).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).until(f::isDone);
  }

  /** The invariant check of whichever implementation (or the one it wraps) is under test. */
  private static void checkInvariants(WorkQueue<String> queue) {
    if (queue instanceof DefaultWorkQueue<String> q) {
      q.checkInvariants();
    }
  }
}

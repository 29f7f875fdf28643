package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;

/**
 * A {@link SharedIndexInformer} that runs on the test's thread alone: its reflector is stepped by
 * hand ({@link Reflector#step()}, one request or one watch event at a time), its processing and
 * deliveries run when the test runs the queued tasks, and time moves only with the {@link
 * FakeClock}. Nothing waits and nothing polls: a step that would block on a watch with nothing to
 * read fails the test instead.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class SteppedInformer<T extends HasMetadata> implements AutoCloseable {

  /** Tasks queued for the informer's processing and its handlers' deliveries, in order. */
  final TaskQueue tasks = new TaskQueue();
  final FakeClock clock;
  final FakeListerWatcher<T> source;
  final DefaultSharedIndexInformer<T> informer;
  /** The reflector's run loop, handed over by start(): kept, never run (the test steps instead). */
  private final List<Runnable> parkedLoops = new ArrayList<>();

  SteppedInformer(String name, FakeListerWatcher<T> source, FakeClock clock) {
    this(name, source, clock, UnaryOperator.identity());
  }

  SteppedInformer(
      String name,
      FakeListerWatcher<T> source,
      FakeClock clock,
      UnaryOperator<SharedIndexInformer.Builder<T>> options) {
    this.source = Objects.requireNonNull(source, "source");
    this.clock = Objects.requireNonNull(clock, "clock");
    SharedIndexInformer.Builder<T> b =
        SharedIndexInformer.builder(name, source)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(1))
            .reflectorExecutor(parkedLoops::add)
            .processingExecutor(tasks)
            .deliveryExecutor(tasks);
    this.informer = (DefaultSharedIndexInformer<T>) options.apply(b).build();
  }

  /** Starts the informer; its reflector waits for {@link #step()}. */
  SteppedInformer<T> start() {
    informer.start();
    return this;
  }

  /** One transition of the reflector: a request, or one watch event read. */
  ReflectorState step() {
    Reflector<T> r = reflector();
    if (waitsOnEmptyWatch()) {
      throw new AssertionError(
          "reflector in " + r.state() + " would wait: the watch has nothing to read");
    }
    return r.step();
  }

  /**
   * Steps the reflector until it waits on a watch with nothing to read (or backs off, or stops),
   * then runs every queued task: what a running informer would have done by the time the source
   * has nothing new.
   */
  SteppedInformer<T> settle() {
    for (int i = 0; i < 100_000; i++) {
      ReflectorState s = reflector().state();
      if (waitsOnEmptyWatch()
          || s instanceof ReflectorState.BackingOff
          || s instanceof ReflectorState.Stopped) {
        tasks.runAll();
        return this;
      }
      reflector().step();
    }
    throw new AssertionError("the reflector did not settle in 100,000 steps");
  }

  /**
   * From the end of a cycle (the reflector {@code Idle} after a failure) through the backoff the
   * run loop would wait: the clock moves by its delay, and the next cycle starts.
   *
   * @return the backoff passed through
   */
  ReflectorState.BackingOff backOff() {
    ReflectorState s = step();
    if (!(s instanceof ReflectorState.BackingOff b)) {
      throw new AssertionError("expected a backoff at the end of a cycle, got " + s);
    }
    clock.advance(b.delay());
    step();
    return b;
  }

  /** Whether the reflector's next step would read an open watch that has nothing to read. */
  private boolean waitsOnEmptyWatch() {
    ReflectorState s = reflector().state();
    return (s instanceof ReflectorState.Watching || s instanceof ReflectorState.Streaming)
        && source.openWatchCount() > 0
        && source.readableOnOpenWatches() == 0;
  }

  Reflector<T> reflector() {
    Reflector<T> r = informer.reflector();
    if (r == null) {
      throw new IllegalStateException("start() the informer first");
    }
    return r;
  }

  @Override
  public void close() {
    informer.close();
  }

  /** An executor whose tasks run only when the test runs them, on the test's thread. */
  static final class TaskQueue implements Executor {
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    /** Whether any lock of {@link #watched} was held when each task was handed over. */
    final List<Boolean> lockHeldAtSubmit = new ArrayList<>();
    DefaultSharedIndexInformer<?> watched;

    @Override
    public void execute(Runnable task) {
      if (watched != null) {
        lockHeldAtSubmit.add(watched.holdsAnyLock());
      }
      queue.add(task);
    }

    /** Runs queued tasks, and those they queue, until none is left. */
    void runAll() {
      for (Runnable r = queue.poll(); r != null; r = queue.poll()) {
        r.run();
      }
    }

    int size() {
      return queue.size();
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * A {@link Controller} (client-go's {@code cache.New}) that runs on the test's thread alone, as
 * {@link SteppedInformer} runs a shared informer: its reflector's run loop is parked and the test
 * steps the reflector by hand ({@link Reflector#step()}), its processing task runs when the test
 * runs the queued tasks, and time moves only with the {@link FakeClock}.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class SteppedController<T extends HasMetadata> implements AutoCloseable {

  /** The controller's processing tasks, run by {@link #settle()}. */
  final SteppedInformer.TaskQueue tasks = new SteppedInformer.TaskQueue();
  final FakeClock clock;
  final FakeListerWatcher<T> source;
  final DefaultController<T> controller;
  /** The reflector's run loop, handed over by start(): kept, never run (the test steps instead). */
  private final List<Runnable> parkedLoops = new ArrayList<>();

  /**
   * A controller named {@code name} over {@code queue} and {@code source}; {@code options} may add
   * a batch function or a resync to the builder, whose executor, clock and reflector loop are this
   * helper's.
   */
  SteppedController(
      String name,
      RealFifo<T> queue,
      FakeListerWatcher<T> source,
      FakeClock clock,
      RealFifo.PopProcessor<T> process,
      UnaryOperator<Controller.Config.Builder<T>> options) {
    this.source = Objects.requireNonNull(source, "source");
    this.clock = Objects.requireNonNull(clock, "clock");
    Controller.Config.Builder<T> b =
        Controller.Config.builder(name, queue, source, process)
            .clock(clock)
            .scheduler(clock)
            .executor(tasks)
            .reflectorOptions(rb -> rb.executor(parkedLoops::add).random(new Random(1)));
    this.controller = (DefaultController<T>) Controller.create(options.apply(b).build());
  }

  /** Starts the controller; its reflector waits for {@link #step()}. */
  SteppedController<T> start() {
    controller.start();
    return this;
  }

  private boolean waitsOnWatch() {
    ReflectorState s = reflector().state();
    return (s instanceof ReflectorState.Watching || s instanceof ReflectorState.Streaming)
        && source.openWatchCount() > 0
        && source.readableOnOpenWatches() == 0;
  }

  /** One transition of the reflector: a request, or one watch event read. */
  ReflectorState step() {
    if (waitsOnWatch()) {
      throw new AssertionError(
          "reflector in " + reflector().state() + " would wait: the watch has nothing to read");
    }
    return reflector().step();
  }

  /**
   * Steps the reflector until it waits on a watch with nothing to read (or backs off, or stops),
   * runs every queued task, and repeats while the tasks gave the reflector more to read (a process
   * function that writes to the source): what a running controller would have done by the time
   * nothing is left to do.
   */
  SteppedController<T> settle() {
    for (int i = 0; i < 100_000; i++) {
      ReflectorState s = reflector().state();
      if (waitsOnWatch()
          || s instanceof ReflectorState.BackingOff
          || s instanceof ReflectorState.Stopped) {
        if (tasks.size() == 0) {
          return this;
        }
        tasks.runAll();
        continue;
      }
      reflector().step();
    }
    throw new AssertionError("the controller did not settle in 100,000 steps");
  }

  /** {@link #settle()}, passing through every backoff the reflector waits on (moving the clock). */
  SteppedController<T> settleThroughBackoffs() {
    for (int i = 0; i < 100; i++) {
      settle();
      if (!(reflector().state() instanceof ReflectorState.BackingOff b)) {
        return this;
      }
      clock.advance(b.delay());
      reflector().step();
    }
    throw new AssertionError("the reflector backed off 100 times");
  }

  Reflector<T> reflector() {
    Reflector<T> r = controller.reflector();
    if (r == null) {
      throw new IllegalStateException("start() the controller first");
    }
    return r;
  }

  @Override
  public void close() {
    controller.close();
  }
}

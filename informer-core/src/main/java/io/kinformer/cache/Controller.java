package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A reflector feeding a queue, and a process function draining it (client-go's {@code
 * cache.Controller}, made by {@code cache.New(config)} in {@code tools/cache/controller.go}): the
 * machinery under every informer, for code that wants its own processing instead of a {@link
 * SharedIndexInformer}'s handlers. {@link SimpleInformer#newInformer} builds the common case, a
 * store plus one handler.
 *
 * <p>The queue is a {@link RealFifo}: the reflector lists and watches into it, and the process
 * functions get its deltas in arrival order, in batches when a batch function is given. They run
 * as a task on the configured {@link Config.Builder#executor executor}, one at a time, holding no
 * lock of the controller or the queue; a function that throws is logged, and processing goes on
 * with the next delta.
 *
 * <p>Thread safety: thread-safe.
 */
public interface Controller extends AutoCloseable {

  /**
   * A controller for {@code config}; nothing starts until {@link #start()}.
   *
   * @param <T> the object type
   */
  static <T extends HasMetadata> Controller create(Config<T> config) {
    return new DefaultController<>(config);
  }

  /**
   * Starts the reflector and processing; returns at once (client-go's {@code Run}, which blocks
   * until stopped). Idempotent.
   *
   * @throws IllegalStateException if the controller was closed
   */
  void start();

  /** Whether the queue has synced: the first list's deltas have all been processed. */
  boolean hasSynced();

  /** The reflector's last resourceVersion; empty before the first list. */
  String lastSyncResourceVersion();

  /**
   * Stops the reflector and processing, and returns once no process function runs and none will
   * start (from inside a process function, it does not wait for that call). Deltas still queued
   * are dropped. Idempotent.
   */
  @Override
  void close();

  /**
   * What a controller runs (client-go's {@code cache.Config}).
   *
   * <p>Thread safety: immutable once built.
   *
   * @param <T> the object type
   */
  final class Config<T extends HasMetadata> {
    final String name;
    final RealFifo<T> queue;
    final ListerWatcher<T> listerWatcher;
    final RealFifo.PopProcessor<T> process;
    final RealFifo.@Nullable BatchProcessor<T> processBatch;
    final Duration fullResyncPeriod;
    final BooleanSupplier shouldResync;
    final Clock clock;
    final Scheduler scheduler;
    final @Nullable Executor executor;
    final UnaryOperator<Reflector.Builder<T>> reflectorOptions;

    private Config(Builder<T> b) {
      this.name = b.name;
      this.queue = b.queue;
      this.listerWatcher = b.listerWatcher;
      this.process = b.process;
      this.processBatch = b.processBatch;
      this.fullResyncPeriod = b.fullResyncPeriod;
      this.shouldResync = b.shouldResync;
      this.clock = b.clock;
      this.scheduler = b.scheduler;
      this.executor = b.executor;
      this.reflectorOptions = b.reflectorOptions;
    }

    /**
     * A builder for a controller named {@code name} (threads and logs) that lists and watches
     * {@code listerWatcher} into {@code queue} and hands each delta to {@code process}.
     *
     * @param <T> the object type
     */
    public static <T extends HasMetadata> Builder<T> builder(
        String name,
        RealFifo<T> queue,
        ListerWatcher<T> listerWatcher,
        RealFifo.PopProcessor<T> process) {
      return new Builder<>(name, queue, listerWatcher, process);
    }

    /**
     * Builds a {@link Config}.
     *
     * <p>Thread safety: confine to one thread.
     *
     * @param <T> the object type
     */
    public static final class Builder<T extends HasMetadata> {
      private final String name;
      private final RealFifo<T> queue;
      private final ListerWatcher<T> listerWatcher;
      private final RealFifo.PopProcessor<T> process;
      private RealFifo.@Nullable BatchProcessor<T> processBatch;
      private Duration fullResyncPeriod = Duration.ZERO;
      private BooleanSupplier shouldResync = () -> true;
      private Clock clock = Clock.system();
      private Scheduler scheduler = Scheduler.system();
      private @Nullable Executor executor;
      private UnaryOperator<Reflector.Builder<T>> reflectorOptions = UnaryOperator.identity();

      private Builder(
          String name,
          RealFifo<T> queue,
          ListerWatcher<T> listerWatcher,
          RealFifo.PopProcessor<T> process) {
        if (name.isBlank()) {
          throw new IllegalArgumentException("name must not be blank");
        }
        this.name = name;
        this.queue = Objects.requireNonNull(queue, "queue");
        this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
        this.process = Objects.requireNonNull(process, "process");
      }

      /**
       * Processes batches of deltas with distinct keys (client-go's {@code ProcessBatch}); single
       * deltas, and those that are never batched, still go to {@code process}. Default none: every
       * delta goes to {@code process}.
       */
      public Builder<T> processBatch(RealFifo.BatchProcessor<T> processBatch) {
        this.processBatch = Objects.requireNonNull(processBatch, "processBatch");
        return this;
      }

      /**
       * Every {@code period}, if {@code shouldResync} agrees, the queue is resynced (client-go's
       * {@code FullResyncPeriod} and {@code ShouldResync}). Default zero: never.
       */
      public Builder<T> resync(Duration period, BooleanSupplier shouldResync) {
        if (period.isNegative()) {
          throw new IllegalArgumentException("resync period must not be negative: " + period);
        }
        this.fullResyncPeriod = period;
        this.shouldResync = Objects.requireNonNull(shouldResync, "shouldResync");
        return this;
      }

      /** The clock. Default {@link Clock#system()}. */
      public Builder<T> clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
      }

      /** Where backoff waits and resync ticks are scheduled. Default {@link Scheduler#system()}. */
      public Builder<T> scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
      }

      /**
       * Runs the processing task. It is handed the task when deltas arrive while none runs, on
       * the reflector's thread and holding no lock; it must not run it on a thread that holds
       * locks the process functions need. Default: a daemon thread {@code
       * kinformer-<name>-processor}, started when there is work and ended when there is none for
       * 30 s. A direct executor ({@code Runnable::run}) processes on the reflector's thread, in step
       * with what it receives: what tests want.
       */
      public Builder<T> executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
      }

      /**
       * Configures the reflector (page size, backoff, streaming, thread factory...); its name,
       * source, store, clock, scheduler and resync are the controller's.
       */
      public Builder<T> reflectorOptions(UnaryOperator<Reflector.Builder<T>> options) {
        this.reflectorOptions = Objects.requireNonNull(options, "options");
        return this;
      }

      /** Builds the configuration. */
      public Config<T> build() {
        return new Config<>(this);
      }
    }
  }
}

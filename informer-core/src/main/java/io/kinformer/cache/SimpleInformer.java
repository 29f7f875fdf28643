package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cache and one handler, without the sharing of a {@link SharedIndexInformer}: client-go's
 * {@code NewInformer}, {@code NewIndexerInformer} and {@code NewInformerWithOptions} ({@code
 * tools/cache/controller.go}), which return a store and a {@link Controller}.
 *
 * <p>It runs the same pipeline as a shared informer (a {@link Reflector} into a {@link RealFifo},
 * batches applied to the cache in one transaction, relists applied atomically) but calls its one
 * handler directly from its processing task, after each change is in the cache and holding no lock,
 * in the order of the changes; a handler that throws is logged and the next change is handled. It
 * does not buffer per handler and cannot take more handlers: use a {@link SharedIndexInformer} for
 * that. Resync, when asked for, re-delivers every cached object as {@code onUpdate(obj, obj)} each
 * period.
 *
 * <p>Its {@link #indexer()} is read-only: writing to it would make the handler's view wrong (as
 * client-go says of the store it returns).
 *
 * <p>Thread safety: thread-safe. The handler is called from one task at a time.
 *
 * @param <T> the object type
 */
public final class SimpleInformer<T extends HasMetadata> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SimpleInformer.class);

  private final ThreadSafeIndexer<T> indexer;
  private final ReadOnlyView<T> view;
  private final Controller controller;

  private SimpleInformer(Options<T> o) {
    this.indexer = new ThreadSafeIndexer<>(Keys::metaNamespaceKey, o.indexers);
    this.view = new ReadOnlyView<>(indexer);
    HandlerSink<T> sink = new HandlerSink<>(o.name, o.handler);
    DeltaProcessor<T> deltas = new DeltaProcessor<>(o.name, indexer, null, sink);
    RealFifo<T> queue =
        RealFifo.<T>builder(Keys::metaNamespaceKey)
            .transform(Transforms.thenPrepare(o.transform, o.listerWatcher))
            .name(o.name)
            .build();
    Controller.Config.Builder<T> cb =
        Controller.Config.builder(o.name, queue, o.listerWatcher, deltas::process)
            .processBatch(deltas::processBatch)
            .clock(o.clock)
            .scheduler(o.scheduler)
            .reflectorOptions(
                rb -> {
                  rb.minWatchTimeout(o.minWatchTimeout);
                  return o.reflectorExecutor == null ? rb : rb.executor(o.reflectorExecutor);
                });
    if (o.executor != null) {
      cb.executor(o.executor);
    }
    if (!o.resyncPeriod.isZero()) {
      cb.resync(o.resyncPeriod, () -> true);
    }
    this.controller = Controller.create(cb.build());
  }

  /**
   * client-go's {@code NewInformer}: a cache of what {@code listerWatcher} lists and watches, and
   * {@code handler} told about every change; resync every {@code resyncPeriod} (zero: never).
   */
  public static <T extends HasMetadata> SimpleInformer<T> newInformer(
      ListerWatcher<T> listerWatcher, Duration resyncPeriod, ResourceEventHandler<? super T> handler) {
    return options(listerWatcher, handler).resyncPeriod(resyncPeriod).build();
  }

  /** client-go's {@code NewIndexerInformer}: {@link #newInformer} with indices. */
  public static <T extends HasMetadata> SimpleInformer<T> newIndexerInformer(
      ListerWatcher<T> listerWatcher,
      Duration resyncPeriod,
      ResourceEventHandler<? super T> handler,
      Map<String, IndexFunc<T>> indexers) {
    Options.Builder<T> b = options(listerWatcher, handler).resyncPeriod(resyncPeriod);
    indexers.forEach(b::index);
    return b.build();
  }

  /**
   * client-go's {@code NewInformerWithOptions}: every option of a simple informer, with defaults.
   */
  public static <T extends HasMetadata> Options.Builder<T> options(
      ListerWatcher<T> listerWatcher, ResourceEventHandler<? super T> handler) {
    return new Options.Builder<>(listerWatcher, handler);
  }

  /** The cache, read-only (see {@link ReadOnlyStore} for what its objects permit). */
  public ReadOnlyStore<T> store() {
    return view;
  }

  /** The cache with its indices, read-only. */
  public ReadOnlyIndexer<T> indexer() {
    return view;
  }

  /** What runs it: start, sync state, resourceVersion, close. */
  public Controller controller() {
    return controller;
  }

  /** Same as {@code controller().start()}. */
  public void start() {
    controller.start();
  }

  /** Same as {@code controller().hasSynced()}. */
  public boolean hasSynced() {
    return controller.hasSynced();
  }

  /** Same as {@code controller().close()}. */
  @Override
  public void close() {
    controller.close();
  }

  /** Calls the one handler, after the commit, in order; a throw is logged and skipped. */
  private static final class HandlerSink<T extends HasMetadata> implements DeltaProcessor.Sink<T> {
    private final String name;
    private final ResourceEventHandler<? super T> handler;
    private List<Notification<T>> pending = new ArrayList<>();

    HandlerSink(String name, ResourceEventHandler<? super T> handler) {
      this.name = name;
      this.handler = handler;
    }

    @Override
    public void underLock(List<Notification<T>> notifications) {
      pending = notifications;
    }

    @Override
    public void afterUnlock() {
      List<Notification<T>> now = pending;
      pending = new ArrayList<>();
      for (Notification<T> n : now) {
        try {
          if (n instanceof Notification.Add<T> a) {
            handler.onAdd(a.obj(), a.isInInitialList());
          } else if (n instanceof Notification.Update<T> u) {
            handler.onUpdate(u.oldObj(), u.newObj());
          } else if (n instanceof Notification.Delete<T> d) {
            handler.onDelete(d.obj(), d.finalStateUnknown());
          }
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
          // A bug in the handler loses that call only (an OutOfMemoryError propagates).
          log.warn(
              "informer={} handler {} threw on {}; going on with the next change",
              name, ProcessorListener.nameOf(handler), DeltaProcessor.keyOrUnknown(n.subject()), e);
        }
      }
    }
  }

  /**
   * A simple informer's options (client-go's {@code InformerOptions}).
   *
   * <p>Thread safety: immutable once built.
   *
   * @param <T> the object type
   */
  public static final class Options<T extends HasMetadata> {
    final String name;
    final ListerWatcher<T> listerWatcher;
    final ResourceEventHandler<? super T> handler;
    final Duration resyncPeriod;
    final Duration minWatchTimeout;
    final Map<String, IndexFunc<T>> indexers;
    final @Nullable UnaryOperator<T> transform;
    final Clock clock;
    final Scheduler scheduler;
    final @Nullable Executor executor;
    final @Nullable Executor reflectorExecutor;

    private Options(Builder<T> b) {
      this.name = b.name;
      this.listerWatcher = b.listerWatcher;
      this.handler = b.handler;
      this.resyncPeriod = b.resyncPeriod;
      this.minWatchTimeout = b.minWatchTimeout;
      this.indexers = Map.copyOf(b.indexers);
      this.transform = b.transform;
      this.clock = b.clock;
      this.scheduler = b.scheduler;
      this.executor = b.executor;
      this.reflectorExecutor = b.reflectorExecutor;
    }

    /**
     * Builds a {@link SimpleInformer}.
     *
     * <p>Thread safety: confine to one thread.
     *
     * @param <T> the object type
     */
    public static final class Builder<T extends HasMetadata> {
      private final ListerWatcher<T> listerWatcher;
      private final ResourceEventHandler<? super T> handler;
      private String name = "informer";
      private Duration resyncPeriod = Duration.ZERO;
      private Duration minWatchTimeout = Duration.ofMinutes(5);
      private final Map<String, IndexFunc<T>> indexers = new LinkedHashMap<>();
      private @Nullable UnaryOperator<T> transform;
      private Clock clock = Clock.system();
      private Scheduler scheduler = Scheduler.system();
      private @Nullable Executor executor;
      private @Nullable Executor reflectorExecutor;

      private Builder(ListerWatcher<T> listerWatcher, ResourceEventHandler<? super T> handler) {
        this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
        this.handler = Objects.requireNonNull(handler, "handler");
      }

      /** The name in thread names and logs. Default {@code informer}. */
      public Builder<T> name(String name) {
        if (name.isBlank()) {
          throw new IllegalArgumentException("name must not be blank");
        }
        this.name = name;
        return this;
      }

      /** Re-deliver every cached object this often; zero (the default) never. */
      public Builder<T> resyncPeriod(Duration period) {
        if (period.isNegative()) {
          throw new IllegalArgumentException("resync period must not be negative: " + period);
        }
        this.resyncPeriod = period;
        return this;
      }

      /** Watches ask for a server timeout between this and twice this. Default 5 minutes. */
      public Builder<T> minWatchTimeout(Duration minWatchTimeout) {
        this.minWatchTimeout = Objects.requireNonNull(minWatchTimeout, "minWatchTimeout");
        return this;
      }

      /** Adds an index to the cache. Default none. */
      public Builder<T> index(String name, IndexFunc<T> indexFunc) {
        if (indexers.putIfAbsent(name, Objects.requireNonNull(indexFunc, "indexFunc")) != null) {
          throw new IllegalArgumentException("index " + name + " is already defined");
        }
        return this;
      }

      /** Applied to every object before it is cached and delivered. Default none. */
      public Builder<T> transform(UnaryOperator<T> transform) {
        this.transform = Objects.requireNonNull(transform, "transform");
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
       * Runs the processing task, and so the handler (see {@link
       * Controller.Config.Builder#executor}). Default: a thread of the informer's own.
       */
      public Builder<T> executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
      }

      /**
       * Runs the reflector's cycles (see {@link Reflector.Builder#executor}). Default: a thread of
       * its own. With it and {@link #executor} run by hand and a {@code
       * FakeClock}, the informer runs on the test's thread alone.
       */
      public Builder<T> reflectorExecutor(Executor executor) {
        this.reflectorExecutor = Objects.requireNonNull(executor, "executor");
        return this;
      }

      /** Builds the informer; nothing starts until {@link SimpleInformer#start()}. */
      public SimpleInformer<T> build() {
        return new SimpleInformer<>(new Options<>(this));
      }
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.internal.Randoms;
import io.kinformer.time.Backoff;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * A local, indexed, always-current cache of one resource, fed by list and watch, that tells
 * registered handlers about every change (client-go's {@code SharedIndexInformer}).
 *
 * <h2>How it works</h2>
 *
 * One {@link Reflector} thread lists and watches into a {@link RealFifo} (client-go 1.36's
 * in-order queue: every event in arrival order, a relist as one atomic delta); a processing task,
 * on the delivery pool unless {@link Builder#processingExecutor} says otherwise, pops batches of
 * up to 1000 events, applies each batch to the {@link Indexer} in one transaction first, and then
 * queues notifications for every handler. Each handler has its own unbounded buffer, drained by
 * tasks on a bounded delivery pool (shared, when the informer comes from a factory), so a slow
 * handler delays only itself (except for a second or two when blocked handlers hold every worker
 * of the pool, which then adds one) and a throwing one only loses its own call and pauses its own
 * delivery for a second. See {@link ResourceEventHandler} for the delivery contract.
 *
 * <p>What "sync" means: {@link #hasSynced()} turns true once the first full list has been applied
 * to the indexer; a registration's {@link ResourceEventHandlerRegistration#hasSynced()} once its
 * handler has also been told about every object of that list.
 *
 * <p>Resync: a handler registered with a resync period gets {@code onUpdate(obj, obj)} for every
 * cached object about once per period. After a relist, objects whose resourceVersion did not change
 * are delivered as resyncs too ({@code onUpdate} with the same resourceVersion on both sides): as in
 * client-go, to every handler until the informer's first resync check (so always when no handler
 * has a resync period), then to the handlers found due at the last check and those added since.
 * Objects that changed are delivered to everyone as updates, and objects that vanished as
 * deletions with {@code finalStateUnknown = true}.
 *
 * <h2>Lifecycle</h2>
 *
 * {@link #start()} (idempotent, returns at once) → {@link #awaitSynced} → reads and events → {@link
 * #close()} (idempotent; returns once no handler call is running and none will start). An informer
 * cannot be restarted. Handlers may be added before or after start; a handler added to a running
 * informer is first told about every cached object ({@code onAdd(obj, true)}) and then follows live
 * changes, with nothing missed or doubled. Adding a handler to a closed informer throws {@link
 * IllegalStateException}.
 *
 * <p>Thread safety: thread-safe. Objects handed out are shared with the cache and read-only: see
 * {@link ReadOnlyStore} ("Cached objects").
 *
 * @param <T> the object type
 */
public interface SharedIndexInformer<T extends HasMetadata> extends AutoCloseable {

  /**
   * A builder for an informer named {@code name} (used in thread names and logs; conventionally the
   * resource, e.g. {@code pods} or {@code apps/v1/deployments}) fed by {@code listerWatcher}.
   */
  static <T extends HasMetadata> Builder<T> builder(String name, ListerWatcher<T> listerWatcher) {
    return new Builder<>(name, listerWatcher);
  }

  /**
   * The informer's name in logs and thread names: the one given to {@link #builder}, unique in
   * the process. While another informer of the process that has not been closed has that name,
   * this one gets the first free {@code name#N} (N from 2), and logs it once at INFO.
   */
  String name();

  /**
   * Registers a handler with the informer's default resync period.
   *
   * @throws IllegalStateException if the informer is closed
   */
  ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler);

  /**
   * Registers a handler that also wants a resync every {@code resyncPeriod} (zero: never). Periods
   * under one second are raised to one second. Before start, the informer's resync check period is
   * lowered to the shortest period asked for. Once the informer runs, a period shorter than the
   * informer's resync check period is raised to it, and if the informer was started without any
   * resync (a zero default and no handler with a period), the handler is never resynced (a WARN
   * says so).
   *
   * @throws IllegalStateException if the informer is closed
   */
  ResourceEventHandlerRegistration addEventHandler(
      ResourceEventHandler<? super T> handler, Duration resyncPeriod);

  /**
   * Unregisters a handler: its pending notifications are dropped and no new ones are queued for
   * it. It does not wait for the handler: a call in progress, or one whose notification its
   * delivery thread had already taken, still runs to its end (as with client-go's {@code
   * RemoveEventHandler}); see {@link ResourceEventHandlerRegistration#close()}. Idempotent; a
   * registration of another informer is ignored, as in client-go.
   */
  void removeEventHandler(ResourceEventHandlerRegistration registration);

  /**
   * Removes a handler and waits until it has stopped: no call of it is running and none will start
   * (client-go's {@code ShutDownEventHandler}). Called from inside that handler, it does not wait
   * for the call it is made from. A registration of another informer is ignored.
   *
   * @return false if a call was still running after {@code timeout}
   * @throws InterruptedException if interrupted while waiting
   */
  boolean shutDownEventHandler(ResourceEventHandlerRegistration registration, Duration timeout)
      throws InterruptedException;

  /**
   * The cache, read-only (only the informer writes it). Reads are thread-safe and never block on
   * the network; see {@link ReadOnlyStore} for what the returned objects permit.
   */
  ReadOnlyStore<T> getStore();

  /**
   * The cache with its indices, read-only (add indices with {@link #addIndexers}). Reads are
   * thread-safe and never block on the network; see {@link ReadOnlyStore} for what the returned
   * objects permit.
   */
  ReadOnlyIndexer<T> getIndexer();

  /**
   * Adds indices to the cache; objects already cached are indexed at once.
   *
   * @throws IllegalArgumentException if a name is already in use
   * @throws IllegalStateException if the informer was closed (client-go's "indexer was not added
   *     because it has stopped already")
   */
  void addIndexers(Map<String, IndexFunc<T>> indexers);

  /** Adds one index: {@link #addIndexers} with a map of one. */
  default void addIndexer(String name, IndexFunc<T> indexFunc) {
    addIndexers(Map.of(name, indexFunc));
  }

  /**
   * A lister over the cache (client-go's generated informers' {@code Lister()}): list by label
   * selector, get by name, narrow to a namespace. Cheap: make one where needed, or keep one.
   */
  default Lister<T> lister() {
    return new Lister<>(getIndexer());
  }

  /** Whether the first full list has been applied to the cache. */
  boolean hasSynced();

  /**
   * Read-your-writes: a future completed once the cache has seen {@code resourceVersion}, the one a
   * write of the caller's returned (a create, update, patch or delete): once the store's last
   * synced resourceVersion ({@link ReadOnlyStore#lastStoreSyncResourceVersion()}) is at or past it, or the
   * object cached at {@code key} has it or a later one. A deletion is seen once the store is past
   * it. The cache may be further ahead, with later writes of others. Fails with {@link
   * IllegalStateException} if the informer closes first; never completes if the informer never
   * sees that version (another resource's, or a watch stuck behind), so bound the wait. Dependent
   * actions registered without an executor run on the informer's processing thread: use the
   * {@code ...Async} variants for anything that is not quick.
   *
   * @param key the object's key ({@link Keys#metaNamespaceKey}), or null to wait for the store
   *     alone
   * @throws IllegalArgumentException if {@code resourceVersion} cannot be compared ({@link
   *     ResourceVersions})
   */
  CompletableFuture<Void> resourceVersionSeen(@Nullable String key, String resourceVersion);

  /**
   * Waits until the cache has seen {@code resourceVersion} (see {@link #resourceVersionSeen}), at
   * most {@code timeout}.
   *
   * @return true once seen, false if the timeout passed first
   * @throws IllegalStateException if the informer is closed before
   * @throws InterruptedException if interrupted while waiting
   */
  boolean awaitResourceVersion(@Nullable String key, String resourceVersion, Duration timeout)
      throws InterruptedException;

  /**
   * A future that completes when the informer first syncs, or fails with {@link
   * IllegalStateException} if it is closed before. Completing the returned future has no effect on
   * the informer. Dependent actions registered without an executor run on the informer's processing
   * thread and delay event processing while they run: use the {@code ...Async} variants for
   * anything that is not quick.
   */
  CompletableFuture<Void> synced();

  /**
   * Waits until the informer has synced.
   *
   * @return true if it synced, false on timeout or if it was closed first
   * @throws InterruptedException if interrupted while waiting
   */
  boolean awaitSynced(Duration timeout) throws InterruptedException;

  /** The resourceVersion of the last change applied; empty before the first list. */
  String lastSyncResourceVersion();

  /**
   * Sets a function applied to every object before it is cached and delivered, for example to drop
   * {@code managedFields} and save memory. It runs on the reflector's thread, once per object; it
   * may modify and return its argument. It must be set before {@link #start()}.
   *
   * <p>The transform sees the object as decoded, with ordinary modifiable lists and maps: it may
   * add a label or remove a container in place. The source's {@link
   * ListerWatcher#prepareForCache} runs after it, and is where kinformer's client compacts the
   * object and makes its collections read-only (see {@link ReadOnlyStore}, "Cached objects").
   *
   * @throws IllegalStateException if the informer has started
   */
  void setTransform(UnaryOperator<T> transform);

  /**
   * Sets the handler told about every failed list or watch attempt (for visibility: the informer
   * recovers by itself). Must be set before {@link #start()}.
   *
   * @throws IllegalStateException if the informer has started
   */
  void setWatchErrorHandler(WatchErrorHandler handler);

  /**
   * Starts listing and watching; returns at once. Idempotent.
   *
   * @throws IllegalStateException if the informer is closed
   */
  void start();

  /** Whether {@link #start()} has been called. */
  boolean isStarted();

  /** Whether {@link #close()} has been called. */
  boolean isStopped();

  /**
   * A snapshot of this informer's health: its reflector's state, whether it has synced, when it
   * last made progress, its last error and how many attempts failed in a row. Cheap, and never
   * waits for I/O or user code: call it as often as a probe needs. Before {@link #start()} it reports an idle, unsynced
   * informer with no history.
   */
  InformerHealth health();

  /**
   * Stops the informer: ends its watch and threads, drops pending notifications, and returns once
   * no handler call is running, none will start, and the informer's own threads have ended. It may
   * be called from a handler or a {@link WatchErrorHandler}: it then does not wait for the call it
   * is made from (which would wait for itself), and the calling thread ends once that call returns.
   * Idempotent: a second call waits for the first one to finish, unless it is made from such a
   * callback. The cache keeps its last content.
   */
  @Override
  void close();

  /**
   * Builds a {@link SharedIndexInformer}. Everything but the name and the source is optional.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the object type
   */
  final class Builder<T extends HasMetadata> {
    final String name;
    final ListerWatcher<T> listerWatcher;
    Duration defaultResync = Duration.ZERO;
    final Map<String, IndexFunc<T>> indexers = new LinkedHashMap<>();
    Clock clock = Clock.system();
    Scheduler scheduler = Scheduler.system();
    @Nullable RandomGenerator random;
    Backoff.Policy backoff = Backoff.Policy.clientGoDefault();
    @Nullable Executor deliveryExecutor;
    @Nullable Executor processingExecutor;
    @Nullable Executor reflectorExecutor;
    @Nullable InformerMetricsProvider metricsProvider;
    InformerMetricsProvider.@Nullable InformerId metricsId;
    @Nullable ThreadFactory threadFactory;
    /** Negative: not set, the reflector pages as client-go's decides. */
    long pageSize = -1;
    boolean streamingList = true;
    Duration minWatchTimeout = Duration.ofMinutes(5);
    @Nullable String expectedApiVersion;
    @Nullable String expectedKind;
    Duration maxInternalErrorRetryDuration = Duration.ZERO;
    boolean rewatchOnWatchError;

    private Builder(String name, ListerWatcher<T> listerWatcher) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
    }

    /** The resync period of handlers added without one. Default zero (no resync). */
    public Builder<T> defaultResync(Duration period) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("resync period must not be negative: " + period);
      }
      this.defaultResync = period;
      return this;
    }

    /** Adds an index (the namespace index {@link Indexers#NAMESPACE} is always there). */
    public Builder<T> index(String name, IndexFunc<T> indexFunc) {
      if (indexers.putIfAbsent(name, Objects.requireNonNull(indexFunc, "indexFunc")) != null) {
        throw new IllegalArgumentException("index " + name + " is already defined");
      }
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
     * Seeds the randomness for watch timeouts and backoff jitter: each informer built here gets a
     * generator of its own, split from or seeded by {@code random} at {@link #build()}, so that
     * informers built from one builder share none. Default a new one for each informer.
     */
    public Builder<T> random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The backoff between failed list/watch attempts: each informer built here gets its own from
     * {@code policy} (on its clock and random). Default {@link Backoff.Policy#clientGoDefault}.
     */
    public Builder<T> backoff(Backoff.Policy policy) {
      this.backoff = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Runs handler deliveries. Default: the informer's own bounded pool of daemon threads {@code
     * kinformer-<name>-delivery-N} (see {@link Informers#newDeliveryExecutor(String, int)}), shut
     * down by {@link SharedIndexInformer#close()}. A given executor is shared and not shut down by
     * the informer; {@link Informers#newDeliveryExecutor(String)} makes one to share between
     * informers. Any other executor is called holding no lock of the informer, from its
     * processing and from the thread adding a handler; if it queues tasks behind a fixed set of
     * threads, a blocked handler delays the others (and the informer's processing, which runs on it
     * too unless {@link #processingExecutor} says otherwise).
     */
    public Builder<T> deliveryExecutor(Executor executor) {
      this.deliveryExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Runs the informer's processing: the task that applies queued events to the cache and queues
     * the handlers' notifications, handed over when events arrive and none runs (see {@link
     * Controller.Config.Builder#executor}). Default: the delivery executor, so that an informer
     * needs no thread of its own beyond its reflector's. A direct executor ({@code Runnable::run})
     * processes on the reflector's thread.
     */
    public Builder<T> processingExecutor(Executor executor) {
      this.processingExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Runs the reflector's cycles (see {@link Reflector.Builder#executor}). Default: a thread of its
     * own, {@code kinformer-<name>-reflector}. With an executor the test runs by hand, together with
     * hand-run {@link #deliveryExecutor} and {@link #processingExecutor} and a {@code
     * FakeClock}, an informer runs entirely on the test's thread.
     */
    public Builder<T> reflectorExecutor(Executor executor) {
      this.reflectorExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Publishes client-go's informer metrics (queued items, processing latency, store
     * resourceVersion) through {@code provider}, labelled with {@code id}. As client-go, only
     * informers given an identity publish; its name is reserved in the process from {@link
     * #build()} until the informer closes. Default none.
     */
    public Builder<T> metrics(
        InformerMetricsProvider provider, InformerMetricsProvider.InformerId id) {
      this.metricsProvider = Objects.requireNonNull(provider, "provider");
      this.metricsId = Objects.requireNonNull(id, "id");
      return this;
    }

    /**
     * Makes the reflector's thread (named {@code kinformer-<name>-reflector} by default: the
     * factory is given a runnable and should name the thread itself if it wants another name).
     */
    public Builder<T> threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Page size of every list, relists at a resourceVersion included (see {@link
     * Reflector.Builder#pageSize}); 0 disables paging. Unset (the default), lists are paged by 500
     * except relists at a resourceVersion, as client-go's reflector does.
     */
    public Builder<T> pageSize(long pageSize) {
      if (pageSize < 0) {
        throw new IllegalArgumentException("pageSize must not be negative: " + pageSize);
      }
      this.pageSize = pageSize;
      return this;
    }

    /**
     * Begin each list-and-watch cycle with a streaming list (watch with {@code sendInitialEvents}),
     * falling back to a list when the server refuses it. Default true, as client-go 1.36 (see
     * {@link Reflector.Builder#streamingList}).
     */
    public Builder<T> streamingList(boolean streamingList) {
      this.streamingList = streamingList;
      return this;
    }

    /**
     * The {@code apiVersion} and {@code kind} the watched objects must have; others are logged and
     * skipped (see {@link Reflector.Builder#expectedKind}). Default none.
     */
    public Builder<T> expectedKind(String apiVersion, String kind) {
      this.expectedApiVersion = Objects.requireNonNull(apiVersion, "apiVersion");
      this.expectedKind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /**
     * How long internal errors on the watch are re-watched at once (see {@link
     * Reflector.Builder#maxInternalErrorRetryDuration}). Default zero: never.
     */
    public Builder<T> maxInternalErrorRetryDuration(Duration max) {
      if (max.isNegative()) {
        throw new IllegalArgumentException("max must not be negative: " + max);
      }
      this.maxInternalErrorRetryDuration = max;
      return this;
    }

    /**
     * Re-watch instead of relisting after watch errors that leave the resourceVersion usable (see
     * {@link Reflector.Builder#rewatchOnWatchError}). Default false, as client-go.
     */
    public Builder<T> rewatchOnWatchError(boolean rewatch) {
      this.rewatchOnWatchError = rewatch;
      return this;
    }

    /**
     * Watches ask for a server timeout between this and twice this. Default, and at least, 5
     * minutes: shorter values are raised to it, as client-go does ({@link
     * Reflector.Builder#minWatchTimeout}).
     */
    public Builder<T> minWatchTimeout(Duration minWatchTimeout) {
      if (minWatchTimeout.toSeconds() < 1) {
        throw new IllegalArgumentException(
            "minWatchTimeout must be at least 1s: " + minWatchTimeout);
      }
      this.minWatchTimeout = minWatchTimeout;
      return this;
    }

    /**
     * Builds the informer from a copy of this builder's settings (changing the builder afterwards
     * does not change it); nothing starts until {@link SharedIndexInformer#start()}.
     *
     * @throws IllegalStateException if {@link #metrics} names an informer whose name another live
     *     informer with metrics uses
     */
    public SharedIndexInformer<T> build() {
      return new DefaultSharedIndexInformer<>(
          new InformerSettings<>(
              name,
              listerWatcher,
              defaultResync,
              indexers,
              clock,
              scheduler,
              random == null ? null : Randoms.independent(random),
              backoff,
              deliveryExecutor,
              processingExecutor,
              reflectorExecutor,
              metricsProvider,
              metricsId,
              threadFactory,
              pageSize,
              streamingList,
              minWatchTimeout,
              expectedApiVersion,
              expectedKind,
              maxInternalErrorRetryDuration,
              rewatchOnWatchError));
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SharedIndexInformer}: client-go's {@code sharedIndexInformer} plus its {@code
 * controller} ({@code tools/cache/shared_informer.go}, {@code controller.go}), with client-go
 * 1.36's pipeline: the reflector queues into a {@link RealFifo} (every event in arrival order; a
 * relist as one {@code REPLACED_ALL}, a resync as one {@code SYNC_ALL}, bookmarks as {@code
 * BOOKMARK}), and the processing task pops batches of up to 1000 deltas with distinct keys,
 * applies each batch to the indexer in one transaction, then queues the handlers' notifications.
 *
 * <h2>Threads</h2>
 *
 * <ul>
 *   <li>{@code kinformer-<name>-reflector}: the {@link Reflector}, writing into the FIFO.
 *   <li>processing: a task on the processing executor (by default the delivery pool) that pops
 *       the FIFO and runs the {@link DeltaProcessor}, which updates the indexer and queues
 *       notifications; it never runs handlers (see {@link DefaultController}).
 *   <li>delivery executor threads: run handler calls, one drain task per handler at a time.
 *   <li>the scheduler's thread: backoff wake-ups and resync ticks (a tick only queues {@code
 *       SYNC_ALL}; the walk over the cache runs in the processing task).
 * </ul>
 *
 * <h2>Locks</h2>
 *
 * <p>The FIFO's lock is never held while a batch is processed (see {@link RealFifo}). {@link
 * #blockDeltas} is held while a batch is committed to the indexer and its notifications queued,
 * and while a late handler is seeded with the cache content, so that the seed and the live stream
 * neither overlap nor leave a gap (client-go's {@code blockDeltas}). Under it run only the
 * indexer's commit (no user code: keys and index values are computed before, by {@code prepare})
 * and the listeners' buffers (leaves: they call nothing). Handler drains are handed to the
 * delivery executor, which may be the user's, only after it is released. {@link #lifecycle}
 * guards start/stop and handler registration; it is taken before {@link #blockDeltas} when a late
 * handler is added, and never by the processing task.
 *
 * <h2>Closing</h2>
 *
 * {@link #close()} stops, in order: the reflector (joining its thread), the FIFO and the processing
 * thread (joined), every listener (then waits until none is inside its handler), and the owned
 * delivery pool (joined). It holds no lock while it waits. A thread never waits for itself: called
 * from a handler it skips that listener's in-progress call and the pool's join; called on the
 * reflector thread it skips that join. A second close() waits for {@link #closed} unless it runs
 * on one of the informer's threads. See docs/concurrency.md.
 */
final class DefaultSharedIndexInformer<T extends HasMetadata> implements SharedIndexInformer<T> {

  private static final Logger log = LoggerFactory.getLogger(DefaultSharedIndexInformer.class);

  /** client-go's {@code minimumResyncPeriod}. */
  static final Duration MINIMUM_RESYNC_PERIOD = Duration.ofSeconds(1);

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final String name;
  private final ListerWatcher<T> listerWatcher;
  private final ThreadSafeIndexer<T> indexer;
  private final ReadOnlyView<T> view;
  private final SharedProcessor<T> processor = new SharedProcessor<>();
  private final ReentrantLock blockDeltas = new ReentrantLock();
  private final DeltaProcessor<T> deltas;
  private final @Nullable InformerMetricsProvider metricsProvider;
  private final InformerMetricsProvider.@Nullable InformerId metricsId;
  private final Clock clock;
  private final InformerSettings<T> config;
  private final Executor deliveryExecutor;
  private final Executor processingExecutor;
  private final @Nullable ExecutorService ownedDeliveryExecutor;

  /** The threads of {@link #ownedDeliveryExecutor}, alive or recently dead. */
  private final Set<Thread> deliveryThreads = ConcurrentHashMap.newKeySet();

  private final CompletableFuture<Void> syncedFuture = new CompletableFuture<>();

  private final Object lifecycle = new Object();
  // @GuardedBy("lifecycle")
  private boolean started;
  // @GuardedBy("lifecycle")
  private volatile boolean stopped;
  // @GuardedBy("lifecycle"): how often handlers' resync periods are checked
  private Duration resyncCheckPeriod;
  // @GuardedBy("lifecycle")
  private final Duration defaultEventHandlerResyncPeriod;
  // @GuardedBy("lifecycle")
  private @Nullable UnaryOperator<T> transform;
  // @GuardedBy("lifecycle")
  private @Nullable WatchErrorHandler watchErrorHandler;
  // Set once by start(), under lifecycle; read by any thread.
  private volatile @Nullable RealFifo<T> fifo;
  private volatile @Nullable DefaultController<T> controller;

  /** The callers of resourceVersionSeen, checked after every change applied. */
  private final ResourceVersionWaiters resourceVersionWaiters =
      new ResourceVersionWaiters(this::reached);

  /** Counted down when the first close() has finished. */
  private final CountDownLatch closed = new CountDownLatch(1);

  /** The listeners the first close() stopped and may still be waiting for. */
  private volatile List<ProcessorListener<T>> closingListeners = List.of();

  DefaultSharedIndexInformer(InformerSettings<T> b) {
    this.listerWatcher = b.listerWatcher();
    this.config = b;
    this.clock = b.clock();
    Map<String, IndexFunc<T>> indices = new HashMap<>();
    indices.put(Indexers.NAMESPACE, Indexers.namespaceIndexFunc());
    b.indexers().forEach(
        (k, v) -> {
          if (indices.putIfAbsent(k, v) != null) {
            throw new IllegalArgumentException("index " + k + " is built in");
          }
        });
    this.indexer = new ThreadSafeIndexer<>(Keys::metaNamespaceKey, indices);
    this.view = new ReadOnlyView<>(indexer);
    this.metricsProvider = b.metricsProvider();
    this.metricsId = b.metricsId();
    if (metricsProvider != null && metricsId != null) {
      InformerNames.reserve(metricsId.name());
      indexer.resourceVersionGauge(metricsProvider.newStoreResourceVersionMetric(metricsId));
    }
    // Taken once nothing below can fail, and given back by close().
    this.name = InformerNames.takeUnique(b.name());
    if (!name.equals(b.name())) {
      log.info(
          "informer={}: another informer of this process is named {}; this one logs as {}",
          name, b.name(), name);
    }
    this.deltas = new DeltaProcessor<>(name, indexer, blockDeltas, new Distributor());
    this.resyncCheckPeriod = b.defaultResync();
    this.defaultEventHandlerResyncPeriod = b.defaultResync();
    Executor givenDelivery = b.deliveryExecutor();
    if (givenDelivery != null) {
      this.deliveryExecutor = givenDelivery;
      this.ownedDeliveryExecutor = null;
    } else {
      ExecutorService own =
          newDeliveryExecutor("kinformer-" + name + "-delivery-", deliveryThreads);
      this.deliveryExecutor = own;
      this.ownedDeliveryExecutor = own;
    }
    Executor givenProcessing = b.processingExecutor();
    this.processingExecutor = givenProcessing != null ? givenProcessing : this.deliveryExecutor;
  }

  /**
   * The bounded delivery pool ({@link DeliveryPool}) of an informer built without an executor:
   * {@link DeliveryPool#defaultSize()} workers started on demand, extra ones while all are stuck
   * in handlers, idle ones gone after 30 s. It runs on the system clock and scheduler (see {@link
   * DeliveryPool}). Every thread it makes is recorded in {@code threads} (dead ones are dropped
   * whenever a new one is made), so that close() can recognise them and join them.
   */
  static ExecutorService newDeliveryExecutor(String threadNamePrefix, Set<Thread> threads) {
    return DeliveryPool.withDefaults(threadNamePrefix, DeliveryPool.defaultSize(), threads);
  }

  @Override
  public String name() {
    return name;
  }

  // ---- handlers ------------------------------------------------------------------------------

  @Override
  public ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler) {
    return addEventHandler(handler, defaultEventHandlerResyncPeriod); // final: no lock needed
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(
      ResourceEventHandler<? super T> handler, Duration resyncPeriod) {
    ProcessorListener<T> listener = register(handler, resyncPeriod);
    if (metricsProvider != null && metricsId != null) {
      // Outside every lock: the provider is the user's code.
      listener.handlerMetrics(
          metricsProvider.newHandlerMetrics(metricsId, listener.handlerName(), listener));
    }
    return listener;
  }

  private ProcessorListener<T> register(
      ResourceEventHandler<? super T> handler, Duration resyncPeriod) {
    Objects.requireNonNull(handler, "handler");
    if (resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("resync period must not be negative: " + resyncPeriod);
    }
    ProcessorListener<T> late;
    boolean submitLate;
    synchronized (lifecycle) {
      if (stopped) {
        // client-go's message
        throw new IllegalStateException(
            "handler "
                + ProcessorListener.nameOf(handler)
                + " was not added to shared informer because it has stopped already");
      }
      Duration period = resyncPeriod;
      if (!period.isZero()) {
        if (period.compareTo(MINIMUM_RESYNC_PERIOD) < 0) {
          log.warn(
              "informer={} resync period {} raised to {}", name, period, MINIMUM_RESYNC_PERIOD);
          period = MINIMUM_RESYNC_PERIOD;
        }
        if (resyncCheckPeriod.isZero() || period.compareTo(resyncCheckPeriod) < 0) {
          if (started) {
            if (resyncCheckPeriod.isZero()) {
              log.warn(
                  "informer={} was started without resync; handler {} will not be resynced",
                  name,
                  ProcessorListener.nameOf(handler));
            } else {
              log.warn(
                  "informer={} already checks resync every {}; handler {} gets that instead of {}",
                  name,
                  resyncCheckPeriod,
                  ProcessorListener.nameOf(handler),
                  period);
              period = resyncCheckPeriod;
            }
          } else {
            // Divergence from client-go, which ignores handler resync when the informer's default
            // is zero: before start, simply check as often as the most demanding handler needs.
            resyncCheckPeriod = period;
            processor.resyncCheckPeriodChanged(period, clock.nanoTime());
          }
        }
      }
      ProcessorListener<T> listener =
          new ProcessorListener<>(
              name,
              handler,
              period,
              SharedProcessor.determineResyncPeriod(period, resyncCheckPeriod),
              clock.nanoTime(),
              deliveryExecutor,
              clock,
              config.scheduler(),
              this::hasSynced,
              processor);
      if (!started) {
        processor.addListener(listener);
        return listener;
      }
      // A late joiner: stop applying deltas, replay the cache, then let deltas flow again. The
      // handler sees every cached object once, then exactly the changes after that point. The
      // drain starts once no lock is held (the executor may be the user's).
      boolean submit = false;
      blockDeltas.lock();
      try {
        processor.addListener(listener);
        for (T obj : indexer.list()) {
          submit |= listener.enqueue(new Notification.Add<>(obj, true));
        }
      } finally {
        blockDeltas.unlock();
      }
      late = listener;
      submitLate = submit;
    }
    if (submitLate) {
      late.submitDrain();
    }
    late.checkSynced(); // seeded with an empty cache: synced at once
    return late;
  }

  @Override
  public void removeEventHandler(ResourceEventHandlerRegistration registration) {
    Objects.requireNonNull(registration, "registration");
    ProcessorListener<T> l = ownListener(registration);
    if (l != null) {
      processor.removeListener(l);
    }
    // client-go: removing another informer's registration (or one removed already) does nothing.
  }

  @Override
  public boolean shutDownEventHandler(ResourceEventHandlerRegistration registration, Duration timeout)
      throws InterruptedException {
    Objects.requireNonNull(registration, "registration");
    ProcessorListener<T> l = ownListener(registration);
    if (l == null) {
      return true;
    }
    processor.removeListener(l);
    return l.awaitIdle(timeout);
  }

  private @Nullable ProcessorListener<T> ownListener(ResourceEventHandlerRegistration r) {
    for (ProcessorListener<T> l : processor.listeners()) {
      if (l == r) {
        return l;
      }
    }
    return null;
  }

  // ---- cache ----------------------------------------------------------------------------------

  @Override
  public ReadOnlyStore<T> getStore() {
    return view;
  }

  @Override
  public ReadOnlyIndexer<T> getIndexer() {
    return view;
  }

  @Override
  public void addIndexers(Map<String, IndexFunc<T>> indexers) {
    synchronized (lifecycle) {
      if (stopped) {
        throw new IllegalStateException("indexer was not added because it has stopped already");
      }
    }
    // Blocking deltas keeps the new index consistent with objects being applied right now.
    blockDeltas.lock();
    try {
      indexer.addIndexers(indexers);
    } finally {
      blockDeltas.unlock();
    }
  }

  @Override
  public CompletableFuture<Void> resourceVersionSeen(@Nullable String key, String resourceVersion) {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    ResourceVersions.requireComparable(resourceVersion);
    return resourceVersionWaiters.add(key, resourceVersion);
  }

  @Override
  public boolean awaitResourceVersion(
      @Nullable String key, String resourceVersion, Duration timeout) throws InterruptedException {
    CompletableFuture<Void> seen = resourceVersionSeen(key, resourceVersion);
    try {
      seen.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      seen.cancel(false); // forgotten at the next check
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IllegalStateException ise ? ise : new IllegalStateException(e);
    }
  }

  /** Whether the cache has reached {@code rv}: the store past it, or the object at key at it. */
  private boolean reached(@Nullable String key, String rv) {
    return ResourceVersions.isSeen(indexer, key, rv);
  }

  @Override
  public boolean hasSynced() {
    RealFifo<T> f = fifo;
    return f != null && f.hasSynced();
  }

  @Override
  public CompletableFuture<Void> synced() {
    return syncedFuture.copy();
  }

  @Override
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    try {
      syncedFuture.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    }
  }

  @Override
  public String lastSyncResourceVersion() {
    DefaultController<T> c = controller;
    return c == null ? "" : c.lastSyncResourceVersion();
  }

  @Override
  public void setTransform(UnaryOperator<T> transform) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException(
            "informer " + name + " has started: set the transform before start()");
      }
      this.transform = Objects.requireNonNull(transform, "transform");
    }
  }

  @Override
  public void setWatchErrorHandler(WatchErrorHandler handler) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException(
            "informer " + name + " has started: set the watch error handler before start()");
      }
      this.watchErrorHandler = Objects.requireNonNull(handler, "handler");
    }
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  @Override
  public void start() {
    DefaultController<T> c;
    synchronized (lifecycle) {
      if (stopped) {
        throw new IllegalStateException("informer " + name + " is closed and cannot start again");
      }
      if (started) {
        return;
      }
      RealFifo.Builder<T> fb =
          RealFifo.<T>builder(Keys::metaNamespaceKey)
              .transform(Transforms.thenPrepare(transform, listerWatcher))
              .name(name);
      if (metricsProvider != null && metricsId != null) {
        fb.metrics(
            metricsProvider.newQueuedItemMetric(metricsId),
            metricsProvider.newProcessingLatencyMetric(metricsId),
            clock);
      }
      RealFifo<T> f = fb.build();
      @Nullable WatchErrorHandler errorHandler = watchErrorHandler;
      Controller.Config.Builder<T> cb =
          Controller.Config.builder(name, f, listerWatcher, deltas::process)
              .processBatch(deltas::processBatch)
              .clock(clock)
              .scheduler(config.scheduler())
              .executor(processingExecutor)
              .reflectorOptions(rb -> configureReflector(rb, errorHandler));
      if (!resyncCheckPeriod.isZero()) {
        cb.resync(resyncCheckPeriod, () -> processor.shouldResync(clock.nanoTime()));
      }
      c = new DefaultController<>(cb.build());
      f.synced()
          .thenRun(
              () -> {
                log.info("informer={} synced with {} objects", name, indexer.listKeys().size());
                processor.listeners().forEach(ProcessorListener::checkSynced);
                syncedFuture.complete(null);
              });
      this.fifo = f;
      this.controller = c;
      started = true;
    }
    try {
      c.start(); // outside the lifecycle lock: it starts the reflector's thread
    } catch (IllegalStateException closedMeanwhile) {
      if (!stopped) {
        throw closedMeanwhile;
      }
      return; // a close() came between: it closed the controller, and nothing runs
    }
    log.info("informer={} started", name);
  }

  private Reflector.Builder<T> configureReflector(
      Reflector.Builder<T> rb, @Nullable WatchErrorHandler errorHandler) {
    rb.streamingList(config.streamingList())
        .minWatchTimeout(config.minWatchTimeout())
        .maxInternalErrorRetryDuration(config.maxInternalErrorRetryDuration())
        .rewatchOnWatchError(config.rewatchOnWatchError())
        .watchErrorHandler(errorHandler);
    if (metricsProvider != null && metricsId != null) {
      rb.metrics(metricsProvider.newReflectorMetrics(metricsId));
    }
    if (config.pageSize() >= 0) {
      rb.pageSize(config.pageSize());
    }
    @Nullable String apiVersion = config.expectedApiVersion();
    @Nullable String kind = config.expectedKind();
    if (apiVersion != null && kind != null) {
      rb.expectedKind(apiVersion, kind);
    }
    RandomGenerator random = config.random();
    if (random != null) {
      rb.random(random);
    }
    rb.backoff(config.backoff());
    ThreadFactory threadFactory = config.threadFactory();
    if (threadFactory != null) {
      rb.threadFactory(threadFactory);
    }
    Executor reflectorExecutor = config.reflectorExecutor();
    if (reflectorExecutor != null) {
      rb.executor(reflectorExecutor);
    }
    return rb;
  }

  /** How many handlers are registered now (for tests). */
  int handlerCount() {
    return processor.listeners().size();
  }

  /** The reflector, once {@link #start()} made it; for tests that step it. */
  @Nullable Reflector<T> reflector() {
    DefaultController<T> c = controller;
    return c == null ? null : c.reflector();
  }

  @Override
  public boolean isStarted() {
    synchronized (lifecycle) {
      return started;
    }
  }

  @Override
  public boolean isStopped() {
    return stopped;
  }

  @Override
  public InformerHealth health() {
    Reflector<T> r = reflector();
    return r == null
        ? InformerHealth.notStarted(name, stopped)
        : r.health(name, hasSynced(), stopped);
  }

  /**
   * The informer's sink for {@link DeltaProcessor}: under {@link #blockDeltas}, every notification
   * is queued for the handlers (an update whose resourceVersion did not change, a resync or a relist
   * that found the object unchanged, only for the handlers due for a resync: all of them before the
   * first resync check, see SharedProcessor.addListener; real changes for everyone, as client-go's
   * {@code sharedIndexInformer.OnUpdate}); the handlers' drains start once it is released.
   */
  private final class Distributor implements DeltaProcessor.Sink<T> {
    private final List<ProcessorListener<T>> toSubmit = new ArrayList<>();

    @Override
    public void underLock(List<Notification<T>> notifications) {
      for (Notification<T> n : notifications) {
        boolean isSync =
            n instanceof Notification.Update<T> u
                && Objects.equals(resourceVersion(u.oldObj()), resourceVersion(u.newObj()));
        processor.distribute(n, isSync, toSubmit);
      }
    }

    @Override
    public void afterUnlock() {
      SharedProcessor.submitAll(toSubmit);
      resourceVersionWaiters.check();
    }
  }

  private static @Nullable String resourceVersion(HasMetadata obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
  }

  @Override
  public void close() {
    DefaultController<T> c;
    boolean alreadyClosing;
    synchronized (lifecycle) {
      alreadyClosing = stopped;
      stopped = true;
      c = controller;
    }
    if (alreadyClosing) {
      awaitFirstClose(); // never under the lifecycle lock: a handler closing too would block on it
      return;
    }
    if (c != null) {
      c.close(); // the reflector, the queue, then waits for processing (unless called from it)
    }
    boolean interrupted = Thread.currentThread().isInterrupted();
    List<ProcessorListener<T>> listeners = processor.stopAll();
    closingListeners = listeners;
    for (ProcessorListener<T> l : listeners) {
      try {
        // Skips the caller's own call when close() runs inside a handler.
        if (!interrupted && !l.awaitIdle(CLOSE_WAIT)) {
          log.warn("informer={} {} still running after {}", name, l, CLOSE_WAIT);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (ownedDeliveryExecutor != null) {
      ownedDeliveryExecutor.shutdown();
      // Inside a handler the caller is itself a delivery thread: waiting would wait for itself.
      if (!interrupted && !deliveryThreads.contains(Thread.currentThread())) {
        interrupted = !awaitDeliveryThreads(ownedDeliveryExecutor);
      }
    }
    syncedFuture.completeExceptionally(
        new IllegalStateException("informer " + name + " was closed before it synced"));
    resourceVersionWaiters.close(
        "informer " + name + " was closed before its cache saw the resourceVersion");
    closingListeners = List.of();
    if (metricsId != null) {
      InformerNames.release(metricsId.name());
    }
    InformerNames.releaseUnique(name);
    closed.countDown();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    log.info("informer={} closed", name);
  }

  /**
   * A second close() waits for the first to finish, so that every caller may rely on "nothing runs
   * after close() returns", except on a thread of this informer (a handler, the watch error
   * handler): the first close() may be waiting for that very thread.
   */
  private void awaitFirstClose() {
    if (isInformerThread()) {
      return;
    }
    try {
      if (!closed.await(CLOSE_WAIT.toMillis() * 3, TimeUnit.MILLISECONDS)) {
        log.warn("informer={} is still closing after {}", name, CLOSE_WAIT.multipliedBy(3));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean isInformerThread() {
    Thread current = Thread.currentThread();
    DefaultController<T> c = controller;
    if (c != null && (c.isProcessingThread() || c.isReflectorThread())) {
      return true;
    }
    if (deliveryThreads.contains(current)) {
      return true;
    }
    for (ProcessorListener<T> l : closingListeners) {
      if (l.isDeliveringOnCurrentThread()) {
        return true;
      }
    }
    for (ProcessorListener<T> l : processor.listeners()) {
      if (l.isDeliveringOnCurrentThread()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits until the owned delivery pool has terminated and its threads are gone.
   *
   * @return false if interrupted
   */
  private boolean awaitDeliveryThreads(ExecutorService pool) {
    try {
      if (!pool.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("informer={} delivery threads still running after {}", name, CLOSE_WAIT);
        return true;
      }
      for (Thread t : List.copyOf(deliveryThreads)) {
        t.join(CLOSE_WAIT.toMillis());
      }
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /**
   * Whether the calling thread holds any lock of this informer, its processor or its indexer; for
   * tests that check that no user code (handlers, executors, sync callbacks) runs under one.
   */
  boolean holdsAnyLock() {
    RealFifo<T> f = fifo;
    return (f != null && f.holdsLock())
        || blockDeltas.isHeldByCurrentThread()
        || Thread.holdsLock(lifecycle)
        || processor.holdsLock()
        || indexer.holdsLock();
  }

  @Override
  public String toString() {
    return "SharedIndexInformer[" + name + "]";
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SharedIndexInformer}: client-go's {@code sharedIndexInformer} plus its {@code
 * controller} ({@code tools/cache/shared_informer.go}, {@code controller.go}).
 *
 * <h2>Threads</h2>
 *
 * <ul>
 *   <li>{@code kinformer-<name>-reflector}: the {@link Reflector}, writing into the {@link
 *       DeltaFifo}.
 *   <li>{@code kinformer-<name>-processor}: pops the FIFO and runs {@link #handleDeltas}, which
 *       updates the indexer and queues notifications; it never runs handlers.
 *   <li>delivery executor threads: run handler calls, one drain task per handler at a time.
 *   <li>the scheduler's thread: backoff wake-ups and resync ticks.
 * </ul>
 *
 * <h2>Locks, in acquisition order</h2>
 *
 * <ol>
 *   <li>the FIFO's lock (held by {@code pop} while {@link #handleDeltas} runs);
 *   <li>{@link #blockDeltas}: held while deltas are applied and while a late handler is seeded with
 *       the cache content, so that the seed and the live stream neither overlap nor leave a gap
 *       (client-go's {@code blockDeltas});
 *   <li>the indexer's lock, and the processor's and listeners' locks (leaves: they call nothing).
 * </ol>
 *
 * {@link #lifecycle} guards start/stop and handler registration; it is taken before {@link
 * #blockDeltas} when a late handler is added, and never while the FIFO lock is held.
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
  private final SharedProcessor<T> processor = new SharedProcessor<>();
  private final ReentrantLock blockDeltas = new ReentrantLock();
  private final Clock clock;
  private final SharedIndexInformer.Builder<T> config;
  private final Executor deliveryExecutor;
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
  private volatile @Nullable DeltaFifo<T> fifo;
  private volatile @Nullable Reflector<T> reflector;
  private @Nullable Thread processingThread;
  // The same thread, readable without the lifecycle lock (by a second close()).
  private volatile @Nullable Thread processingThreadRef;

  /** Counted down when the first close() has finished. */
  private final CountDownLatch closed = new CountDownLatch(1);

  /** The listeners the first close() stopped and may still be waiting for. */
  private volatile List<ProcessorListener<T>> closingListeners = List.of();

  DefaultSharedIndexInformer(SharedIndexInformer.Builder<T> b) {
    this.name = b.name;
    this.listerWatcher = b.listerWatcher;
    this.config = b;
    this.clock = b.clock;
    Map<String, IndexFunc<T>> indices = new HashMap<>();
    indices.put(Indexers.NAMESPACE, Indexers.namespaceIndexFunc());
    b.indexers.forEach(
        (k, v) -> {
          if (indices.putIfAbsent(k, v) != null) {
            throw new IllegalArgumentException("index " + k + " is built in");
          }
        });
    this.indexer = new ThreadSafeIndexer<>(Keys::metaNamespaceKey, indices);
    this.resyncCheckPeriod = b.defaultResync;
    this.defaultEventHandlerResyncPeriod = b.defaultResync;
    if (b.deliveryExecutor != null) {
      this.deliveryExecutor = b.deliveryExecutor;
      this.ownedDeliveryExecutor = null;
    } else {
      ExecutorService own =
          newDeliveryExecutor("kinformer-" + name + "-delivery-", deliveryThreads);
      this.deliveryExecutor = own;
      this.ownedDeliveryExecutor = own;
    }
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
    synchronized (lifecycle) {
      return addEventHandler(handler, defaultEventHandlerResyncPeriod);
    }
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(
      ResourceEventHandler<? super T> handler, Duration resyncPeriod) {
    Objects.requireNonNull(handler, "handler");
    if (resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("resync period must not be negative: " + resyncPeriod);
    }
    synchronized (lifecycle) {
      if (stopped) {
        throw new IllegalStateException(
            "informer " + name + " is closed: handler " + handler + " was not added");
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
                  handler);
            } else {
              log.warn(
                  "informer={} already checks resync every {}; handler {} gets that instead of {}",
                  name,
                  resyncCheckPeriod,
                  handler,
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
              this::hasSynced,
              processor);
      if (!started) {
        processor.addListener(listener);
        return listener;
      }
      // A late joiner: stop applying deltas, replay the cache, then let deltas flow again. The
      // handler sees every cached object once, then exactly the changes after that point.
      blockDeltas.lock();
      try {
        processor.addListener(listener);
        for (T obj : indexer.list()) {
          listener.add(new Notification.Add<>(obj, true));
        }
      } finally {
        blockDeltas.unlock();
      }
      return listener;
    }
  }

  @Override
  public void removeEventHandler(ResourceEventHandlerRegistration registration) {
    if (!(registration instanceof ProcessorListener<?> l) || !processor.listeners().contains(l)) {
      if (registration.isRemoved()) {
        return;
      }
      throw new IllegalArgumentException(
          registration + " is not a registration of informer " + name);
    }
    registration.close();
  }

  // ---- cache ----------------------------------------------------------------------------------

  @Override
  public Store<T> getStore() {
    return indexer;
  }

  @Override
  public Indexer<T> getIndexer() {
    return indexer;
  }

  @Override
  public void addIndexers(Map<String, IndexFunc<T>> indexers) {
    // Blocking deltas keeps the new index consistent with objects being applied right now.
    blockDeltas.lock();
    try {
      indexer.addIndexers(indexers);
    } finally {
      blockDeltas.unlock();
    }
  }

  @Override
  public boolean hasSynced() {
    DeltaFifo<T> f = fifo;
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
    Reflector<T> r = reflector;
    return r == null ? "" : r.lastSyncResourceVersion();
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
    synchronized (lifecycle) {
      if (stopped) {
        throw new IllegalStateException("informer " + name + " is closed and cannot start again");
      }
      if (started) {
        return;
      }
      DeltaFifo<T> f =
          DeltaFifo.<T>builder(Keys::metaNamespaceKey)
              .knownObjects(indexer)
              .transform(transform)
              .name(name)
              .build();
      Reflector.Builder<T> rb =
          Reflector.builder(name, listerWatcher, f)
              .clock(clock)
              .scheduler(config.scheduler)
              .pageSize(config.pageSize)
              .streamingList(config.streamingList)
              .minWatchTimeout(config.minWatchTimeout)
              .watchErrorHandler(watchErrorHandler);
      if (!resyncCheckPeriod.isZero()) {
        rb.resync(resyncCheckPeriod, () -> processor.shouldResync(clock.nanoTime()));
      }
      if (config.random != null) {
        rb.random(config.random);
      }
      if (config.backoff != null) {
        rb.backoff(config.backoff);
      }
      if (config.threadFactory != null) {
        rb.threadFactory(config.threadFactory);
      }
      Reflector<T> r = rb.build();
      ThreadFactory tf =
          config.threadFactory != null
              ? config.threadFactory
              : Reflector.namedDaemon("kinformer-" + name + "-processor");
      Thread t = tf.newThread(this::processLoop);
      f.synced()
          .thenRun(
              () -> {
                log.info("informer={} synced with {} objects", name, indexer.listKeys().size());
                syncedFuture.complete(null);
              });
      this.fifo = f;
      this.reflector = r;
      this.processingThread = t;
      this.processingThreadRef = t;
      started = true;
      t.start();
      r.start();
    }
    log.info("informer={} started", name);
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

  private void processLoop() {
    DeltaFifo<T> f = Objects.requireNonNull(fifo);
    while (!stopped) {
      try {
        Optional<List<Delta<T>>> popped = f.pop(this::handleDeltas);
        if (popped.isEmpty()) {
          return; // closed and drained
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.warn("informer={} failed to process an object; going on with the next", name, e);
      } catch (Throwable t) {
        // An Error from user code run here (an index function, the key function): ending the
        // thread would freeze the cache for good while the reflector keeps queueing.
        log.error(
            "informer={} failed to process an object ({}); going on with the next",
            name, t.getClass().getName(), t);
      }
    }
  }

  /**
   * client-go's {@code processDeltas}: apply each delta to the indexer, then queue the matching
   * notification. Runs on the processing thread under the FIFO's lock.
   */
  private void handleDeltas(List<Delta<T>> deltas, boolean isInInitialList) {
    blockDeltas.lock();
    try {
      for (Delta<T> d : deltas) {
        try {
          applyDelta(d, isInInitialList);
        } catch (RuntimeException e) {
          log.warn("informer={} could not apply {} delta; skipping it", name, d.type(), e);
        } catch (Throwable t) {
          // See processLoop. The indexer runs every user function before it changes anything,
          // so skipping the delta leaves the cache as it was.
          log.error(
              "informer={} could not apply {} delta ({}); skipping it",
              name, d.type(), t.getClass().getName(), t);
        }
      }
    } finally {
      blockDeltas.unlock();
    }
  }

  private void applyDelta(Delta<T> d, boolean isInInitialList) {
    switch (d.type()) {
      case SYNC, REPLACED, ADDED, UPDATED -> {
        T obj = d.unwrap();
        // client-go's get, then update or add, as one atomic write.
        T old = indexer.upsert(obj);
        if (old != null) {
          // Same resourceVersion: a resync (periodic, or a relist that found it unchanged). Only
          // handlers due for a resync get it (all of them before the first resync check, see
          // SharedProcessor.addListener); real changes go to everyone.
          boolean isSync = Objects.equals(resourceVersion(old), resourceVersion(obj));
          processor.distribute(new Notification.Update<>(old, obj), isSync);
        } else {
          processor.distribute(new Notification.Add<>(obj, isInInitialList), false);
        }
      }
      case DELETED -> {
        T obj = d.unwrap();
        indexer.delete(obj);
        processor.distribute(new Notification.Delete<>(obj, d.isFinalStateUnknown()), false);
      }
    }
  }

  private static @Nullable String resourceVersion(HasMetadata obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
  }

  @Override
  public void close() {
    Reflector<T> r;
    DeltaFifo<T> f;
    Thread t;
    boolean alreadyClosing;
    synchronized (lifecycle) {
      alreadyClosing = stopped;
      stopped = true;
      r = reflector;
      f = fifo;
      t = processingThread;
    }
    if (alreadyClosing) {
      awaitFirstClose(); // never under the lifecycle lock: a handler closing too would block on it
      return;
    }
    if (r != null) {
      r.close();
    }
    if (f != null) {
      f.close();
    }
    boolean interrupted = false;
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(CLOSE_WAIT.toMillis());
        if (t.isAlive()) {
          log.warn("informer={} processing thread did not stop within {}", name, CLOSE_WAIT);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
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
    closingListeners = List.of();
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
    Reflector<T> r = reflector;
    if (current == processingThreadRef || (r != null && r.isReflectorThread())) {
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

  @Override
  public String toString() {
    return "SharedIndexInformer[" + name + "]";
  }
}

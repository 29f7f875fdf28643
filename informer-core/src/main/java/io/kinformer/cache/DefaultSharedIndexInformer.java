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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SharedIndexInformer}: client-go's {@code sharedIndexInformer} plus its {@code
 * controller} ({@code tools/cache/shared_informer.go}, {@code controller.go}), with client-go
 * 1.36's pipeline: the reflector queues into a {@link RealFifo} (every event in arrival order; a
 * relist as one {@code REPLACED_ALL}, a resync as one {@code SYNC_ALL}, bookmarks as {@code
 * BOOKMARK}), and the processing thread pops batches of up to 1000 deltas with distinct keys,
 * applies each batch to the indexer in one transaction, then queues the handlers' notifications.
 *
 * <h2>Threads</h2>
 *
 * <ul>
 *   <li>{@code kinformer-<name>-reflector}: the {@link Reflector}, writing into the FIFO.
 *   <li>{@code kinformer-<name>-processor}: pops the FIFO and runs {@link #handleBatch} and {@link
 *       #handleDelta}, which update the indexer and queue notifications; it never runs handlers.
 *   <li>delivery executor threads: run handler calls, one drain task per handler at a time.
 *   <li>the scheduler's thread: backoff wake-ups and resync ticks (a tick only queues {@code
 *       SYNC_ALL}; the walk over the cache runs on the processing thread).
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
 * handler is added, and never by the processing thread.
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
  private volatile @Nullable RealFifo<T> fifo;
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
    return addEventHandler(handler, defaultEventHandlerResyncPeriod); // final: no lock needed
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(
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
                + handler
                + " was not added to shared informer "
                + name
                + " because it has stopped already");
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
              config.scheduler,
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
      RealFifo<T> f =
          RealFifo.<T>builder(Keys::metaNamespaceKey).transform(transform).name(name).build();
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
                processor.listeners().forEach(ProcessorListener::checkSynced);
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
    RealFifo<T> f = Objects.requireNonNull(fifo);
    while (!stopped) {
      try {
        if (!f.popBatch(this::handleBatch, this::handleDelta)) {
          return; // closed and drained
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (VirtualMachineError e) {
        throw e;
      } catch (RuntimeException e) {
        log.warn("informer={} failed to process a delta; going on with the next", name, e);
      } catch (Throwable t) {
        // An Error from user code run here (an index function, the key function): ending the
        // thread would freeze the cache for good while the reflector keeps queueing.
        log.error(
            "informer={} failed to process a delta ({}); going on with the next",
            name, t.getClass().getName(), t);
      }
    }
  }

  /**
   * client-go's {@code processDeltas} for one delta: a relist, a resync, a bookmark, or a single
   * object's change.
   */
  private void handleDelta(Delta<T> d, boolean isInInitialList) {
    switch (d.type()) {
      case REPLACED_ALL -> {
        @SuppressWarnings("unchecked")
        Delta.ReplacedAllInfo<T> info = (Delta.ReplacedAllInfo<T>) d.object();
        handleReplacedAll(info, isInInitialList);
      }
      case SYNC_ALL -> handleSyncAll();
      case BOOKMARK -> indexer.bookmark(((Delta.BookmarkInfo) d.object()).resourceVersion());
      default -> handleBatch(List.of(d), isInInitialList);
    }
  }

  /**
   * client-go's {@code processDeltasInBatch}: the batch's objects go into the indexer in one
   * transaction, then their notifications are queued, in order. Keys and index values are
   * computed first, holding no lock of ours; {@link #blockDeltas} is held while the batch is
   * committed and its notifications queued, so that a late handler's seed sees the cache either
   * before or after the batch and then exactly the notifications that follow; the handlers' drains
   * start after it is released.
   */
  private void handleBatch(List<Delta<T>> deltas, boolean isInInitialList) {
    int n = deltas.size();
    List<TransactionStore.Transaction<T>> txns = new ArrayList<>(n);
    for (Delta<T> d : deltas) {
      TransactionStore.Transaction.Type type =
          d.type() == DeltaType.DELETED
              ? TransactionStore.Transaction.Type.DELETE
              : TransactionStore.Transaction.Type.UPDATE;
      txns.add(new TransactionStore.Transaction<>(type, d.unwrap()));
    }
    ThreadSafeIndexer.Prepared<T> prepared = indexer.prepare(txns);
    Object[] previous = new Object[n];
    RuntimeException[] errors = new RuntimeException[n];
    List<ProcessorListener<T>> toSubmit = new ArrayList<>();
    blockDeltas.lock();
    try {
      indexer.commit(prepared, previous, errors);
      for (int i = 0; i < n; i++) {
        Delta<T> d = deltas.get(i);
        if (errors[i] != null) {
          log.warn(
              "informer={} could not apply {} delta of {}; skipping it",
              name, d.type(), keyOrUnknown(txns.get(i).object()), errors[i]);
          continue;
        }
        T obj = txns.get(i).object();
        if (d.type() == DeltaType.DELETED) {
          processor.distribute(
              new Notification.Delete<>(obj, d.isFinalStateUnknown()), false, toSubmit);
        } else {
          @SuppressWarnings("unchecked")
          T old = (T) previous[i];
          distributeUpsert(old, obj, isInInitialList, toSubmit);
        }
      }
    } finally {
      blockDeltas.unlock();
    }
    SharedProcessor.submitAll(toSubmit);
  }

  /**
   * An add, or an update of {@code old}. Same resourceVersion: a resync (periodic, or a relist that
   * found it unchanged), delivered only to handlers due for a resync (all of them before the first
   * resync check, see SharedProcessor.addListener); real changes go to everyone (client-go's
   * {@code sharedIndexInformer.OnUpdate}).
   */
  private void distributeUpsert(
      @Nullable T old, T obj, boolean isInInitialList, List<ProcessorListener<T>> toSubmit) {
    if (old != null) {
      boolean isSync = Objects.equals(resourceVersion(old), resourceVersion(obj));
      processor.distribute(new Notification.Update<>(old, obj), isSync, toSubmit);
    } else {
      processor.distribute(new Notification.Add<>(obj, isInInitialList), false, toSubmit);
    }
  }

  /**
   * client-go's {@code processReplacedAllInfo}: replace the indexer's content with the list first,
   * so that handlers see a cache that reflects their events, then deliver a deletion (with {@code
   * finalStateUnknown}) for every key the list lacks, then an add or update for every listed
   * object, in list order. The previous content comes back from the replace, so no key is computed
   * twice.
   */
  private void handleReplacedAll(Delta.ReplacedAllInfo<T> info, boolean isInInitialList) {
    List<T> objects = info.objects();
    ThreadSafeIndexer.PreparedReplace<T> prepared = indexer.prepareReplace(objects);
    List<ProcessorListener<T>> toSubmit = new ArrayList<>();
    blockDeltas.lock();
    try {
      ThreadSafeIndexer.Replacement<T> r = indexer.commitReplace(prepared, info.resourceVersion());
      Map<String, T> previous = r.previous();
      String[] keys = r.keys();
      Object[] olds = new Object[keys.length];
      for (int i = 0; i < keys.length; i++) {
        olds[i] = previous.get(keys[i]);
      }
      for (String key : keys) {
        previous.remove(key);
      }
      for (Map.Entry<String, T> gone : previous.entrySet()) {
        processor.distribute(new Notification.Delete<>(gone.getValue(), true), false, toSubmit);
      }
      for (int i = 0; i < keys.length; i++) {
        @SuppressWarnings("unchecked")
        T old = (T) olds[i];
        distributeUpsert(old, objects.get(i), isInInitialList, toSubmit);
      }
    } finally {
      blockDeltas.unlock();
    }
    SharedProcessor.submitAll(toSubmit);
  }

  /** client-go's {@code SyncAll}: every cached object, as an update to itself (a resync). */
  private void handleSyncAll() {
    List<ProcessorListener<T>> toSubmit = new ArrayList<>();
    blockDeltas.lock();
    try {
      for (T obj : indexer.list()) {
        processor.distribute(new Notification.Update<>(obj, obj), true, toSubmit);
      }
    } finally {
      blockDeltas.unlock();
    }
    SharedProcessor.submitAll(toSubmit);
  }

  private static String keyOrUnknown(HasMetadata obj) {
    try {
      return Keys.metaNamespaceKey(obj);
    } catch (RuntimeException e) {
      return "<no key>";
    }
  }

  private static @Nullable String resourceVersion(HasMetadata obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
  }

  @Override
  public void close() {
    Reflector<T> r;
    RealFifo<T> f;
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

  /**
   * Whether the calling thread holds any lock of this informer, its processor or its indexer; for
   * tests that check that no user code (handlers, executors, sync callbacks) runs under one.
   */
  boolean holdsAnyLock() {
    return blockDeltas.isHeldByCurrentThread()
        || Thread.holdsLock(lifecycle)
        || processor.holdsLock()
        || indexer.holdsLock();
  }

  @Override
  public String toString() {
    return "SharedIndexInformer[" + name + "]";
  }
}

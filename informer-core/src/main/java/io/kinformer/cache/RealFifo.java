package io.kinformer.cache;

import io.kinformer.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The informer's queue: every change in arrival order, across keys, with nothing merged (client-go
 * 1.36's {@code RealFIFO}, {@code tools/cache/the_real_fifo.go}, as its informers configure it).
 *
 * <h2>What it queues</h2>
 *
 * <p>Each {@link #add}, {@link #update} and {@link #delete} queues one {@link Delta} with the
 * transformed object, whatever is queued for the same key already: a consumer sees every state the
 * watch delivered, in order. With <b>atomic events</b> (the default, client-go's {@code AtomicFIFO}
 * gate, on in 1.36):
 *
 * <ul>
 *   <li>{@link #replace replace(list, rv)} (a relist) queues one {@link DeltaType#REPLACED_ALL}
 *       delta holding every transformed object and the resourceVersion. The FIFO does not look at
 *       the consumer's store: the consumer works out the deletions when it processes the delta,
 *       against a store that is by then up to date with everything queued before it.
 *   <li>{@link #resync()} queues one {@link DeltaType#SYNC_ALL} delta: the consumer re-delivers
 *       what it has stored, on its own thread (so the walk over the cache never runs on the
 *       resync timer's thread).
 *   <li>{@link #bookmark bookmark(rv)} queues a {@link DeltaType#BOOKMARK} delta, so the store
 *       learns the resourceVersion in order with the objects before and after it.
 * </ul>
 *
 * <p>Without atomic events (a FIFO built with {@link Builder#knownObjects}), a relist queues a
 * {@link DeltaType#DELETED} {@link DeletedFinalStateUnknown} for each key that is queued or known
 * to the consumer's store and absent from the list, then a {@link DeltaType#REPLACED} per listed
 * object; a resync queues a {@link DeltaType#SYNC} per known key with nothing queued; bookmarks are
 * dropped (client-go's non-atomic {@code RealFIFO}).
 *
 * <h2>Popping</h2>
 *
 * <p>{@link #pop} hands the consumer the oldest delta; {@link #popBatch} the longest run from the
 * head, up to {@link Builder#batchSize} (1000), of per-object deltas with distinct keys that does
 * not cross the end of the first list (so the first list's deltas are never processed together
 * with later ones). A {@code REPLACED_ALL}, {@code SYNC_ALL} or {@code BOOKMARK} is always
 * processed alone. A delta is removed before it is processed and never requeued; an exception from
 * the processor propagates to the caller of {@code pop} once the bookkeeping is done.
 *
 * <h2>Synced</h2>
 *
 * <p>{@link #hasSynced()} becomes true, for good, when an add, update or delete came before any
 * replace, or once every delta queued up to and including the first replace has been popped
 * <em>and processed</em> (the count goes down after the processor returns, so a caller never sees
 * "synced" while the first list is still being applied).
 *
 * <h2>Locking</h2>
 *
 * <p>One lock guards the queue. It is never held while the processor runs, nor while the transform
 * runs (producers transform before they take it; client-go transforms under its lock), so the
 * informer's key and index functions and the user's transform never run under it. What client-go
 * gets by keeping its lock while it processes, this FIFO gets with a flag:
 *
 * <ul>
 *   <li>When two or more full batches wait (client-go's {@code UnlockWhileProcessingFIFO}
 *       backpressure), or always if {@link Builder#unlockWhileProcessing} is false, producers wait
 *       until the processor has returned, as they would for client-go's lock. The reflector thus
 *       slows down to the pace of the consumer instead of growing the queue without bound.
 *   <li>Otherwise producers go on queueing while a batch is processed.
 * </ul>
 *
 * <p>The consumer may itself queue (the processing thread is never made to wait for itself). A
 * FIFO without atomic events calls its {@code knownObjects} store under the lock, as client-go
 * does; that store must not call back into the FIFO. Pop from a single thread: two concurrent
 * consumers could process different states of one key at the same time.
 *
 * <p>Thread safety: thread-safe. Queued objects are shared: treat them as read-only.
 *
 * @param <T> the object type
 */
public final class RealFifo<T> implements TransformingStore<T> {

  /** client-go's {@code defaultBatchSize}. */
  static final int DEFAULT_BATCH_SIZE = 1000;

  private final String name;
  private final KeyFunc<T> keyFunc;
  private final @Nullable UnaryOperator<T> transform;
  private final @Nullable Store<T> knownObjects;
  private final boolean atomicEvents;
  private final boolean unlockWhileProcessing;
  private final int batchSize;
  private final InformerMetricsProvider.GaugeMetric queuedItems;
  /**
   * The number of queued deltas, written under {@link #lock}; {@link #publishQueued} hands it to
   * {@link #queuedItems} after the lock is released, so the metric's code never runs under it.
   */
  private volatile int queuedSize;
  private final InformerMetricsProvider.HistogramMetric processingLatency;
  private final Clock clock;

  private final ReentrantLock lock = new ReentrantLock();
  // Signalled (all waiters) when a delta is queued or the FIFO is closed. Waiters hold lock.
  private final Condition notEmptyOrClosed = lock.newCondition();
  // Signalled (all waiters) when producersWait turns false or the FIFO is closed.
  private final Condition producersMayGo = lock.newCondition();

  // @GuardedBy("lock"). The queue, oldest first. A per-object delta's entry carries its key.
  private final ArrayDeque<Entry<T>> items = new ArrayDeque<>();

  // @GuardedBy("lock"). True once the first replace ran, or an add/update/delete came before any
  // replace. Never reset.
  private boolean populated;

  // @GuardedBy("lock"). Deltas still to be popped and processed before the first replace's are all
  // done. Set by the first replace only; never negative.
  private int initialPopulationCount;

  // Written under lock; read without it. populated && initialPopulationCount == 0 was observed.
  private volatile boolean synced;

  // @GuardedBy("lock")
  private boolean closed;

  // @GuardedBy("lock"). True while a processor runs with producers held back (see class doc).
  private boolean producersWait;

  // @GuardedBy("lock"). The thread running the processor, which never waits for itself.
  private @Nullable Thread processingThread;

  // @GuardedBy("lock"). No consumer task is scheduled or running (see onReady).
  private boolean consumerIdle = true;

  // Set once by onReady, under lock; read by producers after they release it.
  private volatile @Nullable Runnable onReady;

  /** Completed (outside the lock) when {@link #synced} turns true. */
  private final CompletableFuture<Void> syncedFuture = new CompletableFuture<>();

  private RealFifo(Builder<T> b) {
    this.name = b.name;
    this.keyFunc = b.keyFunc;
    this.transform = b.transform;
    this.knownObjects = b.knownObjects;
    this.atomicEvents = b.knownObjects == null;
    this.unlockWhileProcessing = b.unlockWhileProcessing;
    this.batchSize = b.batchSize;
    this.queuedItems = b.queuedItems;
    this.processingLatency = b.processingLatency;
    this.clock = b.clock;
  }

  /**
   * A builder for a FIFO that files objects under the key {@code keyFunc} gives (the informer uses
   * {@link Keys#metaNamespaceKey}).
   */
  public static <T> Builder<T> builder(KeyFunc<T> keyFunc) {
    return new Builder<>(keyFunc);
  }

  // ---- producers -----------------------------------------------------------------------------

  @Override
  public void add(T obj) {
    enqueue(DeltaType.ADDED, obj);
  }

  @Override
  public void update(T obj) {
    enqueue(DeltaType.UPDATED, obj);
  }

  /** Queues a {@link DeltaType#DELETED} delta, whether or not the key is known. */
  @Override
  public void delete(T obj) {
    enqueue(DeltaType.DELETED, obj);
  }

  private void enqueue(DeltaType type, T obj) {
    Objects.requireNonNull(obj, "obj");
    String key = keyOfObject(obj);
    T stored = transformed(obj);
    boolean nowSynced;
    boolean wake;
    lock.lock();
    try {
      awaitProducerTurnLocked();
      populated = true;
      nowSynced = checkSyncedLocked();
      wake = appendLocked(new Entry<>(new Delta<>(type, stored), key));
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
    wakeIf(wake);
  }

  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    Objects.requireNonNull(objects, "objects");
    List<T> stored = new ArrayList<>(objects.size());
    for (T obj : objects) {
      stored.add(transformed(Objects.requireNonNull(obj, "replace: null object in the list")));
    }
    replaceTransformed(stored, resourceVersion);
  }

  @Override
  public void replaceTransformed(Collection<? extends T> objects, String resourceVersion) {
    Objects.requireNonNull(objects, "objects");
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    List<T> list = List.copyOf(objects);
    // Keys first, outside the lock: a bad object fails the call and leaves the FIFO untouched.
    List<String> keys = new ArrayList<>(list.size());
    for (T obj : list) {
      keys.add(keyOfObject(obj));
    }
    boolean nowSynced = false;
    boolean wake;
    lock.lock();
    try {
      awaitProducerTurnLocked();
      if (atomicEvents) {
        wake = appendLocked(new Entry<>(Delta.replacedAll(list, resourceVersion), null));
      } else {
        wake = reconcileLocked(list, keys);
      }
      if (!populated) {
        populated = true;
        initialPopulationCount = items.size();
        nowSynced = checkSyncedLocked();
      }
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
    wakeIf(wake);
  }

  /** The non-atomic relist: client-go's {@code reconcileReplacement} against the queue. */
  private boolean reconcileLocked(List<T> list, List<String> keys) {
    assert lock.isHeldByCurrentThread();
    boolean wake = false;
    Set<String> listed = new HashSet<>(keys);
    Map<String, Entry<T>> newestQueued = new LinkedHashMap<>();
    for (Entry<T> e : items) {
      if (e.key != null) {
        newestQueued.put(e.key, e);
      }
    }
    for (Map.Entry<String, Entry<T>> q : newestQueued.entrySet()) {
      Delta<T> newest = q.getValue().delta;
      if (listed.contains(q.getKey()) || newest.type() == DeltaType.DELETED) {
        continue; // still there, or its deletion is queued already
      }
      wake |= appendLocked(tombstone(q.getKey(), newest.unwrap()));
    }
    Store<T> known = Objects.requireNonNull(knownObjects);
    for (String key : known.listKeys()) {
      if (listed.contains(key) || newestQueued.containsKey(key)) {
        continue;
      }
      // A key the store lists but then lacks gets a tombstone without an object, as client-go's.
      wake |= appendLocked(tombstone(key, known.getByKey(key).orElse(null)));
    }
    for (int i = 0; i < list.size(); i++) {
      wake |= appendLocked(new Entry<>(new Delta<>(DeltaType.REPLACED, list.get(i)), keys.get(i)));
    }
    return wake;
  }

  private static <T> Entry<T> tombstone(String key, @Nullable T lastKnown) {
    return new Entry<>(
        new Delta<>(DeltaType.DELETED, new DeletedFinalStateUnknown<>(key, lastKnown)), key);
  }

  /**
   * With atomic events, queues one {@link DeltaType#SYNC_ALL}; otherwise a {@link DeltaType#SYNC}
   * for every key of {@code knownObjects} that has nothing queued (a queued delta is newer than
   * the known state).
   */
  @Override
  public void resync() {
    boolean[] wake = {false};
    lock.lock();
    try {
      awaitProducerTurnLocked();
      if (atomicEvents) {
        wake[0] = appendLocked(new Entry<>(Delta.syncAll(), null));
        return;
      }
      Set<String> queued = new HashSet<>();
      for (Entry<T> e : items) {
        if (e.key != null) {
          queued.add(e.key);
        }
      }
      Store<T> known = Objects.requireNonNull(knownObjects);
      for (String key : known.listKeys()) {
        if (!queued.contains(key)) {
          Optional<T> obj = known.getByKey(key);
          if (obj.isPresent()) {
            wake[0] |= appendLocked(new Entry<>(new Delta<>(DeltaType.SYNC, obj.get()), key));
          }
        }
      }
    } finally {
      lock.unlock();
      wakeIf(wake[0]);
    }
  }

  /**
   * With atomic events, queues a {@link DeltaType#BOOKMARK} delta; otherwise does nothing (as
   * client-go, which emits bookmarks only with atomic events).
   */
  @Override
  public void bookmark(String resourceVersion) {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    if (!atomicEvents) {
      return;
    }
    boolean wake;
    lock.lock();
    try {
      awaitProducerTurnLocked();
      wake = appendLocked(new Entry<>(Delta.bookmark(resourceVersion), null));
    } finally {
      lock.unlock();
    }
    wakeIf(wake);
  }

  @Override
  public @Nullable UnaryOperator<T> transformer() {
    return transform;
  }

  // ---- consumer -------------------------------------------------------------------------------

  /**
   * Processes one queued delta: client-go's {@code Pop}.
   *
   * <p>Thread safety: call from one consumer thread; see the class doc.
   */
  @FunctionalInterface
  public interface PopProcessor<T> {
    /**
     * Processes {@code delta}, just removed from the queue.
     *
     * @param isInInitialList whether the FIFO had not synced yet when it was popped
     */
    void process(Delta<T> delta, boolean isInInitialList);
  }

  /**
   * Processes a batch of per-object deltas with distinct keys: client-go's {@code
   * ProcessBatchFunc}.
   *
   * <p>Thread safety: call from one consumer thread; see the class doc.
   */
  @FunctionalInterface
  public interface BatchProcessor<T> {
    /**
     * Processes {@code deltas} (at least two, oldest first, unmodifiable), just removed from the
     * queue.
     *
     * @param isInInitialList whether the FIFO had not synced yet when they were popped
     */
    void process(List<Delta<T>> deltas, boolean isInInitialList);
  }

  /**
   * Waits until a delta is queued, removes the oldest and has {@code processor} process it.
   *
   * @return false if the FIFO is closed (and nothing was processed), else true
   * @throws InterruptedException if interrupted while waiting
   * @throws RuntimeException whatever {@code processor} threw (the delta is not requeued)
   */
  public boolean pop(PopProcessor<T> processor) throws InterruptedException {
    Objects.requireNonNull(processor, "processor");
    Delta<T> delta;
    boolean isInInitialList;
    lock.lock();
    try {
      if (!awaitItemsLocked()) {
        return false;
      }
      isInInitialList = !synced;
      delta = items.poll().delta;
      queuedSize = items.size();
    } finally {
      lock.unlock();
    }
    publishQueued();
    process(1, () -> processor.process(delta, isInInitialList));
    return true;
  }

  /**
   * Waits until a delta is queued, then removes the longest run of deltas from the head that may be
   * processed together (see the class doc) and has {@code batch} process them, or {@code single}
   * if there is only one.
   *
   * @return false if the FIFO is closed (and nothing was processed), else true
   * @throws InterruptedException if interrupted while waiting
   * @throws RuntimeException whatever the processor threw (the deltas are not requeued)
   */
  public boolean popBatch(BatchProcessor<T> batch, PopProcessor<T> single)
      throws InterruptedException {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(single, "single");
    List<Delta<T>> deltas;
    boolean isInInitialList;
    lock.lock();
    try {
      if (!awaitItemsLocked()) {
        return false;
      }
      isInInitialList = !synced;
      deltas = takeBatchLocked();
    } finally {
      lock.unlock();
    }
    publishQueued();
    processTaken(deltas, isInInitialList, batch, single);
    return true;
  }

  private void processTaken(
      List<Delta<T>> deltas,
      boolean isInInitialList,
      BatchProcessor<T> batch,
      PopProcessor<T> single) {
    if (deltas.size() == 1) {
      Delta<T> only = deltas.get(0);
      process(1, () -> single.process(only, isInInitialList));
    } else {
      List<Delta<T>> view = Collections.unmodifiableList(deltas);
      process(deltas.size(), () -> batch.process(view, isInInitialList));
    }
  }

  /**
   * The non-blocking {@link #popBatch}, for a consumer that runs as a task (see {@link #onReady}):
   * processes the next batch if a delta is queued and returns true; otherwise marks the consumer
   * idle, so that the next delta queued runs the {@code onReady} callback, and returns false.
   *
   * @throws RuntimeException whatever the processor threw (the deltas are not requeued)
   */
  public boolean tryPopBatch(BatchProcessor<T> batch, PopProcessor<T> single) {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(single, "single");
    List<Delta<T>> deltas;
    boolean isInInitialList;
    lock.lock();
    try {
      if (items.isEmpty()) {
        consumerIdle = true;
        return false;
      }
      isInInitialList = !synced;
      deltas = takeBatchLocked();
    } finally {
      lock.unlock();
    }
    publishQueued();
    processTaken(deltas, isInInitialList, batch, single);
    return true;
  }

  /**
   * Makes the consumer a task instead of a thread blocked in {@link #pop}: {@code onReady} runs on
   * a producer's thread, holding no lock of this FIFO, whenever a delta is queued while the
   * consumer is idle (it is idle from the start, and after {@link #tryPopBatch} found the queue
   * empty), and once when the FIFO is closed while it is idle. It should hand a task to an executor
   * that calls {@link #tryPopBatch} until it returns false. It runs at most once per idle period,
   * so at most one such task exists at a time. Set it before the first delta is queued.
   */
  public void onReady(Runnable onReady) {
    Objects.requireNonNull(onReady, "onReady");
    boolean wake;
    lock.lock();
    try {
      this.onReady = onReady;
      wake = consumerIdle && (!items.isEmpty() || closed);
      if (wake) {
        consumerIdle = false;
      }
    } finally {
      lock.unlock();
    }
    wakeIf(wake);
  }

  /** Blocks until a delta is queued (true) or the FIFO is closed and empty (false). */
  private boolean awaitItemsLocked() throws InterruptedException {
    assert lock.isHeldByCurrentThread();
    while (items.isEmpty()) {
      if (closed) {
        return false;
      }
      notEmptyOrClosed.await();
    }
    return true;
  }

  /** client-go's PopBatch selection. */
  private List<Delta<T>> takeBatchLocked() {
    assert lock.isHeldByCurrentThread();
    List<Delta<T>> out = new ArrayList<>(Math.min(items.size(), batchSize));
    Set<String> keys = null;
    Iterator<Entry<T>> it = items.iterator();
    while (it.hasNext() && out.size() < batchSize) {
      if (initialPopulationCount > 0 && out.size() >= initialPopulationCount) {
        break; // never mix the first list's deltas with later ones
      }
      Entry<T> e = it.next();
      if (!e.delta.type().isBatchable()) {
        if (out.isEmpty()) {
          it.remove();
          out.add(e.delta);
        }
        break;
      }
      if (keys == null) {
        keys = new HashSet<>();
      }
      if (!keys.add(Objects.requireNonNull(e.key))) {
        break; // a second delta for a key closes the batch
      }
      it.remove();
      out.add(e.delta);
    }
    queuedSize = items.size();
    return out;
  }

  /**
   * Runs {@code work} (the processor, for {@code count} popped deltas) without the lock, holding
   * producers back when two full batches wait or when the lock must not be released, then counts
   * the deltas off the first list. A thread never waits for its own processing.
   */
  private void process(int count, Runnable work) {
    boolean holdProducers;
    lock.lock();
    try {
      holdProducers = !unlockWhileProcessing || items.size() >= batchSize * 2;
      producersWait = holdProducers;
      processingThread = Thread.currentThread();
    } finally {
      lock.unlock();
    }
    boolean nowSynced = false;
    long started = clock.nanoTime();
    try {
      work.run();
    } finally {
      processingLatency.observe((clock.nanoTime() - started) / 1e9);
      lock.lock();
      try {
        processingThread = null;
        if (holdProducers) {
          producersWait = false;
          producersMayGo.signalAll();
        }
        if (initialPopulationCount > 0) {
          initialPopulationCount = Math.max(0, initialPopulationCount - count);
          nowSynced = checkSyncedLocked();
        }
      } finally {
        lock.unlock();
      }
      completeSyncedIf(nowSynced);
    }
  }

  /** Producers wait while the processor runs with them held back, unless they are it. */
  private void awaitProducerTurnLocked() {
    assert lock.isHeldByCurrentThread();
    boolean interrupted = false;
    while (producersWait && !closed && processingThread != Thread.currentThread()) {
      try {
        producersMayGo.await();
      } catch (InterruptedException e) {
        interrupted = true; // queue all the same; the caller sees the flag
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Queues {@code e}; returns true if the caller must run the {@link #onReady} callback once it has
   * released the lock (the consumer was idle).
   */
  private boolean appendLocked(Entry<T> e) {
    assert lock.isHeldByCurrentThread();
    items.add(e);
    queuedSize = items.size();
    notEmptyOrClosed.signalAll();
    if (consumerIdle && onReady != null) {
      consumerIdle = false;
      return true;
    }
    return false;
  }

  /** Whether the calling thread holds this FIFO's lock (for tests). */
  boolean holdsLock() {
    return lock.isHeldByCurrentThread();
  }

  /** Publishes the queue's length; call holding no lock. */
  private void publishQueued() {
    queuedItems.set(queuedSize);
  }

  private void wakeIf(boolean wake) {
    publishQueued();
    Runnable r = onReady;
    if (wake && r != null) {
      r.run();
    }
  }

  // ---- lifecycle and inspection ---------------------------------------------------------------

  /**
   * Closes the FIFO: a waiting or later {@link #pop}/{@link #popBatch} returns false once the queue
   * is empty, and producers held back are released. Deltas may still be queued and popped.
   * Idempotent.
   */
  public void close() {
    boolean wake = false;
    lock.lock();
    try {
      closed = true;
      notEmptyOrClosed.signalAll();
      producersMayGo.signalAll();
      if (consumerIdle && onReady != null) {
        consumerIdle = false;
        wake = true;
      }
    } finally {
      lock.unlock();
    }
    wakeIf(wake);
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** See the class doc. Never blocks. */
  public boolean hasSynced() {
    return synced;
  }

  /**
   * Completes when {@link #hasSynced()} turns true, on the thread that made it so (outside every
   * lock of this FIFO); a copy, so completing it does nothing.
   */
  public CompletableFuture<Void> synced() {
    return syncedFuture.copy();
  }

  /** Whether producers are held back while the processor runs (see the class doc); for tests. */
  boolean isHoldingProducers() {
    lock.lock();
    try {
      return producersWait;
    } finally {
      lock.unlock();
    }
  }

  /** How many deltas are queued. */
  public int size() {
    lock.lock();
    try {
      return items.size();
    } finally {
      lock.unlock();
    }
  }

  /** The queued deltas, oldest first; a snapshot. */
  public List<Delta<T>> queuedDeltas() {
    lock.lock();
    try {
      List<Delta<T>> out = new ArrayList<>(items.size());
      for (Entry<T> e : items) {
        out.add(e.delta);
      }
      return Collections.unmodifiableList(out);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The newest queued state of each key that has a per-object delta queued, in the order the keys
   * were first queued (tombstones give their last known object, if any). For inspection: the FIFO
   * is a queue, not a cache.
   */
  @Override
  public List<T> list() {
    return List.copyOf(newestByKey().values());
  }

  /** The keys of {@link #list()}. */
  @Override
  public List<String> listKeys() {
    return List.copyOf(newestByKey().keySet());
  }

  @Override
  public Optional<T> get(T obj) {
    return getByKey(keyOfObject(obj));
  }

  @Override
  public Optional<T> getByKey(String key) {
    return Optional.ofNullable(newestByKey().get(Objects.requireNonNull(key, "key")));
  }

  private Map<String, T> newestByKey() {
    Map<String, T> out = new LinkedHashMap<>();
    lock.lock();
    try {
      for (Entry<T> e : items) {
        if (e.key == null) {
          continue;
        }
        Object o = e.delta.object();
        @SuppressWarnings("unchecked")
        T obj =
            o instanceof DeletedFinalStateUnknown<?> d ? (T) d.obj() : (T) o;
        if (obj == null) {
          out.remove(e.key);
        } else {
          out.put(e.key, obj);
        }
      }
    } finally {
      lock.unlock();
    }
    return out;
  }

  /**
   * The key of {@code obj} as this FIFO files it (client-go's {@code keyOf}): for a non-empty list
   * of deltas the key of the newest, for a {@link Delta} the key of its object, for a {@link
   * DeletedFinalStateUnknown} its key, otherwise the key function's.
   *
   * @throws KeyException for an empty list of deltas (its cause says {@code 0 length Deltas
   *     object; can't get key}, client-go's {@code ErrZeroLengthDeltasObject}) or an object the key
   *     function cannot key
   * @throws IllegalArgumentException for a delta that concerns no single object
   */
  @SuppressWarnings("unchecked")
  public String keyOf(Object obj) {
    Objects.requireNonNull(obj, "obj");
    if (obj instanceof List<?> deltas) {
      if (deltas.isEmpty()) {
        throw new KeyException(deltas, new IllegalArgumentException(DeltaFifo.ZERO_LENGTH_DELTAS));
      }
      obj = deltas.get(deltas.size() - 1);
    }
    if (obj instanceof Delta<?> d) {
      if (!d.type().isBatchable()) {
        throw new IllegalArgumentException("a " + d.type() + " delta has no key");
      }
      obj = d.object();
    }
    if (obj instanceof DeletedFinalStateUnknown<?> d) {
      return d.key();
    }
    return keyOfObject((T) obj);
  }

  private String keyOfObject(T obj) {
    String key;
    try {
      key = keyFunc.key(obj);
    } catch (RuntimeException e) {
      throw new KeyException(obj, e);
    }
    if (key == null) {
      throw new KeyException(
          obj, new IllegalArgumentException("fifo " + name + ": the key function returned null"));
    }
    return key;
  }

  private T transformed(T obj) {
    if (transform == null) {
      return obj;
    }
    T out = transform.apply(obj);
    if (out == null) {
      throw new IllegalArgumentException(
          "fifo " + name + ": the transform returned null for a " + obj.getClass().getName());
    }
    return out;
  }

  private boolean checkSyncedLocked() {
    assert lock.isHeldByCurrentThread();
    if (!synced && populated && initialPopulationCount == 0) {
      synced = true;
      return true;
    }
    return false;
  }

  private void completeSyncedIf(boolean nowSynced) {
    if (nowSynced) {
      syncedFuture.complete(null);
    }
  }

  @Override
  public String toString() {
    return "RealFifo[" + name + ", " + size() + " queued" + (synced ? ", synced" : "") + "]";
  }

  /** A queued delta and, for a per-object delta, its key. */
  private record Entry<T>(Delta<T> delta, @Nullable String key) {}

  /**
   * Builds a {@link RealFifo}.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the object type
   */
  public static final class Builder<T> {
    private final KeyFunc<T> keyFunc;
    private String name = "RealFifo";
    private @Nullable UnaryOperator<T> transform;
    private @Nullable Store<T> knownObjects;
    private boolean unlockWhileProcessing = true;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private InformerMetricsProvider.GaugeMetric queuedItems = InformerMetricsProvider.NO_GAUGE;
    private InformerMetricsProvider.HistogramMetric processingLatency =
        InformerMetricsProvider.NO_HISTOGRAM;
    private Clock clock = Clock.system();

    private Builder(KeyFunc<T> keyFunc) {
      this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
    }

    /** The name in log lines and messages. Default {@code RealFifo}. */
    public Builder<T> name(String name) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /**
     * Applied once to every object given to add, update, delete and replace, on the caller's thread
     * before the lock is taken; never to tombstones. Default none.
     */
    public Builder<T> transform(@Nullable UnaryOperator<T> transform) {
      this.transform = transform;
      return this;
    }

    /**
     * Turns atomic events off (client-go's {@code AtomicEvents: false} with {@code KnownObjects}):
     * relists and resyncs are queued per object, reconciled against {@code knownObjects}, the
     * consumer's store. Producers are then always held back while the processor runs, so that the
     * queue and the store agree whenever a relist looks at them. Default: atomic events, no known
     * objects.
     */
    public Builder<T> knownObjects(Store<T> knownObjects) {
      this.knownObjects = Objects.requireNonNull(knownObjects, "knownObjects");
      this.unlockWhileProcessing = false;
      return this;
    }

    /**
     * Whether producers may queue while the processor runs, unless two full batches wait
     * (client-go's {@code UnlockWhileProcessing}). Default true; must be false with {@link
     * #knownObjects}.
     */
    public Builder<T> unlockWhileProcessing(boolean unlockWhileProcessing) {
      this.unlockWhileProcessing = unlockWhileProcessing;
      return this;
    }

    /**
     * Publishes {@code informer_queued_items} to {@code queuedItems} and {@code
     * informer_processing_latency_seconds} to {@code processingLatency}, timed with {@code clock}
     * (see {@link InformerMetricsProvider}). Default none.
     */
    public Builder<T> metrics(
        InformerMetricsProvider.GaugeMetric queuedItems,
        InformerMetricsProvider.HistogramMetric processingLatency,
        Clock clock) {
      this.queuedItems = Objects.requireNonNull(queuedItems, "queuedItems");
      this.processingLatency = Objects.requireNonNull(processingLatency, "processingLatency");
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The most deltas {@link RealFifo#popBatch} takes at once. Default 1000, as client-go. */
    Builder<T> batchSize(int batchSize) {
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be positive: " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Builds the FIFO.
     *
     * @throws IllegalStateException if {@link #unlockWhileProcessing} is true with {@link
     *     #knownObjects}
     */
    public RealFifo<T> build() {
      if (knownObjects != null && unlockWhileProcessing) {
        throw new IllegalStateException(
            "unlockWhileProcessing needs atomic events: it cannot be used with knownObjects");
      }
      return new RealFifo<>(this);
    }
  }
}

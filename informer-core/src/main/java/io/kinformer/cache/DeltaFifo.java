package io.kinformer.cache;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A FIFO of keys, where each key carries every {@link Delta} that happened to its object since the
 * object was last popped, for code that builds its own queue between a {@code Reflector} and a
 * processing loop (informers use a {@link RealFifo}). A port of client-go's {@code tools/cache/delta_fifo.go} ({@code DeltaFIFO} as built by
 * {@code NewDeltaFIFOWithOptions}), with its options: a key function, {@code knownObjects}, a
 * transform, a name, and {@link Builder#emitDeltaTypeReplaced emitDeltaTypeReplaced}.
 *
 * <p>client-go 1.36's informers do not use a DeltaFIFO (they queue into a FIFO of single deltas in
 * arrival order), nor do kinformer's; it serves code that builds one directly.
 *
 * <p>It serves this use: process every change at most once; when processing an object, see
 * everything that happened to it since it was last processed, oldest first; learn about deletions,
 * including the ones missed while the watch was down; and periodically re-process objects.
 *
 * <h2>What it emits</h2>
 *
 * <p>Deltas are appended per key in arrival order. The only merge is client-go's {@code
 * dedupDeltas}: when a {@link DeltaType#DELETED} is appended right after another {@code DELETED},
 * the two become one, the older kept unless it is a {@link DeletedFinalStateUnknown} (then the
 * newer is kept). Nothing else is ever merged or dropped: an {@code ADDED} followed by {@code
 * UPDATED}s stays that many deltas.
 *
 * <ul>
 *   <li>{@link #add}, {@link #update}: one {@code ADDED} / {@code UPDATED} with the (transformed)
 *       object.
 *   <li>{@link #delete}: one {@code DELETED} with the (transformed) object, unless the key is
 *       neither queued nor in {@code knownObjects}; then nothing (the deletion was already
 *       reported, for example by a relist).
 *   <li>{@link #replace replace(list, rv)} (a relist), atomically and in this order:
 *       <ol>
 *         <li>for each listed (transformed) object, in list order, {@code SYNC} by default, or
 *             {@code REPLACED} if the FIFO was built with {@link Builder#emitDeltaTypeReplaced
 *             emitDeltaTypeReplaced(true)} (client-go's default is {@code false} for backward
 *             compatibility; its informers used {@code true}). Whether or not the object changed:
 *             the FIFO cannot know, because the state in {@code knownObjects} may be older than
 *             deltas still queued. {@code REPLACED} lets the consumer tell a relist from a
 *             periodic resync.
 *         <li>for each key still queued (in queue order) and absent from the list: {@code DELETED}
 *             with {@code DeletedFinalStateUnknown(key, newest queued state)} (the newest delta's
 *             object, unwrapped if it is itself a tombstone). These are objects the watch added or
 *             changed that were not popped yet. If the key's newest delta is already a {@code
 *             DELETED}, the dedup rule above applies.
 *         <li>for each key of {@code knownObjects} (in its {@code listKeys()} order) absent from
 *             the list and not queued: {@code DELETED} with {@code DeletedFinalStateUnknown(key,
 *             state in knownObjects)}. If {@code knownObjects} lists the key but no longer has
 *             it when asked (only a writer outside this FIFO's lock can cause that), the
 *             tombstone carries no object, as in client-go, and a WARN is logged.
 *       </ol>
 *       The resourceVersion is ignored, as in client-go.
 *   <li>{@link #resync}: {@code SYNC} with the object from {@code knownObjects}, for each of its
 *       keys that has no queued delta (a queued delta is newer than the known state, so a sync
 *       would only deliver stale data). Nothing if there is no {@code knownObjects}.
 * </ul>
 *
 * <p><b>Who decides "sync".</b> As in client-go, it is the consumer, not the FIFO, that decides
 * whether a relisted object is a change or a sync: client-go's {@code processDeltas} treats
 * {@code SYNC}, {@code REPLACED}, {@code ADDED} and {@code UPDATED} alike (update the indexer,
 * then {@code onUpdate(old, new)} if the key was there, else {@code onAdd}), and {@code
 * sharedIndexInformer.OnUpdate} marks
 * the notification a sync, sent only to handlers that asked for resync, iff old and new have the
 * same resourceVersion. So an object that changed while the watch was down reaches every handler
 * as an update. A {@code DELETED} delta carries either the object or a {@code
 * DeletedFinalStateUnknown}; {@link Delta#unwrap()} gives the object either way, or null for a
 * tombstone without an object (see {@code replace} above), which a consumer handles by its key.
 *
 * <h2>Keys</h2>
 *
 * <p>Every object is filed under its key function's key; {@link #keyOf} also keys a delta list
 * and a tombstone (client-go's {@code KeyOf}). A key function that throws fails the call with a
 * {@link KeyException} before anything is queued.
 *
 * <h2>Synced and the initial list</h2>
 *
 * <p>The FIFO is populated by the first {@code replace}, or by an {@code add}/{@code
 * update}/{@code delete} made before any {@code replace}. The first {@code replace} records how
 * many keys it queued (distinct listed keys plus inferred deletions); {@link #hasSynced()} becomes
 * true, for good, once the FIFO is populated and that many pops have happened. An empty first
 * {@code replace} syncs at once. A pop made before that sees {@code isInInitialList = true}.
 *
 * <h2>Locking and the processor</h2>
 *
 * <p>One {@link ReentrantLock} guards all state. {@link #pop} calls its {@link PopProcessor}
 * <em>while holding it</em>, as client-go does: this is what keeps {@code knownObjects} (the
 * informer's indexer, which the processor updates) consistent with the queue, since no {@code
 * replace}, {@code resync} or {@code delete} can look at {@code knownObjects} between the removal
 * of a key and the indexer update for it. This is the one deliberate exception to "never call user
 * code under our locks": the processor is meant to be the informer's own delta handler, which
 * updates the indexer and hands notifications to per-handler buffers; it must be fast and must
 * never run user handlers itself. Lock order: this FIFO's lock, then {@code knownObjects}'s lock.
 *
 * <p>The transform, by contrast, runs on the calling thread <em>before</em> the lock is taken (a
 * deliberate divergence from client-go, which calls it under the lock). It is applied once to
 * each object passed to {@code add}, {@code update}, {@code delete} and {@code replace}, including
 * a deleted object whose deletion is then ignored (client-go, which decides under the lock first,
 * does not transform that one; running outside the lock, we cannot know yet); never to {@code
 * DeletedFinalStateUnknown} tombstones nor to {@code SYNC} objects, which come from {@code
 * knownObjects} and were transformed already. Keys are computed from the objects as given,
 * before the transform. {@code replace} computes every key and transform before changing anything,
 * so a bad object or a failing transform leaves the FIFO untouched. {@link #replaceTransformed}
 * (the {@link TransformingStore} side, for a reflector that transformed a streamed list as it
 * arrived) queues the objects as given, without transforming them again.
 *
 * <p>Popping from several threads at once is allowed but, as in client-go, they may then process
 * different versions of the same object concurrently; the informer pops from one thread.
 *
 * <p>Thread safety: thread-safe. All methods may be called from any thread; {@link #pop} blocks
 * until a key is queued or the FIFO is closed. Objects queued and handed out are shared: treat them
 * as read-only.
 *
 * @param <T> the object type
 */
public final class DeltaFifo<T> implements TransformingStore<T> {

  private static final Logger log = LoggerFactory.getLogger(DeltaFifo.class);

  /** client-go's {@code ErrZeroLengthDeltasObject}, the cause of a {@link KeyException}. */
  static final String ZERO_LENGTH_DELTAS = "0 length Deltas object; can't get key";

  private final String name;
  private final KeyFunc<T> keyFunc;
  private final @Nullable Store<T> knownObjects;
  private final @Nullable UnaryOperator<T> transform;
  // SYNC or REPLACED: what replace queues for each listed object.
  private final DeltaType listedType;

  private final ReentrantLock lock = new ReentrantLock();
  // Signalled (all waiters) when a key is queued or the FIFO is closed. Waiters hold lock.
  private final Condition notEmptyOrClosed = lock.newCondition();

  // @GuardedBy("lock"). The queue itself: its iteration order is the pop order. A key is queued
  // if and only if it is in this map, and every value is a non-empty list of deltas, oldest
  // first, no two adjacent ones both DELETED. A popped key that gets new deltas goes to the back.
  private final LinkedHashMap<String, ArrayList<Delta<T>>> items = new LinkedHashMap<>();

  // Guarded by lock: whether the first replace's keys (or a write before any) are all out.
  private final InitialPopulation population = new InitialPopulation(lock);

  // @GuardedBy("lock"). Set by close(); pop then returns empty once the queue is empty.
  private boolean closed;

  private DeltaFifo(Builder<T> builder) {
    this.name = builder.name;
    this.keyFunc = builder.keyFunc;
    this.knownObjects = builder.knownObjects;
    this.transform = builder.transform;
    this.listedType = builder.emitDeltaTypeReplaced ? DeltaType.REPLACED : DeltaType.SYNC;
  }

  /**
   * Starts building a FIFO that files objects under {@code keyFunc} (for Kubernetes objects, {@link
   * Keys#metaNamespaceKeyFunc()}).
   */
  public static <T> Builder<T> builder(KeyFunc<T> keyFunc) {
    return new Builder<>(keyFunc);
  }

  /**
   * The key of {@code obj} (client-go's {@code KeyOf}): for a list of {@link Delta}s (as {@link
   * #pop} and {@link #getDeltas} return), the key of its newest delta's object; for a {@link
   * DeletedFinalStateUnknown}, the key it carries, even without an object; otherwise the key
   * function's key of {@code obj}.
   *
   * @throws KeyException if {@code obj} is an empty list (its cause says {@code 0 length Deltas
   *     object}, client-go's {@code ErrZeroLengthDeltasObject}), or a list of something other than
   *     deltas, or if the key function cannot key it (for example because it is not a {@code T})
   */
  public String keyOf(Object obj) {
    Objects.requireNonNull(obj, "obj");
    Object keyed = obj;
    if (obj instanceof List<?> deltas) {
      if (deltas.isEmpty()) {
        throw new KeyException(obj, new IllegalArgumentException(ZERO_LENGTH_DELTAS));
      }
      if (!(deltas.get(deltas.size() - 1) instanceof Delta<?> newest)) {
        throw new KeyException(
            obj, new IllegalArgumentException("a list that is not of deltas has no key"));
      }
      keyed = newest.object();
    }
    if (keyed instanceof DeletedFinalStateUnknown<?> tombstone) {
      return tombstone.key();
    }
    @SuppressWarnings("unchecked") // a wrong type fails in the key function, reported below
    T t = (T) keyed;
    return keyOfObject(t);
  }

  /**
   * Queues an {@link DeltaType#ADDED} delta and marks the FIFO populated.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing is queued
   */
  @Override
  public void add(T obj) {
    enqueue(DeltaType.ADDED, obj);
  }

  /**
   * Queues an {@link DeltaType#UPDATED} delta and marks the FIFO populated.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing is queued
   */
  @Override
  public void update(T obj) {
    enqueue(DeltaType.UPDATED, obj);
  }

  /**
   * Queues a {@link DeltaType#DELETED} delta, unless the key has no queued deltas and is not in
   * {@code knownObjects} (or there is none): then the deletion was already reported, for example by
   * a relist, and is ignored. Marks the FIFO populated either way.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing is queued
   */
  @Override
  public void delete(T obj) {
    Objects.requireNonNull(obj, "obj");
    String key = keyOfObject(obj);
    T stored = transformed(key, obj);
    boolean nowSynced;
    lock.lock();
    try {
      nowSynced = population.writtenLocked();
      boolean known = knownObjects != null && knownObjects.getByKey(key).isPresent();
      if (!known && !items.containsKey(key)) {
        log.trace("fifo={} ignored deletion of unknown key={}", name, key);
      } else {
        queueLocked(key, new Delta<>(DeltaType.DELETED, stored));
      }
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /**
   * A relist: atomically queues a {@link DeltaType#SYNC} delta (or {@link DeltaType#REPLACED},
   * see {@link Builder#emitDeltaTypeReplaced}) for each object of {@code objects}, then a {@link
   * DeltaType#DELETED} {@link DeletedFinalStateUnknown} for each queued or known key that the list
   * lacks, carrying the newest state known (see the class Javadoc). The first call sets the count
   * of pops that {@link #hasSynced()} waits for.
   *
   * @param objects the complete list of objects, as listed
   * @param resourceVersion the list's resourceVersion; ignored
   * @throws KeyException if the key function cannot key one of the objects; nothing is queued then
   */
  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    replace(objects, /* alreadyTransformed= */ false);
  }

  /** The transform given to the builder, or null if there is none. */
  @Override
  public @Nullable UnaryOperator<T> transformer() {
    return transform;
  }

  /**
   * As {@link #replace}, for objects that {@link #transformer()} was already applied to: they are
   * queued as given.
   *
   * @throws KeyException if the key function cannot key one of the objects; nothing is queued then
   */
  @Override
  public void replaceTransformed(Collection<? extends T> objects, String resourceVersion) {
    replace(objects, /* alreadyTransformed= */ true);
  }

  private void replace(Collection<? extends T> objects, boolean alreadyTransformed) {
    Objects.requireNonNull(objects, "objects");
    List<String> keys = new ArrayList<>(objects.size());
    List<T> stored = new ArrayList<>(objects.size());
    for (T obj : objects) {
      Objects.requireNonNull(obj, "an element of objects is null");
      String key = keyOfObject(obj);
      keys.add(key);
      stored.add(alreadyTransformed ? obj : transformed(key, obj));
    }
    Set<String> listed = new HashSet<>(keys);
    boolean nowSynced = false;
    lock.lock();
    try {
      for (int i = 0; i < keys.size(); i++) {
        queueLocked(keys.get(i), new Delta<>(listedType, stored.get(i)));
      }
      int inferredDeletions = 0;
      // Queued keys first: their newest state is in the queue, not in knownObjects. This covers
      // objects the watch added that were never popped, so are not in knownObjects at all.
      for (String key : new ArrayList<>(items.keySet())) {
        if (listed.contains(key)) {
          continue;
        }
        List<Delta<T>> deltas = items.get(key);
        @Nullable T newest = deltas.get(deltas.size() - 1).unwrap();
        queueLocked(key, tombstone(key, newest));
        inferredDeletions++;
      }
      if (knownObjects != null) {
        for (String key : knownObjects.listKeys()) {
          if (listed.contains(key) || items.containsKey(key)) {
            continue;
          }
          Optional<T> known = knownObjects.getByKey(key);
          if (known.isEmpty()) {
            // The key left knownObjects between listKeys and getByKey, which only a writer outside
            // this FIFO's lock can cause. As client-go, queue a tombstone without an object.
            log.warn(
                "fifo={} key={} vanished from knownObjects during replace; was the indexer"
                    + " written outside the FIFO? Queued a deletion without an object",
                name,
                key);
          }
          queueLocked(key, tombstone(key, known.orElse(null)));
          inferredDeletions++;
        }
      }
      nowSynced = population.replacedLocked(listed.size() + inferredDeletions);
      log.debug(
          "fifo={} replace listed={} inferredDeletions={} queuedKeys={}",
          name,
          listed.size(),
          inferredDeletions,
          items.size());
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /**
   * Queues a {@link DeltaType#SYNC} delta with the object from {@code knownObjects} for each of its
   * keys that has no queued delta. Does nothing without {@code knownObjects}. The object is not
   * transformed again.
   *
   * @throws KeyException if the key function cannot key a known object; the keys visited before
   *     it stay queued
   */
  @Override
  public void resync() {
    Store<T> known = knownObjects;
    if (known == null) {
      return;
    }
    lock.lock();
    try {
      int queued = 0;
      for (String knownKey : known.listKeys()) {
        Optional<T> obj = known.getByKey(knownKey);
        if (obj.isEmpty()) {
          log.debug("fifo={} key={} vanished from knownObjects during resync", name, knownKey);
          continue;
        }
        String key = keyOfObject(obj.get());
        if (items.containsKey(key)) {
          // A queued delta is newer than the known state; syncing the known state would
          // deliver stale data after it.
          continue;
        }
        queueLocked(key, new Delta<>(DeltaType.SYNC, obj.get()));
        queued++;
      }
      log.debug("fifo={} resync queued={}", name, queued);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until a key is queued, removes it with all its deltas, and hands them to {@code
   * processor}, <em>under this FIFO's lock</em> (see the class Javadoc): no other operation on
   * this FIFO can run until the processor returns, so it must be fast and must not wait for
   * another thread that uses this FIFO. The lock is reentrant, so the processor itself may call
   * this FIFO.
   *
   * <p>The key is removed before the processor runs, and is not queued again if it throws: the
   * exception (or error) propagates and the deltas are gone, as in client-go since it removed
   * {@code ErrRequeue} (kubernetes commit 238c32a1): requeueing would put the key behind newer
   * ones and move the consumer back in time. A consumer that cannot process an object logs it and
   * moves on, or relists.
   *
   * <p>After {@link #close()}, keys still queued are handed out as usual; only a pop that finds the
   * queue empty returns empty. A consumer that must stop at once checks its own stop flag between
   * pops, as client-go's {@code processLoop} checks its context.
   *
   * @return the deltas handed to the processor (oldest first, unmodifiable), or empty if the FIFO
   *     is closed and empty
   * @throws InterruptedException if interrupted while waiting (or on entry); nothing is popped
   */
  public Optional<List<Delta<T>>> pop(PopProcessor<T> processor) throws InterruptedException {
    Objects.requireNonNull(processor, "processor");
    boolean nowSynced = false;
    lock.lockInterruptibly();
    try {
      while (items.isEmpty()) {
        if (closed) {
          return Optional.empty();
        }
        notEmptyOrClosed.await();
      }
      boolean isInInitialList = !population.isSyncedLocked();
      Iterator<Map.Entry<String, ArrayList<Delta<T>>>> head = items.entrySet().iterator();
      Map.Entry<String, ArrayList<Delta<T>>> entry = head.next();
      head.remove();
      String key = entry.getKey();
      // Ownership of the list passes to the caller.
      List<Delta<T>> deltas = Collections.unmodifiableList(entry.getValue());
      if (population.leftHeadLocked()) {
        nowSynced = population.checkLocked();
      }
      log.trace(
          "fifo={} pop key={} deltas={} initialList={}",
          name,
          key,
          deltas.size(),
          isInInitialList);
      processor.process(deltas, isInInitialList);
      return Optional.of(deltas);
    } finally {
      lock.unlock();
      completeSyncedIf(nowSynced);
    }
  }

  /**
   * Closes the FIFO: pops blocked on an empty queue return empty, and so will every later pop that
   * finds it empty. Keys already queued can still be popped, and writes are still accepted, as in
   * client-go. Idempotent.
   */
  public void close() {
    lock.lock();
    try {
      if (!closed) {
        closed = true;
        log.debug("fifo={} closed with queuedKeys={}", name, items.size());
      }
      notEmptyOrClosed.signalAll();
    } finally {
      lock.unlock();
    }
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

  /**
   * Whether the initial population is done: an {@code add}/{@code update}/{@code delete} came
   * before any {@code replace}, or every key queued by the first {@code replace} was popped. Once
   * true, stays true.
   */
  public boolean hasSynced() {
    lock.lock();
    try {
      return population.isSyncedLocked();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A future completed when {@link #hasSynced()} first becomes true (at once if it already is). It
   * never fails, and never completes if the FIFO is never populated and drained; combine it with
   * your own stop signal. Completing the returned copy does not affect the FIFO. Dependent actions
   * registered without an executor run on the thread that completes it (the one popping or
   * writing, after the lock is released): prefer the {@code ...Async} variants.
   */
  public CompletableFuture<Void> synced() {
    return population.future().copy();
  }

  /** The queued keys, in pop order; an unmodifiable snapshot. */
  @Override
  public List<String> listKeys() {
    lock.lock();
    try {
      return List.copyOf(items.keySet());
    } finally {
      lock.unlock();
    }
  }

  /**
   * The newest queued state of each queued key, in pop order ({@link Delta#unwrap()} of its newest
   * delta, so a tombstone yields the object it carries; a key whose newest delta is a tombstone
   * without an object is left out); an unmodifiable snapshot.
   */
  @Override
  public List<T> list() {
    lock.lock();
    try {
      List<T> out = new ArrayList<>(items.size());
      for (List<Delta<T>> deltas : items.values()) {
        @Nullable T newest = deltas.get(deltas.size() - 1).unwrap();
        if (newest != null) {
          out.add(newest);
        }
      }
      return Collections.unmodifiableList(out);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The newest queued state of {@code obj}'s key, as {@link #list()}; empty if not queued.
   *
   * @throws KeyException if the key function cannot key {@code obj}
   */
  @Override
  public Optional<T> get(T obj) {
    return getByKey(keyOfObject(obj));
  }

  /**
   * The newest queued state under {@code key}, as {@link #list()}; empty if not queued or if its
   * newest delta is a tombstone without an object ({@link #getDeltas} has it).
   */
  @Override
  public Optional<T> getByKey(String key) {
    lock.lock();
    try {
      List<Delta<T>> deltas = items.get(key);
      return deltas == null
          ? Optional.empty()
          : Optional.ofNullable(deltas.get(deltas.size() - 1).unwrap());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Every delta queued under {@code key}, oldest first (client-go's {@code Get}); an unmodifiable
   * snapshot, empty if the key is not queued.
   */
  public Optional<List<Delta<T>>> getDeltas(String key) {
    lock.lock();
    try {
      List<Delta<T>> deltas = items.get(key);
      return deltas == null ? Optional.empty() : Optional.of(List.copyOf(deltas));
    } finally {
      lock.unlock();
    }
  }

  /** The number of queued keys. */
  public int size() {
    lock.lock();
    try {
      return items.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether no key is queued. */
  public boolean isEmpty() {
    return size() == 0;
  }

  @Override
  public String toString() {
    return "DeltaFifo[" + name + "]";
  }

  /** For tests: how many threads are blocked in {@link #pop} waiting for a key. */
  int blockedPopCount() {
    lock.lock();
    try {
      return lock.getWaitQueueLength(notEmptyOrClosed);
    } finally {
      lock.unlock();
    }
  }

  /** For tests: checks the invariants written on the fields; throws if one is broken. */
  void checkInvariants() {
    lock.lock();
    try {
      for (Map.Entry<String, ArrayList<Delta<T>>> e : items.entrySet()) {
        List<Delta<T>> deltas = e.getValue();
        if (deltas.isEmpty()) {
          throw new IllegalStateException("key " + e.getKey() + " is queued with no deltas");
        }
        for (int i = 0; i < deltas.size(); i++) {
          Delta<T> d = deltas.get(i);
          String key =
              d.object() instanceof DeletedFinalStateUnknown<?> t
                  ? t.key()
                  : keyOfObject(d.unwrap());
          if (!key.equals(e.getKey())) {
            throw new IllegalStateException("delta " + d + " is queued under key " + e.getKey());
          }
          if (i > 0
              && d.type() == DeltaType.DELETED
              && deltas.get(i - 1).type() == DeltaType.DELETED) {
            throw new IllegalStateException("adjacent DELETED deltas under key " + e.getKey());
          }
        }
      }
      population.checkInvariantsLocked();
    } finally {
      lock.unlock();
    }
  }

  private void enqueue(DeltaType type, T obj) {
    Objects.requireNonNull(obj, "obj");
    String key = keyOfObject(obj);
    T stored = transformed(key, obj);
    boolean nowSynced;
    lock.lock();
    try {
      nowSynced = population.writtenLocked();
      queueLocked(key, new Delta<>(type, stored));
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /** client-go's {@code queueActionLocked} (without the transform) and {@code dedupDeltas}. */
  private void queueLocked(String key, Delta<T> delta) {
    assert lock.isHeldByCurrentThread();
    ArrayList<Delta<T>> deltas = items.get(key);
    if (deltas == null) {
      deltas = new ArrayList<>(2);
      deltas.add(delta);
      items.put(key, deltas);
      notEmptyOrClosed.signalAll();
    } else {
      deltas.add(delta);
      dedupLastTwo(deltas);
    }
    log.trace("fifo={} queued {} key={}", name, delta.type(), key);
  }

  /**
   * Collapses the last two deltas if both are deletions, keeping the one with more information:
   * the older, unless it is a tombstone. This is the only merge (client-go's {@code
   * isDeletionDup}).
   */
  private static <T> void dedupLastTwo(List<Delta<T>> deltas) {
    int n = deltas.size();
    if (n < 2) {
      return;
    }
    Delta<T> newer = deltas.get(n - 1);
    Delta<T> older = deltas.get(n - 2);
    if (older.type() != DeltaType.DELETED || newer.type() != DeltaType.DELETED) {
      return;
    }
    deltas.set(n - 2, older.isFinalStateUnknown() ? newer : older);
    deltas.remove(n - 1);
  }

  /** Runs the synced future's dependents; call only after releasing the lock. */
  private void completeSyncedIf(boolean nowSynced) {
    if (nowSynced) {
      log.debug("fifo={} synced", name);
    }
    population.complete(nowSynced);
  }

  private Delta<T> tombstone(String key, @Nullable T lastKnown) {
    return new Delta<>(DeltaType.DELETED, new DeletedFinalStateUnknown<>(key, lastKnown));
  }

  private String keyOfObject(T obj) {
    return Keys.checkedKey(keyFunc, obj);
  }

  private T transformed(String key, T obj) {
    UnaryOperator<T> fn = transform;
    if (fn == null) {
      return obj;
    }
    T out = fn.apply(obj);
    if (out == null) {
      throw new IllegalStateException("the transform returned null for key " + key);
    }
    return out;
  }

  /**
   * Handles the deltas of one popped key; called by {@link #pop} under the FIFO's lock.
   *
   * <p>Thread safety: runs on the thread that called {@code pop}, one call at a time per popping
   * thread, while that thread holds the FIFO's lock. It must be fast, must not block on another
   * thread that uses the FIFO, and must not call user handlers directly.
   *
   * @param <T> the object type
   */
  @FunctionalInterface
  public interface PopProcessor<T> {

    /**
     * Processes the deltas of one key.
     *
     * @param deltas every delta of the key since it was last popped, oldest first; unmodifiable
     *     and never empty
     * @param isInInitialList true if the FIFO had not synced yet, that is this pop drains the first
     *     {@code replace}'s keys
     */
    void process(List<Delta<T>> deltas, boolean isInInitialList);
  }

  /**
   * Builds a {@link DeltaFifo}.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the object type
   */
  public static final class Builder<T> {

    private final KeyFunc<T> keyFunc;
    private @Nullable Store<T> knownObjects;
    private @Nullable UnaryOperator<T> transform;
    private String name = "DeltaFifo";
    private boolean emitDeltaTypeReplaced;

    private Builder(KeyFunc<T> keyFunc) {
      this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
    }

    /**
     * The objects the consumer already knows (the informer's indexer): they make {@code delete}
     * of a known key count, let {@code replace} infer deletions of known keys, and are what {@code
     * resync} re-delivers. Without it (the default), deletions of objects that were already popped
     * cannot be inferred by {@code replace}, and {@code resync} does nothing. Read under the FIFO's
     * lock; its key function must agree with this FIFO's.
     */
    public Builder<T> knownObjects(@Nullable Store<T> knownObjects) {
      this.knownObjects = knownObjects;
      return this;
    }

    /**
     * A function applied once to each object given to {@code add}, {@code update}, {@code delete}
     * and {@code replace}, on the calling thread and outside the FIFO's lock, before the object is
     * queued (for example to strip {@code managedFields}). It may change the object in place; it
     * must not return null nor change the object's key, and should be idempotent. If it throws,
     * the call fails and nothing is queued.
     */
    public Builder<T> transform(@Nullable UnaryOperator<T> transform) {
      this.transform = transform;
      return this;
    }

    /**
     * Whether {@link DeltaFifo#replace} queues {@link DeltaType#REPLACED} ({@code true}) or {@link
     * DeltaType#SYNC} ({@code false}, the default, as client-go's {@code EmitDeltaTypeReplaced})
     * for each listed object. A consumer that must tell a relist from a periodic resync sets it;
     * client-go's informers did.
     */
    public Builder<T> emitDeltaTypeReplaced(boolean emitDeltaTypeReplaced) {
      this.emitDeltaTypeReplaced = emitDeltaTypeReplaced;
      return this;
    }

    /** A name for log messages, for example the resource; {@code "DeltaFifo"} by default. */
    public Builder<T> name(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank: \"" + name + "\"");
      }
      this.name = name;
      return this;
    }

    /** A new, empty, open FIFO. */
    public DeltaFifo<T> build() {
      return new DeltaFifo<>(this);
    }
  }
}

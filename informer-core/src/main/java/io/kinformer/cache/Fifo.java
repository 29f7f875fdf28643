package io.kinformer.cache;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue of keys where each key holds only the newest object given for it (client-go's {@code
 * FIFO}, {@code tools/cache/fifo.go}). It serves this use: process every object once, in its
 * newest version; forget objects deleted before they were processed; never re-process on a
 * timer. Compare {@link DeltaFifo}, which keeps every change of a key.
 *
 * <h2>What it does</h2>
 *
 * <ul>
 *   <li>{@link #add} and {@link #update} (the same): the object replaces any queued object with
 *       its key; a key not queued yet goes to the back, a queued key keeps its place.
 *   <li>{@link #delete}: the object with that key is dropped from the queue, if there is one. As in
 *       client-go, its place in the line stays reserved: if the key is added again before that
 *       place reaches the head, it is popped there, and a place whose object is gone is skipped.
 *   <li>{@link #replace replace(list, rv)}: the queue becomes exactly the listed objects, in list
 *       order (client-go: in no particular order); a key listed twice keeps its last object. The
 *       resourceVersion is ignored.
 *   <li>{@link #resync}: puts back in line any queued object whose key has lost its place, which
 *       the other operations never cause; so it normally does nothing.
 *   <li>{@link #pop}: removes the object at the head and hands it to a processor. If the
 *       processor throws, the object is gone: as client-go since 0.33 (it removed {@code
 *       AddIfNotPresent} and {@code ErrRequeue}, kubernetes commits 8e77ac00 and 238c32a1), there
 *       is no requeue, since putting an object behind newer ones moves the consumer back in time.
 * </ul>
 *
 * <h2>Synced</h2>
 *
 * <p>The FIFO is populated by the first {@code replace}, or by an {@code add}/{@code
 * update}/{@code delete} made before any {@code replace}. The first {@code replace} records how
 * many keys it queued; {@link #hasSynced()} becomes true, for good, once the FIFO is populated and
 * that many places have left the head of the line, each one's processor having returned (or
 * thrown). A place whose object was deleted counts when it is skipped. A pop made before then
 * sees {@code isInInitialList = true}.
 *
 * <p>One deliberate divergence: client-go checks the sync state for a skipped place only when its
 * {@code Pop} returns. If the last places of the first list were deleted, its {@code HasSynced}
 * then stays false for as long as {@code Pop} waits for another object (forever, if none comes),
 * and that object, queued after the list, is reported as in the initial list. This FIFO checks
 * as it skips the place.
 *
 * <h2>Locking</h2>
 *
 * <p>One {@link ReentrantLock} guards all state. As in client-go, {@link #pop} calls its {@link
 * PopProcessor} <em>while holding it</em>, so that a consumer can update structures that must stay
 * in step with the queue; the processor must be fast, must not wait for another thread that uses
 * this FIFO, and must not run user handlers. The key function runs on the calling thread, outside
 * the lock.
 *
 * <p>Thread safety: thread-safe. All methods may be called from any thread; {@link #pop} blocks
 * until an object is queued or the FIFO is closed. Objects queued and handed out are shared: treat
 * them as read-only.
 *
 * @param <T> the object type
 */
public final class Fifo<T> implements Store<T> {

  private static final Logger log = LoggerFactory.getLogger(Fifo.class);

  private final KeyFunc<T> keyFunc;

  private final ReentrantLock lock = new ReentrantLock();
  // Signalled (all waiters) when a place is queued or the FIFO is closed. Waiters hold lock.
  private final Condition notEmptyOrClosed = lock.newCondition();

  // @GuardedBy("lock"). The newest object of each queued key. Every key here has a place in
  // line; the iteration order carries no meaning.
  private final LinkedHashMap<String, T> items = new LinkedHashMap<>();

  // @GuardedBy("lock"). The line, head first. Holds every key of items at least once, and may
  // also hold keys deleted since they were queued (skipped when they reach the head) and, after a
  // delete and an add of the same key, that key twice (the later place is then skipped).
  private final ArrayDeque<String> queue = new ArrayDeque<>();

  // Guarded by lock: whether the first replace's places (or a write before any) are all out.
  private final InitialPopulation population = new InitialPopulation(lock);

  // @GuardedBy("lock"). Set by close(); pop then returns empty once the line is empty.
  private boolean closed;

  private Fifo(KeyFunc<T> keyFunc) {
    this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
  }

  /**
   * A new, empty, open FIFO that files objects under {@code keyFunc} (client-go's {@code
   * NewFIFO}).
   */
  public static <T> Fifo<T> create(KeyFunc<T> keyFunc) {
    return new Fifo<>(keyFunc);
  }

  /**
   * Queues {@code obj} under its key, replacing the object queued there if any (which keeps its
   * place), and marks the FIFO populated.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes
   */
  @Override
  public void add(T obj) {
    String key = keyOf(obj);
    boolean nowSynced;
    lock.lock();
    try {
      nowSynced = population.writtenLocked();
      if (!items.containsKey(key)) {
        queue.addLast(key);
      }
      items.put(key, obj);
      notEmptyOrClosed.signalAll();
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /**
   * The same as {@link #add}.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes
   */
  @Override
  public void update(T obj) {
    add(obj);
  }

  /**
   * Drops the object queued under {@code obj}'s key, if any, and marks the FIFO populated. The
   * consumer is not told: this FIFO assumes it only cares about the objects that remain.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes
   */
  @Override
  public void delete(T obj) {
    String key = keyOf(obj);
    boolean nowSynced;
    lock.lock();
    try {
      nowSynced = population.writtenLocked();
      items.remove(key);
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /**
   * Makes the queue exactly {@code objects}, in their order; the first call sets the count of
   * places that {@link #hasSynced()} waits for (the number of distinct keys listed).
   *
   * @param objects the complete list of objects
   * @param resourceVersion ignored, as in client-go
   * @throws KeyException if the key function cannot key one of the objects; nothing changes then
   */
  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    Objects.requireNonNull(objects, "objects");
    LinkedHashMap<String, T> listed = new LinkedHashMap<>();
    for (T obj : objects) {
      listed.put(keyOf(Objects.requireNonNull(obj, "an element of objects is null")), obj);
    }
    boolean nowSynced;
    lock.lock();
    try {
      nowSynced = population.replacedLocked(listed.size());
      items.clear();
      items.putAll(listed);
      queue.clear();
      queue.addAll(listed.keySet());
      if (!queue.isEmpty()) {
        notEmptyOrClosed.signalAll();
      }
      log.debug("fifo replace listed={}", listed.size());
    } finally {
      lock.unlock();
    }
    completeSyncedIf(nowSynced);
  }

  /** Gives every queued object whose key has no place in line one at the back (see the class). */
  @Override
  public void resync() {
    lock.lock();
    try {
      Set<String> inLine = new HashSet<>(queue);
      for (String key : items.keySet()) {
        if (inLine.add(key)) {
          queue.addLast(key);
        }
      }
      if (!queue.isEmpty()) {
        notEmptyOrClosed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until an object is queued, removes it, and hands it to {@code processor} <em>under this
   * FIFO's lock</em> (see the class Javadoc). Places of deleted objects are skipped on the way. If
   * the processor throws, the exception propagates and the object is not queued again.
   *
   * <p>After {@link #close()}, objects still queued are handed out as usual; only a pop that finds
   * the line empty returns empty.
   *
   * @return the object handed to the processor, or empty if the FIFO is closed and empty
   * @throws InterruptedException if interrupted while waiting (or on entry); nothing is popped
   */
  public Optional<T> pop(PopProcessor<T> processor) throws InterruptedException {
    Objects.requireNonNull(processor, "processor");
    boolean nowSynced = false;
    lock.lockInterruptibly();
    try {
      while (true) {
        while (queue.isEmpty()) {
          if (closed) {
            return Optional.empty();
          }
          notEmptyOrClosed.await();
        }
        boolean isInInitialList = !population.isSyncedLocked();
        String key = queue.removeFirst();
        boolean countsTowardsSync = population.leftHeadLocked();
        T obj = items.remove(key);
        if (obj == null) {
          // Deleted since it was queued. client-go checks the sync state only when its Pop
          // returns; there is nothing to process for this place, so check now (see the class).
          log.trace("fifo skipped the place of deleted key={}", key);
          if (countsTowardsSync) {
            nowSynced |= population.checkLocked();
          }
          continue;
        }
        try {
          processor.process(obj, isInInitialList);
        } finally {
          // As client-go: synced only once the processing of the last initial object is over.
          if (countsTowardsSync) {
            nowSynced |= population.checkLocked();
          }
        }
        return Optional.of(obj);
      }
    } finally {
      lock.unlock();
      completeSyncedIf(nowSynced);
    }
  }

  /**
   * Closes the FIFO: pops blocked on an empty line return empty, and so will every later pop that
   * finds it empty. Objects already queued can still be popped, and writes are still accepted, as
   * in client-go. Idempotent.
   */
  public void close() {
    lock.lock();
    try {
      closed = true;
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
   * before any {@code replace}, or every place queued by the first {@code replace} has left the
   * head of the line. Once true, stays true.
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
   * never fails, and never completes if the FIFO is never populated and drained. Completing the
   * returned copy does not affect the FIFO. Dependent actions registered without an executor run
   * on the thread that completes it (the one popping or writing, after the lock is released).
   */
  public CompletableFuture<Void> synced() {
    return population.future().copy();
  }

  /** The keys of the queued objects, in pop order; an unmodifiable snapshot. */
  @Override
  public List<String> listKeys() {
    lock.lock();
    try {
      return List.copyOf(inLineLocked());
    } finally {
      lock.unlock();
    }
  }

  /** The queued objects, in pop order; an unmodifiable snapshot. */
  @Override
  public List<T> list() {
    lock.lock();
    try {
      List<T> out = new ArrayList<>(items.size());
      for (String key : inLineLocked()) {
        out.add(items.get(key));
      }
      return Collections.unmodifiableList(out);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The object queued under {@code obj}'s key.
   *
   * @throws KeyException if the key function cannot key {@code obj}
   */
  @Override
  public Optional<T> get(T obj) {
    return getByKey(keyOf(obj));
  }

  /** The object queued under {@code key}. */
  @Override
  public Optional<T> getByKey(String key) {
    lock.lock();
    try {
      return Optional.ofNullable(items.get(key));
    } finally {
      lock.unlock();
    }
  }

  /** The number of queued objects. */
  public int size() {
    lock.lock();
    try {
      return items.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether no object is queued. */
  public boolean isEmpty() {
    return size() == 0;
  }

  @Override
  public String toString() {
    return "Fifo[size=" + size() + "]";
  }

  /** For tests: how many threads are blocked in {@link #pop} waiting for an object. */
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
      if (!new HashSet<>(queue).containsAll(items.keySet())) {
        throw new IllegalStateException("a queued key has no place in line: " + items.keySet());
      }
      population.checkInvariantsLocked();
    } finally {
      lock.unlock();
    }
  }

  /** The queued keys in pop order: the first place of each key that is in items. */
  private Set<String> inLineLocked() {
    assert lock.isHeldByCurrentThread();
    Set<String> keys = new LinkedHashSet<>();
    for (String key : queue) {
      if (items.containsKey(key)) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Runs the synced future's dependents; call only after releasing the lock. */
  private void completeSyncedIf(boolean nowSynced) {
    if (nowSynced) {
      log.debug("fifo synced");
    }
    population.complete(nowSynced);
  }

  private String keyOf(T obj) {
    return Keys.checkedKey(keyFunc, Objects.requireNonNull(obj, "obj"));
  }

  /**
   * Handles one popped object; called by {@link Fifo#pop} under the FIFO's lock.
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
     * Processes one object.
     *
     * @param obj the newest object queued under its key
     * @param isInInitialList true if the FIFO had not synced yet, that is this pop drains the first
     *     {@code replace}'s objects
     */
    void process(T obj, boolean isInInitialList);
  }
}

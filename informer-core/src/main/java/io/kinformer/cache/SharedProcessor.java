package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Fans an informer's notifications out to its handlers' listeners (client-go's {@code
 * sharedProcessor}), and decides which listeners are due for a resync.
 *
 * <p>{@link #distribute} only queues into listener buffers, so it never blocks on a handler.
 *
 * <p>Lock: {@link #lock} guards the listener map and each listener's resync bookkeeping; it is
 * never held while a handler runs (listeners call handlers on the delivery executor).
 */
final class SharedProcessor<T extends HasMetadata> {

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  /**
   * Listener → whether it gets notifications marked as a resync (client-go's {@code listeners}):
   * set by the last {@link #shouldResync} check, true before the first.
   */
  // @GuardedBy("lock")
  private final Map<ProcessorListener<T>, Boolean> listeners = new LinkedHashMap<>();

  void addListener(ProcessorListener<T> listener) {
    lock.writeLock().lock();
    try {
      // Due until the first resync check says otherwise, as in client-go (its addListener sets
      // true). So when no handler resyncs, the check never runs and every handler gets a relist's
      // unchanged objects as updates with the same resourceVersion; with resyncs, they go to the
      // handlers due at the last check.
      listeners.put(listener, Boolean.TRUE);
    } finally {
      lock.writeLock().unlock();
    }
  }

  void removeListener(ProcessorListener<T> listener) {
    lock.writeLock().lock();
    try {
      listeners.remove(listener);
    } finally {
      lock.writeLock().unlock();
    }
    listener.stop();
  }

  /**
   * Queues {@code n} for every listener, or, for a resync ({@code sync}: an update that did not
   * change the resourceVersion), only for the listeners found due by the last {@link
   * #shouldResync}, or for all before the first. Starts no drain: the listeners that need one are
   * added to {@code toSubmit}, for {@link #submitAll} once the caller holds no lock.
   */
  void distribute(Notification<T> n, boolean sync, List<ProcessorListener<T>> toSubmit) {
    lock.readLock().lock();
    try {
      for (Map.Entry<ProcessorListener<T>, Boolean> e : listeners.entrySet()) {
        if ((!sync || e.getValue()) && e.getKey().enqueue(n)) {
          toSubmit.add(e.getKey());
        }
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Starts the drains {@link #distribute} collected; call holding no lock. */
  static <T extends HasMetadata> void submitAll(List<ProcessorListener<T>> toSubmit) {
    for (ProcessorListener<T> l : toSubmit) {
      l.submitDrain();
    }
    toSubmit.clear();
  }

  /** Marks the listeners whose resync period elapsed; true if any did. */
  boolean shouldResync(long nowNanos) {
    lock.writeLock().lock();
    try {
      boolean any = false;
      for (Map.Entry<ProcessorListener<T>, Boolean> e : listeners.entrySet()) {
        ProcessorListener<T> l = e.getKey();
        boolean due = l.shouldResync(nowNanos);
        e.setValue(due);
        if (due) {
          any = true;
          l.determineNextResync(nowNanos);
        }
      }
      return any;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The informer's resync check period changed: re-derive every listener's period. */
  void resyncCheckPeriodChanged(Duration checkPeriod, long nowNanos) {
    lock.writeLock().lock();
    try {
      for (ProcessorListener<T> l : listeners.keySet()) {
        l.resyncPeriod = determineResyncPeriod(l.requestedResyncPeriod, checkPeriod);
        l.determineNextResync(nowNanos);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Whether the calling thread holds {@link #lock}; for tests. */
  boolean holdsLock() {
    return lock.getReadHoldCount() > 0 || lock.isWriteLockedByCurrentThread();
  }

  List<ProcessorListener<T>> listeners() {
    lock.readLock().lock();
    try {
      return new ArrayList<>(listeners.keySet());
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Stops every listener and forgets them. */
  List<ProcessorListener<T>> stopAll() {
    List<ProcessorListener<T>> all;
    lock.writeLock().lock();
    try {
      all = new ArrayList<>(listeners.keySet());
      listeners.clear();
    } finally {
      lock.writeLock().unlock();
    }
    all.forEach(ProcessorListener::stop);
    return all;
  }

  /**
   * client-go's {@code determineResyncPeriod}: no resync if either is zero; never more often than
   * the informer checks.
   */
  static Duration determineResyncPeriod(Duration desired, Duration check) {
    if (desired.isZero() || check.isZero()) {
      return Duration.ZERO;
    }
    return desired.compareTo(check) < 0 ? check : desired;
  }
}

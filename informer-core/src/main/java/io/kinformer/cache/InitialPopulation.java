package io.kinformer.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * When a queue has handed out its first list (client-go's {@code populated}, {@code
 * initialPopulationCount} and {@code checkSynced} of {@code fifo.go} and {@code delta_fifo.go}),
 * for {@link Fifo} and {@link DeltaFifo}.
 *
 * <p>The queue is populated by its first {@code replace}, which records how many places it queued,
 * or by any other write before one. It has synced, for good, once it is populated and that many
 * places have left its head. The methods that change the state return whether the queue has just
 * synced; the queue then calls {@link #complete} once its lock is released, so that dependents of
 * {@link #future()} never run under it.
 *
 * <p>Thread safety: the {@code ...Locked} methods must be called holding the owning queue's lock
 * (asserted); {@link #future()} and {@link #complete} may be called from any thread.
 */
final class InitialPopulation {

  private final ReentrantLock lock;

  // @GuardedBy("lock"). Never reset.
  private boolean populated;

  // @GuardedBy("lock"). Places of the first replace still to leave the head; never negative.
  private int remaining;

  // @GuardedBy("lock"). populated && remaining == 0 was observed; never reset.
  private boolean synced;

  // Completed (outside the lock) right after synced becomes true.
  private final CompletableFuture<Void> future = new CompletableFuture<>();

  InitialPopulation(ReentrantLock lock) {
    this.lock = lock;
  }

  /** A write other than replace; returns whether the queue has just synced. */
  boolean writtenLocked() {
    assert lock.isHeldByCurrentThread();
    populated = true;
    return checkLocked();
  }

  /**
   * A replace that queued {@code places}: the first sets the count, later ones change nothing.
   * Returns whether the queue has just synced.
   */
  boolean replacedLocked(int places) {
    assert lock.isHeldByCurrentThread();
    if (populated) {
      return false;
    }
    populated = true;
    remaining = places;
    return checkLocked();
  }

  /**
   * A place left the head. Returns whether it was one of the first list's; the queue then calls
   * {@link #checkLocked} when it is done with it.
   */
  boolean leftHeadLocked() {
    assert lock.isHeldByCurrentThread();
    if (remaining == 0) {
      return false;
    }
    remaining--;
    return true;
  }

  /** client-go's {@code checkSynced}; returns whether the queue has just synced. */
  boolean checkLocked() {
    assert lock.isHeldByCurrentThread();
    if (!synced && populated && remaining == 0) {
      synced = true;
      return true;
    }
    return false;
  }

  boolean isSyncedLocked() {
    assert lock.isHeldByCurrentThread();
    return synced;
  }

  /** Completed when the queue syncs; dependents run on the thread that calls {@link #complete}. */
  CompletableFuture<Void> future() {
    return future;
  }

  /** Completes {@link #future()} if {@code justSynced}; call only after releasing the lock. */
  void complete(boolean justSynced) {
    if (justSynced) {
      future.complete(null);
    }
  }

  /** For tests: throws if the invariants on the fields are broken. */
  void checkInvariantsLocked() {
    assert lock.isHeldByCurrentThread();
    if (remaining < 0 || (synced && !populated)) {
      throw new IllegalStateException(
          "bad sync state: populated=" + populated + " remaining=" + remaining + " synced="
              + synced);
    }
  }
}

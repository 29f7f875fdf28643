package io.kinformer.workqueue;

import io.kinformer.time.Cancellable;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One wake-up of a queue, scheduled on its {@link io.kinformer.time.Scheduler} for the earliest
 * ready time of its waiting items. Its scheduler handle arrives after it is scheduled (outside the
 * queue's lock), so a cancel that comes first is remembered and applied when the handle arrives.
 *
 * <p>Thread safety: thread-safe; {@link #handleLock} guards only the handle and the cancel flag and
 * is never held while calling the scheduler or the queue.
 */
final class WakeUp implements Runnable {

  /** When it is due, on the queue's clock ({@code nanoTime}). */
  final long at;

  private final Consumer<WakeUp> action;
  private final String description;
  private final ReentrantLock handleLock = new ReentrantLock();
  // @GuardedBy("handleLock")
  private @Nullable Cancellable handle;
  // @GuardedBy("handleLock")
  private boolean cancelled;

  /** A wake-up due {@code at} that runs {@code action} with itself when it fires. */
  WakeUp(long at, Consumer<WakeUp> action, String description) {
    this.at = at;
    this.action = action;
    this.description = description;
  }

  @Override
  public void run() {
    action.accept(this);
  }

  /** Records the scheduler's handle; cancels it at once if {@link #cancel()} came first. */
  void scheduled(Cancellable h) {
    boolean cancelNow;
    handleLock.lock();
    try {
      handle = h;
      cancelNow = cancelled;
    } finally {
      handleLock.unlock();
    }
    if (cancelNow) {
      h.cancel();
    }
  }

  /** Cancels the wake-up, now or as soon as its handle arrives. Idempotent. */
  void cancel() {
    Cancellable h;
    handleLock.lock();
    try {
      cancelled = true;
      h = handle;
    } finally {
      handleLock.unlock();
    }
    if (h != null) {
      h.cancel();
    }
  }

  @Override
  public String toString() {
    return description;
  }
}

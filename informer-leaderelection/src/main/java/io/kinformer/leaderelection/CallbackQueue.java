package io.kinformer.leaderelection;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the elector's callbacks one at a time, in submission order, on an executor, as one serial
 * task that drains the queue: the election thread only enqueues. A callback that throws is logged
 * and the next one runs.
 *
 * <p>Thread safety: thread-safe. The lock guards the queue only; callbacks run outside it.
 */
final class CallbackQueue {

  private static final Logger log = LoggerFactory.getLogger(CallbackQueue.class);

  private final Executor executor;
  private final String owner;
  private final ReentrantLock lock = new ReentrantLock();

  // @GuardedBy("lock"): callbacks not started yet, oldest first.
  private final ArrayDeque<Named> pending = new ArrayDeque<>();
  // @GuardedBy("lock"): whether a drain task is submitted or running; while it is, only it polls.
  private boolean draining;

  /** Whether the current thread is running one of this queue's callbacks. */
  private final ThreadLocal<Boolean> inCallback = ThreadLocal.withInitial(() -> false);

  private record Named(String name, Runnable callback) {}

  CallbackQueue(Executor executor, String owner) {
    this.executor = executor;
    this.owner = owner;
  }

  /** Queues {@code callback}; {@code name} names it in the log if it throws. */
  void submit(String name, Runnable callback) {
    boolean start;
    lock.lock();
    try {
      pending.add(new Named(name, callback));
      start = !draining;
      draining = true;
    } finally {
      lock.unlock();
    }
    if (start) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        lock.lock();
        try {
          draining = false;
          pending.clear();
        } finally {
          lock.unlock();
        }
        log.warn("lease={} the callback executor refused {}; callbacks dropped", owner, name, e);
      }
    }
  }

  /** Whether the calling thread is running a callback of this queue (which must not wait for it). */
  boolean isCallbackThread() {
    return inCallback.get();
  }

  private void drain() {
    inCallback.set(true);
    try {
      drainLoop();
    } finally {
      inCallback.set(false);
    }
  }

  private void drainLoop() {
    while (true) {
      Named next;
      lock.lock();
      try {
        next = pending.poll();
        if (next == null) {
          draining = false;
          return;
        }
      } finally {
        lock.unlock();
      }
      try {
        next.callback().run();
      } catch (RuntimeException e) {
        log.warn("lease={} callback {} threw; the election goes on", owner, next.name(), e);
      }
    }
  }
}

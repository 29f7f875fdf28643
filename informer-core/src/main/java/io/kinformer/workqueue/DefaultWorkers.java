package io.kinformer.workqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * See {@link Workers}. Threads: {@code threads} workers, each running {@link #runWorker()} until
 * the queue reports shutdown. Locks: {@link #lifecycleLock} guards the state and the thread list
 * only; it is never held while a worker runs user code or while joining.
 */
final class DefaultWorkers<T> implements Workers {

  private static final Logger log = LoggerFactory.getLogger(DefaultWorkers.class);

  private enum State {
    /** Built, no thread started. */
    NEW,
    /** Threads started. */
    RUNNING,
    /** close() was called; final. */
    CLOSED
  }

  private final String name;
  private final RateLimitingQueue<T> queue;
  private final Reconciler<T> reconciler;
  private final int threadCount;
  private final ThreadFactory threadFactory;

  private final ReentrantLock lifecycleLock = new ReentrantLock();
  // @GuardedBy("lifecycleLock")
  private State state = State.NEW;
  // @GuardedBy("lifecycleLock"): the started threads; empty unless start() ran.
  private final List<Thread> threads = new ArrayList<>();

  DefaultWorkers(
      String name,
      RateLimitingQueue<T> queue,
      Reconciler<T> reconciler,
      int threadCount,
      ThreadFactory threadFactory) {
    this.name = name;
    this.queue = queue;
    this.reconciler = reconciler;
    this.threadCount = threadCount;
    this.threadFactory = threadFactory;
  }

  @Override
  public Workers start() {
    lifecycleLock.lock();
    try {
      switch (state) {
        case RUNNING:
          return this;
        case CLOSED:
          throw new IllegalStateException("workers " + name + " are closed and cannot restart");
        case NEW:
          break;
        default:
          throw new IllegalStateException("Invalid workers state: " + state);
      }
      for (int i = 0; i < threadCount; i++) {
        Thread t = threadFactory.newThread(this::runWorker);
        if (t == null) {
          throw new IllegalStateException("thread factory returned null for workers " + name);
        }
        t.setName("kinformer-" + name + "-worker-" + i);
        threads.add(t);
      }
      for (Thread t : threads) {
        t.start();
      }
      state = State.RUNNING;
    } finally {
      lifecycleLock.unlock();
    }
    log.info("Started workers={} threads={}", name, threadCount);
    return this;
  }

  @Override
  public void close() {
    List<Thread> toJoin;
    boolean wasRunning;
    lifecycleLock.lock();
    try {
      if (threads.contains(Thread.currentThread())) {
        throw new IllegalStateException(
            "close() called from worker thread " + Thread.currentThread().getName());
      }
      wasRunning = state == State.RUNNING;
      state = State.CLOSED;
      toJoin = List.copyOf(threads);
    } finally {
      lifecycleLock.unlock();
    }
    try {
      queue.shutDownWithDrain();
      for (Thread t : toJoin) {
        t.join();
      }
    } catch (InterruptedException e) {
      queue.shutDown();
      Thread.currentThread().interrupt();
      log.info("Interrupted while closing workers={}; not waiting for their threads", name);
      return;
    }
    if (wasRunning) {
      log.info("Stopped workers={}", name);
    }
  }

  /** One worker: client-go's {@code for c.processNextWorkItem() {}}. */
  private void runWorker() {
    while (true) {
      Optional<T> next;
      try {
        next = queue.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        log.warn(
            "Worker {} of workers={} was interrupted; it stops, the others go on",
            Thread.currentThread().getName(),
            name);
        return;
      }
      if (next.isEmpty()) {
        return;
      }
      T key = next.get();
      try {
        processOne(key);
      } finally {
        queue.done(key);
      }
    }
  }

  private void processOne(T key) {
    Reconciler.Result result;
    try {
      result = reconciler.reconcile(key);
      if (result == null) {
        throw new IllegalStateException("reconciler returned null instead of a Result");
      }
    } catch (InterruptedException e) {
      queue.addRateLimited(key);
      // The next get() sees the flag and ends this worker.
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      queue.addRateLimited(key);
      log.warn(
          "Reconcile failed; retrying with rate limit workers={} key={} requeues={}",
          name,
          key,
          queue.numRequeues(key),
          e);
      return;
    }
    switch (result.action()) {
      case DONE:
        queue.forget(key);
        break;
      case REQUEUE:
        queue.addRateLimited(key);
        break;
      case REQUEUE_AFTER:
        queue.forget(key);
        queue.addAfter(key, result.delay());
        break;
      default:
        throw new IllegalStateException("Invalid reconcile action: " + result.action());
    }
  }
}

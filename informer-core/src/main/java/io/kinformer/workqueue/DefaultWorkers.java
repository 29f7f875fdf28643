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

  private static final PriorityQueue.AddOptions RATE_LIMITED =
      PriorityQueue.AddOptions.defaults().withRateLimited(true);

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

  /**
   * One worker: client-go's {@code for c.processNextWorkItem() {}}. It ends only when the queue
   * shuts down (close()): nothing of ours interrupts a worker, so an interrupt is a stray one
   * (a reconciler restoring the flag after catching InterruptedException, as the Java idiom
   * goes) and is cleared, not obeyed; letting it end the worker would shrink the pool silently.
   */
  private void runWorker() {
    while (true) {
      Optional<PriorityQueue.Prioritized<T>> next;
      try {
        if (Thread.interrupted()) {
          log.debug("Worker {} of workers={}: cleared a stray interrupt",
              Thread.currentThread().getName(), name);
        }
        next = take();
      } catch (InterruptedException e) {
        log.warn(
            "Worker {} of workers={} was interrupted while waiting; workers stop only when closed,"
                + " so it goes on",
            Thread.currentThread().getName(),
            name);
        continue;
      }
      if (next.isEmpty()) {
        return;
      }
      T key = next.get().item();
      int priority = next.get().priority();
      try {
        processOne(key, priority);
      } catch (Throwable t) {
        // From the queue's rate limiter or a metric (user code): the key is still marked done
        // below, and this worker goes on.
        log.error("Worker of workers={} failed handling key={}; it goes on", name, key, t);
      } finally {
        try {
          queue.done(key);
        } catch (Throwable t) {
          log.error("Worker of workers={} failed marking key={} done; it goes on", name, key, t);
        }
      }
    }
  }

  /** The next key, with its priority if the queue is a {@link PriorityQueue} (else 0). */
  private Optional<PriorityQueue.Prioritized<T>> take() throws InterruptedException {
    if (queue instanceof PriorityQueue<T> pq) {
      return pq.getWithPriority();
    }
    return queue.get().map(key -> new PriorityQueue.Prioritized<>(key, 0));
  }

  /** Requeues {@code key} at the priority it was handed out with, as controller-runtime does. */
  private void requeue(T key, int priority, PriorityQueue.AddOptions options) {
    if (queue instanceof PriorityQueue<T> pq) {
      pq.add(key, options.withPriority(priority));
    } else if (options.rateLimited()) {
      queue.addRateLimited(key);
    } else {
      queue.addAfter(key, options.after());
    }
  }

  private void processOne(T key, int priority) {
    Reconciler.Result result;
    try {
      result = reconciler.reconcile(key);
      if (result == null) {
        throw new IllegalStateException("reconciler returned null instead of a Result");
      }
    } catch (Exception e) {
      // InterruptedException included: a stray interrupt (see runWorker), a failure like any.
      requeue(key, priority, RATE_LIMITED);
      log.warn(
          "Reconcile failed; retrying with rate limit workers={} key={} requeues={}",
          name,
          key,
          queue.numRequeues(key),
          e);
      return;
    } catch (Throwable t) {
      // An Error (an AssertionError, a StackOverflowError, a class that failed to initialize):
      // as controller-runtime does with a panic, log it and retry the key; ending the thread
      // would drop the key and leave the controller with one worker fewer, silently.
      requeue(key, priority, RATE_LIMITED);
      log.error(
          "Reconcile threw {}; retrying with rate limit workers={} key={} requeues={}",
          t.getClass().getName(),
          name,
          key,
          queue.numRequeues(key),
          t);
      return;
    }
    switch (result.action()) {
      case DONE:
        queue.forget(key);
        break;
      case REQUEUE:
        requeue(key, priority, RATE_LIMITED);
        break;
      case REQUEUE_AFTER:
        queue.forget(key);
        requeue(key, priority, PriorityQueue.AddOptions.defaults().withAfter(result.delay()));
        break;
      default:
        throw new IllegalStateException("Invalid reconcile action: " + result.action());
    }
  }
}

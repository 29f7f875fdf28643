package io.kinformer.workqueue;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Worker threads that drain a {@link RateLimitingQueue} into a {@link Reconciler}: the {@code
 * processNextWorkItem} loop every client-go controller writes by hand.
 *
 * <p>Each of the N threads, named {@code kinformer-<name>-worker-<i>} (i from 0), loops: {@code
 * get} a key → {@link Reconciler#reconcile} → {@code forget} on success, {@code addRateLimited} on
 * an exception (logged at WARN with the key and stack trace), or what the {@link Reconciler.Result}
 * asks for → {@code done}. It stops when {@code get} reports the queue shut down.
 *
 * <p>With a {@link PriorityQueue}, workers take keys with {@link PriorityQueue#getWithPriority()}
 * and requeue a key (after a failure, a {@code requeue} or a {@code requeueAfter}) at the
 * priority it was handed out with, as controller-runtime does.
 *
 * <pre>{@code
 * RateLimitingQueue<String> queue =
 *     RateLimitingQueue.create(RateLimiters.defaultControllerRateLimiter());
 * try (Workers workers = Workers.builder("widgets", queue, this::reconcile).threads(2).start()) {
 *   // feed the queue from an informer's event handler, then wait for the end of the program
 * }
 * }</pre>
 *
 * <p>Lifecycle: {@link #start()} is idempotent; {@link #close()} shuts the queue down with drain
 * (workers finish the key in hand and the keys still queued), then joins the threads. Workers
 * cannot restart after close. The workers own the queue's shutdown: close them rather than the
 * queue.
 *
 * <p>Thread safety: thread-safe. {@code start} and {@code close} may be called from any thread
 * except a worker's own.
 */
public interface Workers extends AutoCloseable {

  /**
   * Starts the threads, once; later calls do nothing.
   *
   * @return this
   * @throws IllegalStateException if already closed
   */
  Workers start();

  /**
   * Shuts the queue down with drain and waits for every worker thread to end. Idempotent. If
   * interrupted while waiting, shuts the queue down without drain, restores the interrupt flag and
   * returns; the threads then end after their current key.
   *
   * @throws IllegalStateException if called from one of the worker threads (it would wait for
   *     itself)
   */
  @Override
  void close();

  /**
   * A builder of workers named {@code name} (used in thread names and logs) that drain {@code
   * queue} into {@code reconciler}.
   *
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static <T> Builder<T> builder(String name, RateLimitingQueue<T> queue, Reconciler<T> reconciler) {
    return new Builder<>(name, queue, reconciler);
  }

  /**
   * Builds {@link Workers}.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the key type
   */
  final class Builder<T> {
    private final String name;
    private final RateLimitingQueue<T> queue;
    private final Reconciler<T> reconciler;
    private int threads = 1;
    private ThreadFactory threadFactory = daemonThreads();

    private Builder(String name, RateLimitingQueue<T> queue, Reconciler<T> reconciler) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank: '" + name + "'");
      }
      this.name = name;
      this.queue = Objects.requireNonNull(queue, "queue");
      this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
    }

    /**
     * How many worker threads (default 1).
     *
     * @throws IllegalArgumentException if {@code threads < 1}
     */
    public Builder<T> threads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1: " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Where the worker threads come from (default: daemon threads from {@link
     * Executors#defaultThreadFactory()}). The threads it makes are renamed {@code
     * kinformer-<name>-worker-<i>}; their daemon flag is the factory's. The factory is called by
     * {@link Workers#start()} while it holds the workers' lifecycle lock: it must not call back
     * into these workers.
     */
    public Builder<T> threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /** The workers, not started yet. */
    public Workers build() {
      return new DefaultWorkers<>(name, queue, reconciler, threads, threadFactory);
    }

    /** Builds the workers and starts them. */
    public Workers start() {
      return build().start();
    }

    private static ThreadFactory daemonThreads() {
      ThreadFactory base = Executors.defaultThreadFactory();
      return r -> {
        Thread t = base.newThread(r);
        t.setDaemon(true);
        return t;
      };
    }
  }
}

package io.kinformer.workqueue;

import java.util.Optional;

/**
 * A work queue for controllers (client-go's {@code workqueue.TypedInterface}): producers {@link
 * #add} keys, workers {@link #get} one, process it and then call {@link #done}.
 *
 * <p>Guarantees, as in client-go:
 *
 * <ul>
 *   <li>An item is handed to at most one worker at a time: between {@code get} returning it and
 *       {@code done(item)}, no other {@code get} returns it.
 *   <li>Adding an item that is already queued does nothing (the item is processed once).
 *   <li>Adding an item while it is being processed marks it dirty: it is queued again when the
 *       worker calls {@code done(item)}, not before.
 *   <li>Distinct items are handed out in the order they were first added (FIFO).
 *   <li>After {@link #shutDown()} or {@link #shutDownWithDrain()}, new adds are ignored; items
 *       already queued are still handed out, and once none is left {@code get} returns empty at
 *       once, including to callers that were already waiting.
 * </ul>
 *
 * <p>Not promised: any order between the re-processing of a dirty item and other items beyond FIFO;
 * {@link #len()} is informational only (do not gate {@code add} or {@code get} on it).
 *
 * <p>Items are compared with {@code equals}/{@code hashCode}; use immutable keys (such as {@code
 * "namespace/name"}). Null items are rejected.
 *
 * <p>Thread safety: thread-safe. Any number of producers and workers may call any method
 * concurrently. Metrics (see {@link MetricsProvider}) are reported on the calling thread, outside
 * the queue's lock.
 *
 * @param <T> the item type, usually {@code String} keys
 */
public interface WorkQueue<T> {

  /**
   * Marks {@code item} as needing processing. Does nothing if it is already queued, or if the queue
   * is shutting down. If a worker is processing it right now, it is queued again once that worker
   * calls {@link #done}.
   */
  void add(T item);

  /**
   * The number of items waiting to be handed out (not counting items being processed or, for a
   * {@link DelayingQueue}, items whose delay has not passed). For information only.
   */
  int len();

  /**
   * Blocks until an item can be handed out and returns it; the caller must call {@link
   * #done(Object)} with it when finished. Returns empty once the queue is shut down and no item is
   * left to hand out: the calling worker should then stop.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  Optional<T> get() throws InterruptedException;

  /**
   * Marks {@code item}, handed out by {@link #get()}, as processed. If it was added again while it
   * was processed, it is queued again now.
   */
  void done(T item);

  /**
   * Shuts the queue down: later adds are ignored, and {@link #get()} returns empty to every waiting
   * and future caller once the items already queued have been handed out. Returns without waiting
   * for workers. Also releases a concurrent {@link #shutDownWithDrain()} that is still waiting.
   * Idempotent.
   */
  void shutDown();

  /**
   * Like {@link #shutDown()}, then waits until no item is being processed, that is until every item
   * handed out by {@link #get()} is {@link #done}. Items still queued are not waited for (as in
   * client-go): running workers keep getting them until the queue is empty. Workers must call
   * {@code done} for every item they got, or this waits forever; a concurrent {@link #shutDown()}
   * stops the wait.
   *
   * @throws InterruptedException if interrupted while waiting; the queue stays shut down
   */
  void shutDownWithDrain() throws InterruptedException;

  /** Whether {@link #shutDown()} or {@link #shutDownWithDrain()} has been called. */
  boolean isShuttingDown();

  /** A FIFO work queue with the system clock and scheduler and no metrics. */
  static <T> WorkQueue<T> create() {
    return create(QueueOptions.defaults());
  }

  /** A FIFO work queue configured by {@code options} (name, clock, scheduler, metrics). */
  static <T> WorkQueue<T> create(QueueOptions options) {
    return new DefaultWorkQueue<>(options);
  }
}

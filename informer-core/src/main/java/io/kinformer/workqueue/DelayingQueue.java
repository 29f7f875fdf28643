package io.kinformer.workqueue;

import java.time.Duration;

/**
 * A {@link WorkQueue} that can also add an item later (client-go's {@code TypedDelayingInterface}),
 * so that a failed item is retried without a hot loop.
 *
 * <p>Waiting items are kept in a priority queue ordered by ready time, with no bound on their
 * number (nothing is dropped), and one wake-up is scheduled on the injected {@link
 * io.kinformer.time.Scheduler} for the earliest of them (and at most 10 s ahead, as client-go's
 * heartbeat does). When it fires, every item whose time has come is {@link #add added}, in
 * ready-time order (ties in the order they were added). With a {@code FakeClock} (informer-core's test fixtures),
 * {@code advance(d)} moves due items into the queue on the calling thread.
 *
 * <p>Shutting the queue down discards the items still waiting and cancels the wake-up.
 *
 * <p>Thread safety: thread-safe, like {@link WorkQueue}.
 *
 * @param <T> the item type
 */
public interface DelayingQueue<T> extends WorkQueue<T> {

  /**
   * Adds {@code item} once {@code delay} has passed. A zero or negative delay adds it now. If the
   * item is already waiting, it keeps the earlier of its current and its new ready time. Ignored
   * once the queue is shutting down. Counts as a retry in the metrics.
   */
  void addAfter(T item, Duration delay);

  /** A delaying queue with the system clock and scheduler and no metrics. */
  static <T> DelayingQueue<T> create() {
    return create(QueueOptions.defaults());
  }

  /** A delaying queue configured by {@code options} (name, clock, scheduler, metrics). */
  static <T> DelayingQueue<T> create(QueueOptions options) {
    return new DefaultDelayingQueue<>(new DefaultWorkQueue<>(options), options);
  }
}

package io.kinformer.workqueue;

import java.time.Duration;

/**
 * Decides how long an item should wait before it is retried (client-go's {@code TypedRateLimiter}).
 * {@link RateLimiters} has client-go's limiters.
 *
 * <p>Thread safety: implementations must be thread-safe; a queue calls them from every worker.
 *
 * @param <T> the item type
 */
public interface RateLimiter<T> {

  /**
   * How long {@code item} should wait now. Counts as one failure (or one reservation) of the item:
   * each call may change the limiter's state. Never negative.
   */
  Duration when(T item);

  /**
   * Stops tracking {@code item}: whether it finally succeeded or is given up on, its failure count
   * starts again from zero.
   */
  void forget(T item);

  /** How many failures of {@code item} are being tracked (calls to {@link #when} since forget). */
  int numRequeues(T item);
}

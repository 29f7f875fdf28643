package io.kinformer.workqueue;

import java.util.Objects;

/**
 * A {@link DelayingQueue} that delays re-added items as a {@link RateLimiter} decides (client-go's
 * {@code TypedRateLimitingInterface}): the queue a controller uses.
 *
 * <p>Call {@link #forget} when an item succeeded (or is given up on), or the limiter keeps counting
 * its failures forever. {@code forget} only resets the limiter: the worker must still call {@link
 * #done}. {@link Workers} runs this protocol for you.
 *
 * <p>Thread safety: thread-safe, like {@link WorkQueue}; the limiter must be thread-safe too (all
 * of {@link RateLimiters} are).
 *
 * @param <T> the item type
 */
public interface RateLimitingQueue<T> extends DelayingQueue<T> {

  /** Adds {@code item} after the delay {@link RateLimiter#when} gives for it. */
  void addRateLimited(T item);

  /** Stops tracking {@code item}'s failures in the rate limiter ({@link RateLimiter#forget}). */
  void forget(T item);

  /** How many times {@code item} has been rate-limited since it was last forgotten. */
  int numRequeues(T item);

  /** A rate-limiting queue with the system clock and scheduler and no metrics. */
  static <T> RateLimitingQueue<T> create(RateLimiter<T> rateLimiter) {
    return create(rateLimiter, QueueOptions.defaults());
  }

  /**
   * A rate-limiting queue configured by {@code options}. A limiter that reads time (such as {@link
   * RateLimiters#bucket(double, int, io.kinformer.time.Clock)}) should use the same clock.
   */
  static <T> RateLimitingQueue<T> create(RateLimiter<T> rateLimiter, QueueOptions options) {
    Objects.requireNonNull(rateLimiter, "rateLimiter");
    return new DefaultRateLimitingQueue<>(
        new DefaultDelayingQueue<>(new DefaultWorkQueue<>(options), options), rateLimiter);
  }
}

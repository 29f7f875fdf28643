package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * See {@link RateLimiters#withMaxWait}; client-go's {@code TypedWithMaxWaitRateLimiter}.
 * Thread-safe if its limiter is; no state of its own.
 */
final class MaxWaitRateLimiter<T> implements RateLimiter<T> {

  private final RateLimiter<T> limiter;
  private final Duration maxDelay;

  MaxWaitRateLimiter(RateLimiter<T> limiter, Duration maxDelay) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.maxDelay = RateLimiters.requireNonNegative(maxDelay, "maxDelay");
  }

  @Override
  public Duration when(T item) {
    Duration d = limiter.when(item);
    return d.compareTo(maxDelay) > 0 ? maxDelay : d;
  }

  @Override
  public void forget(T item) {
    limiter.forget(item);
  }

  @Override
  public int numRequeues(T item) {
    return limiter.numRequeues(item);
  }
}

package io.kinformer.workqueue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * See {@link RateLimiters#maxOf(List)}; client-go's {@code TypedMaxOfRateLimiter}. Thread-safe if
 * its limiters are; no state of its own.
 */
final class MaxOfRateLimiter<T> implements RateLimiter<T> {

  private final List<RateLimiter<T>> limiters;

  MaxOfRateLimiter(List<? extends RateLimiter<T>> limiters) {
    Objects.requireNonNull(limiters, "limiters");
    if (limiters.isEmpty()) {
      throw new IllegalArgumentException("maxOf needs at least one limiter, got none");
    }
    this.limiters = List.copyOf(limiters);
  }

  @Override
  public Duration when(T item) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<T> limiter : limiters) {
      Duration d = limiter.when(item);
      if (d.compareTo(longest) > 0) {
        longest = d;
      }
    }
    return longest;
  }

  @Override
  public void forget(T item) {
    for (RateLimiter<T> limiter : limiters) {
      limiter.forget(item);
    }
  }

  @Override
  public int numRequeues(T item) {
    int most = 0;
    for (RateLimiter<T> limiter : limiters) {
      most = Math.max(most, limiter.numRequeues(item));
    }
    return most;
  }
}

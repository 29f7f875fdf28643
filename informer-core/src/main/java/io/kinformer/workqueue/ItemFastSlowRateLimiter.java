package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * See {@link RateLimiters#itemFastSlow}; client-go's {@code TypedItemFastSlowRateLimiter}.
 * Thread-safe: the failure counts live in a concurrent map updated atomically per item.
 */
final class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {

  private final Duration fast;
  private final Duration slow;
  private final int maxFastAttempts;

  /** Failures per item since it was last forgotten; clamped at Integer.MAX_VALUE, never wraps. */
  private final ConcurrentHashMap<T, Integer> failures = new ConcurrentHashMap<>();

  ItemFastSlowRateLimiter(Duration fast, Duration slow, int maxFastAttempts) {
    this.fast = RateLimiters.requireNonNegative(fast, "fast");
    this.slow = RateLimiters.requireNonNegative(slow, "slow");
    if (maxFastAttempts < 0) {
      throw new IllegalArgumentException(
          "maxFastAttempts must not be negative: " + maxFastAttempts);
    }
    this.maxFastAttempts = maxFastAttempts;
  }

  @Override
  public Duration when(T item) {
    Objects.requireNonNull(item, "item");
    int attempts =
        failures.merge(item, 1, (old, one) -> old == Integer.MAX_VALUE ? old : old + one);
    return attempts <= maxFastAttempts ? fast : slow;
  }

  @Override
  public void forget(T item) {
    failures.remove(Objects.requireNonNull(item, "item"));
  }

  @Override
  public int numRequeues(T item) {
    return failures.getOrDefault(Objects.requireNonNull(item, "item"), 0);
  }
}

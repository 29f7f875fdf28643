package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * See {@link RateLimiters#itemExponentialFailure}; client-go's {@code
 * TypedItemExponentialFailureRateLimiter}. Thread-safe: the failure counts live in a concurrent map
 * updated atomically per item.
 */
final class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {

  private final long baseNanos;
  private final Duration max;
  private final long maxNanos;

  /** Failures per item since it was last forgotten; clamped at Integer.MAX_VALUE, never wraps. */
  private final ConcurrentHashMap<T, Integer> failures = new ConcurrentHashMap<>();

  ItemExponentialFailureRateLimiter(Duration base, Duration max) {
    this.baseNanos =
        DefaultDelayingQueue.saturatedNanos(RateLimiters.requireNonNegative(base, "base"));
    this.max = RateLimiters.requireNonNegative(max, "max");
    this.maxNanos = DefaultDelayingQueue.saturatedNanos(max);
  }

  @Override
  public Duration when(T item) {
    Objects.requireNonNull(item, "item");
    int[] exp = new int[1];
    failures.compute(
        item,
        (k, v) -> {
          int previous = v == null ? 0 : v;
          exp[0] = previous;
          return previous == Integer.MAX_VALUE ? previous : previous + 1;
        });
    // As client-go: computed in floating point so that it cannot wrap; anything beyond a long of
    // nanoseconds, or beyond max, is max.
    double backoff = baseNanos * Math.pow(2, exp[0]);
    if (backoff >= 0x1p63) {
      return max;
    }
    long calculated = (long) backoff;
    if (calculated > maxNanos) {
      return max;
    }
    return Duration.ofNanos(calculated);
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

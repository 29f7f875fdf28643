package io.kinformer.workqueue;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * client-go's rate limiters ({@code util/workqueue/default_rate_limiters.go}), with the same
 * arithmetic.
 *
 * <ul>
 *   <li>{@link #itemExponentialFailure}: per item, {@code base × 2^failures}, capped at {@code max}
 *       (5 ms, 10 ms, 20 ms, … for a 5 ms base). Never overflows: a delay beyond the cap, or beyond
 *       what a {@code long} of nanoseconds holds, is the cap.
 *   <li>{@link #bucket}: one token bucket shared by all items ({@code golang.org/x/time/rate}
 *       semantics): it starts full with {@code burst} tokens and refills at {@code qps} per second;
 *       each {@code when} reserves a token and returns how long until that token exists.
 *   <li>{@link #maxOf}: asks every limiter and returns the longest delay.
 *   <li>{@link #itemFastSlow}: per item, {@code fast} for the first {@code maxFastAttempts}
 *       failures, then {@code slow}.
 *   <li>{@link #withMaxWait}: caps another limiter's delay.
 *   <li>{@link #defaultControllerRateLimiter()}: {@code maxOf(itemExponentialFailure(5 ms, 1000 s),
 *       bucket(10 qps, burst 100))}, client-go's {@code DefaultTypedControllerRateLimiter}. The
 *       bucket limits only the overall retry rate, never first-time adds.
 * </ul>
 *
 * <p>Thread safety: every limiter returned is thread-safe. This class is stateless.
 */
public final class RateLimiters {

  private RateLimiters() {}

  /**
   * Per-item exponential backoff (client-go's {@code NewTypedItemExponentialFailureRateLimiter}):
   * the n-th {@code when(item)} since {@code forget(item)} returns {@code min(base × 2^(n-1),
   * max)}.
   *
   * @throws IllegalArgumentException if {@code base} or {@code max} is negative
   */
  public static <T> RateLimiter<T> itemExponentialFailure(Duration base, Duration max) {
    return new ItemExponentialFailureRateLimiter<>(base, max);
  }

  /**
   * A token bucket on the system clock; see {@link #bucket(double, int, Clock)}.
   *
   * @throws IllegalArgumentException if {@code qps} is not positive or {@code burst < 1}
   */
  public static <T> RateLimiter<T> bucket(double qps, int burst) {
    return bucket(qps, burst, Clock.system());
  }

  /**
   * A token bucket shared by all items (client-go's {@code TypedBucketRateLimiter} over {@code
   * rate.NewLimiter(qps, burst)}): it holds at most {@code burst} tokens, starts full, and gains
   * {@code qps} tokens per second. Each {@code when} takes a token, going into debt if none is
   * left, and returns how long until the bucket is out of that debt; for 10 qps, burst 100, the
   * first 100 calls return zero and the next ones 100 ms, 200 ms, 300 ms and so on. {@code
   * Double.POSITIVE_INFINITY} qps never delays. {@code forget} and {@code numRequeues} do nothing
   * (always 0).
   *
   * @throws IllegalArgumentException if {@code qps} is not positive or {@code burst < 1}
   */
  public static <T> RateLimiter<T> bucket(double qps, int burst, Clock clock) {
    return new BucketRateLimiter<>(qps, burst, clock);
  }

  /**
   * Asks every limiter (each counts the failure) and returns the longest delay; {@code numRequeues}
   * is the largest of theirs and {@code forget} forgets in all (client-go's {@code
   * NewTypedMaxOfRateLimiter}). Combined with a bucket, the burst can appear to be exceeded when
   * some items were separately delayed longer.
   *
   * @throws IllegalArgumentException if no limiter is given
   */
  @SafeVarargs
  public static <T> RateLimiter<T> maxOf(RateLimiter<T>... limiters) {
    return maxOf(List.of(limiters));
  }

  /**
   * As {@link #maxOf(RateLimiter[])}.
   *
   * @throws IllegalArgumentException if {@code limiters} is empty
   */
  public static <T> RateLimiter<T> maxOf(List<? extends RateLimiter<T>> limiters) {
    return new MaxOfRateLimiter<>(limiters);
  }

  /**
   * Per item, {@code fast} for the first {@code maxFastAttempts} calls to {@code when} since {@code
   * forget}, then {@code slow} (client-go's {@code NewTypedItemFastSlowRateLimiter}).
   *
   * @throws IllegalArgumentException if a delay or {@code maxFastAttempts} is negative
   */
  public static <T> RateLimiter<T> itemFastSlow(Duration fast, Duration slow, int maxFastAttempts) {
    return new ItemFastSlowRateLimiter<>(fast, slow, maxFastAttempts);
  }

  /**
   * {@code limiter}, with every delay capped at {@code maxDelay} (client-go's {@code
   * NewTypedWithMaxWaitRateLimiter}).
   *
   * @throws IllegalArgumentException if {@code maxDelay} is negative
   */
  public static <T> RateLimiter<T> withMaxWait(RateLimiter<T> limiter, Duration maxDelay) {
    return new MaxWaitRateLimiter<>(limiter, maxDelay);
  }

  /**
   * client-go's default controller rate limiter on the system clock: {@code
   * maxOf(itemExponentialFailure(5 ms, 1000 s), bucket(10, 100))}, that is per-item exponential
   * backoff from 5 ms up to 1000 s, and at most 10 retries per second overall after a burst of 100.
   */
  public static <T> RateLimiter<T> defaultControllerRateLimiter() {
    return defaultControllerRateLimiter(Clock.system());
  }

  /** As {@link #defaultControllerRateLimiter()}, with the bucket on {@code clock}. */
  public static <T> RateLimiter<T> defaultControllerRateLimiter(Clock clock) {
    return maxOf(
        List.of(
            itemExponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000)),
            bucket(10, 100, clock)));
  }

  static Duration requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
    return d;
  }
}

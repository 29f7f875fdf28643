package io.kinformer.workqueue;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * See {@link RateLimiters#bucket(double, int, Clock)}: client-go's {@code TypedBucketRateLimiter},
 * whose {@code When} is {@code limiter.Reserve().Delay()} on a {@code golang.org/x/time/rate}
 * limiter. This class reproduces {@code rate.Limiter.reserveN(now, 1, InfDuration)} and its float
 * arithmetic ({@code advance}, {@code tokensFromDuration}, {@code durationFromTokens}), reading
 * time from the injected {@link Clock}.
 *
 * <p>Deliberate divergence: {@code Delay()} reads the clock a second time after reserving; here the
 * delay is measured from the reservation's own instant, which is the same reading on a fake clock
 * and at most a few nanoseconds longer on the real one.
 *
 * <p>Thread safety: thread-safe; {@link #lock} guards the bucket.
 */
final class BucketRateLimiter<T> implements RateLimiter<T> {

  private static final double NANOS_PER_SECOND = 1e9;

  private final double qps;
  private final int burst;
  private final Clock clock;

  private final ReentrantLock lock = new ReentrantLock();
  // @GuardedBy("lock"): tokens left at lastNanos; negative when reservations are in debt.
  private double tokens;
  // @GuardedBy("lock"): when tokens was last updated; meaningless until started.
  private long lastNanos;
  // @GuardedBy("lock"): false until the first reservation (Go's zero "last" time: the bucket is
  // full).
  private boolean started;

  BucketRateLimiter(double qps, int burst, Clock clock) {
    if (!(qps > 0)) {
      throw new IllegalArgumentException("qps must be positive: " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1: " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.tokens = burst;
  }

  @Override
  public Duration when(T item) {
    if (qps == Double.POSITIVE_INFINITY) {
      return Duration.ZERO;
    }
    lock.lock();
    try {
      long now = clock.nanoTime();
      double available = advanceLocked(now);
      available -= 1;
      long waitNanos = 0;
      if (available < 0) {
        waitNanos = durationFromTokens(-available);
      }
      lastNanos = now;
      started = true;
      tokens = available;
      return Duration.ofNanos(waitNanos);
    } finally {
      lock.unlock();
    }
  }

  /** The tokens at {@code now}: those at the last update plus the refill since, capped at burst. */
  private double advanceLocked(long now) {
    assert lock.isHeldByCurrentThread();
    long last = started ? lastNanos : now;
    if (now - last < 0) {
      last = now;
    }
    double refilled = tokens + seconds(now - last) * qps;
    return Math.min(refilled, burst);
  }

  /** Go's {@code Duration.Seconds()}: whole seconds plus the fraction, to keep big values exact. */
  private static double seconds(long nanos) {
    long whole = nanos / 1_000_000_000L;
    long fraction = nanos % 1_000_000_000L;
    return whole + fraction / NANOS_PER_SECOND;
  }

  /** Go's {@code Limit.durationFromTokens}, saturating at the largest duration. */
  private long durationFromTokens(double needed) {
    double nanos = (needed / qps) * NANOS_PER_SECOND;
    if (nanos >= 0x1p63) {
      return Long.MAX_VALUE;
    }
    return (long) nanos;
  }

  @Override
  public void forget(T item) {}

  @Override
  public int numRequeues(T item) {
    return 0;
  }
}

package io.kinformer.time;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/** See {@link Backoff#exponential}. Confined to one thread. */
final class ExponentialBackoff implements Backoff {

  private final long initialNanos;
  private final long maxNanos;
  private final double factor;
  private final double jitter;
  private final long resetAfterNanos;
  private final Clock clock;
  private final RandomGenerator random;

  /** The next un-jittered delay; always within [initialNanos, maxNanos]. */
  private long currentNanos;
  /** When {@link #next()} was last called, or {@code null} before the first call. */
  private Long lastCallNanos;

  ExponentialBackoff(
      Duration initial,
      Duration max,
      double factor,
      double jitter,
      Duration resetAfter,
      Clock clock,
      RandomGenerator random) {
    requirePositive(initial, "initial");
    requirePositive(max, "max");
    requirePositive(resetAfter, "resetAfter");
    if (initial.compareTo(max) > 0) {
      throw new IllegalArgumentException("initial " + initial + " exceeds max " + max);
    }
    if (!(factor >= 1.0)) {
      throw new IllegalArgumentException("factor must be at least 1: " + factor);
    }
    if (!(jitter >= 0.0)) {
      throw new IllegalArgumentException("jitter must not be negative: " + jitter);
    }
    this.initialNanos = initial.toNanos();
    this.maxNanos = max.toNanos();
    this.factor = factor;
    this.jitter = jitter;
    this.resetAfterNanos = resetAfter.toNanos();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
    this.currentNanos = initialNanos;
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }

  @Override
  public Duration next() {
    long now = clock.nanoTime();
    if (lastCallNanos != null && now - lastCallNanos > resetAfterNanos) {
      currentNanos = initialNanos;
    }
    lastCallNanos = now;
    long base = currentNanos;
    double grown = base * factor;
    currentNanos = grown >= maxNanos ? maxNanos : (long) grown;
    long jittered = base;
    if (jitter > 0) {
      double extra = base * jitter * random.nextDouble();
      jittered = extra >= Long.MAX_VALUE - base ? Long.MAX_VALUE : base + (long) extra;
    }
    return Duration.ofNanos(jittered);
  }

  @Override
  public void reset() {
    currentNanos = initialNanos;
    lastCallNanos = null;
  }
}

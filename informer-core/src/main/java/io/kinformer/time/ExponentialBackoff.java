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

  /**
   * client-go's {@code backoffManager}: restart when {@code resetAfter} has passed since the last
   * restart (or the start), whatever happened in between, instead of after that long without a
   * call.
   */
  private final boolean resetSinceLastReset;

  /** When the sequence last restarted; for {@link #resetSinceLastReset}. */
  private long lastResetNanos;

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
    this(initial, max, factor, jitter, resetAfter, clock, random, false);
  }

  ExponentialBackoff(
      Duration initial,
      Duration max,
      double factor,
      double jitter,
      Duration resetAfter,
      Clock clock,
      RandomGenerator random,
      boolean resetSinceLastReset) {
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
    this.resetSinceLastReset = resetSinceLastReset;
    this.lastResetNanos = clock.nanoTime();
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
    if (resetSinceLastReset) {
      if (now - lastResetNanos > resetAfterNanos) {
        currentNanos = initialNanos;
        lastResetNanos = now;
      }
    } else if (lastCallNanos != null && now - lastCallNanos > resetAfterNanos) {
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
    lastResetNanos = clock.nanoTime();
  }
}

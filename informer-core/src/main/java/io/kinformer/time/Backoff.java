package io.kinformer.time;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * A sequence of delays to wait between attempts that keep failing.
 *
 * <p>Thread safety: implementations are not thread-safe; confine a backoff to the loop that uses
 * it (each reflector owns one).
 */
public interface Backoff {

  /** The delay to wait before the next attempt; each call advances the sequence. */
  Duration next();

  /** Starts the sequence over, as after a success. */
  void reset();

  /**
   * Makes a {@link Backoff} for each loop that needs one: share a policy between informers (a
   * factory's, one builder's), never a backoff, whose sequence is one loop's state.
   *
   * <p>Thread safety: implementations must be thread-safe; the ones here are stateless.
   */
  @FunctionalInterface
  interface Policy {

    /** A new backoff, on {@code clock} and with jitter from {@code random}. */
    Backoff newBackoff(Clock clock, RandomGenerator random);

    /** {@link Backoff#clientGoDefault} for each loop. */
    static Policy clientGoDefault() {
      return Backoff::clientGoDefault;
    }

    /**
     * {@link Backoff#exponential} for each loop, with these settings (checked here).
     *
     * @throws IllegalArgumentException as {@link Backoff#exponential}
     */
    static Policy exponential(
        Duration initial, Duration max, double factor, double jitter, Duration resetAfter) {
      // Fail now, not when the first loop starts.
      Backoff.exponential(
          initial, max, factor, jitter, resetAfter, Clock.system(), new java.util.Random(0));
      return (clock, random) ->
          Backoff.exponential(initial, max, factor, jitter, resetAfter, clock, random);
    }
  }

  /**
   * Exponential backoff with jitter, restarting on its own once no delay was asked for during
   * {@code resetAfter}.
   *
   * <p>The un-jittered delay starts at {@code initial} and is multiplied by {@code factor} after
   * each call until it reaches {@code max}; each returned delay is the un-jittered one plus a random
   * fraction {@code [0, jitter)} of it.
   *
   * @throws IllegalArgumentException if a duration is not positive, {@code initial > max}, {@code
   *     factor < 1} or {@code jitter < 0}
   */
  static Backoff exponential(
      Duration initial,
      Duration max,
      double factor,
      double jitter,
      Duration resetAfter,
      Clock clock,
      RandomGenerator random) {
    return new ExponentialBackoff(initial, max, factor, jitter, resetAfter, clock, random);
  }

  /**
   * client-go v0.36's reflector backoff ({@code tools/cache/reflector.go}: {@code
   * wait.Backoff{800ms, factor 2, jitter 1.0, cap 30s}.DelayWithReset(clock, 2min)}): 0.8 s
   * doubling up to 30 s, each delay plus a random fraction [0, 1) of itself, so that a
   * persistently failing reflector settles at a random delay in [30, 60) s (about 0.022 requests
   * per second). As client-go's {@code backoffManager}, the sequence restarts at 0.8 s when a
   * delay is asked for more than two minutes after the last restart: after a healthy cycle of
   * more than two minutes, but also every two minutes or so while failures go on (which {@link
   * #exponential} would not do: it restarts only after two minutes without a call).
   */
  static Backoff clientGoDefault(Clock clock, RandomGenerator random) {
    return new ExponentialBackoff(
        Duration.ofMillis(800),
        Duration.ofSeconds(30),
        2.0,
        1.0,
        Duration.ofMinutes(2),
        clock,
        random,
        /* resetSinceLastReset= */ true);
  }
}

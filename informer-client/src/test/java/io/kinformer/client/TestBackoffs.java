package io.kinformer.client;

import io.kinformer.time.Backoff;
import java.time.Duration;
import java.util.Random;

/** Backoffs for tests that provoke many failures: the informer's logic, with short waits. */
public final class TestBackoffs {

  private TestBackoffs() {}

  /** 10 ms doubling to 100 ms, full jitter from {@code seed}, reset after 2 s of success. */
  public static Backoff.Policy fast(long seed) {
    return (clock, random) ->
        Backoff.exponential(
            Duration.ofMillis(10),
            Duration.ofMillis(100),
            2.0,
            1.0,
            Duration.ofSeconds(2),
            clock,
            new Random(seed));
  }
}

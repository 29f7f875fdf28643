package io.kinformer.client;

import io.kinformer.time.Backoff;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.Random;

/** Backoffs for tests that provoke many failures: the informer's logic, with short waits. */
final class TestBackoffs {

  private TestBackoffs() {}

  /** 10 ms doubling to 100 ms, full jitter from {@code seed}, reset after 2 s of success. */
  static Backoff fast(long seed) {
    return Backoff.exponential(
        Duration.ofMillis(10),
        Duration.ofMillis(100),
        2.0,
        1.0,
        Duration.ofSeconds(2),
        Clock.system(),
        new Random(seed));
  }
}

package io.kinformer.time;

import java.time.Instant;

/**
 * A source of time: a monotonic reading for measuring intervals and the wall-clock time for
 * timestamps.
 *
 * <p>Thread safety: implementations are thread-safe.
 */
public interface Clock {

  /**
   * A monotonic reading in nanoseconds with an arbitrary origin, for measuring elapsed time only
   * (like {@link System#nanoTime()}).
   */
  long nanoTime();

  /** The wall-clock time, for timestamps that humans or the API server read. */
  Instant now();

  /** The system clock. */
  static Clock system() {
    return SystemTime.INSTANCE;
  }
}

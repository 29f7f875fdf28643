package io.kinformer.leaderelection;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.testing.FakeClock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.time.Instant;

/**
 * One candidate's view of a shared {@link FakeClock}: its own clock can be offset (a wall clock
 * set wrong, or a jump in time the candidate's pending tasks do not see coming), and the
 * candidate can be killed, after which none of its scheduled tasks runs, as if its process had
 * died.
 *
 * <p>Thread safety: thread-safe.
 */
final class CandidateClock implements Clock, Scheduler {

  private final FakeClock shared;
  private volatile long jumpNanos;
  private volatile Duration wallSkew = Duration.ZERO;
  private volatile boolean dead;

  CandidateClock(FakeClock shared) {
    this.shared = shared;
  }

  @Override
  public long nanoTime() {
    return shared.nanoTime() + jumpNanos;
  }

  @Override
  public Instant now() {
    return shared.now().plusNanos(jumpNanos).plus(wallSkew);
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    return shared.schedule(() -> {
      if (!dead) {
        task.run();
      }
    }, delay);
  }

  /**
   * Moves this candidate's time forward by {@code d} at once: its tasks still fall due at their
   * shared-clock deadlines, so each runs {@code d} later by its own clock than it was meant to,
   * as after a pause of the process or a step of the monotonic clock.
   */
  void jump(Duration d) {
    jumpNanos += d.toNanos();
  }

  /** Sets the wall clock wrong by {@code skew}; the monotonic clock is unaffected. */
  void skewWallClock(Duration skew) {
    wallSkew = skew;
  }

  /** From now on nothing scheduled through this clock runs. */
  void kill() {
    dead = true;
  }
}

package io.kinformer.time;

import java.time.Duration;

/**
 * Runs a task once after a delay.
 *
 * <p>The task runs on a thread of the scheduler's choosing and must be short: anything that blocks
 * belongs on an executor of its own, which the task may hand its work to.
 *
 * <p>Thread safety: implementations are thread-safe.
 */
@FunctionalInterface
public interface Scheduler {

  /**
   * Schedules {@code task} to run once, {@code delay} from now. A zero or negative delay runs it as
   * soon as possible (never on the caller's thread for the system scheduler).
   *
   * @return a handle that cancels the task if it has not run yet
   */
  Cancellable schedule(Runnable task, Duration delay);

  /**
   * The process-wide system scheduler: one lazily started daemon thread named {@code
   * kinformer-scheduler} that only moves due tasks along. Tasks that throw are logged and do not
   * affect other tasks.
   */
  static Scheduler system() {
    return SystemTime.INSTANCE;
  }
}

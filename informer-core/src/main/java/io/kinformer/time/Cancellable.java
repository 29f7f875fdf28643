package io.kinformer.time;

/**
 * A handle on a scheduled task.
 *
 * <p>Thread safety: thread-safe.
 */
@FunctionalInterface
public interface Cancellable {

  /**
   * Prevents the task from running if it has not started yet. Idempotent; does nothing once the
   * task has run.
   */
  void cancel();
}

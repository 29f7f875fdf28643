package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * The controller's business logic for one key, run by {@link Workers}: bring the world in line with
 * the desired state of {@code key} and say whether to look at it again.
 *
 * <p>What the worker does with the outcome (client-go's {@code processNextWorkItem}, plus
 * controller-runtime's requeue results):
 *
 * <ul>
 *   <li>{@link Result#done()}: {@code forget(key)}, so its failure count starts over.
 *   <li>{@link Result#requeue()}: {@code addRateLimited(key)}, without logging (the failure count
 *       grows, as after an exception).
 *   <li>{@link Result#requeueAfter(Duration)}: {@code forget(key)}, then {@code addAfter(key,
 *       delay)}: "look again in 30 s".
 *   <li>an exception: {@code addRateLimited(key)} and a WARN log with the key and the stack trace.
 * </ul>
 *
 * <p>In every case the worker then calls {@code done(key)}.
 *
 * <p>Thread safety: implementations must be thread-safe when {@link Workers} runs more than one
 * thread; the queue guarantees that one key is never reconciled by two threads at once.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface Reconciler<T> {

  /**
   * Reconciles {@code key}. Runs on a worker thread; may block (on the API server, for example) but
   * should not run forever, since {@link Workers#close()} waits for it.
   *
   * @return what to do with the key next; never null
   * @throws Exception to have the key retried with rate limiting (an {@link Error} is retried
   *     the same way and logged at ERROR; the worker goes on either way)
   */
  Result reconcile(T key) throws Exception;

  /**
   * The outcome of one reconcile.
   *
   * <p>Thread safety: immutable.
   *
   * @param action what the worker does with the key
   * @param delay the delay for {@link Action#REQUEUE_AFTER}; zero for the other actions
   */
  record Result(Action action, Duration delay) {

    private static final Result DONE = new Result(Action.DONE, Duration.ZERO);
    private static final Result REQUEUE = new Result(Action.REQUEUE, Duration.ZERO);

    /**
     * Validates the result.
     *
     * @throws IllegalArgumentException if {@code delay} is negative, or non-zero for an action
     *     other than {@link Action#REQUEUE_AFTER}
     */
    public Result {
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative: " + delay);
      }
      if (action != Action.REQUEUE_AFTER && !delay.isZero()) {
        throw new IllegalArgumentException("delay " + delay + " is only for REQUEUE_AFTER");
      }
    }

    /** Success: forget the key. */
    public static Result done() {
      return DONE;
    }

    /** Try again later, rate-limited, without logging an error. */
    public static Result requeue() {
      return REQUEUE;
    }

    /**
     * Success for now, but look at the key again after {@code delay} (for example to poll an
     * external system).
     *
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public static Result requeueAfter(Duration delay) {
      return new Result(Action.REQUEUE_AFTER, delay);
    }

    /**
     * What a worker does with a key after reconciling it.
     *
     * <p>Thread safety: immutable.
     */
    public enum Action {
      /** {@code forget(key)}. */
      DONE,
      /** {@code addRateLimited(key)}. */
      REQUEUE,
      /** {@code forget(key)} and {@code addAfter(key, delay)}. */
      REQUEUE_AFTER
    }
  }
}

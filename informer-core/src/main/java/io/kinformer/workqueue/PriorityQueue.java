package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link RateLimitingQueue} that hands out the item of highest priority first
 * (controller-runtime's {@code priorityqueue.PriorityQueue}), so that a controller works on real
 * changes before the burst of keys an initial list or a resync brings.
 *
 * <p>An item is added with {@link AddOptions}: a priority (higher first; {@link #add(Object)},
 * {@link #addAfter} and {@link #addRateLimited} use 0), a delay, and whether the {@link
 * RateLimiter} decides the delay. Rules, as in controller-runtime:
 *
 * <ul>
 *   <li>Items of equal priority are handed out in the order they became ready (FIFO): an item added
 *       without delay becomes ready at once, a delayed one when its delay has passed.
 *   <li>An item already queued, or still waiting for its delay, stays there once (it is processed
 *       once) and keeps the <em>higher</em> of its priorities and the <em>earlier</em> of its ready
 *       times. When its priority goes up, it joins the end of the items of its new priority.
 *   <li>A rate-limited add waits the shorter of the given delay (if positive) and the limiter's.
 *   <li>{@link WorkQueue}'s other guarantees hold: an item is handed to one worker at a time; an
 *       item added while it is processed is queued again (dirty), with the priority and ready time
 *       of that add, and is handed out only after the worker's {@code done}; after a shutdown, adds
 *       are ignored, items still waiting for their delay are discarded, ready items are still
 *       handed out and then {@code get} returns empty.
 * </ul>
 *
 * <p>Not promised: an order between items of different priorities beyond "higher first" among those
 * ready at the moment of a {@code get}; a low-priority item may wait as long as higher-priority
 * items keep coming (there is no aging).
 *
 * <p>{@link Workers} drain it like any {@link RateLimitingQueue}, and requeue a key (after a
 * failure or a {@link Reconciler.Result#requeue()}) at the priority it was handed out with. Metrics
 * are the queue metrics of {@link MetricsProvider}; the depth goes through {@link
 * MetricsProvider#newDepthMetricWithPriority}, which a provider may label per priority.
 *
 * <p>Thread safety: thread-safe, like {@link WorkQueue}; the limiter must be thread-safe too. No
 * thread of its own: delayed items are released by a wake-up on the queue's {@link
 * io.kinformer.time.Scheduler}.
 *
 * @param <T> the item type, usually {@code String} keys
 */
public interface PriorityQueue<T> extends RateLimitingQueue<T> {

  /**
   * controller-runtime's {@code handler.LowPriority}: the priority of keys from an initial list and
   * of resyncs, below every change that really happened (see {@link PriorityEnqueueHandler}).
   */
  int LOW_PRIORITY = -100;

  /**
   * Adds {@code item} as {@code options} say (controller-runtime's {@code AddWithOpts}). Ignored
   * once the queue is shutting down. A positive delay, from the options or the rate limiter, counts
   * as a retry in the metrics.
   */
  void add(T item, AddOptions options);

  /** Adds {@code item} now with {@code priority}. */
  default void add(T item, int priority) {
    add(item, AddOptions.ofPriority(priority));
  }

  /**
   * Like {@link #get()}, with the priority the item was queued at (controller-runtime's {@code
   * GetWithPriority}).
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  Optional<Prioritized<T>> getWithPriority() throws InterruptedException;

  /**
   * A priority queue whose rate-limited adds are delayed by {@code rateLimiter}, on the system
   * clock and scheduler, without metrics.
   */
  static <T> PriorityQueue<T> create(RateLimiter<T> rateLimiter) {
    return create(rateLimiter, QueueOptions.defaults());
  }

  /**
   * A priority queue configured by {@code options} (name, clock, scheduler, metrics), whose
   * rate-limited adds are delayed by {@code rateLimiter}. A limiter that reads time should use the
   * same clock.
   */
  static <T> PriorityQueue<T> create(RateLimiter<T> rateLimiter, QueueOptions options) {
    return new DefaultPriorityQueue<>(rateLimiter, options);
  }

  /**
   * How to add an item (controller-runtime's {@code AddOpts}); start from {@link #defaults()} or
   * {@link #ofPriority(int)} and derive with the {@code with...} methods:
   *
   * <pre>{@code
   * queue.add(key, AddOptions.ofPriority(10).withAfter(Duration.ofSeconds(5)));
   * }</pre>
   *
   * <p>Thread safety: immutable.
   *
   * @param priority higher is handed out first; 0 is the priority of a plain {@code add}
   * @param after how long to wait before the item is ready; zero or negative: ready now
   * @param rateLimited whether the rate limiter also decides the delay (the shorter one wins)
   */
  record AddOptions(int priority, Duration after, boolean rateLimited) {

    private static final AddOptions DEFAULTS = new AddOptions(0, Duration.ZERO, false);

    /** Validates the options. */
    public AddOptions {
      Objects.requireNonNull(after, "after");
    }

    /** Priority 0, no delay, not rate-limited: a plain {@code add}. */
    public static AddOptions defaults() {
      return DEFAULTS;
    }

    /** {@code priority}, no delay, not rate-limited. */
    public static AddOptions ofPriority(int priority) {
      return new AddOptions(priority, Duration.ZERO, false);
    }

    /** These options with {@code priority}. */
    public AddOptions withPriority(int priority) {
      return new AddOptions(priority, after, rateLimited);
    }

    /** These options with the delay {@code after}. */
    public AddOptions withAfter(Duration after) {
      return new AddOptions(priority, after, rateLimited);
    }

    /** These options, rate-limited or not. */
    public AddOptions withRateLimited(boolean rateLimited) {
      return new AddOptions(priority, after, rateLimited);
    }
  }

  /**
   * An item handed out by {@link #getWithPriority()} and the priority it was queued at.
   *
   * <p>Thread safety: immutable (if the item is).
   *
   * @param item the item; call {@link WorkQueue#done} with it when finished
   * @param priority the priority it was queued at
   * @param <T> the item type
   */
  record Prioritized<T>(T item, int priority) {

    /** Validates the item. */
    public Prioritized {
      Objects.requireNonNull(item, "item");
    }
  }
}

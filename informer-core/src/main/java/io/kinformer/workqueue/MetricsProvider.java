package io.kinformer.workqueue;

/**
 * Creates the metrics of a named queue (client-go's {@code workqueue.MetricsProvider}). Every
 * method has a no-op default, so a binding implements only the metrics it wants.
 *
 * <p>What each metric means (times are in seconds, read from the queue's {@link
 * io.kinformer.time.Clock}):
 *
 * <ul>
 *   <li>{@code depth}: items added and not yet handed out by {@code get} (up on add, down on get).
 *       A {@link PriorityQueue} reports it per priority, through {@link
 *       #newDepthMetricWithPriority}.
 *   <li>{@code adds}: items accepted by {@code add} (a duplicate of a queued item is not counted;
 *       an item added while it is processed is).
 *   <li>{@code latency}: per item, the time from being added to being handed out.
 *   <li>{@code workDuration}: per item, the time from being handed out to {@code done}.
 *   <li>{@code unfinishedWorkSeconds}: the sum of the ages of all items being processed, and {@code
 *       longestRunningProcessorSeconds} the largest such age; both are set every 500 ms by a task
 *       on the queue's {@link io.kinformer.time.Scheduler} (started by the first add and stopped by
 *       shutdown), so that stuck workers are visible.
 *   <li>{@code retries}: calls to {@code addAfter}/{@code addRateLimited} (delaying queues only;
 *       a {@link PriorityQueue} counts, as controller-runtime does, the adds that end up with a
 *       positive delay).
 * </ul>
 *
 * <p>Module {@code informer-micrometer}'s {@code io.kinformer.micrometer.MicrometerMetrics}
 * publishes these (and the informer metrics) through a Micrometer {@code MeterRegistry}, under
 * client-go's Prometheus names.
 *
 * <p>Thread safety: implementations and the metrics they return must be thread-safe. Metric methods
 * are called on whichever thread uses the queue (producers, workers, the scheduler), outside the
 * queue's locks, so two updates may reach a metric in a different order than the queue operations
 * happened; they must be fast, must not block, must not throw and must not call back into the
 * queue. The {@code new...Metric} methods are called once per queue, when it is created.
 */
public interface MetricsProvider {

  /** The gauge of items waiting to be handed out. */
  default GaugeMetric newDepthMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /**
   * The gauge of items waiting to be handed out, per priority (controller-runtime's {@code
   * MetricsProviderWithPriority}); used by {@link PriorityQueue} instead of {@link
   * #newDepthMetric}. The default passes every change on to {@link #newDepthMetric(String)}
   * without the priority, so a provider that does not label by priority still shows one depth per
   * queue, the sum over its priorities.
   */
  default DepthMetricWithPriority newDepthMetricWithPriority(String name) {
    GaugeMetric depth = newDepthMetric(name);
    return new DepthMetricWithPriority() {
      @Override
      public void inc(int priority) {
        depth.inc();
      }

      @Override
      public void dec(int priority) {
        depth.dec();
      }
    };
  }

  /** The counter of accepted adds. */
  default CounterMetric newAddsMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The histogram of seconds from add to get. */
  default HistogramMetric newLatencyMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The histogram of seconds from get to done. */
  default HistogramMetric newWorkDurationMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The gauge of the summed ages, in seconds, of the items being processed. */
  default SettableGaugeMetric newUnfinishedWorkSecondsMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The gauge of the age, in seconds, of the longest-running item being processed. */
  default SettableGaugeMetric newLongestRunningProcessorSecondsMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The counter of delayed and rate-limited adds. */
  default CounterMetric newRetriesMetric(String name) {
    return NoopMetrics.INSTANCE;
  }

  /** The provider that records nothing; queues using it skip all metric bookkeeping. */
  static MetricsProvider noop() {
    return NoopMetrics.INSTANCE;
  }

  /**
   * A value that goes up and down by one.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  interface GaugeMetric {
    /** Adds one. */
    void inc();

    /** Subtracts one. */
    void dec();
  }

  /**
   * A value per priority that goes up and down by one (controller-runtime's {@code
   * DepthMetricWithPriority}).
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  interface DepthMetricWithPriority {
    /** Adds one to the value of {@code priority}. */
    void inc(int priority);

    /** Subtracts one from the value of {@code priority}. */
    void dec(int priority);
  }

  /**
   * A value that is set.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface SettableGaugeMetric {
    /** Sets the value. */
    void set(double value);
  }

  /**
   * A value that only goes up by one.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface CounterMetric {
    /** Adds one. */
    void inc();
  }

  /**
   * Individual observations (seconds, for the queue's metrics).
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface HistogramMetric {
    /** Records one observation. */
    void observe(double value);
  }
}

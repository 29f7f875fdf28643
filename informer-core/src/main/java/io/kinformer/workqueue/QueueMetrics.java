package io.kinformer.workqueue;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metric objects of one queue and the timestamps they need (client-go's {@code
 * defaultQueueMetrics}), shared by {@link DefaultWorkQueue} and {@link DefaultPriorityQueue}.
 *
 * <p>Thread safety: the maps are guarded by the owning queue's lock; the metric objects are
 * thread-safe and are called outside that lock.
 *
 * @param <D> the depth metric's type: a plain gauge, or one per priority
 */
final class QueueMetrics<D> {

  private static final Logger log = LoggerFactory.getLogger(QueueMetrics.class);

  final D depth;
  final MetricsProvider.CounterMetric adds;
  final MetricsProvider.HistogramMetric latency;
  final MetricsProvider.HistogramMetric workDuration;
  final MetricsProvider.SettableGaugeMetric unfinishedWorkSeconds;
  final MetricsProvider.SettableGaugeMetric longestRunningProcessor;
  // @GuardedBy("the queue's lock"): when each item queued and not yet handed out was added.
  final Map<Object, Long> addTimes = new HashMap<>();
  // @GuardedBy("the queue's lock"): when each item being processed was handed out.
  final Map<Object, Long> processingStartTimes = new HashMap<>();

  /** The metrics of the queue {@code options} name, with {@code depth} made by the caller. */
  QueueMetrics(QueueOptions options, D depth) {
    MetricsProvider p = options.metricsProvider();
    String n = options.name();
    this.depth = Objects.requireNonNull(depth, "depth metric");
    adds = Objects.requireNonNull(p.newAddsMetric(n), "adds metric");
    latency = Objects.requireNonNull(p.newLatencyMetric(n), "latency metric");
    workDuration = Objects.requireNonNull(p.newWorkDurationMetric(n), "work duration metric");
    unfinishedWorkSeconds =
        Objects.requireNonNull(p.newUnfinishedWorkSecondsMetric(n), "unfinished work metric");
    longestRunningProcessor =
        Objects.requireNonNull(
            p.newLongestRunningProcessorSecondsMetric(n), "longest running metric");
  }

  /**
   * Under the queue's lock: the summed and the largest age, in seconds, of the items being
   * processed at {@code now} (client-go's {@code updateUnfinishedWork}).
   */
  double[] unfinishedWorkLocked(long now) {
    double total = 0;
    double oldest = 0;
    for (long started : processingStartTimes.values()) {
      double age = seconds(now - started);
      total += age;
      oldest = Math.max(oldest, age);
    }
    return new double[] {total, oldest};
  }

  /**
   * Outside the queue's lock: publishes what {@link #unfinishedWorkLocked} computed. A metric that
   * throws is logged, not rethrown, so that the periodic update goes on.
   */
  void reportUnfinishedWork(double[] ages, String queueName) {
    try {
      unfinishedWorkSeconds.set(ages[0]);
      longestRunningProcessor.set(ages[1]);
    } catch (RuntimeException e) {
      log.warn("Metrics update of work queue {} threw; will retry next period", queueName, e);
    }
  }

  static double seconds(long nanos) {
    return nanos / 1e9;
  }
}

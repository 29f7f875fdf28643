package io.kinformer.workqueue;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Scheduler;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metric objects of one queue and the timestamps they need (client-go's {@code
 * defaultQueueMetrics}), shared by {@link DefaultWorkQueue} and {@link DefaultPriorityQueue}.
 *
 * <p>It also runs client-go's {@code updateUnfinishedWork}: a task on the queue's {@link Scheduler}
 * every {@link DefaultWorkQueue#UNFINISHED_WORK_UPDATE_PERIOD}, from {@link #startUpdates()} (the
 * first add) until {@link #stopUpdates()} (shutdown), that publishes the ages of the items being
 * processed.
 *
 * <p>Thread safety: the maps are guarded by the owning queue's lock; the metric objects are
 * thread-safe and are called outside that lock. {@link #updateLock} guards only the update task's
 * handle and flags, and is never held while calling the scheduler, the queue or a metric.
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

  private final String queueName;
  private final Scheduler scheduler;
  private final Supplier<double @Nullable []> sample;
  private final ReentrantLock updateLock = new ReentrantLock();
  // Read without the lock as a fast path; set under it.
  private volatile boolean updatesStarted;
  // @GuardedBy("updateLock"): the pending update, null before the first and after stop.
  private @Nullable Cancellable nextUpdate;
  // @GuardedBy("updateLock")
  private boolean updatesStopped;

  /**
   * The metrics of the queue {@code options} name, with {@code depth} made by the caller. {@code
   * sample} takes the queue's lock and returns {@link #unfinishedWorkLocked} of now, or null once
   * the queue is shutting down.
   */
  QueueMetrics(QueueOptions options, D depth, Supplier<double @Nullable []> sample) {
    MetricsProvider p = options.metricsProvider();
    String n = options.name();
    this.queueName = n;
    this.scheduler = options.scheduler();
    this.sample = Objects.requireNonNull(sample, "sample");
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

  /** Starts the periodic update, once; does nothing after {@link #stopUpdates()}. */
  void startUpdates() {
    if (updatesStarted) {
      return;
    }
    updateLock.lock();
    try {
      if (updatesStarted || updatesStopped) {
        return;
      }
      updatesStarted = true;
    } finally {
      updateLock.unlock();
    }
    scheduleUpdate();
  }

  /** Stops the periodic update for good. Idempotent. */
  void stopUpdates() {
    Cancellable pending;
    updateLock.lock();
    try {
      updatesStopped = true;
      pending = nextUpdate;
      nextUpdate = null;
    } finally {
      updateLock.unlock();
    }
    if (pending != null) {
      pending.cancel();
    }
  }

  private void scheduleUpdate() {
    Cancellable next =
        scheduler.schedule(
            this::updateUnfinishedWork, DefaultWorkQueue.UNFINISHED_WORK_UPDATE_PERIOD);
    boolean stale;
    updateLock.lock();
    try {
      stale = updatesStopped;
      if (!stale) {
        nextUpdate = next;
      }
    } finally {
      updateLock.unlock();
    }
    if (stale) {
      next.cancel();
    }
  }

  /**
   * client-go's {@code updateUnfinishedWork}, on the scheduler. A metric that throws is logged, not
   * rethrown, so that the periodic update goes on.
   */
  private void updateUnfinishedWork() {
    double[] ages = sample.get();
    if (ages == null) {
      return;
    }
    try {
      unfinishedWorkSeconds.set(ages[0]);
      longestRunningProcessor.set(ages[1]);
    } catch (RuntimeException e) {
      log.warn("Metrics update of work queue {} threw; will retry next period", queueName, e);
    }
    scheduleUpdate();
  }

  static double seconds(long nanos) {
    return nanos / 1e9;
  }
}

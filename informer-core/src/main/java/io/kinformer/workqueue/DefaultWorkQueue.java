package io.kinformer.workqueue;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The FIFO work queue, ported from client-go's {@code util/workqueue/queue.go} ({@code Typed}).
 *
 * <p>Concurrency: one {@link ReentrantLock} guards all state; {@link #changed} is signalled when an
 * item is queued, when processing empties, and on shutdown. Getters and a draining shutdown wait on
 * the same condition, yet queuing an item may {@code signal()} a single waiter: getters only wait
 * while the queue is not shutting down, and drainers only wait once it is, so the two never wait at
 * the same time. Threads: none of its own; the periodic unfinished-work metrics update runs on the
 * injected {@link io.kinformer.time.Scheduler} (only when metrics are enabled). Metric objects are
 * called after the lock is released, with values computed under it.
 */
final class DefaultWorkQueue<T> implements WorkQueue<T> {

  /** client-go's {@code defaultUnfinishedWorkUpdatePeriod}. */
  static final Duration UNFINISHED_WORK_UPDATE_PERIOD = Duration.ofMillis(500);

  private final String name;
  private final Clock clock;
  private final @Nullable QueueMetrics<MetricsProvider.GaugeMetric> metrics;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // @GuardedBy("lock"): the order items are handed out in. Every element is in dirty and not in
  // processing; no element appears twice.
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  // @GuardedBy("lock"): every item that needs processing, queued or (if also in processing)
  // waiting for its worker's done().
  private final Set<T> dirty = new HashSet<>();
  // @GuardedBy("lock"): items handed out by get() and not yet done(). May also be in dirty.
  private final Set<T> processing = new HashSet<>();
  // @GuardedBy("lock")
  private boolean shuttingDown;
  // @GuardedBy("lock"): whether a shutDownWithDrain() is waiting; shutDown() clears it.
  private boolean drain;

  DefaultWorkQueue(QueueOptions options) {
    this.name = options.name();
    this.clock = options.clock();
    this.metrics =
        options.metricsEnabled()
            ? new QueueMetrics<>(
                options,
                options.metricsProvider().newDepthMetric(options.name()),
                this::sampleUnfinishedWork)
            : null;
  }

  @Override
  public void add(T item) {
    Objects.requireNonNull(item, "item");
    boolean counted;
    lock.lock();
    try {
      if (shuttingDown || dirty.contains(item)) {
        return;
      }
      dirty.add(item);
      counted = metrics != null;
      if (metrics != null) {
        metrics.addTimes.putIfAbsent(item, clock.nanoTime());
      }
      if (!processing.contains(item)) {
        queue.addLast(item);
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
    if (counted) {
      metrics.adds.inc();
      metrics.depth.inc();
      metrics.startUpdates();
    }
  }

  @Override
  public int len() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    T item;
    double latencySeconds = -1;
    lock.lockInterruptibly();
    try {
      while (queue.isEmpty() && !shuttingDown) {
        changed.await();
      }
      item = queue.pollFirst();
      if (item == null) {
        return Optional.empty();
      }
      processing.add(item);
      dirty.remove(item);
      if (metrics != null) {
        long now = clock.nanoTime();
        metrics.processingStartTimes.put(item, now);
        Long added = metrics.addTimes.remove(item);
        if (added != null) {
          latencySeconds = QueueMetrics.seconds(now - added);
        }
      }
    } finally {
      lock.unlock();
    }
    if (metrics != null) {
      metrics.depth.dec();
      if (latencySeconds >= 0) {
        metrics.latency.observe(latencySeconds);
      }
    }
    return Optional.of(item);
  }

  @Override
  public void done(T item) {
    Objects.requireNonNull(item, "item");
    double workSeconds = -1;
    lock.lock();
    try {
      if (metrics != null) {
        Long started = metrics.processingStartTimes.remove(item);
        if (started != null) {
          workSeconds = QueueMetrics.seconds(clock.nanoTime() - started);
        }
      }
      processing.remove(item);
      boolean requeued = dirty.contains(item);
      if (requeued) {
        queue.addLast(item);
      }
      if (processing.isEmpty()) {
        // Wakes every shutDownWithDrain() waiting for processing to empty, and the getters.
        changed.signalAll();
      } else if (requeued) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
    if (workSeconds >= 0) {
      metrics.workDuration.observe(workSeconds);
    }
  }

  @Override
  public void shutDown() {
    lock.lock();
    try {
      drain = false;
      shuttingDown = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (metrics != null) {
      metrics.stopUpdates();
    }
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    lock.lock();
    try {
      drain = true;
      shuttingDown = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (metrics != null) {
      metrics.stopUpdates();
    }
    lock.lockInterruptibly();
    try {
      while (!processing.isEmpty() && drain) {
        changed.await();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }

  /** The number of items being processed. For tests and invariants. */
  int processingCount() {
    lock.lock();
    try {
      return processing.size();
    } finally {
      lock.unlock();
    }
  }

  /** Checks the invariants written on the fields; for tests. */
  void checkInvariants() {
    lock.lock();
    try {
      Set<T> seen = new HashSet<>();
      for (T item : queue) {
        if (!seen.add(item) || !dirty.contains(item) || processing.contains(item)) {
          throw new IllegalStateException("queue invariant broken for " + item);
        }
      }
      for (T item : dirty) {
        if (!seen.contains(item) && !processing.contains(item)) {
          throw new IllegalStateException("dirty item neither queued nor processing: " + item);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** The ages of the items in processing, for the periodic metrics update; null once shut down. */
  private double @Nullable [] sampleUnfinishedWork() {
    QueueMetrics<?> m = Objects.requireNonNull(metrics);
    lock.lock();
    try {
      return shuttingDown ? null : m.unfinishedWorkLocked(clock.nanoTime());
    } finally {
      lock.unlock();
    }
  }

}

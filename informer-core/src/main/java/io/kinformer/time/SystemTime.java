package io.kinformer.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real clock and a shared scheduler thread. The thread only hands due tasks along: every
 * scheduled task of the library is short (it enqueues, or submits to an executor of its own), so
 * one daemon thread serves the whole process and costs nothing when idle.
 */
final class SystemTime implements Clock, Scheduler {

  static final SystemTime INSTANCE = new SystemTime();

  private static final Logger log = LoggerFactory.getLogger(SystemTime.class);

  private volatile ScheduledThreadPoolExecutor executor;

  private SystemTime() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Instant now() {
    return Instant.now();
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    long nanos = Math.max(0, saturatedNanos(delay));
    ScheduledFuture<?> future =
        executor().schedule(() -> runContained(task), nanos, TimeUnit.NANOSECONDS);
    return () -> future.cancel(/* mayInterruptIfRunning= */ false);
  }

  private static void runContained(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.warn("Scheduled task {} threw; other tasks are unaffected", task, e);
    }
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private ScheduledThreadPoolExecutor executor() {
    ScheduledThreadPoolExecutor e = executor;
    if (e == null) {
      synchronized (this) {
        e = executor;
        if (e == null) {
          e =
              new ScheduledThreadPoolExecutor(
                  1,
                  r -> {
                    Thread t = new Thread(r, "kinformer-scheduler");
                    t.setDaemon(true);
                    return t;
                  });
          e.setRemoveOnCancelPolicy(true);
          executor = e;
        }
      }
    }
    return e;
  }
}

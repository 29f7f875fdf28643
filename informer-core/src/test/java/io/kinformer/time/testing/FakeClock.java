package io.kinformer.time.testing;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A clock and scheduler for tests: time stands still until {@link #advance(Duration)} moves it,
 * and due tasks then run on the thread that called {@code advance}, in deadline order (ties in
 * scheduling order).
 *
 * <p>Use it to drive backoff, resync and rate limiting deterministically, without sleeping:
 *
 * <pre>{@code
 * FakeClock clock = new FakeClock();
 * queue.addAfter("a", Duration.ofSeconds(5));
 * clock.advance(Duration.ofSeconds(5));   // "a" becomes ready here, on this thread
 * }</pre>
 *
 * <p>Thread safety: thread-safe. Tasks scheduled from any thread are recorded; they run only inside
 * {@code advance}/{@code runDueTasks}, never under the clock's lock, so a task may schedule more
 * tasks (which run in the same {@code advance} if they are due by its end).
 */
public final class FakeClock implements Clock, Scheduler {

  private final ReentrantLock lock = new ReentrantLock();
  private final Instant origin;

  // @GuardedBy("lock")
  private long nanos;
  // @GuardedBy("lock")
  private long sequence;
  // @GuardedBy("lock"): every task here is neither cancelled nor run.
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();

  /** A fake clock whose wall time starts at 2026-01-01T00:00:00Z. */
  public FakeClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  /** A fake clock whose wall time starts at {@code origin}. */
  public FakeClock(Instant origin) {
    this.origin = origin;
  }

  @Override
  public long nanoTime() {
    lock.lock();
    try {
      return nanos;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Instant now() {
    return origin.plusNanos(nanoTime());
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    lock.lock();
    try {
      long d = Math.max(0, saturatedNanos(delay));
      long deadline = d > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : nanos + d;
      Task t = new Task(deadline, sequence++, task);
      tasks.add(t);
      return () -> cancel(t);
    } finally {
      lock.unlock();
    }
  }

  private void cancel(Task t) {
    lock.lock();
    try {
      tasks.remove(t);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves time forward by {@code step}, running every task that falls due on the way at its own
   * deadline (so a task sees {@link #nanoTime()} equal to its deadline).
   *
   * @throws IllegalArgumentException if {@code step} is negative
   */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("step must not be negative: " + step);
    }
    long target;
    lock.lock();
    try {
      long s = saturatedNanos(step);
      target = s > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : nanos + s;
    } finally {
      lock.unlock();
    }
    while (true) {
      Task due;
      lock.lock();
      try {
        Task head = tasks.peek();
        if (head == null || head.deadline > target) {
          nanos = Math.max(nanos, target);
          return;
        }
        due = tasks.poll();
        nanos = Math.max(nanos, due.deadline);
      } finally {
        lock.unlock();
      }
      due.task.run();
    }
  }

  /** Runs the tasks already due at the current time, without moving time. */
  public void runDueTasks() {
    advance(Duration.ZERO);
  }

  /** Whether any task is waiting to run. */
  public boolean hasPendingTasks() {
    lock.lock();
    try {
      return !tasks.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** The number of tasks waiting to run. */
  public int pendingTaskCount() {
    lock.lock();
    try {
      return tasks.size();
    } finally {
      lock.unlock();
    }
  }

  /** How long until the earliest waiting task is due, if any task waits. */
  public Optional<Duration> nextDelay() {
    lock.lock();
    try {
      Task head = tasks.peek();
      return head == null ? Optional.empty() : Optional.of(Duration.ofNanos(head.deadline - nanos));
    } finally {
      lock.unlock();
    }
  }

  /** The delays, from now, of every waiting task, earliest first. */
  public List<Duration> pendingDelays() {
    lock.lock();
    try {
      List<Task> sorted = new ArrayList<>(tasks);
      sorted.sort(null);
      List<Duration> out = new ArrayList<>(sorted.size());
      for (Task t : sorted) {
        out.add(Duration.ofNanos(t.deadline - nanos));
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  private static final class Task implements Comparable<Task> {
    final long deadline;
    final long seq;
    final Runnable task;

    Task(long deadline, long seq, Runnable task) {
      this.deadline = deadline;
      this.seq = seq;
      this.task = task;
    }

    @Override
    public int compareTo(Task o) {
      int c = Long.compare(deadline, o.deadline);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  /** {@code d} in nanoseconds, saturated at the range of a {@code long}. */
  private static long saturatedNanos(Duration d) {
    if (d.compareTo(LONGEST) > 0) {
      return Long.MAX_VALUE;
    }
    return d.compareTo(LONGEST.negated()) < 0 ? Long.MIN_VALUE : d.toNanos();
  }
}

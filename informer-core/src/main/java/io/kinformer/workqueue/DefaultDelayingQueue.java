package io.kinformer.workqueue;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The delaying queue, ported from client-go's {@code util/workqueue/delaying_queue.go}.
 *
 * <p>Design: client-go runs a goroutine ({@code waitingLoop}) fed by a channel of 1000 entries and
 * woken by a timer. Here there is no thread of our own: {@link #addAfter} files the item in {@link
 * #waiting} (a priority queue by ready time) and makes sure one wake-up is scheduled on the
 * injected {@link Scheduler} no later than the earliest ready time (and no later than {@link
 * #MAX_WAIT} from now, client-go's heartbeat insurance against a scheduler that fires late or a
 * clock that disagrees with it). The wake-up moves every due item into the underlying queue and
 * schedules the next one. Nothing bounds the number of waiting items, so nothing is dropped.
 *
 * <p>Concurrency: {@link #lock} guards the waiting items and the wake-up bookkeeping. The scheduler
 * and the underlying queue (whose metrics are user code) are called after the lock is released,
 * with decisions taken under it. Lock order: this lock is never held while taking the underlying
 * queue's lock. Two wake-ups that race (a stale one whose cancel came too late, and the current
 * one) may each move a batch of due items; items within a batch keep ready-time order.
 */
final class DefaultDelayingQueue<T> implements DelayingQueue<T> {

  /** client-go's {@code maxWait}: the longest a wake-up is scheduled ahead. */
  static final Duration MAX_WAIT = Duration.ofSeconds(10);

  private final DefaultWorkQueue<T> queue;
  private final Clock clock;
  private final Scheduler scheduler;
  private final MetricsProvider.CounterMetric retries;

  private final ReentrantLock lock = new ReentrantLock();
  // @GuardedBy("lock"): items waiting for their time, earliest first (ties: first added first).
  // An entry is in waiting if and only if it is the value for its item in waitingByItem.
  private final TreeSet<Waiting<T>> waiting = new TreeSet<>();
  // @GuardedBy("lock")
  private final Map<T, Waiting<T>> waitingByItem = new HashMap<>();
  // @GuardedBy("lock")
  private long sequence;
  // @GuardedBy("lock"): the wake-up that is scheduled (or about to be), or null if none.
  private @Nullable WakeUp current;
  // @GuardedBy("lock"): set by shutdown; no item waits once it is set.
  private boolean stopped;

  DefaultDelayingQueue(DefaultWorkQueue<T> queue, QueueOptions options) {
    this.queue = queue;
    this.clock = options.clock();
    this.scheduler = options.scheduler();
    this.retries =
        options.metricsEnabled()
            ? Objects.requireNonNull(
                options.metricsProvider().newRetriesMetric(options.name()), "retries metric")
            : NoopMetrics.INSTANCE;
  }

  @Override
  public void addAfter(T item, Duration delay) {
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(delay, "delay");
    if (queue.isShuttingDown()) {
      return;
    }
    retries.inc();
    if (delay.isNegative() || delay.isZero()) {
      queue.add(item);
      return;
    }
    long now = clock.nanoTime();
    long readyAt = saturatedAdd(now, saturatedNanos(delay));
    @Nullable Plan plan;
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      Waiting<T> existing = waitingByItem.get(item);
      if (existing == null) {
        Waiting<T> entry = new Waiting<>(item, readyAt, sequence++);
        waiting.add(entry);
        waitingByItem.put(item, entry);
      } else if (readyAt < existing.readyAt) {
        // Keep the earlier time: re-file the entry (a TreeSet must not see a key change in place).
        waiting.remove(existing);
        existing.readyAt = readyAt;
        waiting.add(existing);
      }
      plan = planWakeUpLocked(now);
    } finally {
      lock.unlock();
    }
    if (plan != null) {
      plan.apply();
    }
  }

  /** Runs on the scheduler: moves every due item into the queue and plans the next wake-up. */
  private void wakeUp(WakeUp fired) {
    List<T> due = new ArrayList<>();
    @Nullable Plan plan;
    lock.lock();
    try {
      if (current == fired) {
        current = null;
      }
      if (stopped) {
        return;
      }
      long now = clock.nanoTime();
      while (!waiting.isEmpty() && waiting.first().readyAt - now <= 0) {
        Waiting<T> entry = waiting.pollFirst();
        waitingByItem.remove(entry.item);
        due.add(entry.item);
      }
      plan = planWakeUpLocked(now);
    } finally {
      lock.unlock();
    }
    // The due items have left the waiting set: each must reach the queue even if planning the
    // next wake-up, or adding another item (a user's metric), throws; the first failure is
    // rethrown once all are in (the scheduler logs it).
    RuntimeException failure = null;
    try {
      if (plan != null) {
        plan.apply();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    for (T item : due) {
      try {
        queue.add(item);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Decides whether the current wake-up is early enough for the earliest waiting item; if not,
   * replaces it. The caller applies the returned plan, if any, after releasing the lock.
   */
  private @Nullable Plan planWakeUpLocked(long now) {
    assert lock.isHeldByCurrentThread();
    if (waiting.isEmpty()) {
      return null;
    }
    long delay = Math.max(0, Math.min(waiting.first().readyAt - now, MAX_WAIT.toNanos()));
    long at = now + delay;
    if (current != null && current.at - at <= 0) {
      return null;
    }
    WakeUp replaced = current;
    WakeUp next = new WakeUp(at, this::wakeUp, "delaying-queue wake-up");
    current = next;
    return new Plan(replaced, next, Duration.ofNanos(delay));
  }

  private void stopWaiting() {
    WakeUp wake;
    lock.lock();
    try {
      stopped = true;
      waiting.clear();
      waitingByItem.clear();
      wake = current;
      current = null;
    } finally {
      lock.unlock();
    }
    if (wake != null) {
      wake.cancel();
    }
  }

  /** The number of items waiting for their time; for tests. */
  int waitingCount() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  /** The underlying queue; for tests. */
  DefaultWorkQueue<T> underlying() {
    return queue;
  }

  @Override
  public void add(T item) {
    queue.add(item);
  }

  @Override
  public int len() {
    return queue.len();
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    return queue.get();
  }

  @Override
  public void done(T item) {
    queue.done(item);
  }

  @Override
  public void shutDown() {
    queue.shutDown();
    stopWaiting();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    // Stop the waiting items first: the drain below may block for a long time.
    stopWaiting();
    queue.shutDownWithDrain();
  }

  @Override
  public boolean isShuttingDown() {
    return queue.isShuttingDown();
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow only if both operands have the same sign and the sum's sign differs.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return sum;
  }

  /** An item waiting for its time. Mutable only while out of {@link #waiting}, under the lock. */
  private static final class Waiting<T> implements Comparable<Waiting<T>> {
    final T item;
    final long seq;
    long readyAt;

    Waiting(T item, long readyAt, long seq) {
      this.item = item;
      this.readyAt = readyAt;
      this.seq = seq;
    }

    @Override
    public int compareTo(Waiting<T> o) {
      // Compare by difference: nanoTime values may wrap.
      long d = readyAt - o.readyAt;
      if (d != 0) {
        return d < 0 ? -1 : 1;
      }
      return Long.compare(seq, o.seq);
    }
  }

  /** What to do with the scheduler once the lock is released. */
  private final class Plan {
    private final @Nullable WakeUp replaced;
    private final WakeUp next;
    private final Duration delay;

    Plan(@Nullable WakeUp replaced, WakeUp next, Duration delay) {
      this.replaced = replaced;
      this.next = next;
      this.delay = delay;
    }

    void apply() {
      if (replaced != null) {
        replaced.cancel();
      }
      Cancellable handle;
      try {
        handle = scheduler.schedule(next, delay);
      } catch (RuntimeException e) {
        // Forget the wake-up that never got scheduled, so that the next addAfter plans a new one.
        lock.lock();
        try {
          if (current == next) {
            current = null;
          }
        } finally {
          lock.unlock();
        }
        throw e;
      }
      next.scheduled(handle);
    }
  }
}

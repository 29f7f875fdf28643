package io.kinformer.workqueue;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The priority queue, after controller-runtime's {@code pkg/controller/priorityqueue}.
 *
 * <p>Design: every item not handed out has one {@link Entry}, in {@link #items} and in exactly one
 * of two ordered sets: {@link #ready} (highest priority first, then by the sequence number taken
 * when it became ready, so FIFO within a priority) or {@link #waiting} (by ready time). Where
 * controller-runtime runs four goroutines around its two B-trees (an add buffer, the waiting items,
 * the hand-out and a state logger), this queue has none: {@code get} takes the first ready entry
 * whose item is not being processed, under the lock; waiting items are moved to {@link #ready} by
 * one wake-up scheduled on the injected {@link Scheduler} for the earliest ready time (at most
 * {@link DefaultDelayingQueue#MAX_WAIT} ahead, client-go's heartbeat), and the metrics'
 * unfinished-work update is a periodic task on the same scheduler, as in {@link DefaultWorkQueue}.
 *
 * <p>An item re-added while it is processed gets a new entry in {@link #ready} at once (so it keeps
 * its place among the items of its priority) that {@code get} skips until {@code done}: at most one
 * skip per item in processing, that is per worker.
 *
 * <p>Concurrency: one {@link ReentrantLock}. Getters wait on {@link #available}, a draining
 * shutdown on {@link #drained}. The scheduler, the rate limiter and the metric objects (user code)
 * are called after the lock is released, with decisions and values taken under it; a wake-up's
 * scheduler handle is recorded under the lock once it is known.
 */
final class DefaultPriorityQueue<T> implements PriorityQueue<T> {

  private static final Comparator<Entry<?>> READY_ORDER =
      Comparator.<Entry<?>>comparingInt(e -> -e.priority).thenComparingLong(e -> e.seq);
  // Ready times compared by difference: nanoTime values may wrap.
  private static final Comparator<Entry<?>> WAITING_ORDER =
      ((Comparator<Entry<?>>) (a, b) -> Long.signum(a.readyAt - b.readyAt))
          .thenComparing(READY_ORDER);

  private final String name;
  private final Clock clock;
  private final Scheduler scheduler;
  private final RateLimiter<T> rateLimiter;
  private final @Nullable QueueMetrics<MetricsProvider.DepthMetricWithPriority> metrics;
  private final MetricsProvider.CounterMetric retries;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition available = lock.newCondition();
  private final Condition drained = lock.newCondition();

  // @GuardedBy("lock"): the entry of every item queued and not handed out. An entry is in ready if
  // and only if it is not waiting, and in waiting otherwise; it is in no other entry's place.
  private final Map<T, Entry<T>> items = new HashMap<>();
  // @GuardedBy("lock"): entries ready to be handed out, in hand-out order.
  private final TreeSet<Entry<T>> ready = new TreeSet<>(READY_ORDER);
  // @GuardedBy("lock"): entries waiting for their ready time, earliest first.
  private final TreeSet<Entry<T>> waiting = new TreeSet<>(WAITING_ORDER);
  // @GuardedBy("lock"): items handed out and not yet done; their entries, if any, are not handed
  // out until then.
  private final Set<T> processing = new HashSet<>();
  // @GuardedBy("lock"): the next sequence number; entries take one whenever they become ready or
  // their priority goes up.
  private long sequence;
  // @GuardedBy("lock")
  private boolean shuttingDown;
  // @GuardedBy("lock"): whether a shutDownWithDrain() is waiting; shutDown() clears it.
  private boolean drain;
  // @GuardedBy("lock"): the wake-up that is scheduled (or about to be), or null if none.
  private @Nullable WakeUp wakeUp;

  DefaultPriorityQueue(RateLimiter<T> rateLimiter, QueueOptions options) {
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    Objects.requireNonNull(options, "options");
    this.name = options.name();
    this.clock = options.clock();
    this.scheduler = options.scheduler();
    boolean enabled = options.metricsEnabled();
    MetricsProvider provider = options.metricsProvider();
    this.metrics =
        enabled
            ? new QueueMetrics<>(
                options, provider.newDepthMetricWithPriority(name), this::sampleUnfinishedWork)
            : null;
    this.retries =
        enabled
            ? Objects.requireNonNull(provider.newRetriesMetric(name), "retries metric")
            : NoopMetrics.INSTANCE;
  }

  // ---- adding ----------------------------------------------------------------------------------

  @Override
  public void add(T item) {
    add(item, AddOptions.defaults());
  }

  @Override
  public void addAfter(T item, Duration delay) {
    Objects.requireNonNull(delay, "delay");
    add(item, AddOptions.defaults().withAfter(delay));
  }

  @Override
  public void addRateLimited(T item) {
    add(item, AddOptions.defaults().withRateLimited(true));
  }

  @Override
  public void add(T item, AddOptions options) {
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(options, "options");
    if (isShuttingDown()) {
      return;
    }
    long delay = Math.max(0, DefaultDelayingQueue.saturatedNanos(options.after()));
    if (options.rateLimited()) {
      long limited = Math.max(0, DefaultDelayingQueue.saturatedNanos(rateLimiter.when(item)));
      if (delay == 0 || limited < delay) {
        delay = limited;
      }
    }
    Effects effects = new Effects();
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      long now = clock.nanoTime();
      if (delay > 0) {
        effects.add(retries::inc);
      }
      addLocked(
          item, options.priority(), delay == 0 ? null : saturatedAdd(now, delay), now, effects);
      if (metrics != null) {
        effects.add(metrics::startUpdates);
      }
    } finally {
      lock.unlock();
    }
    effects.run();
  }

  /**
   * Files {@code item}: a new entry, or the existing one with the higher priority and the earlier
   * ready time. {@code readyAt} is null for "ready now".
   */
  private void addLocked(T item, int priority, @Nullable Long readyAt, long now, Effects effects) {
    assert lock.isHeldByCurrentThread();
    Entry<T> entry = items.get(item);
    if (entry == null) {
      entry = new Entry<>(item, priority);
      items.put(item, entry);
      if (readyAt == null) {
        makeReadyLocked(entry, now, effects);
      } else {
        waitLocked(entry, readyAt, now, effects);
      }
      return;
    }
    if (!entry.waiting) {
      if (priority > entry.priority) {
        // Re-file it at the end of its new priority; a TreeSet must not see a key change in place.
        ready.remove(entry);
        int old = entry.priority;
        entry.priority = priority;
        entry.seq = sequence++;
        ready.add(entry);
        if (metrics != null) {
          effects.add(
              () -> {
                metrics.depth.dec(old);
                metrics.depth.inc(priority);
              });
        }
      }
      return;
    }
    waiting.remove(entry);
    entry.priority = Math.max(entry.priority, priority);
    if (readyAt == null) {
      makeReadyLocked(entry, now, effects);
    } else {
      waitLocked(entry, entry.readyAt - readyAt <= 0 ? entry.readyAt : readyAt, now, effects);
    }
  }

  /** Puts {@code entry}, in no set, into {@link #ready}: it becomes ready now. */
  private void makeReadyLocked(Entry<T> entry, long now, Effects effects) {
    assert lock.isHeldByCurrentThread();
    entry.waiting = false;
    entry.seq = sequence++;
    ready.add(entry);
    if (!processing.contains(entry.item)) {
      available.signal();
    }
    if (metrics != null) {
      metrics.addTimes.putIfAbsent(entry.item, now);
      int priority = entry.priority;
      effects.add(
          () -> {
            metrics.adds.inc();
            metrics.depth.inc(priority);
          });
    }
  }

  /** Puts {@code entry}, in no set, into {@link #waiting} until {@code readyAt}. */
  private void waitLocked(Entry<T> entry, long readyAt, long now, Effects effects) {
    assert lock.isHeldByCurrentThread();
    entry.waiting = true;
    entry.readyAt = readyAt;
    entry.seq = sequence++;
    waiting.add(entry);
    planWakeUpLocked(now, effects);
  }

  // ---- handing out -----------------------------------------------------------------------------

  @Override
  public Optional<T> get() throws InterruptedException {
    return getWithPriority().map(Prioritized::item);
  }

  @Override
  public Optional<Prioritized<T>> getWithPriority() throws InterruptedException {
    Entry<T> entry;
    double latencySeconds = -1;
    lock.lockInterruptibly();
    try {
      while ((entry = firstAvailableLocked()) == null) {
        if (shuttingDown) {
          return Optional.empty();
        }
        available.await();
      }
      ready.remove(entry);
      items.remove(entry.item);
      processing.add(entry.item);
      if (metrics != null) {
        long now = clock.nanoTime();
        metrics.processingStartTimes.put(entry.item, now);
        Long added = metrics.addTimes.remove(entry.item);
        if (added != null) {
          latencySeconds = QueueMetrics.seconds(now - added);
        }
      }
    } finally {
      lock.unlock();
    }
    if (metrics != null) {
      metrics.depth.dec(entry.priority);
      if (latencySeconds >= 0) {
        metrics.latency.observe(latencySeconds);
      }
    }
    return Optional.of(new Prioritized<>(entry.item, entry.priority));
  }

  /** The first ready entry whose item is not being processed, or null. */
  private @Nullable Entry<T> firstAvailableLocked() {
    assert lock.isHeldByCurrentThread();
    for (Entry<T> e : ready) {
      if (!processing.contains(e.item)) {
        return e;
      }
    }
    return null;
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
      if (!processing.remove(item)) {
        return;
      }
      Entry<T> entry = items.get(item);
      if (entry != null && !entry.waiting) {
        available.signal(); // the dirty item can go out now
      }
      if (processing.isEmpty()) {
        drained.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (workSeconds >= 0) {
      metrics.workDuration.observe(workSeconds);
    }
  }

  @Override
  public int len() {
    lock.lock();
    try {
      int n = ready.size();
      for (T item : processing) {
        Entry<T> entry = items.get(item);
        if (entry != null && !entry.waiting) {
          n--; // dirty: not handed out until done
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  // ---- rate limiter ----------------------------------------------------------------------------

  @Override
  public void forget(T item) {
    Objects.requireNonNull(item, "item");
    rateLimiter.forget(item);
  }

  @Override
  public int numRequeues(T item) {
    Objects.requireNonNull(item, "item");
    return rateLimiter.numRequeues(item);
  }

  // ---- shutdown --------------------------------------------------------------------------------

  @Override
  public void shutDown() {
    stop(/* drainWanted= */ false);
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    stop(/* drainWanted= */ true);
    lock.lockInterruptibly();
    try {
      while (!processing.isEmpty() && drain) {
        drained.await();
      }
    } finally {
      lock.unlock();
    }
  }

  private void stop(boolean drainWanted) {
    @Nullable WakeUp wake;
    lock.lock();
    try {
      drain = drainWanted;
      shuttingDown = true;
      for (Entry<T> e : waiting) {
        items.remove(e.item);
      }
      waiting.clear();
      wake = wakeUp;
      wakeUp = null;
      available.signalAll();
      drained.signalAll();
    } finally {
      lock.unlock();
    }
    if (wake != null) {
      wake.cancel();
    }
    if (metrics != null) {
      metrics.stopUpdates();
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

  // ---- waiting items ---------------------------------------------------------------------------

  /** Makes sure a wake-up is planned no later than the earliest waiting item's time. */
  private void planWakeUpLocked(long now, Effects effects) {
    assert lock.isHeldByCurrentThread();
    if (waiting.isEmpty()) {
      return;
    }
    long delay =
        Math.max(
            0, Math.min(waiting.first().readyAt - now, DefaultDelayingQueue.MAX_WAIT.toNanos()));
    long at = now + delay;
    if (wakeUp != null && wakeUp.at - at <= 0) {
      return;
    }
    WakeUp replaced = wakeUp;
    WakeUp next = new WakeUp(at, this::wakeUp, "priority-queue wake-up");
    wakeUp = next;
    effects.add(
        () -> {
          if (replaced != null) {
            replaced.cancel();
          }
          Cancellable handle;
          try {
            handle = scheduler.schedule(next, Duration.ofNanos(delay));
          } catch (RuntimeException e) {
            forgetWakeUp(next); // so that the next add plans a new one
            throw e;
          }
          next.scheduled(handle);
        });
  }

  private void forgetWakeUp(WakeUp unscheduled) {
    lock.lock();
    try {
      if (wakeUp == unscheduled) {
        wakeUp = null;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Runs on the scheduler: every waiting item whose time has come becomes ready. */
  private void wakeUp(WakeUp fired) {
    Effects effects = new Effects();
    lock.lock();
    try {
      if (wakeUp == fired) {
        wakeUp = null;
      }
      if (shuttingDown) {
        return;
      }
      long now = clock.nanoTime();
      boolean moved = false;
      while (!waiting.isEmpty() && waiting.first().readyAt - now <= 0) {
        makeReadyLocked(waiting.pollFirst(), now, effects);
        moved = true;
      }
      if (moved) {
        available.signalAll();
      }
      planWakeUpLocked(now, effects);
    } finally {
      lock.unlock();
    }
    effects.run();
  }

  // ---- metrics ---------------------------------------------------------------------------------

  /**
   * The ages of the items being processed, for the periodic metrics update; null once shut down.
   */
  private double @Nullable [] sampleUnfinishedWork() {
    QueueMetrics<?> m = Objects.requireNonNull(metrics);
    lock.lock();
    try {
      return shuttingDown ? null : m.unfinishedWorkLocked(clock.nanoTime());
    } finally {
      lock.unlock();
    }
  }

  // ---- for tests -------------------------------------------------------------------------------

  /** The number of items waiting for their time; for tests. */
  int waitingCount() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  /** Checks the invariants written on the fields; for tests. */
  void checkInvariants() {
    lock.lock();
    try {
      if (ready.size() + waiting.size() != items.size()) {
        throw new IllegalStateException(
            "ready " + ready.size() + " + waiting " + waiting.size() + " != items " + items.size());
      }
      for (Entry<T> e : items.values()) {
        TreeSet<Entry<T>> home = e.waiting ? waiting : ready;
        if (!home.contains(e) || (e.waiting ? ready : waiting).contains(e)) {
          throw new IllegalStateException("entry filed in the wrong set: " + e.item);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum; // b >= 0 here
  }

  /** An item queued and not handed out. Mutable only while out of both sets, under the lock. */
  private static final class Entry<T> {
    final T item;
    int priority;
    long seq;
    long readyAt;
    boolean waiting;

    Entry(T item, int priority) {
      this.item = item;
      this.priority = priority;
    }
  }

  /** Calls to make once the lock is released, in order; the first failure is rethrown. */
  private static final class Effects {
    private final List<Runnable> calls = new ArrayList<>(2);

    void add(Runnable call) {
      calls.add(call);
    }

    void run() {
      RuntimeException failure = null;
      for (Runnable call : calls) {
        try {
          call.run();
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
  }
}

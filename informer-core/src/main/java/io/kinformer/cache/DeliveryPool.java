package io.kinformer.cache;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded pool that runs handler deliveries: a few daemon workers, one FIFO queue of tasks, and
 * compensation for workers stuck in a handler.
 *
 * <h2>Why bounded, and why compensate</h2>
 *
 * Each {@link ProcessorListener} submits at most one drain task at a time, and a drain delivers a
 * bounded batch before it re-queues itself at the tail. With one shared FIFO queue this makes busy
 * handlers take turns on a fixed set of {@link #size} workers, so the thread count depends on
 * neither the number of handlers nor the number of informers sharing the pool (the elastic pool
 * this replaces started a thread for every handler that happened to be draining).
 *
 * <p>The price of a fixed set is that {@code size} handlers blocked at the same time (on a lock,
 * the network, a full queue of the user's) would hold every worker and freeze all other handlers.
 * Go's runtime and virtual threads avoid this by parking the blocked goroutine; a platform-thread
 * pool cannot see blocking, so it watches for it instead: a housekeeping {@link #tick} runs every
 * {@link #stallThreshold} on the {@link Scheduler} while the pool has workers. When every worker
 * has been inside one task for at least the threshold and other tasks wait, it starts one extra
 * worker and logs a WARN naming the tasks (handlers) that hold the workers. At most {@link
 * #maxExtra} extras exist; a drain task is bounded in time, so a task that lasts the threshold is
 * in practice a single slow handler call. Every worker, original or extra, ends after it has been
 * idle for {@link #keepAlive}, so an idle pool holds no thread; workers are started again on
 * demand.
 *
 * <h2>Threads and locks</h2>
 *
 * Workers are daemon threads named {@code <prefix>N} (N counts up, never reused). {@link #lock}
 * guards the queue, the worker list and every worker's state; it is a leaf except that {@link
 * Clock#nanoTime()} and {@link Scheduler#schedule} are called under it. No task, and no thread
 * start, runs under it. The tick runs on the scheduler's thread (the test's thread with a {@code
 * FakeClock}).
 *
 * <p>Time comes from the injected clock and scheduler only. The pools kinformer makes itself use
 * the system ones even when an informer is given a fake clock: a stuck worker is a real thread
 * stuck in real time, and the informer's fake scheduler belongs to the test that drives it.
 *
 * <p>Thread safety: thread-safe; {@link #execute} may be called from any thread, including a
 * worker (a drain re-queuing itself).
 */
final class DeliveryPool extends AbstractExecutorService {

  private static final Logger log = LoggerFactory.getLogger(DeliveryPool.class);

  /** How long every worker must be inside one task before an extra worker is started. */
  static final Duration DEFAULT_STALL_THRESHOLD = Duration.ofSeconds(1);

  /** How long a worker waits for work before it ends (the elastic pool's 30 s). */
  static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(30);

  /** The most extra workers at a time: a bound on threads when many handlers block for good. */
  static final int DEFAULT_MAX_EXTRA = 64;

  /** How many stuck tasks a WARN names. */
  private static final int NAMED_IN_WARN = 8;

  private final String prefix;
  private final int size;
  private final int maxExtra;
  private final Duration stallThreshold;
  private final long stallNanos;
  private final Duration keepAlive;
  private final long keepAliveNanos;
  private final Clock clock;
  private final Scheduler scheduler;
  /** Every thread started and maybe not yet dead; shared with an owner that wants to know them. */
  private final Set<Thread> threads;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition terminated = lock.newCondition();

  // @GuardedBy("lock"): tasks submitted and not yet taken, oldest first. Invariant: if it is not
  // empty, no worker waits in `idle` without having been signalled since the task was added.
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  // @GuardedBy("lock"): every worker created and not yet exited
  private final List<Worker> workers = new ArrayList<>();
  // @GuardedBy("lock"): workers waiting for a task, most recently idle first (so under a light
  // load the same few workers take the tasks and the others can time out); a subset of workers,
  // none of them running a task
  private final ArrayDeque<Worker> idle = new ArrayDeque<>();
  // @GuardedBy("lock")
  private int threadNumber;
  // @GuardedBy("lock"): no new tasks; workers end once the queue is empty
  private boolean shutdown;
  // @GuardedBy("lock"): shutdownNow(): workers end after their current task
  private boolean stopNow;
  // @GuardedBy("lock"): the pending housekeeping tick; non-null iff workers is non-empty and the
  // pool is not shut down
  private @Nullable Cancellable tick;
  // @GuardedBy("lock"): the "no more extras" WARN was logged for the stall in progress
  private boolean capWarned;

  /**
   * A pool of {@code size} workers (plus at most {@code maxExtra} while workers are stuck).
   *
   * @param threads receives every thread the pool starts (dead ones are pruned as new ones come)
   */
  DeliveryPool(
      String prefix,
      int size,
      int maxExtra,
      Duration stallThreshold,
      Duration keepAlive,
      Clock clock,
      Scheduler scheduler,
      Set<Thread> threads) {
    if (size < 1) {
      throw new IllegalArgumentException("delivery pool size must be at least 1: " + size);
    }
    if (maxExtra < 0) {
      throw new IllegalArgumentException("maxExtra must not be negative: " + maxExtra);
    }
    if (stallThreshold.isNegative() || stallThreshold.isZero()) {
      throw new IllegalArgumentException("stall threshold must be positive: " + stallThreshold);
    }
    if (keepAlive.isNegative()) {
      throw new IllegalArgumentException("keepAlive must not be negative: " + keepAlive);
    }
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.size = size;
    this.maxExtra = maxExtra;
    this.stallThreshold = stallThreshold;
    this.stallNanos = stallThreshold.toNanos();
    this.keepAlive = keepAlive;
    this.keepAliveNanos = keepAlive.toNanos();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.threads = Objects.requireNonNull(threads, "threads");
  }

  /** A pool with the defaults, on the system clock and scheduler. */
  static DeliveryPool withDefaults(String prefix, int size, Set<Thread> threads) {
    return new DeliveryPool(
        prefix,
        size,
        DEFAULT_MAX_EXTRA,
        DEFAULT_STALL_THRESHOLD,
        DEFAULT_KEEP_ALIVE,
        Clock.system(),
        Scheduler.system(),
        threads);
  }

  /**
   * The default number of workers: one less than the number of processors, at least 1. The other
   * processor is the watch readers': they decode every event, about 80 % of an event's CPU (the
   * watch path of a 4 KB pod costs about 1.2 times plain Jackson decoding of its bytes,
   * docs/benchmarks.md), while processing and delivery on this pool are the rest.
   */
  static int defaultSize() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
  }

  // ---- submitting ----------------------------------------------------------------------------

  /**
   * Queues {@code task} at the tail; an idle worker takes it, or a new one if fewer than {@link
   * #size} exist, or else the first worker to finish its task. Never blocks and never runs the
   * task on the caller's thread.
   *
   * @throws RejectedExecutionException if the pool is shut down
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    Worker started = null;
    lock.lock();
    try {
      if (shutdown) {
        throw new RejectedExecutionException("delivery pool " + prefix + " is shut down");
      }
      queue.add(task);
      Worker w = idle.poll();
      if (w != null) {
        w.inIdle = false;
        w.wake.signal();
      } else if (workers.size() < size) {
        started = newWorkerLocked();
      }
    } finally {
      lock.unlock();
    }
    start(started);
  }

  private Worker newWorkerLocked() {
    assert lock.isHeldByCurrentThread();
    Worker w = new Worker();
    Thread t = Reflector.namedDaemon(prefix + ++threadNumber).newThread(w);
    w.thread = t;
    workers.add(w);
    threads.removeIf(old -> old.getState() == Thread.State.TERMINATED);
    threads.add(t);
    if (tick == null) {
      scheduleTickLocked();
    }
    return w;
  }

  /** Starts a worker made under the lock, after the lock is released. */
  private void start(@Nullable Worker w) {
    if (w == null) {
      return;
    }
    try {
      w.thread().start();
    } catch (RuntimeException | Error e) {
      // No thread (out of native threads): forget the worker; queued tasks wait for the others.
      lock.lock();
      try {
        workers.remove(w);
        threads.remove(w.thread());
        afterExitLocked();
      } finally {
        lock.unlock();
      }
      throw e;
    }
  }

  // ---- workers -------------------------------------------------------------------------------

  /** One worker thread's state; every field is guarded by {@link #lock}. */
  private final class Worker implements Runnable {
    final Condition wake = lock.newCondition();
    @Nullable Thread thread;
    /** Whether it is in {@link #idle}. */
    boolean inIdle;
    /** When it last became idle. */
    long idleSinceNanos;
    /** Set by the tick: the worker has been idle for keepAlive and ends. */
    boolean retire;
    /** The task it runs, null between tasks. */
    @Nullable Runnable current;
    /** When it started {@link #current}. */
    long currentSinceNanos;

    Thread thread() {
      return Objects.requireNonNull(thread);
    }

    @Override
    public void run() {
      try {
        for (Runnable task = take(this); task != null; task = take(this)) {
          runTask(task);
        }
      } finally {
        exit(this); // also when an Error escaped a task: the thread ends, a new one may start
      }
    }
  }

  /** The worker's next task, or null when it should end. Waits while there is nothing to do. */
  private @Nullable Runnable take(Worker w) {
    lock.lock();
    try {
      w.current = null;
      if (!stopNow) {
        Thread.interrupted(); // a task's leftover interrupt must not end the wait below
      }
      while (true) {
        if (stopNow) {
          return null;
        }
        Runnable task = queue.poll();
        if (task != null) {
          if (w.inIdle) {
            idle.remove(w);
            w.inIdle = false;
          }
          w.retire = false;
          w.current = task;
          w.currentSinceNanos = clock.nanoTime();
          return task;
        }
        if (shutdown || w.retire) {
          return null;
        }
        if (!w.inIdle) {
          w.inIdle = true;
          w.idleSinceNanos = clock.nanoTime();
          idle.push(w);
        }
        try {
          w.wake.await();
        } catch (InterruptedException e) {
          // Only shutdownNow() interrupts an idle worker, and the loop checks stopNow.
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void runTask(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.warn("delivery pool {}: task {} threw; the worker goes on", prefix, task, e);
    }
  }

  private void exit(Worker w) {
    Worker replacement = null;
    lock.lock();
    try {
      workers.remove(w);
      if (w.inIdle) {
        idle.remove(w);
        w.inIdle = false;
      }
      w.current = null;
      if (!shutdown && !queue.isEmpty() && idle.isEmpty() && workers.size() < size) {
        replacement = newWorkerLocked(); // the worker died of an Error with tasks waiting
      }
      afterExitLocked();
    } finally {
      lock.unlock();
    }
    start(replacement);
  }

  private void afterExitLocked() {
    assert lock.isHeldByCurrentThread();
    if (workers.isEmpty()) {
      cancelTickLocked();
    }
    if (shutdown && workers.size() <= 1) {
      // Also with one worker left: it may be the one waiting in awaitTermination (a task that
      // shuts the pool down), which waits for the others only.
      terminated.signalAll();
    }
  }

  // ---- housekeeping --------------------------------------------------------------------------

  private void scheduleTickLocked() {
    assert lock.isHeldByCurrentThread();
    if (!shutdown) {
      tick = scheduler.schedule(this::tick, stallThreshold);
    }
  }

  private void cancelTickLocked() {
    assert lock.isHeldByCurrentThread();
    Cancellable t = tick;
    tick = null;
    if (t != null) {
      t.cancel();
    }
  }

  /**
   * Retires workers idle for {@link #keepAlive}, and starts one extra worker when every worker has
   * been inside one task for {@link #stallThreshold} while tasks wait. Runs every threshold while
   * the pool has workers.
   */
  void tick() {
    Worker extra = null;
    List<Stuck> stuck = List.of();
    boolean atCap = false;
    int waiting;
    int count;
    lock.lock();
    try {
      tick = null;
      if (shutdown || workers.isEmpty()) {
        return;
      }
      long now = clock.nanoTime();
      for (Iterator<Worker> it = idle.iterator(); it.hasNext(); ) {
        Worker w = it.next();
        if (now - w.idleSinceNanos >= keepAliveNanos) {
          it.remove();
          w.inIdle = false;
          w.retire = true;
          w.wake.signal();
        }
      }
      waiting = queue.size();
      count = workers.size();
      if (waiting > 0 && allStuckLocked(now)) {
        stuck = describeStuckLocked(now);
        if (workers.size() < size + maxExtra) {
          extra = newWorkerLocked();
        } else if (!capWarned) {
          capWarned = true;
          atCap = true;
        }
      } else {
        capWarned = false;
      }
      scheduleTickLocked();
    } finally {
      lock.unlock();
    }
    if (extra != null) {
      log.warn(
          "delivery pool {}: every worker ({}) has been inside one handler call for over {} while"
              + " {} more wait; starting extra worker {} (at most {} extra). Stuck: {}. Handlers"
              + " should return quickly and hand slow work to a WorkQueue",
          prefix,
          count,
          stallThreshold,
          waiting,
          extra.thread().getName(),
          maxExtra,
          stuck);
      start(extra);
    } else if (atCap) {
      log.warn(
          "delivery pool {}: every worker ({}) has been inside one handler call for over {} and"
              + " the {} extra workers are in use; {} tasks wait until one returns. Stuck: {}",
          prefix,
          count,
          stallThreshold,
          maxExtra,
          waiting,
          stuck);
    }
  }

  private boolean allStuckLocked(long now) {
    assert lock.isHeldByCurrentThread();
    if (workers.isEmpty()) {
      return false;
    }
    for (Worker w : workers) {
      if (w.current == null || now - w.currentSinceNanos < stallNanos) {
        return false;
      }
    }
    return true;
  }

  /**
   * A worker's stuck task, captured under the lock and turned into text only after it is released:
   * a drain's {@code toString} calls the handler's, which is user code.
   */
  private record Stuck(@Nullable Runnable task, String thread, Duration since) {
    @Override
    public String toString() {
      return task + " on " + thread + " for " + since;
    }
  }

  private List<Stuck> describeStuckLocked(long now) {
    assert lock.isHeldByCurrentThread();
    List<Stuck> out = new ArrayList<>();
    for (Worker w : workers) {
      if (out.size() == NAMED_IN_WARN) {
        break;
      }
      out.add(
          new Stuck(
              w.current, w.thread().getName(), Duration.ofNanos(now - w.currentSinceNanos)));
    }
    return out;
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** No new tasks; queued ones still run, then every worker ends. Idempotent. */
  @Override
  public void shutdown() {
    lock.lock();
    try {
      shutdownLocked();
    } finally {
      lock.unlock();
    }
  }

  private void shutdownLocked() {
    assert lock.isHeldByCurrentThread();
    if (shutdown) {
      return;
    }
    shutdown = true;
    cancelTickLocked();
    for (Worker w : idle) {
      w.wake.signal();
    }
    if (workers.isEmpty()) {
      terminated.signalAll();
    }
  }

  /** Shuts down, drops queued tasks (returned) and interrupts the workers. */
  @Override
  public List<Runnable> shutdownNow() {
    lock.lock();
    try {
      shutdownLocked();
      stopNow = true;
      List<Runnable> dropped = new ArrayList<>(queue);
      queue.clear();
      for (Worker w : workers) {
        w.thread().interrupt();
      }
      return dropped;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isShutdown() {
    lock.lock();
    try {
      return shutdown;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isTerminated() {
    lock.lock();
    try {
      return shutdown && workers.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the pool is shut down, every worker has left and its thread has died (so a caller
   * that checks the live threads afterwards finds none of this pool's).
   *
   * <p>Called from one of the pool's own threads (a task that closes what owns the pool, such as a
   * handler closing its informer factory), it cannot wait for that thread, which ends only after
   * the task returns: it waits for the other workers, and returns true once they are gone.
   */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    Thread me = Thread.currentThread();
    lock.lock();
    try {
      while (!(shutdown && onlyCallerLeftLocked(me))) {
        if (nanos <= 0) {
          return false;
        }
        nanos = terminated.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
    // A worker has left the list just before its thread ends: wait for that too.
    for (Thread t : List.copyOf(threads)) {
      if (t != Thread.currentThread() && t.getState() != Thread.State.NEW) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        if (t.isAlive()) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean onlyCallerLeftLocked(Thread caller) {
    assert lock.isHeldByCurrentThread();
    return workers.isEmpty() || (workers.size() == 1 && workers.get(0).thread == caller);
  }

  // ---- for tests and diagnostics ---------------------------------------------------------------

  int workerCount() {
    lock.lock();
    try {
      return workers.size();
    } finally {
      lock.unlock();
    }
  }

  int idleCount() {
    lock.lock();
    try {
      return idle.size();
    } finally {
      lock.unlock();
    }
  }

  int queuedCount() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  int size() {
    return size;
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "DeliveryPool["
          + prefix
          + " size="
          + size
          + " workers="
          + workers.size()
          + " idle="
          + idle.size()
          + " queued="
          + queue.size()
          + (shutdown ? " shut down" : "")
          + "]";
    } finally {
      lock.unlock();
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Controller}: client-go's {@code controller} ({@code tools/cache/controller.go}), with
 * its {@code processLoop} as a task instead of a goroutine blocked in {@code Pop}.
 *
 * <h2>Processing</h2>
 *
 * <p>The queue calls {@link RealFifo#onReady} when a delta arrives while no processing task
 * exists; the controller then hands one {@link ProcessTask} to its executor. The task pops
 * batches with {@link RealFifo#tryPopBatch} until the queue is empty (then it ends, and the next
 * delta starts another) or it has run for {@link #SLICE} (then it resubmits itself, so that on a
 * shared pool the informers and handlers take turns). So at most one task runs at a time, and an
 * informer needs no thread of its own to process: with a shared pool, a process adds only each
 * reflector's thread per informer.
 *
 * <h2>Closing</h2>
 *
 * <p>{@link #close()} closes the reflector, then the queue, then waits until the task running (if
 * any) has returned; a task that starts afterwards returns at once. Called from inside a process
 * function it does not wait for itself.
 *
 * <p>Thread safety: thread-safe.
 */
final class DefaultController<T extends HasMetadata> implements Controller {

  private static final Logger log = LoggerFactory.getLogger(DefaultController.class);

  /** How long one processing task runs before it yields its thread. */
  static final Duration SLICE = Duration.ofMillis(50);

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final Controller.Config<T> config;
  private final String name;
  private final RealFifo<T> queue;
  private final Clock clock;
  private final Executor executor;
  private final @Nullable ThreadPoolExecutor ownExecutor;
  private final ProcessTask task = new ProcessTask();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  // @GuardedBy("lock")
  private boolean started;
  // @GuardedBy("lock"); also read without it by the task
  private volatile boolean closed;
  // @GuardedBy("lock"): the thread running the task, or null
  private @Nullable Thread running;
  // @GuardedBy("lock"); set by start()
  private @Nullable Reflector<T> reflector;
  /** The threads of the executor made here (dead ones pruned as new ones come), by identity. */
  private final Set<Thread> ownThreads = ConcurrentHashMap.newKeySet();

  DefaultController(Controller.Config<T> config) {
    this.config = Objects.requireNonNull(config, "config");
    this.name = config.name;
    this.queue = config.queue;
    this.clock = config.clock;
    if (config.executor != null) {
      this.executor = config.executor;
      this.ownExecutor = null;
    } else {
      ThreadFactory named = Reflector.namedDaemon("kinformer-" + name + "-processor");
      ThreadPoolExecutor own =
          new ThreadPoolExecutor(
              0,
              1,
              30,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = named.newThread(r);
                ownThreads.removeIf(old -> old.getState() == Thread.State.TERMINATED);
                ownThreads.add(t);
                return t;
              });
      this.executor = own;
      this.ownExecutor = own;
    }
  }

  @Override
  public void start() {
    Reflector<T> r;
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("controller " + name + " is closed and cannot start");
      }
      if (started) {
        return;
      }
      Reflector.Builder<T> b =
          Reflector.builder(name, config.listerWatcher, queue)
              .clock(clock)
              .scheduler(config.scheduler);
      if (!config.fullResyncPeriod.isZero()) {
        b.resync(config.fullResyncPeriod, config.shouldResync);
      }
      r = config.reflectorOptions.apply(b).build();
      reflector = r;
      started = true;
    } finally {
      lock.unlock();
    }
    queue.onReady(this::submit);
    r.start();
  }

  /** Hands the processing task to the executor (the queue's onReady; no lock held). */
  private void submit() {
    if (closed) {
      return;
    }
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      if (!closed) {
        log.error(
            "controller={} processing executor rejected its task; nothing more will be processed",
            name,
            e);
      }
    }
  }

  @Override
  public boolean hasSynced() {
    return queue.hasSynced();
  }

  @Override
  public String lastSyncResourceVersion() {
    Reflector<T> r;
    lock.lock();
    try {
      r = reflector;
    } finally {
      lock.unlock();
    }
    return r == null ? "" : r.lastSyncResourceVersion();
  }

  /** The reflector, once {@link #run} or {@link #start} made it; for tests that step it. */
  @Nullable Reflector<T> reflector() {
    lock.lock();
    try {
      return reflector;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the calling thread is running a process function of this controller. */
  boolean isProcessingThread() {
    lock.lock();
    try {
      return running == Thread.currentThread();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the calling thread is the reflector's (in a callback such as a transform). */
  boolean isReflectorThread() {
    Reflector<T> r;
    lock.lock();
    try {
      r = reflector;
    } finally {
      lock.unlock();
    }
    return r != null && r.isReflectorThread();
  }

  @Override
  public void close() {
    Reflector<T> r;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      r = reflector;
    } finally {
      lock.unlock();
    }
    if (r != null) {
      r.close();
    }
    queue.close();
    boolean interrupted = !awaitIdle();
    if (ownExecutor != null) {
      ownExecutor.shutdown();
      if (!interrupted && !isOwnThread()) {
        try {
          if (!ownExecutor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn("controller={} processing thread did not stop within {}", name, CLOSE_WAIT);
          }
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the caller is a thread of the executor this controller made (a process function). */
  private boolean isOwnThread() {
    return ownThreads.contains(Thread.currentThread());
  }

  /**
   * Waits until no task runs, unless the caller is the task itself.
   *
   * @return false if interrupted
   */
  private boolean awaitIdle() {
    long nanos = CLOSE_WAIT.toNanos();
    lock.lock();
    try {
      while (running != null && running != Thread.currentThread()) {
        if (nanos <= 0) {
          log.warn("controller={} still processing after {}", name, CLOSE_WAIT);
          return true;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } catch (InterruptedException e) {
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** client-go's {@code processLoop}, one slice at a time. */
  private final class ProcessTask implements Runnable {
    @Override
    public void run() {
      lock.lock();
      try {
        if (closed) {
          return;
        }
        running = Thread.currentThread();
      } finally {
        lock.unlock();
      }
      boolean more = false;
      try {
        long start = clock.nanoTime();
        RealFifo.BatchProcessor<T> batch = config.processBatch;
        while (!closed) {
          if (!popOnce(batch)) {
            return; // empty: the queue is idle, and its next delta starts another task
          }
          if (clock.nanoTime() - start >= SLICE.toNanos()) {
            more = true;
            return;
          }
        }
      } finally {
        lock.lock();
        try {
          running = null;
          idle.signalAll();
        } finally {
          lock.unlock();
        }
        if (more) {
          submit(); // yield: the rest goes to the back of the executor's queue
        }
      }
    }

    private boolean popOnce(RealFifo.@Nullable BatchProcessor<T> batch) {
      try {
        if (batch != null) {
          return queue.tryPopBatch(batch, config.process);
        }
        return queue.tryPopBatch(
            (deltas, initial) -> deltas.forEach(d -> config.process.process(d, initial)),
            config.process);
      } catch (VirtualMachineError e) {
        throw e;
      } catch (RuntimeException e) {
        log.warn("controller={} failed to process a delta; going on with the next", name, e);
        return true;
      } catch (Throwable t) {
        // An Error from user code run here (an index function, a handler of a simple informer):
        // ending processing would freeze the cache for good while the reflector keeps queueing.
        log.error(
            "controller={} failed to process a delta ({}); going on with the next",
            name,
            t.getClass().getName(),
            t);
        return true;
      }
    }

    @Override
    public String toString() {
      return "processing of " + name;
    }
  }

  @Override
  public String toString() {
    return "Controller[" + name + "]";
  }
}

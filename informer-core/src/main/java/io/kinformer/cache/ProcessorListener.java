package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers notifications to one handler: client-go's {@code processorListener}, without its two
 * goroutines per handler.
 *
 * <p>Notifications go into an unbounded buffer; whenever the buffer is non-empty and no drain is
 * running, one drain task is submitted to the delivery executor (normally a {@link DeliveryPool}
 * shared by every handler of every informer of a factory). The drain calls the handler for up to
 * {@link #BATCH} notifications or {@link #BATCH_TIME}, whichever comes first, then resubmits itself
 * if more are waiting: it goes to the tail of the executor's queue, so busy handlers take turns on
 * the pool's few threads and a big backlog cannot starve another handler. At most one drain per
 * listener exists at any time, which is what makes calls to one handler sequential and ordered.
 * Because a drain is bounded in time, a drain that runs for long is a single slow handler call,
 * which is what the pool's stall compensation looks for; the drain's {@code toString} names the
 * handler and the informer for the pool's WARN.
 *
 * <p>The handler is never called under {@link #lock}.
 *
 * <p>Thread safety: thread-safe. {@link #enqueue} is called by the informer's processing task and
 * by a thread adding a handler late, under the informer's {@code blockDeltas}, and {@link
 * #submitDrain} after it is released; the handler runs on the executor's threads, one call at a
 * time.
 */
final class ProcessorListener<T extends HasMetadata> implements ResourceEventHandlerRegistration {

  private static final Logger log = LoggerFactory.getLogger(ProcessorListener.class);

  /** Notifications per drain task before yielding the executor thread. */
  static final int BATCH = 64;

  /**
   * Time per drain task before yielding the executor thread (checked after each call): a handler
   * that takes milliseconds per call gets a turn of one call or a few, as fast ones get 64.
   */
  static final Duration BATCH_TIME = Duration.ofMillis(5);

  private static final long BATCH_NANOS = BATCH_TIME.toNanos();

  /** How long delivery pauses after the handler threw (client-go: one second). */
  static final Duration PAUSE_AFTER_FAILURE = Duration.ofSeconds(1);

  /** A handler call at least this long is logged (client-go's trace threshold). */
  static final Duration SLOW_CALL = Duration.ofMillis(100);

  /** With more notifications than this waiting, a slow call is a WARN (client-go's 1024). */
  static final int SLOW_BACKLOG = 1024;

  private final CompletableFuture<Void> syncedFuture = new CompletableFuture<>();

  private final String informerName;
  private final ResourceEventHandler<? super T> handler;
  /** The handler's name in every log line (client-go's {@code nameForHandler}). */
  private final String handlerName;
  /** The handler's latency and call-duration histograms; set once metrics are attached. */
  private volatile InformerMetricsProvider.HandlerMetrics metrics =
      InformerMetricsProvider.HandlerMetrics.NONE;

  /**
   * When each pending notification was queued, in the order of {@link #pending}, once metrics
   * are attached (null before): a ring of clock readings. The first {@link #untimedAhead} pending
   * notifications were queued before and have none.
   */
  // @GuardedBy("lock")
  private long @Nullable [] queuedAt;
  // @GuardedBy("lock")
  private int queuedHead;
  // @GuardedBy("lock")
  private int queuedCount;
  // @GuardedBy("lock")
  private int untimedAhead;
  private final Executor executor;
  private final Clock clock;
  private final Scheduler scheduler;
  private final Runnable drainTask = new Drain();
  private final BooleanSupplier upstreamHasSynced;
  private final SharedProcessor<T> owner;
  final Duration requestedResyncPeriod;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();

  // @GuardedBy("lock"): every notification here is owed to the handler, oldest first
  private final ArrayDeque<Notification<T>> pending = new ArrayDeque<>();
  // @GuardedBy("lock"): true iff a drain task is submitted or running
  private boolean draining;
  // @GuardedBy("lock"): true while the handler is being called
  private boolean delivering;
  // @GuardedBy("lock"): the thread calling the handler while delivering, else null
  private @Nullable Thread deliveringThread;
  // @GuardedBy("lock"): initial-list adds queued or being delivered
  private int initialPending;
  // @GuardedBy("lock")
  private boolean removed;

  // Resync bookkeeping, guarded by the owning SharedProcessor's lock.
  Duration resyncPeriod;
  long nextResyncNanos;

  ProcessorListener(
      String informerName,
      ResourceEventHandler<? super T> handler,
      Duration requestedResyncPeriod,
      Duration resyncPeriod,
      long nowNanos,
      Executor executor,
      Clock clock,
      Scheduler scheduler,
      BooleanSupplier upstreamHasSynced,
      SharedProcessor<T> owner) {
    this.informerName = informerName;
    this.handler = handler;
    this.handlerName = nameOf(handler);
    this.requestedResyncPeriod = requestedResyncPeriod;
    this.resyncPeriod = resyncPeriod;
    this.nextResyncNanos = nowNanos + resyncPeriod.toNanos();
    this.executor = executor;
    this.clock = clock;
    this.scheduler = scheduler;
    this.upstreamHasSynced = upstreamHasSynced;
    this.owner = owner;
  }

  /** The handler's name, as logs and metrics show it. */
  String handlerName() {
    return handlerName;
  }

  /**
   * Where each notification's wait and each call's duration are recorded (per-handler metrics):
   * from now on, the time each notification is queued is kept.
   */
  void handlerMetrics(InformerMetricsProvider.HandlerMetrics m) {
    Objects.requireNonNull(m, "metrics");
    lock.lock();
    try {
      if (queuedAt == null) {
        queuedAt = new long[16];
        untimedAhead = pending.size();
      }
    } finally {
      lock.unlock();
    }
    this.metrics = m;
  }

  /** Records when the notification just added to {@link #pending} was queued. */
  private void noteQueuedLocked() {
    long[] ring = queuedAt;
    if (ring == null) {
      return;
    }
    if (queuedCount == ring.length) {
      long[] bigger = new long[ring.length * 2];
      for (int i = 0; i < queuedCount; i++) {
        bigger[i] = ring[(queuedHead + i) % ring.length];
      }
      queuedAt = ring = bigger;
      queuedHead = 0;
    }
    ring[(queuedHead + queuedCount) % ring.length] = clock.nanoTime();
    queuedCount++;
  }

  /** When the notification just taken from {@link #pending} was queued, or -1 if not known. */
  private long takeQueuedLocked() {
    long[] ring = queuedAt;
    if (ring == null) {
      return -1;
    }
    if (untimedAhead > 0) {
      untimedAhead--;
      return -1;
    }
    if (queuedCount == 0) {
      return -1;
    }
    long t = ring[queuedHead];
    queuedHead = (queuedHead + 1) % ring.length;
    queuedCount--;
    return t;
  }

  /** Queues a notification and starts a drain if none runs; never calls the handler. */
  void add(Notification<T> n) {
    if (enqueue(n)) {
      submitDrain();
    }
  }

  /**
   * Queues a notification without starting a drain, for a caller holding a lock (the informer
   * applying a batch): returns true if the caller must call {@link #submitDrain()} once it holds
   * no lock, since the executor, which may be the user's, must not be called under one. Between
   * the two, further notifications queue behind this one and return false.
   */
  boolean enqueue(Notification<T> n) {
    lock.lock();
    try {
      if (removed) {
        return false;
      }
      pending.add(n);
      noteQueuedLocked();
      if (n instanceof Notification.Add<T> a && a.isInInitialList()) {
        initialPending++;
      }
      boolean submit = !draining;
      draining = true;
      return submit;
    } finally {
      lock.unlock();
    }
  }

  /** Hands the drain task to the executor (see {@link #enqueue}); call holding no lock. */
  void submitDrain() {
    try {
      executor.execute(drainTask);
    } catch (RejectedExecutionException e) {
      if (!isRemoved()) {
        log.warn(
            "informer={} delivery executor rejected handler {}; removing it",
            informerName,
            handlerName,
            e);
      }
      stop();
    }
  }

  /** The drain as a task whose {@code toString} names the handler (for the pool's WARN). */
  private final class Drain implements Runnable {
    @Override
    public void run() {
      drain();
    }

    @Override
    public String toString() {
      return "handler " + handlerName + " of informer " + informerName;
    }
  }

  private void drain() {
    // One clock read per notification: the end of a call is the start of the next one, and both
    // the slow-call log and the drain's time slice use it.
    long start = clock.nanoTime();
    long callStarted = start;
    for (int i = 0; i < BATCH && (i == 0 || callStarted - start < BATCH_NANOS); i++) {
      Notification<T> n;
      long queued;
      lock.lock();
      try {
        n = removed ? null : pending.poll();
        queued = n == null ? -1 : takeQueuedLocked();
        if (n == null) {
          draining = false;
          idle.signalAll();
          return;
        }
        delivering = true;
        deliveringThread = Thread.currentThread();
      } finally {
        lock.unlock();
      }
      boolean returned = false;
      boolean threw = true;
      boolean initialDone = false;
      try {
        threw = deliver(n);
        returned = true;
        long callEnded = clock.nanoTime();
        if (!threw) {
          logIfSlow(n, callEnded - callStarted);
        }
        InformerMetricsProvider.HandlerMetrics m = metrics;
        if (m != InformerMetricsProvider.HandlerMetrics.NONE) {
          m.callDuration().observe((callEnded - callStarted) / 1e9);
          if (queued >= 0) {
            m.deliveryLatency().observe(Math.max(0, callStarted - queued) / 1e9);
          }
        }
        callStarted = callEnded;
      } finally {
        lock.lock();
        try {
          delivering = false;
          deliveringThread = null;
          if (n instanceof Notification.Add<T> a && a.isInInitialList()) {
            initialPending--;
            initialDone = initialPending == 0;
          }
          if (!returned) {
            // An Error escaped the handler and ends this drain: let the next add start another,
            // instead of leaving the listener marked as draining forever.
            draining = false;
          }
          idle.signalAll();
        } finally {
          lock.unlock();
        }
      }
      if (initialDone) {
        checkSynced();
      }
      if (threw) {
        pauseAfterFailure();
        return;
      }
    }
    lock.lock();
    try {
      if (removed || pending.isEmpty()) {
        draining = false;
        idle.signalAll();
        return;
      }
    } finally {
      lock.unlock();
    }
    submitDrain(); // more are waiting: yield the thread, rejoin the executor's queue at its tail
  }

  /**
   * As client-go's {@code processorListener.run} after a handler panicked: the drain stops and the
   * next notification is delivered a second later, so a handler that fails on every call does not
   * spin a delivery thread. Notifications keep queueing meanwhile; a removed listener stays
   * stopped.
   */
  private void pauseAfterFailure() {
    lock.lock();
    try {
      if (removed) {
        draining = false;
        idle.signalAll();
        return;
      }
    } finally {
      lock.unlock();
    }
    try {
      scheduler.schedule(this::submitDrain, PAUSE_AFTER_FAILURE);
    } catch (RuntimeException e) {
      submitDrain(); // the scheduler is closing: do not leave the listener stuck as draining
    }
  }

  /** Delivers {@code n}; returns true if the handler threw (logged here). */
  private boolean deliver(Notification<T> n) {
    try {
      if (n instanceof Notification.Add<T> a) {
        handler.onAdd(a.obj(), a.isInInitialList());
      } else if (n instanceof Notification.Update<T> u) {
        handler.onUpdate(u.oldObj(), u.newObj());
      } else if (n instanceof Notification.Delete<T> d) {
        handler.onDelete(d.obj(), d.finalStateUnknown());
      } else {
        throw new IllegalStateException("unknown notification " + n);
      }
      return false;
    } catch (RuntimeException e) {
      log.warn(
          "informer={} handler {} threw on {} of {}; delivery goes on",
          informerName,
          handlerName,
          n.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
          keyOf(n.subject()),
          e);
    } catch (Throwable t) {
      // An Error (an AssertionError from a test's handler, a StackOverflowError, a class that
      // failed to load) or a checked exception thrown sneakily. Letting it end the drain would
      // leave this handler's queued notifications undelivered until its next event, and its
      // registration unsynced, with nothing in the log but the JVM's stderr line: say it loudly
      // and go on, as for an exception.
      log.error(
          "informer={} handler {} threw {} on {} of {}; delivery goes on",
          informerName,
          handlerName,
          t.getClass().getName(),
          n.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
          keyOf(n.subject()),
          t);
    }
    return true;
  }

  /**
   * A call over {@link #SLOW_CALL} (client-go traces handler calls over 100 ms): WARN when the
   * handler is also falling behind (more than {@link #SLOW_BACKLOG} notifications wait, client-go's
   * condition for its trace), DEBUG otherwise.
   */
  private void logIfSlow(Notification<T> n, long nanos) {
    if (nanos < SLOW_CALL.toNanos()) {
      return;
    }
    int backlog = pendingNotifications();
    String what = n.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
    if (backlog > SLOW_BACKLOG) {
      log.warn(
          "informer={} handler {} took {} ms on {} of {}; {} notifications wait for it",
          informerName, handlerName, nanos / 1_000_000, what, keyOf(n.subject()), backlog);
    } else if (log.isDebugEnabled()) {
      log.debug(
          "informer={} handler {} took {} ms on {} of {}; {} notifications wait for it",
          informerName, handlerName, nanos / 1_000_000, what, keyOf(n.subject()), backlog);
    }
  }

  /** Completes {@link #synced()} if {@link #hasSynced()} holds; call holding no lock. */
  void checkSynced() {
    if (!syncedFuture.isDone() && hasSynced()) {
      syncedFuture.complete(null);
    }
  }

  @Override
  public CompletableFuture<Void> synced() {
    return syncedFuture.copy();
  }

  /**
   * client-go's {@code nameForHandler}, for Java: the handler's own {@code toString} if its class
   * declares one, else its class name (a lambda's without the JVM's generated suffix), never the
   * identity hash.
   */
  static String nameOf(Object handler) {
    Class<?> c = handler.getClass();
    try {
      if (c.getMethod("toString").getDeclaringClass() != Object.class) {
        return handler.toString();
      }
    } catch (NoSuchMethodException impossible) {
      // every class has toString
    }
    String name = c.getName();
    int lambda = name.indexOf("$$Lambda");
    return lambda < 0 ? name : name.substring(0, lambda) + "$$Lambda";
  }

  private static String keyOf(HasMetadata obj) {
    try {
      return Keys.metaNamespaceKey(obj);
    } catch (RuntimeException e) {
      return "<no key>";
    }
  }

  /**
   * Stops delivery: drops what is pending; a call in progress finishes. Dropped initial-list adds
   * stay counted, so a handler stopped before it saw its whole initial state never reports synced
   * (as client-go's tracker, whose count is never decremented for them).
   */
  void stop() {
    lock.lock();
    try {
      removed = true;
      pending.clear();
      queuedCount = 0;
      untimedAhead = 0;
      idle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the calling thread is running this listener's handler right now. */
  boolean isDeliveringOnCurrentThread() {
    lock.lock();
    try {
      return delivering && deliveringThread == Thread.currentThread();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no handler call is in progress (after {@link #stop()}, none will start again). A
   * call made from inside this listener's own handler (which would wait for itself) does not wait
   * for that call.
   *
   * @return false if it timed out
   */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (delivering && deliveringThread != Thread.currentThread()) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  boolean shouldResync(long nowNanos) {
    return !resyncPeriod.isZero() && nowNanos - nextResyncNanos >= 0;
  }

  void determineNextResync(long nowNanos) {
    nextResyncNanos = nowNanos + resyncPeriod.toNanos();
  }

  /**
   * Upstream first, then this listener's count (as client-go's {@code synctrack}): once the
   * informer has synced, every initial-list notification is already queued here, so a zero count
   * read afterwards means they were all delivered. Reading the count first could see zero just
   * before the last initial add is queued and then report synced too early.
   */
  @Override
  public boolean hasSynced() {
    if (!upstreamHasSynced.getAsBoolean()) {
      return false;
    }
    lock.lock();
    try {
      return initialPending == 0;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int pendingNotifications() {
    lock.lock();
    try {
      return pending.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isRemoved() {
    lock.lock();
    try {
      return removed;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    owner.removeListener(this);
  }

  @Override
  public String toString() {
    return "registration of " + handlerName + " on " + informerName;
  }
}

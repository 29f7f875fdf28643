package io.kinformer.leaderelection;

import io.kinformer.internal.Randoms;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate in a leader election over a Lease: client-go's {@code leaderelection.LeaderElector}
 * ({@code tools/leaderelection/leaderelection.go}, v0.36).
 *
 * <pre>{@code
 * LeaderElector elector = LeaderElector.builder(
 *         LeaseLock.create(client, "ops", "my-controller", podName),
 *         new LeaderCallbacks() {
 *           public void onStartedLeading(LeaderTerm term) {
 *             controller.start();
 *             term.ended().thenRun(controller::close);
 *           }
 *           public void onStoppedLeading() { exitSoon(); }
 *         })
 *     .build();
 * elector.start();
 * }</pre>
 *
 * <h2>How it elects</h2>
 *
 * <p>Started, the candidate tries to acquire the lease at once and then every {@code
 * retryPeriod}, jittered by up to {@link LeaderElectionConfig#JITTER_FACTOR} (client-go's {@code
 * wait.JitterUntil}). An attempt ({@code tryAcquireOrRenew}) reads the Lease, creates it if it is
 * missing, and takes it over by an update carrying the resourceVersion it read if it has no holder
 * or its record has not changed for its {@code leaseDurationSeconds}. That time is measured on
 * this candidate's {@link Clock}, from the moment it first saw the current record: the timestamps
 * in the Lease are never compared with the local clock, so clock offsets between replicas do not
 * matter. Two candidates that both see the lease expire race with the same resourceVersion; the
 * server accepts one update and refuses the other with 409 Conflict.
 *
 * <p>Once it leads, the candidate renews every {@code retryPeriod} (first by an update with the
 * resourceVersion of its own last write, falling back to a read and an update when that fails).
 * A renewal that fails is retried every {@code retryPeriod} until {@code renewDeadline} after the
 * round began; then the candidate stops leading: its {@link LeaderTerm} ends, it releases the
 * lease if {@link LeaderElectionConfig#releaseOnCancel()}, and {@link
 * LeaderCallbacks#onStoppedLeading()} is called. An elector is one-shot, as client-go's {@code
 * Run}: once it stopped it does not compete again. Create a new one (or, as client-go's users do,
 * exit the process and let it restart).
 *
 * <p>Deliberate differences from client-go: {@link #isLeader()} is true only while the lease is
 * also still valid by this candidate's clock (client-go's {@code IsLeader} only compares the
 * holder); {@link LeaderCallbacks} run one at a time in order, not each on a goroutine of its own;
 * no Events are recorded; the coordinated (1.31 alpha) strategy is not offered.
 *
 * <h2>Threads and locks</h2>
 *
 * <p>The election is a chain of steps, each scheduled on the {@link Scheduler} and run on the
 * election executor (by default one daemon thread named {@code
 * kinformer-leader-election-<namespace>/<name>}, started by {@link #start()}), which makes the
 * blocking API calls; at most one step runs at a time. Callbacks run on the callback executor
 * (see {@link LeaderCallbacks}). The elector's lock guards its state and the pending step; the
 * observed record has a lock of its own, taken after the elector's; neither is held during an
 * API call, a callback or the actions of a {@link LeaderTerm}. {@link #close()} returns once no
 * step will run again and the threads the elector created have ended (see {@link #close()}).
 *
 * <p>Thread safety: thread-safe.
 */
public final class LeaderElector implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

  /** Where the elector is in its one-shot life. */
  enum State {
    /** Built, not started. */
    NEW,
    /** Started; trying to acquire the lease. */
    ACQUIRING,
    /** Holding the lease and renewing it. */
    LEADING,
    /** Stopped for good: leadership lost, or closed. No step runs or will be scheduled. */
    STOPPED
  }

  private final LeaseLock leaseLock;
  private final LeaderCallbacks callbacks;
  private final LeaderElectionConfig config;
  private final Clock clock;
  private final Scheduler scheduler;
  private final RandomGenerator random;
  private final @Nullable Executor givenExecutor;
  private final @Nullable Executor givenCallbackExecutor;
  private final String description;
  /** The attempts on the Lease and the observation; its lock is taken after ours, never before. */
  private final LeaseClaim claim;

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a step ends; {@link #close()} waits on it. */
  private final Condition stepEnded = lock.newCondition();
  private final ThreadLocal<Boolean> onStepThread = ThreadLocal.withInitial(() -> false);
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  // @GuardedBy("lock")
  private State state = State.NEW;
  // @GuardedBy("lock"): the next step, scheduled and not run yet; null while a step runs or once
  // stopped. At most one step is scheduled or running at any time.
  private @Nullable Cancellable pendingStep;
  // @GuardedBy("lock")
  private boolean stepRunning;
  // @GuardedBy("lock"): non-null exactly while state == LEADING.
  private @Nullable LeaderTerm term;
  // @GuardedBy("lock"): the election executor and the callback queue, set by start().
  private @Nullable Executor executor;
  private @Nullable CallbackQueue callbackQueue;
  // @GuardedBy("lock"): threads this elector created (null if the builder supplied executors).
  private @Nullable ExecutorService ownedExecutor;
  private @Nullable ExecutorService ownedCallbackExecutor;
  /** Every thread this elector created; {@link #close()} joins them. */
  private final List<Thread> ownThreads = new CopyOnWriteArrayList<>();

  // Election-step confined: the leader last reported to onNewLeader ("" for none).
  private String reportedLeader = "";
  // Election-step confined: when the current renew round gives up.
  private long renewRoundDeadlineNanos;

  private LeaderElector(Builder b) {
    this.leaseLock = b.leaseLock;
    this.callbacks = b.callbacks;
    this.config = b.config;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.random = Randoms.independent(b.random);
    this.givenExecutor = b.executor;
    this.givenCallbackExecutor = b.callbackExecutor;
    this.description = leaseLock.describe();
    // Each Lease call is bounded by the renew deadline (client-go bounds a renewal round by it),
    // not by the client's 30 s request timeout, which would outlast the lease.
    this.claim = new LeaseClaim(leaseLock.withRequestTimeout(config.renewDeadline()), config, clock);
  }

  /**
   * A builder for a candidate that competes for {@code lock} and tells {@code callbacks}; with
   * the default configuration, system clock and scheduler, and threads of its own.
   */
  public static Builder builder(LeaseLock lock, LeaderCallbacks callbacks) {
    return new Builder(lock, callbacks);
  }

  /** The lock this candidate competes for. */
  public LeaseLock lock() {
    return leaseLock;
  }

  /** The timing of this election. */
  public LeaderElectionConfig config() {
    return config;
  }

  /**
   * Starts competing: the first attempt to acquire the lease is made at once, on the election
   * executor. Non-blocking and idempotent.
   *
   * @throws IllegalStateException if the elector was closed
   */
  public void start() {
    lock.lock();
    try {
      if (state == State.STOPPED) {
        throw new IllegalStateException("leader elector for " + description + " is closed");
      }
      if (state != State.NEW) {
        return;
      }
      state = State.ACQUIRING;
      if (givenExecutor != null) {
        executor = givenExecutor;
      } else {
        ownedExecutor = DaemonThreads.single("kinformer-leader-election-" + description, ownThreads);
        executor = ownedExecutor;
      }
      Executor cbExecutor = givenCallbackExecutor;
      if (cbExecutor == null) {
        ownedCallbackExecutor = DaemonThreads.single(
            "kinformer-leader-election-" + description + "-callbacks", ownThreads);
        cbExecutor = ownedCallbackExecutor;
      }
      callbackQueue = new CallbackQueue(cbExecutor, description);
      scheduleLocked(this::acquireStep, Duration.ZERO);
    } finally {
      lock.unlock();
    }
    log.info("lease={} identity={} attempting to acquire the lease", description,
        leaseLock.identity());
  }

  /**
   * Whether this candidate leads now: it started leading, has not stopped, and its last
   * successful acquisition or renewal was less than the lease duration ago by its own clock.
   */
  public boolean isLeader() {
    return underLock(() -> state == State.LEADING && claim.holdsValidLease());
  }

  /**
   * The holder of the lease as last observed (this candidate included), for information: logs,
   * metrics. Empty before the first observation and while the lease has no holder.
   */
  public Optional<String> leader() {
    return claim.holder();
  }

  /**
   * Completes when the elector has stopped for good: leadership was lost, or {@link #close()}
   * returned. Each call returns a new future. Actions attached without an executor run on the
   * thread that stopped the elector (the election thread, or the one calling {@code close()}),
   * outside every lock; keep them short, or attach them with an {@code ...Async} method.
   */
  public CompletableFuture<Void> stopped() {
    return stopped.copy();
  }

  /**
   * client-go's {@code LeaderElector.Check}: whether this candidate, if it last held the lease,
   * renewed it recently enough. It fails once more than {@code leaseDuration +
   * maxTolerableExpiredLease} passed since the last successful renewal while the last record
   * observed still names this candidate, which is what a leader stuck without renewing (or one
   * that stopped leading and did not exit) looks like. A standby is always healthy.
   *
   * @return empty if healthy, else why not
   */
  public Optional<String> check(Duration maxTolerableExpiredLease) {
    return claim.check(maxTolerableExpiredLease);
  }

  /**
   * Stops competing, and leading. Idempotent. Waits for a step in progress (an API call is
   * bounded by the client's request timeout), ends the term, releases the lease if {@link
   * LeaderElectionConfig#releaseOnCancel()} and this candidate holds it (on the calling thread),
   * and queues {@link LeaderCallbacks#onStoppedLeading()} if the elector was started and had not
   * stopped already. Returns once the threads the elector created have ended (so, with the
   * default callback executor, once the callbacks queued have run), except the calling thread if
   * it is one of them; with a given callback executor, callbacks may still be running.
   */
  @Override
  public void close() {
    Stopping stop;
    lock.lock();
    try {
      if (pendingStep != null) {
        pendingStep.cancel();
        pendingStep = null;
      }
      if (!onStepThread.get()) {
        while (stepRunning) {
          stepEnded.awaitUninterruptibly();
        }
      }
      stop = stopLocked();
    } finally {
      lock.unlock();
    }
    if (stop.before() == State.ACQUIRING || stop.before() == State.LEADING) {
      log.info("lease={} identity={} elector closed{}", description, leaseLock.identity(),
          stop.before() == State.LEADING ? "; stopped leading" : "");
      finishStopping(stop);
    } else {
      stop.shutDownThreads();
    }
    for (Thread t : ownThreads) {
      if (t != Thread.currentThread()) {
        DaemonThreads.joinQuietly(t);
      }
    }
    stopped.complete(null);
  }

  /**
   * What moving to STOPPED hands over, to be acted on outside the lock by whoever moved the
   * state (exactly once): the term to end, the queue for onStoppedLeading, the threads to end.
   */
  private record Stopping(State before, @Nullable LeaderTerm term, @Nullable CallbackQueue queue,
      @Nullable ExecutorService loop, @Nullable ExecutorService callbacks) {

    /** Lets the threads end once their queued tasks ran (this step, the queued callbacks). */
    void shutDownThreads() {
      if (loop != null) {
        loop.shutdown();
      }
      if (callbacks != null) {
        callbacks.shutdown();
      }
    }
  }

  private Stopping stopLocked() {
    assert lock.isHeldByCurrentThread();
    Stopping stop = new Stopping(state, term, callbackQueue, ownedExecutor, ownedCallbackExecutor);
    state = State.STOPPED;
    term = null;
    ownedExecutor = null;
    ownedCallbackExecutor = null;
    return stop;
  }

  /**
   * The end of an elector that was running, once its state is STOPPED: ends the term, releases if
   * configured, queues onStoppedLeading, and lets the elector's threads end after it.
   */
  private void finishStopping(Stopping stop) {
    if (stop.term() != null) {
      stop.term().end();
    }
    if (config.releaseOnCancel() && claim.holdsRecord()) {
      claim.release();
    }
    if (stop.queue() != null) {
      stop.queue().submit("onStoppedLeading", callbacks::onStoppedLeading);
    }
    stop.shutDownThreads();
  }

  // ---- the steps ------------------------------------------------------------------------------

  /** client-go's {@code acquire}: one attempt, then the next one after a jittered period. */
  private void acquireStep() {
    boolean acquired = claim.tryAcquireOrRenew();
    maybeReportTransition();
    if (!acquired) {
      log.debug("lease={} identity={} did not acquire the lease", description,
          leaseLock.identity());
      schedule(this::acquireStep, jittered(config.retryPeriod()));
      return;
    }
    LeaderTerm started;
    CallbackQueue queue;
    lock.lock();
    try {
      if (state != State.ACQUIRING) {
        return; // closed meanwhile; close() releases the lease if configured
      }
      state = State.LEADING;
      started = new LeaderTerm();
      term = started;
      queue = Objects.requireNonNull(callbackQueue);
      scheduleLocked(this::renewRound, config.retryPeriod());
    } finally {
      lock.unlock();
    }
    log.info("lease={} identity={} acquired the lease; leading", description,
        leaseLock.identity());
    queue.submit("onStartedLeading", () -> callbacks.onStartedLeading(started));
  }

  /**
   * client-go's {@code renew}, one round of {@code wait.Until}: renew at once, and retry every
   * retry period until the renew deadline ({@code wait.PollUntilContextTimeout}).
   */
  private void renewRound() {
    renewRoundDeadlineNanos = clock.nanoTime() + config.renewDeadline().toNanos();
    renewAttempt();
  }

  private void renewAttempt() {
    boolean renewed = claim.tryAcquireOrRenew();
    maybeReportTransition();
    if (renewed) {
      log.trace("lease={} renewed", description);
      schedule(this::renewRound, config.retryPeriod());
      return;
    }
    long now = clock.nanoTime();
    long untilDeadline = renewRoundDeadlineNanos - now;
    if (untilDeadline > config.retryPeriod().toNanos()) {
      schedule(this::renewAttempt, config.retryPeriod());
    } else if (untilDeadline > 0) {
      schedule(this::giveUp, Duration.ofNanos(untilDeadline));
    } else {
      giveUp();
    }
  }

  /** The renew deadline passed without a successful renewal: stop leading, for good. */
  private void giveUp() {
    Stopping stop;
    lock.lock();
    try {
      if (state != State.LEADING) {
        return;
      }
      stop = stopLocked();
    } finally {
      lock.unlock();
    }
    log.info("lease={} identity={} failed to renew the lease within {}; stopped leading",
        description, leaseLock.identity(), config.renewDeadline());
    finishStopping(stop);
    stopped.complete(null);
  }

  /** client-go's {@code maybeReportTransition}: tells onNewLeader about a new holder. */
  private void maybeReportTransition() {
    String holder = claim.observedRecord().holderIdentity();
    if (holder.equals(reportedLeader)) {
      return;
    }
    reportedLeader = holder;
    if (holder.isEmpty()) {
      return;
    }
    CallbackQueue queue;
    lock.lock();
    try {
      queue = callbackQueue;
    } finally {
      lock.unlock();
    }
    if (queue != null) {
      queue.submit("onNewLeader", () -> callbacks.onNewLeader(holder));
    }
  }

  /** Reads state under the lock; {@code read} must be short and call no user code. */
  private <T> T underLock(Supplier<T> read) {
    return Locked.read(lock, read);
  }

  /** The attempts and the observation, for tests. */
  LeaseClaim claim() {
    return claim;
  }

  State state() {
    return underLock(() -> state);
  }

  // ---- scheduling ------------------------------------------------------------------------------

  /** client-go's {@code wait.Jitter(d, JitterFactor)}: d plus a random [0, 1.2) of it. */
  Duration jittered(Duration d) {
    return DaemonThreads.jittered(d, random);
  }

  private void schedule(Runnable step, Duration delay) {
    lock.lock();
    try {
      scheduleLocked(step, delay);
    } finally {
      lock.unlock();
    }
  }

  private void scheduleLocked(Runnable step, Duration delay) {
    assert lock.isHeldByCurrentThread();
    if (state == State.STOPPED) {
      return;
    }
    Executor ex = Objects.requireNonNull(executor);
    pendingStep = scheduler.schedule(() -> {
      try {
        ex.execute(() -> runStep(step));
      } catch (RejectedExecutionException e) {
        if (state() != State.STOPPED) {
          log.warn("lease={} the election executor refused a step; the election stops",
              description, e);
        }
      }
    }, delay);
  }

  private void runStep(Runnable step) {
    lock.lock();
    try {
      if (state == State.STOPPED || stepRunning) {
        return;
      }
      pendingStep = null;
      stepRunning = true;
    } finally {
      lock.unlock();
    }
    onStepThread.set(true);
    try {
      step.run();
    } catch (RuntimeException e) {
      // A bug of ours; the next attempt still comes, so the election does not end silently.
      log.warn("lease={} election step failed; retrying after {}", description,
          config.retryPeriod(), e);
      if (state() == State.ACQUIRING) {
        schedule(this::acquireStep, config.retryPeriod());
      } else {
        schedule(this::renewAttempt, config.retryPeriod());
      }
    } finally {
      onStepThread.set(false);
      lock.lock();
      try {
        stepRunning = false;
        stepEnded.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public String toString() {
    return "LeaderElector[" + description + " as " + leaseLock.identity() + ", " + state() + "]";
  }

  /**
   * Builds a {@link LeaderElector}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private final LeaseLock leaseLock;
    private final LeaderCallbacks callbacks;
    private LeaderElectionConfig config = LeaderElectionConfig.defaults();
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private @Nullable RandomGenerator random;
    private @Nullable Executor executor;
    private @Nullable Executor callbackExecutor;

    private Builder(LeaseLock leaseLock, LeaderCallbacks callbacks) {
      this.leaseLock = Objects.requireNonNull(leaseLock, "lock");
      this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
    }

    /** The timing; {@link LeaderElectionConfig#defaults()} unless set. */
    public Builder config(LeaderElectionConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * The clock that measures how long a record stayed unchanged, and that stamps the Lease's
     * times; {@link Clock#system()} unless set. Tests pass a {@code FakeClock} (informer-core's test fixtures).
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * What runs the next step later; {@link Scheduler#system()} unless set. A step is handed to
     * the election executor, so the scheduler's thread never blocks.
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Seeds the retry jitter: each elector built here gets a generator of its own, split from or
     * seeded by {@code random} at {@link #build()}. Default a new one for each.
     */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The executor that runs the election's steps, which block on the API server; by default a
     * thread of the elector's own. Steps never overlap, whatever the executor. One that is not
     * the elector's own is not shut down by {@link LeaderElector#close()}. Tests pass {@code
     * Runnable::run} with a fake clock so that steps run inside {@code FakeClock.advance}.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * The executor that runs the {@link LeaderCallbacks}, one at a time; by default a thread of
     * the elector's own. One that is not the elector's own is not shut down by {@link
     * LeaderElector#close()}, which then does not wait for queued callbacks.
     */
    public Builder callbackExecutor(Executor executor) {
      this.callbackExecutor = Objects.requireNonNull(executor, "callbackExecutor");
      return this;
    }

    /** The elector; it starts nothing until {@link LeaderElector#start()}. */
    public LeaderElector build() {
      return new LeaderElector(this);
    }
  }
}

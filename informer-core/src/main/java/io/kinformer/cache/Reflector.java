package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kinformer.cache.ReflectorState.BackingOff;
import io.kinformer.cache.ReflectorState.Idle;
import io.kinformer.cache.ReflectorState.Listing;
import io.kinformer.cache.ReflectorState.Paging;
import io.kinformer.cache.ReflectorState.Stopped;
import io.kinformer.cache.ReflectorState.Streaming;
import io.kinformer.cache.ReflectorState.Then;
import io.kinformer.cache.ReflectorState.Watching;
import io.kinformer.internal.Randoms;
import io.kinformer.time.Backoff;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link Store} in step with the server by list and watch: client-go v0.36's {@code
 * cache.Reflector} ({@code tools/cache/reflector.go}), as an explicit state machine.
 *
 * <h2>States and the one transition function</h2>
 *
 * The reflector is always in one {@link ReflectorState}, which only {@code transition} changes. A
 * driver performs the request the current state calls for (a list page, opening a watch, reading
 * the next event, waiting) and feeds its outcome to {@code transition}, which updates the store and
 * names the next state; every error branch names it too. The model is kube-rs's {@code
 * watcher::step}. Two drivers exist: {@link #listAndWatch()} runs one cycle on the caller's thread
 * and {@link #start()} repeats cycles on the reflector's own thread with backoff in between.
 *
 * <h2>One cycle (client-go's {@code ListAndWatch})</h2>
 *
 * <ol>
 *   <li>{@link Idle} → {@link Streaming} (the default: a streaming list, {@code
 *       sendInitialEvents=true}, {@code resourceVersionMatch=NotOlderThan}, {@code
 *       allowWatchBookmarks=true}, from the last resourceVersion or "" when it is unusable), or
 *       {@link Listing} when streaming is off or the {@link ListerWatcher#supportsWatchList()
 *       ListerWatcher cannot stream}. The streamed objects go into a buffer of the reflector's
 *       own, through the store's transform when the store is a {@link TransformingStore}; the
 *       resourceVersion is not advanced while only ADDED events have come; the bookmark annotated
 *       {@code k8s.io/initial-events-end} replaces the store with the buffer ({@link
 *       TransformingStore#replaceTransformed} when it was transformed) and the same watch goes on
 *       as {@link Watching}. A stream that ends cleanly before that bookmark is opened again with
 *       an empty buffer. A 429 or a refused connection backs off and streams again ({@link
 *       Then#RESTREAM}); a too-old or too-large resourceVersion marks the last one unusable and
 *       streams again at once from "". Any other failure, and a stream that ends within a second
 *       without any event, falls back to {@link Listing} in the same cycle. The next cycle tries
 *       streaming again, as client-go does.
 *   <li>{@link Listing} → ({@link Paging} →)* {@link Watching}: the first list asks for {@code
 *       resourceVersion=0} (the watch cache answers it cheaply), a relist for the last
 *       resourceVersion, or "" when it is unusable. Pages: a page size given to the builder is
 *       sent on every list; otherwise 500, except that a list at a specific resourceVersion is
 *       unpaged (so that the watch cache can serve it) unless the first list came back paged (no
 *       watch cache). An expired continue token is followed by one unpaged list at the
 *       resourceVersion first asked for. A list refused as too old or too large is retried once at
 *       once as a consistent list (""); any other failure ends the cycle.
 *   <li>{@link Watching}: a watch from the last resourceVersion, with bookmarks and a {@code
 *       timeoutSeconds} drawn from [minWatchTimeout, 2 × minWatchTimeout) (5 to 10 minutes).
 *       ADDED, MODIFIED and DELETED go to the store, BOOKMARK to {@link Store#bookmark}; each
 *       advances the last resourceVersion, except the synthetic ADDED events that begin a watch
 *       from "" or "0". A clean end (the server's timeout, or a connection that broke with an
 *       {@link IOException}, which client-go's stream watcher takes for the end of the stream)
 *       re-watches at once from the last resourceVersion. A 429 or a refused connection backs off
 *       and re-watches ({@link Then#REWATCH}). An internal error (500, or a stream the client could
 *       not decode, which client-go turns into an InternalError ERROR event) re-watches at once
 *       while {@link Builder#maxInternalErrorRetryDuration} allows. Everything else ends the
 *       cycle: any other ERROR event (410 Expired or Gone included: the next cycle relists at the
 *       last resourceVersion, and falls back to "" if that is refused), any other failure to open
 *       the watch, a watch that ends within a second without any event (client-go's {@code
 *       VeryShortWatchError}), and a failing {@link Store#resync()}. An object of another kind
 *       than {@link Builder#expectedKind} is logged and skipped, as client-go's {@code
 *       handleAnyWatch} does.
 * </ol>
 *
 * <p>Between cycles, {@link #start()} waits ({@link BackingOff} with {@link Then#NEXT_CYCLE}) as
 * client-go's {@code Run} does after every cycle: {@link Backoff#clientGoDefault} (0.8 s doubling
 * to 30 s, jitter 1.0, reset every 2 minutes), lengthened to the server's {@code Retry-After} when
 * it sent a longer one. The same backoff times the 429 retries inside a cycle. A {@link
 * VirtualMachineError} is never retried: it is rethrown and ends the reflector's thread.
 *
 * <h2>Where kinformer differs from client-go</h2>
 *
 * <ul>
 *   <li>{@link #listAndWatch()} throws the error that ended the cycle, also when client-go's
 *       returns nil after logging it (an ERROR event, a very short watch, a failed resync); the
 *       following behaviour is the same.
 *   <li>A watch from "" or "0" (after a list that carried no resourceVersion) that ends before
 *       its first non-ADDED event ends the cycle (a relist) instead of watching from "" again,
 *       which would miss deletions made meanwhile.
 *   <li>The server's {@code Retry-After} (header or {@code retryAfterSeconds}) lengthens a
 *       backoff that would be shorter; client-go's reflector ignores it (its REST client honours
 *       it for retries of its own).
 *   <li>{@link Builder#rewatchOnWatchError(boolean)} (off by default) re-watches after a backoff
 *       instead of relisting when the resourceVersion is still usable.
 *   <li>{@link Builder#pageSize(long) pageSize(0)} never pages; client-go has no such setting.
 *   <li>Every failure, including those recovered inside a cycle, reaches the {@link
 *       WatchErrorHandler}; client-go's sees only what {@code ListAndWatch} returns.
 *   <li>A store (or transform) that throws an {@link Error} other than a {@link
 *       VirtualMachineError} ends the cycle, which relists; a {@link RuntimeException} from one
 *       event's write is logged and the watch goes on, as client-go does with a store error.
 *   <li>Not ported: the warning every 10 s while a streaming list waits for its end bookmark,
 *       and the debug-only consistency check of streamed data against a list.
 * </ul>
 *
 * <h2>Threads</h2>
 *
 * {@link #start()} makes one thread, {@code kinformer-<name>-reflector}, that runs cycles, reads
 * the watch and writes to the store. Waits are scheduled on the {@link Scheduler}: no thread sleeps;
 * the task hands the loop back to the reflector's thread. The resync tick runs on the scheduler's
 * thread, calls {@link Store#resync()} there and, if it throws, closes the open watch so that the
 * reflector's thread ends the cycle. {@link #listAndWatch()} runs a cycle on the caller's thread
 * and blocks there for a wait inside the cycle. {@link #close()} may be called from any thread. The
 * only lock, {@code lifecycleLock}, guards the lifecycle fields and is never held while calling the
 * store, the {@link ListerWatcher} or a handler.
 *
 * <p>Thread safety: thread-safe; one cycle runs at a time.
 *
 * @param <T> the object type
 */
public final class Reflector<T extends HasMetadata> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Reflector.class);

  /** No clock reading yet, for the health times. */
  private static final long NO_TIME = Long.MIN_VALUE;

  /** A watch that ends this soon after starting, with no event, is a failure (client-go). */
  private static final Duration VERY_SHORT_WATCH = Duration.ofSeconds(1);

  /** client-go's {@code defaultMinWatchTimeout}: shorter minimums are raised to it. */
  static final Duration MIN_WATCH_TIMEOUT_FLOOR = Duration.ofMinutes(5);

  /** client-go's pager's default page size. */
  static final long DEFAULT_PAGE_SIZE = 500;

  /** {@link Builder#pageSize} was not called: page as client-go's reflector decides. */
  private static final long PAGE_SIZE_UNSET = -1;

  /** client-go's {@code NewRetryWithDeadline(..., time.Minute, ...)}: quiet time that resets it. */
  private static final Duration INTERNAL_ERROR_RESET = Duration.ofMinutes(1);

  /**
   * How long close() lets an interrupt alone end the reflector thread before it cancels {@link
   * #cancellation}, and with it the thread's request in flight.
   */
  private static final Duration INTERRUPT_GRACE = Duration.ofMillis(200);

  /** How long close() waits for the reflector thread to end once it interrupted it. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final String name;
  private final ListerWatcher<T> listerWatcher;
  private final Store<T> store;
  private final @Nullable UnaryOperator<T> streamTransform;
  private final long pageSize;
  private final boolean useWatchList;
  private final Duration minWatchTimeout;
  private final Duration resyncPeriod;
  private final BooleanSupplier shouldResync;
  private final Clock clock;
  private final Scheduler scheduler;
  private final RandomGenerator random;
  private final Backoff backoff;
  private final Duration maxInternalErrorRetryDuration;
  private final boolean rewatchOnWatchError;
  private final @Nullable String expectedApiVersion;
  private final @Nullable String expectedKind;
  private final @Nullable WatchErrorHandler watchErrorHandler;
  private final ReflectorMetrics metrics;
  private final ThreadFactory threadFactory;
  private final @Nullable Executor runOn;

  /**
   * Passed to every list and watch; cancelled by close(), which so ends a request in flight and
   * the open watch (client-go's context of {@code Run}).
   */
  private final Cancellation cancellation = new Cancellation();

  /** Every thread {@link #threadFactory} made for this reflector, so that close() can join it. */
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

  private final Object lifecycleLock = new Object();
  // @GuardedBy("lifecycleLock")
  private @Nullable Executor executor;
  // @GuardedBy("lifecycleLock"): the thread running a cycle, while one runs
  private @Nullable Thread drivingThread;
  // @GuardedBy("lifecycleLock")
  private @Nullable Cancellable pendingWait;
  // @GuardedBy("lifecycleLock")
  private @Nullable CountDownLatch directWait;
  // @GuardedBy("lifecycleLock")
  private @Nullable Cancellable pendingResync;
  // @GuardedBy("lifecycleLock"): bumped when the resync timer starts or stops, so a late tick of
  // an earlier timer neither reschedules itself nor reports a failure.
  private long resyncGeneration;
  private volatile boolean closed;

  /** The current state: written only by {@link #transition}. */
  private volatile ReflectorState state = new Idle(null);

  private volatile String lastSyncResourceVersion = "";

  // Health, for health(): written by the driving thread only (one at a time), read by anyone.
  // Times are clock.nanoTime() readings, NO_TIME before the first; an event costs one clock read
  // and one volatile write (plus a read of consecutiveFailures).

  /** When the last watch event (bookmarks included) arrived. */
  private volatile long lastEventNanos = NO_TIME;

  /** When the first cycle started, a full list was stored or a watch opened. */
  private volatile long lastSuccessNanos = NO_TIME;

  /** Failures since the last success or event. */
  private volatile int consecutiveFailures;

  /** The last failure and its wall-clock time (failures are rare: allocating here is fine). */
  private volatile @Nullable Failure lastFailure;

  /** A failure of {@link Store#resync()} the driving thread has not acted on yet. */
  private volatile @Nullable RuntimeException resyncFailure;

  /** The watch the driving thread reads; close() and a failing resync close it. */
  private volatile @Nullable Watch<T> currentWatch;

  // What follows is touched only by the driving thread (one at a time, handed over through the
  // executor or the lifecycle lock).

  /** The last resourceVersion was refused as too old or too large: list or stream from "". */
  private boolean lastSyncResourceVersionUnavailable;

  /** The first {@code resourceVersion=0} list came back paged: the server has no watch cache. */
  private boolean paginatedResult;

  private int cyclesStarted;

  /** The list in progress (Listing and Paging only). */
  private @Nullable Pager<T> pager;

  /** Why the list is being retried as a consistent one, if it is. */
  private @Nullable RuntimeException consistentListReason;

  /** The streamed objects by key (Streaming only). */
  private @Nullable Map<String, T> streamBuffer;

  /** The resourceVersion of the last streamed event past the ADDED ones ("" before any). */
  private String streamResourceVersion = "";

  /** A non-ADDED event came on the stream: it is past the synthetic ADDED events. */
  private boolean streamPastAdded;

  /** The open watch's or stream's start (taken before the request) and its events so far. */
  private long watchStartNanos;

  private int watchEvents;

  /** The open watch is past its synthetic ADDED events: its events advance the resourceVersion. */
  private boolean pastInitialEvents;

  private final InternalErrorRetry internalErrorRetry;

  private Reflector(Builder<T> b) {
    this.name = b.name;
    this.listerWatcher = b.listerWatcher;
    this.store = b.store;
    this.streamTransform = b.store instanceof TransformingStore<T> ts ? ts.transformer() : null;
    this.pageSize = b.pageSize;
    this.useWatchList = b.streamingList && b.listerWatcher.supportsWatchList();
    this.minWatchTimeout = b.minWatchTimeout;
    this.resyncPeriod = b.resyncPeriod;
    this.shouldResync = b.shouldResync;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.random = Randoms.independent(b.random);
    this.backoff = b.backoffPolicy.newBackoff(clock, random);
    this.maxInternalErrorRetryDuration = b.maxInternalErrorRetryDuration;
    this.rewatchOnWatchError = b.rewatchOnWatchError;
    this.expectedApiVersion = b.expectedApiVersion;
    this.expectedKind = b.expectedKind;
    this.watchErrorHandler = b.watchErrorHandler;
    this.metrics = b.metrics;
    this.runOn = b.runOn;
    this.internalErrorRetry = new InternalErrorRetry();
    ThreadFactory base =
        b.threadFactory != null ? b.threadFactory : namedDaemon("kinformer-" + name + "-reflector");
    this.threadFactory =
        r -> {
          Thread t = base.newThread(r);
          threads.add(t);
          return t;
        };
    if (b.streamingList && !useWatchList) {
      log.debug("reflector={} its ListerWatcher cannot stream lists: listing instead", name);
    }
  }

  /**
   * A builder for a reflector named {@code name} (used in thread names and logs; conventionally the
   * resource, e.g. {@code pods}) that lists and watches {@code listerWatcher} into {@code store}.
   */
  public static <T extends HasMetadata> Builder<T> builder(
      String name, ListerWatcher<T> listerWatcher, Store<T> store) {
    return new Builder<>(name, listerWatcher, store);
  }

  /** The name given at construction. */
  public String name() {
    return name;
  }

  /**
   * The resourceVersion of the last list, event or bookmark applied to the store; empty before the
   * first list, and after a list that carried none until the watch moves past its initial events.
   */
  public String lastSyncResourceVersion() {
    return lastSyncResourceVersion;
  }

  /** Where the reflector is now; see {@link ReflectorState}. */
  public ReflectorState state() {
    return state;
  }

  // ---- drivers ---------------------------------------------------------------------------------

  /**
   * Runs one list-and-watch cycle on the calling thread (client-go's {@code ListAndWatch}): streams
   * or lists the full state into the store, then watches until an error ends the cycle, which this
   * throws. Waits inside the cycle (a 429 on the watch) block this thread on the {@link
   * Scheduler}. Call it again to run the next cycle: it goes on from the last resourceVersion.
   * Returns normally only once the reflector is closed. A request or watch in progress ends when
   * {@link #close()} is called, which cancels it.
   *
   * @throws ReflectorException what ended the cycle
   * @throws IllegalStateException if {@link #start()} was called, or a cycle already runs
   */
  public void listAndWatch() {
    synchronized (lifecycleLock) {
      if (executor != null) {
        throw new IllegalStateException("reflector " + name + " runs on its own thread");
      }
      if (drivingThread != null) {
        throw new IllegalStateException("reflector " + name + " already runs a cycle");
      }
      if (closed) {
        return;
      }
      drivingThread = Thread.currentThread();
    }
    try {
      transition(Input.start());
      while (true) {
        ReflectorState s = state;
        if (s instanceof Stopped) {
          return;
        }
        if (closed) {
          transition(Input.close());
          return;
        }
        if (s instanceof Idle idle) {
          throw Objects.requireNonNull(idle.lastFailure(), "a cycle ends with its cause");
        }
        if (s instanceof BackingOff b) {
          if (!awaitOnThisThread(b.delay())) {
            transition(Input.close());
            return;
          }
          transition(Input.waited());
          continue;
        }
        step();
      }
    } finally {
      synchronized (lifecycleLock) {
        drivingThread = null;
      }
    }
  }

  /** Waits {@code delay} on the scheduler; false if closed or interrupted meanwhile. */
  private boolean awaitOnThisThread(Duration delay) {
    CountDownLatch latch = new CountDownLatch(1);
    synchronized (lifecycleLock) {
      if (closed) {
        return false;
      }
      directWait = latch;
      pendingWait = scheduler.schedule(latch::countDown, delay);
    }
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return !closed;
  }

  /**
   * Starts running cycles on the reflector's own thread (client-go's {@code Run}): the first at
   * once, each next one after the backoff. Idempotent; returns at once.
   *
   * @throws IllegalStateException if the reflector was closed, or {@link #listAndWatch()} runs
   */
  public void start() {
    Executor e;
    synchronized (lifecycleLock) {
      if (closed) {
        throw new IllegalStateException("reflector " + name + " is closed and cannot start");
      }
      if (executor != null) {
        return;
      }
      if (drivingThread != null) {
        throw new IllegalStateException("reflector " + name + " runs a cycle in listAndWatch()");
      }
      e =
          runOn != null
              ? runOn
              : new ThreadPoolExecutor(
                  1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
      executor = e;
    }
    log.debug("reflector={} started", name);
    e.execute(() -> runLoop(/* resumedAfterWait= */ false));
  }

  /** The loop of {@link #start()}: runs until it must wait (then it schedules its resumption). */
  private void runLoop(boolean resumedAfterWait) {
    synchronized (lifecycleLock) {
      drivingThread = Thread.currentThread();
    }
    try {
      if (resumedAfterWait) {
        transition(Input.waited());
      }
      while (true) {
        ReflectorState s = state;
        if (s instanceof Stopped) {
          return;
        }
        if (closed) {
          transition(Input.close());
          return;
        }
        if (s instanceof BackingOff b) {
          scheduleResume(b.delay());
          return;
        }
        if (s instanceof Idle) {
          transition(cyclesStarted == 0 ? Input.start() : Input.backOff());
          continue;
        }
        step();
      }
    } catch (VirtualMachineError e) {
      log.error("reflector={} stopped by {}", name, e.toString());
      throw e;
    } finally {
      synchronized (lifecycleLock) {
        drivingThread = null;
      }
    }
  }

  private void scheduleResume(Duration delay) {
    synchronized (lifecycleLock) {
      Executor e = executor;
      if (closed || e == null) {
        return;
      }
      log.debug("reflector={} waiting {}", name, delay);
      pendingWait =
          scheduler.schedule(
              () -> {
                try {
                  e.execute(() -> runLoop(/* resumedAfterWait= */ true));
                } catch (RejectedExecutionException closing) {
                  // closed meanwhile: nothing to do
                }
              },
              delay);
    }
  }

  /**
   * Performs the request the current state calls for and feeds its outcome to the transition
   * function: a list page for {@link Listing} and {@link Paging}, opening the watch or reading its
   * next event for {@link Streaming} and {@link Watching}; the start of a cycle for {@link Idle};
   * the end of the wait for {@link BackingOff} (this does not wait: the drivers do). The seam that
   * tests drive one transition at a time.
   *
   * @return the new state
   */
  ReflectorState step() {
    ReflectorState s = state;
    if (closed) {
      return transition(Input.close());
    }
    if (s instanceof Idle) {
      // As the run loop: the first cycle starts at once, each next one after a backoff.
      return transition(cyclesStarted == 0 ? Input.start() : Input.backOff());
    }
    if (s instanceof BackingOff) {
      return transition(Input.waited());
    }
    if (s instanceof Listing || s instanceof Paging) {
      return transition(requestPage());
    }
    if (s instanceof Streaming || s instanceof Watching) {
      RuntimeException failedResync = s instanceof Watching ? takeResyncFailure() : null;
      if (failedResync != null) {
        return transition(Input.resyncFailed(failedResync));
      }
      Input<T> in = currentWatch == null ? openWatch(s instanceof Streaming st ? st : null) : read();
      if (s instanceof Watching) {
        failedResync = takeResyncFailure();
        if (failedResync != null) {
          return transition(Input.resyncFailed(failedResync));
        }
      }
      return transition(in);
    }
    return s;
  }

  private Input<T> requestPage() {
    Pager<T> p = Objects.requireNonNull(pager, "pager");
    try {
      return Input.listed(listerWatcher.list(p.nextRequest(), cancellation));
    } catch (Throwable e) {
      rethrowIfFatal(e);
      return Input.listFailed(e);
    }
  }

  private Input<T> openWatch(@Nullable Streaming streaming) {
    ListOptions options;
    if (streaming != null) {
      String rv = streaming.resourceVersion();
      options =
          watchOptions(rv).toBuilder()
              .resourceVersionMatch(ListOptions.NOT_OLDER_THAN)
              .sendInitialEvents(true)
              .build();
    } else {
      options = watchOptions(lastSyncResourceVersion);
      // A watch from "" or "0" begins with a synthetic ADDED event per object, in no
      // resourceVersion order: take no resourceVersion from them (client-go's
      // propagateRVFromStart).
      pastInitialEvents = !isSyntheticStart(lastSyncResourceVersion);
    }
    // As client-go, start the clock before the request: some proxies send the response headers
    // only with the first event.
    watchStartNanos = clock.nanoTime();
    watchEvents = 0;
    Watch<T> w;
    try {
      w = listerWatcher.watch(options, cancellation);
    } catch (Throwable e) {
      rethrowIfFatal(e);
      return Input.openFailed(e);
    }
    currentWatch = w;
    if (closed) {
      closeQuietly(w); // close() may have run between the call and the assignment above
    }
    return Input.opened();
  }

  private Input<T> read() {
    Watch<T> w = Objects.requireNonNull(currentWatch, "watch");
    try {
      WatchEvent<T> event = w.next();
      return event == null ? Input.ended() : Input.received(event);
    } catch (Throwable e) {
      rethrowIfFatal(e);
      return Input.broke(e);
    }
  }

  // ---- the transition function -----------------------------------------------------------------

  /**
   * The transition function: the only place that changes {@link #state}. Applies {@code in} (the
   * outcome of what the current state asked for) to the store and the reflector's bookkeeping and
   * returns the next state. Called by the driving thread, and by close() when none drives.
   */
  private ReflectorState transition(Input<T> in) {
    ReflectorState current = state;
    ReflectorState next;
    if (closed || in instanceof Input.Close) {
      endCycleResources();
      next = new Stopped();
    } else {
      try {
        next = next(current, in);
      } catch (Throwable e) {
        // From what we feed (the store, a transform, a key function), Errors included: as
        // client-go after a store error, end the cycle and relist after the backoff.
        rethrowIfFatal(e);
        next =
            endCycle(
                new ReflectorException(name, ReflectorException.Phase.STORE, "store failed", e));
      }
    }
    if (log.isTraceEnabled()) {
      log.trace("reflector={} {} on {} -> {}", name, current, in.getClass().getSimpleName(), next);
    }
    state = next;
    return next;
  }

  private ReflectorState next(ReflectorState s, Input<T> in) {
    if (s instanceof Idle idle) {
      if (in instanceof Input.BackOff) {
        ReflectorException cause = idle.lastFailure();
        if (cause != null) {
          return new BackingOff(cause, delayAfter(cause), Then.NEXT_CYCLE);
        }
      }
      return startCycle();
    }
    if (s instanceof BackingOff b && in instanceof Input.Waited) {
      return switch (b.then()) {
        case REWATCH -> new Watching(lastSyncResourceVersion);
        case RESTREAM -> beginStream();
        case NEXT_CYCLE -> startCycle();
      };
    }
    if (s instanceof Listing || s instanceof Paging) {
      return onList(in);
    }
    if (s instanceof Streaming st) {
      return onStream(st, in);
    }
    if (s instanceof Watching w) {
      return onWatch(w, in);
    }
    throw new IllegalStateException("no transition from " + s + " on " + in);
  }

  private ReflectorState startCycle() {
    cyclesStarted++;
    if (cyclesStarted == 1) {
      lastSuccessNanos = clock.nanoTime(); // the time a stuck informer is measured from
    }
    internalErrorRetry.reset();
    log.debug("reflector={} listing and watching", name);
    return useWatchList ? beginStream() : beginList();
  }

  private ReflectorState beginList() {
    String rv = relistResourceVersion();
    pager = new Pager<>(rv, pageLimit(rv));
    consistentListReason = null;
    return pager.state();
  }

  /** client-go's reflector: which page size its pager gets for a list at {@code rv}. */
  private @Nullable Long pageLimit(String rv) {
    if (pageSize > 0) {
      return pageSize;
    }
    if (pageSize == 0) {
      return null;
    }
    if (paginatedResult) {
      return DEFAULT_PAGE_SIZE; // the server pages "0" lists: no watch cache to spare
    }
    if (!rv.isEmpty() && !rv.equals("0")) {
      return null; // unpaged, so that the watch cache serves it (it serves no paged list at N)
    }
    return DEFAULT_PAGE_SIZE;
  }

  private ReflectorState beginStream() {
    streamBuffer = new LinkedHashMap<>();
    streamResourceVersion = "";
    streamPastAdded = false;
    return new Streaming(rewatchResourceVersion(), 0);
  }

  // ---- Listing and Paging ----

  private ReflectorState onList(Input<T> in) {
    Pager<T> p = Objects.requireNonNull(pager, "pager");
    if (in instanceof Input.Listed<T> listed) {
      ListResult<T> all = p.accept(listed.page());
      return all == null ? p.state() : finishList(p, all);
    }
    if (in instanceof Input.ListFailed<T> failed) {
      Throwable e = failed.error();
      if (e instanceof RuntimeException re && p.fallBackToFullList(re)) {
        log.debug("reflector={} continue token expired; listing unpaged", name);
        return p.state();
      }
      if (consistentListReason == null && isExpiredOrTooLarge(e)) {
        // The version asked for is unusable: ask for the latest, consistently, once.
        lastSyncResourceVersionUnavailable = true;
        consistentListReason = (RuntimeException) e;
        log.debug("reflector={} list at rv={} refused ({}); listing consistently", name,
            p.resourceVersion(), e.getMessage());
        pager = new Pager<>(relistResourceVersion(), p.limit());
        return pager.state();
      }
      ReflectorException failure =
          new ReflectorException(
              name, ReflectorException.Phase.LIST, "list at rv=" + p.resourceVersion() + " failed",
              e);
      if (consistentListReason != null) {
        failure.addSuppressed(consistentListReason); // why the consistent list ran
      }
      return endCycle(failure);
    }
    throw new IllegalStateException("no list transition on " + in);
  }

  private ReflectorState finishList(Pager<T> p, ListResult<T> all) {
    if (p.resourceVersion().equals("0") && p.paginated()) {
      paginatedResult = true;
    }
    lastSyncResourceVersionUnavailable = false;
    pager = null;
    // The resync timer starts before the store learns the full state, so that a test clock moved
    // as soon as the informer has synced finds it scheduled.
    startResyncTimer();
    try {
      store.replace(all.items(), all.resourceVersion());
    } catch (RuntimeException e) {
      return endCycle(
          new ReflectorException(
              name, ReflectorException.Phase.STORE, "unable to sync list result", e));
    }
    // A list without a resourceVersion (some aggregated APIs) is stored as it is, as client-go
    // does: the watch then starts from "".
    lastSyncResourceVersion = all.resourceVersion();
    recordSuccess();
    metrics.listed(false, all.items().size());
    log.debug(
        "reflector={} listed {} objects at rv={}", name, all.items().size(), all.resourceVersion());
    return enterWatchPhase(/* continuedStream= */ false);
  }

  // ---- Streaming ----

  private ReflectorState onStream(Streaming st, Input<T> in) {
    if (in instanceof Input.Opened) {
      recordSuccess();
      metrics.watchOpened(true);
      return st;
    }
    if (in instanceof Input.OpenFailed<T> failed) {
      return streamFailed(failed.error(), ReflectorException.Phase.WATCH_START);
    }
    if (in instanceof Input.Received<T> received) {
      WatchEvent<T> event = received.event();
      if (event.type() == WatchEventType.ERROR) {
        return streamFailed(
            Objects.requireNonNull(event.error()), ReflectorException.Phase.WATCH_ERROR_EVENT);
      }
      T obj = Objects.requireNonNull(event.object());
      recordEvent();
      metrics.event(event.type());
      if (!isExpectedKind(obj)) {
        return st;
      }
      watchEvents++;
      Map<String, T> buffer = Objects.requireNonNull(streamBuffer, "stream buffer");
      boolean end = false;
      switch (event.type()) {
        case ADDED -> bufferPut(buffer, obj);
        case MODIFIED -> {
          streamPastAdded = true;
          bufferPut(buffer, obj);
        }
        case DELETED -> {
          streamPastAdded = true;
          buffer.remove(Keys.metaNamespaceKey(obj));
        }
        default -> {
          streamPastAdded = true;
          end = isInitialEventsEnd(obj);
        }
      }
      if (streamPastAdded) {
        streamResourceVersion = resourceVersionOf(obj);
      }
      return end ? finishStream() : new Streaming(st.resourceVersion(), buffer.size());
    }
    if (in instanceof Input.Ended
        || (in instanceof Input.Broke<T> broke && isConnectionFailure(broke.error()))) {
      closeCurrentWatch();
      if (isVeryShortWatch()) {
        return fallBackToList(veryShortWatch());
      }
      log.debug("reflector={} streaming list ended before its end bookmark; streaming again", name);
      return beginStream();
    }
    if (in instanceof Input.Broke<T> broke) {
      return streamFailed(broke.error(), ReflectorException.Phase.WATCH_STREAM);
    }
    throw new IllegalStateException("no streaming transition on " + in);
  }

  /** Keeps {@code obj}, transformed as the store would (the buffer then holds no second copy). */
  private void bufferPut(Map<String, T> buffer, T obj) {
    // Keyed as it arrived, as client-go's temporary store keys before it transforms: a DELETED
    // event, untransformed, finds it, whatever the transform leaves of its metadata.
    String key = Keys.metaNamespaceKey(obj);
    T kept = obj;
    if (streamTransform != null) {
      try {
        kept = Objects.requireNonNull(streamTransform.apply(obj), "the transform returned null");
      } catch (RuntimeException e) {
        // As client-go's temporary store: an object the transform fails on is left out.
        log.warn("reflector={} transform failed on {}; object left out", name,
            Keys.metaNamespaceKey(obj), e);
        return;
      }
    }
    buffer.put(key, kept);
  }

  /** client-go's {@code isErrorRetriableWithSideEffectsFn}, then its fallback to a list. */
  private ReflectorState streamFailed(Throwable e, ReflectorException.Phase phase) {
    closeCurrentWatch();
    ReflectorException failure = new ReflectorException(name, phase, "streaming list failed", e);
    if (isRetriableWatchError(e)) {
      report(failure, /* routine= */ true);
      return new BackingOff(failure, delayAfter(failure), Then.RESTREAM);
    }
    if (isExpiredOrTooLarge(e)) {
      lastSyncResourceVersionUnavailable = true;
      report(failure, /* routine= */ true);
      return beginStream();
    }
    return fallBackToList(failure);
  }

  private ReflectorState fallBackToList(ReflectorException why) {
    closeCurrentWatch();
    streamBuffer = null;
    log.debug("reflector={} streaming list failed; falling back to a list", name, why);
    report(why, /* routine= */ true);
    return beginList();
  }

  private ReflectorState finishStream() {
    Map<String, T> buffer = Objects.requireNonNull(streamBuffer, "stream buffer");
    streamBuffer = null;
    lastSyncResourceVersionUnavailable = false;
    ArrayList<T> objects = new ArrayList<>(buffer.values());
    buffer.clear();
    startResyncTimer(); // before the store learns the full state, as after a list
    try {
      if (streamTransform != null) {
        ((TransformingStore<T>) store).replaceTransformed(objects, streamResourceVersion);
      } else {
        store.replace(objects, streamResourceVersion);
      }
    } catch (RuntimeException e) {
      stopResyncTimer();
      return fallBackToList(
          new ReflectorException(
              name, ReflectorException.Phase.STORE, "unable to sync watch-list result", e));
    }
    lastSyncResourceVersion = streamResourceVersion;
    recordSuccess();
    metrics.listed(true, objects.size());
    log.debug("reflector={} streamed {} objects at rv={}", name, objects.size(),
        streamResourceVersion);
    return enterWatchPhase(/* continuedStream= */ true);
  }

  // ---- Watching ----

  /** The store holds the full state: watch (going on with the stream's watch if there is one). */
  private ReflectorState enterWatchPhase(boolean continuedStream) {
    if (continuedStream) {
      // client-go's watch loop takes its start time again and counts events afresh.
      watchStartNanos = clock.nanoTime();
      watchEvents = 0;
      pastInitialEvents = true;
    }
    return new Watching(lastSyncResourceVersion);
  }

  private ReflectorState onWatch(Watching w, Input<T> in) {
    if (in instanceof Input.Opened) {
      recordSuccess();
      metrics.watchOpened(false);
      return w;
    }
    if (in instanceof Input.OpenFailed<T> failed) {
      Throwable e = failed.error();
      ReflectorException failure =
          new ReflectorException(name, ReflectorException.Phase.WATCH_START, "watch failed", e);
      if (isRetriableWatchError(e)) {
        report(failure, /* routine= */ true);
        return new BackingOff(failure, delayAfter(failure), Then.REWATCH);
      }
      return rewatchOrEndCycle(failure, e);
    }
    if (in instanceof Input.ResyncFailed<T> failed) {
      return endCycle(
          new ReflectorException(
              name, ReflectorException.Phase.RESYNC, "resync failed", failed.error()));
    }
    if (in instanceof Input.Received<T> received) {
      WatchEvent<T> event = received.event();
      if (event.type() == WatchEventType.ERROR) {
        ApiException error = Objects.requireNonNull(event.error());
        return watchFailed(
            new ReflectorException(
                name, ReflectorException.Phase.WATCH_ERROR_EVENT, "watch ended with an error",
                error),
            error.isInternalError());
      }
      return apply(w, event);
    }
    if (in instanceof Input.Ended) {
      return watchEnded();
    }
    if (in instanceof Input.Broke<T> broke) {
      Throwable e = broke.error();
      if (isConnectionFailure(e)) {
        // client-go's stream watcher takes a probable EOF or a timeout for the end of the stream.
        log.debug("reflector={} watch connection broke: {}", name, e.toString());
        return watchEnded();
      }
      // client-go's stream watcher turns a decoding failure into an ERROR event carrying an
      // InternalError; re-watching without a retry budget would replay the same bytes.
      return watchFailed(
          new ReflectorException(
              name, ReflectorException.Phase.WATCH_STREAM,
              "unable to decode an event from the watch stream", e),
          /* internalError= */ true);
    }
    throw new IllegalStateException("no watch transition on " + in);
  }

  private ReflectorState apply(Watching w, WatchEvent<T> event) {
    T obj = Objects.requireNonNull(event.object());
    recordEvent();
    metrics.event(event.type());
    if (!isExpectedKind(obj)) {
      return w;
    }
    watchEvents++;
    String rv = resourceVersionOf(obj);
    switch (event.type()) {
      case ADDED -> storeWrite(event.type(), obj, () -> store.add(obj));
      case MODIFIED -> storeWrite(event.type(), obj, () -> store.update(obj));
      case DELETED -> storeWrite(event.type(), obj, () -> store.delete(obj));
      default -> storeWrite(event.type(), obj, () -> store.bookmark(rv));
    }
    if (event.type() != WatchEventType.ADDED) {
      pastInitialEvents = true;
    }
    if (pastInitialEvents && !rv.isEmpty()) {
      lastSyncResourceVersion = rv;
    }
    return lastSyncResourceVersion.equals(w.resourceVersion())
        ? w
        : new Watching(lastSyncResourceVersion);
  }

  /** As client-go: a store that refuses one event is logged, and the watch goes on. */
  private void storeWrite(WatchEventType type, T obj, Runnable write) {
    try {
      write.run();
    } catch (RuntimeException e) {
      log.warn("reflector={} could not store {} event for {} rv={}", name, type,
          Keys.metaNamespaceKey(obj), resourceVersionOf(obj), e);
    }
  }

  /** The watch ended cleanly: re-watch from the last resourceVersion, unless it was too short. */
  private ReflectorState watchEnded() {
    closeCurrentWatch();
    if (isVeryShortWatch()) {
      ReflectorException failure = veryShortWatch();
      return rewatchOrEndCycle(failure, failure);
    }
    if (!pastInitialEvents) {
      // Divergence: client-go would watch from "" again, whose synthetic ADDED events cannot tell
      // what was deleted meanwhile. Relist instead.
      return endCycle(
          new ReflectorException(
              name, ReflectorException.Phase.WATCH_STREAM,
              "a watch from rv=\"" + lastSyncResourceVersion
                  + "\" ended before its initial events were over"));
    }
    log.debug("reflector={} watch ended after {} events; re-watching from rv={}", name,
        watchEvents, lastSyncResourceVersion);
    return new Watching(lastSyncResourceVersion);
  }

  /** client-go's {@code watch} after {@code handleWatch} returned an error. */
  private ReflectorState watchFailed(ReflectorException failure, boolean internalError) {
    closeCurrentWatch();
    internalErrorRetry.after(internalError);
    Throwable cause = failure.getCause();
    if (cause instanceof ApiException api && api.isResourceExpired()) {
      return endCycle(failure); // the next cycle relists at the last resourceVersion
    }
    if (cause instanceof ApiException api && api.isTooManyRequests()) {
      report(failure, /* routine= */ true);
      return new BackingOff(failure, delayAfter(failure), Then.REWATCH);
    }
    if (internalError && internalErrorRetry.shouldRetry()) {
      report(failure, /* routine= */ true);
      return new Watching(lastSyncResourceVersion);
    }
    return rewatchOrEndCycle(failure, cause);
  }

  /** Ends the cycle, or, with {@link Builder#rewatchOnWatchError}, re-watches after a backoff. */
  private ReflectorState rewatchOrEndCycle(ReflectorException failure, @Nullable Throwable cause) {
    if (rewatchOnWatchError && !isExpiredOrTooLarge(cause)) {
      report(failure, /* routine= */ false);
      return new BackingOff(failure, delayAfter(failure), Then.REWATCH);
    }
    return endCycle(failure);
  }

  private boolean isVeryShortWatch() {
    return watchEvents == 0 && clock.nanoTime() - watchStartNanos < VERY_SHORT_WATCH.toNanos();
  }

  private ReflectorException veryShortWatch() {
    return new ReflectorException(
        name, ReflectorException.Phase.WATCH_TOO_SHORT,
        "very short watch: the watch lasted less than a second and no items were received");
  }

  // ---- the end of a cycle ----

  private ReflectorState endCycle(ReflectorException cause) {
    endCycleResources();
    boolean expired = cause.apiError().map(ApiException::isResourceExpired).orElse(false);
    boolean direct;
    synchronized (lifecycleLock) {
      direct = executor == null;
    }
    if (!direct) {
      report(cause, /* routine= */ expired); // listAndWatch() throws it instead
    } else {
      notifyHandler(cause);
    }
    return new Idle(cause);
  }

  private void endCycleResources() {
    closeCurrentWatch();
    stopResyncTimer();
    pager = null;
    streamBuffer = null;
  }

  private void closeCurrentWatch() {
    Watch<T> w = currentWatch;
    currentWatch = null;
    closeQuietly(w);
  }

  // ---- resync ----

  private void startResyncTimer() {
    if (resyncPeriod.isZero()) {
      return;
    }
    synchronized (lifecycleLock) {
      if (pendingResync != null) {
        pendingResync.cancel();
      }
      long generation = ++resyncGeneration;
      pendingResync = closed ? null : scheduler.schedule(() -> resyncTick(generation), resyncPeriod);
    }
  }

  private void stopResyncTimer() {
    synchronized (lifecycleLock) {
      resyncGeneration++;
      if (pendingResync != null) {
        pendingResync.cancel();
        pendingResync = null;
      }
    }
  }

  /** On the scheduler's thread: client-go's {@code startResync}. */
  private void resyncTick(long generation) {
    try {
      if (!closed && shouldResync.getAsBoolean()) {
        log.debug("reflector={} forcing resync", name);
        store.resync();
      }
    } catch (RuntimeException e) {
      synchronized (lifecycleLock) {
        if (generation != resyncGeneration) {
          return;
        }
        pendingResync = null;
      }
      resyncFailure = e;
      Watch<T> w = currentWatch;
      if (w != null) {
        closeQuietly(w); // wakes the driving thread, which ends the cycle
      }
      return;
    }
    synchronized (lifecycleLock) {
      if (!closed && generation == resyncGeneration) {
        pendingResync = scheduler.schedule(() -> resyncTick(generation), resyncPeriod);
      }
    }
  }

  private @Nullable RuntimeException takeResyncFailure() {
    RuntimeException e = resyncFailure;
    resyncFailure = null;
    return e;
  }

  // ---- classification, options, helpers ----

  /** client-go's {@code isWatchErrorRetriable}: connection refused, or 429. */
  static boolean isRetriableWatchError(@Nullable Throwable e) {
    if (e instanceof ApiException api) {
      return api.isTooManyRequests();
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** A broken connection (an {@link IOException} among the causes), not bad data. */
  static boolean isConnectionFailure(Throwable e) {
    if (e instanceof ApiException) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private static boolean isExpiredOrTooLarge(@Nullable Throwable e) {
    return e instanceof ApiException api
        && (api.isResourceExpired() || api.isTooLargeResourceVersion());
  }

  /** client-go's {@code relistResourceVersion}. */
  private String relistResourceVersion() {
    if (lastSyncResourceVersionUnavailable) {
      return "";
    }
    return lastSyncResourceVersion.isEmpty() ? "0" : lastSyncResourceVersion;
  }

  /** client-go's {@code rewatchResourceVersion}: where a streaming list starts. */
  private String rewatchResourceVersion() {
    return lastSyncResourceVersionUnavailable ? "" : lastSyncResourceVersion;
  }

  private ListOptions watchOptions(String rv) {
    long min = minWatchTimeout.toSeconds();
    long timeout = min + (long) (random.nextDouble() * min);
    return ListOptions.builder()
        .resourceVersion(rv.isEmpty() ? null : rv)
        .timeoutSeconds(timeout)
        .allowWatchBookmarks(true)
        .build();
  }

  private Duration delayAfter(ReflectorException e) {
    Duration d = backoff.next();
    Duration retryAfter = e.apiError().flatMap(ApiException::retryAfter).orElse(Duration.ZERO);
    return retryAfter.compareTo(d) > 0 ? retryAfter : d;
  }

  /** client-go's expected-GVK check: an object of another kind is logged and skipped. */
  private boolean isExpectedKind(T obj) {
    if (expectedKind == null) {
      return true;
    }
    if (expectedKind.equals(obj.getKind()) && Objects.equals(expectedApiVersion, obj.getApiVersion())) {
      return true;
    }
    log.warn("reflector={} unexpected watch event object of kind {} {} (expected {} {}); ignored",
        name, obj.getApiVersion(), obj.getKind(), expectedApiVersion, expectedKind);
    return false;
  }

  private void report(ReflectorException e, boolean routine) {
    if (routine) {
      log.debug("reflector={} {}", name, e.getMessage(), e);
    } else {
      log.warn("reflector={} {}; will retry", name, e.getMessage(), e);
    }
    notifyHandler(e);
  }

  private void notifyHandler(ReflectorException e) {
    recordFailure(e); // every failure, routine or not, comes here
    metrics.failed(e.phase(), e.apiError().map(ApiException::code).orElse(0));
    WatchErrorHandler h = watchErrorHandler;
    if (h != null) {
      try {
        h.onWatchError(e);
      } catch (RuntimeException handlerFailure) {
        log.warn("reflector={} watch error handler threw", name, handlerFailure);
      }
    }
  }

  // ---- health ----

  private void recordSuccess() {
    lastSuccessNanos = clock.nanoTime();
    consecutiveFailures = 0;
  }

  /** The hot path: one clock read and one volatile write per event. */
  private void recordEvent() {
    lastEventNanos = clock.nanoTime();
    if (consecutiveFailures != 0) {
      consecutiveFailures = 0;
    }
  }

  private void recordFailure(ReflectorException e) {
    lastFailure = new Failure(summary(e), clock.now());
    consecutiveFailures++; // a single writer: the driving thread
  }

  /** The failure in one line: phase, message and cause, as exception messages (no headers). */
  private static String summary(ReflectorException e) {
    StringBuilder s = new StringBuilder(e.phase().toString()).append(": ").append(e.getMessage());
    Throwable cause = e.getCause();
    if (cause != null) {
      String m = cause.getMessage();
      s.append(": ").append(cause.getClass().getSimpleName());
      if (m != null && !m.isEmpty()) {
        s.append(": ").append(m.lines().findFirst().orElse(""));
      }
    }
    return s.toString();
  }

  /**
   * A snapshot of this reflector's health, with the informer's {@code synced} and {@code
   * terminal} (a closed reflector is terminal too). Thread-safe, lock-free.
   */
  InformerHealth health(String informerName, boolean synced, boolean terminal) {
    ReflectorState s = state;
    Failure f = lastFailure;
    Instant now = clock.now();
    long nowNanos = clock.nanoTime();
    return new InformerHealth(
        informerName,
        s,
        synced,
        instant(lastEventNanos, now, nowNanos),
        instant(Math.max(lastSuccessNanos, lastEventNanos), now, nowNanos),
        f == null ? null : f.summary(),
        f == null ? null : f.time(),
        consecutiveFailures,
        terminal || closed || s instanceof Stopped);
  }

  private static @Nullable Instant instant(long nanos, Instant now, long nowNanos) {
    return nanos == NO_TIME ? null : now.minusNanos(nowNanos - nanos);
  }

  private record Failure(String summary, Instant time) {}

  private static boolean isSyntheticStart(String rv) {
    return rv.isEmpty() || rv.equals("0");
  }

  private static boolean isInitialEventsEnd(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    return m != null
        && m.getAnnotations() != null
        && "true".equals(m.getAnnotations().get(WatchEvent.INITIAL_EVENTS_END_ANNOTATION));
  }

  private static String resourceVersionOf(@Nullable HasMetadata obj) {
    if (obj == null || obj.getMetadata() == null) {
      return "";
    }
    String rv = obj.getMetadata().getResourceVersion();
    return rv == null ? "" : rv;
  }

  private static void rethrowIfFatal(Throwable e) {
    if (e instanceof VirtualMachineError vme) {
      throw vme;
    }
  }

  private static void closeQuietly(@Nullable Watch<?> w) {
    if (w == null) {
      return;
    }
    try {
      w.close();
    } catch (RuntimeException e) {
      log.debug("closing a watch failed", e);
    }
  }

  static ThreadFactory namedDaemon(String threadName) {
    return r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    };
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** Whether the calling thread is this reflector's own thread (inside a callback it runs). */
  boolean isReflectorThread() {
    return threads.contains(Thread.currentThread());
  }

  /** Whether {@link #start()} was called and {@link #close()} was not. */
  public boolean isRunning() {
    synchronized (lifecycleLock) {
      return executor != null && !closed;
    }
  }

  /**
   * Stops the reflector: ends the open watch, cancels the pending wait and the resync tick,
   * interrupts the reflector thread and, if that did not end it within a moment, cancels the
   * {@link Cancellation} its lists and watches were given, which ends the request it has in flight
   * (a list, or a watch being opened), since an interrupt does not end a blocked socket read
   * (OkHttp over HTTP/1.1); then waits for the thread to end. Called on the reflector thread itself
   * (from a {@link WatchErrorHandler}, or from a transform), it neither interrupts nor waits for
   * that thread, which ends as soon as the callback returns. A cycle running on a thread not the
   * reflector's ({@link #listAndWatch()}, or an {@link Builder#executor executor} of the
   * caller's) is not interrupted: the cancellation ends its request at once, and close() does not
   * wait for it. Idempotent.
   */
  @Override
  public void close() {
    Executor e;
    Thread driver;
    synchronized (lifecycleLock) {
      if (closed) {
        return;
      }
      closed = true;
      e = executor;
      driver = drivingThread;
      if (pendingWait != null) {
        pendingWait.cancel();
      }
      if (directWait != null) {
        directWait.countDown();
      }
      if (pendingResync != null) {
        pendingResync.cancel();
      }
    }
    closeQuietly(currentWatch);
    boolean onOwnThread = threads.contains(Thread.currentThread()) || driver == Thread.currentThread();
    if (e instanceof ExecutorService es && e != runOn) {
      if (onOwnThread) {
        es.shutdown(); // called from a callback on our own thread: neither interrupt nor wait
      } else {
        // Abandon a list (or watch) request in flight instead of waiting for it: the interrupt
        // reaches a thread waiting in Java (OkHttp over HTTP/2 waits so), the cancellation one
        // blocked in a socket read (HTTP/1.1). Cancel only once the interrupt had its chance:
        // OkHttp may keep a pooled HTTP/2 connection busy after a call cancelled before its
        // headers. If the thread ended meanwhile, no request is in flight and this runs nothing.
        es.shutdownNow();
        awaitTermination(es, INTERRUPT_GRACE);
        cancellation.cancel();
        awaitThreads(es);
      }
    }
    cancellation.cancel(); // idempotent; the only stop for a cycle on a thread not ours
    if (!onOwnThread) {
      synchronized (lifecycleLock) {
        driver = drivingThread;
      }
      if (driver == null) {
        transition(Input.close()); // no thread drives any more: stop here
      }
    }
    log.debug("reflector={} closed", name);
  }

  /** Whether {@code e} terminated within {@code wait}; false if interrupted meanwhile. */
  private static boolean awaitTermination(ExecutorService e, Duration wait) {
    try {
      return e.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Waits for the executor to terminate and its thread to be gone (not merely idle). */
  private void awaitThreads(ExecutorService e) {
    try {
      if (!e.awaitTermination(CLOSE_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        log.warn("reflector={} thread did not stop within {} of an interrupt", name, CLOSE_WAIT);
        return;
      }
      for (Thread t : threads) {
        t.join(CLOSE_WAIT.toMillis());
      }
    } catch (InterruptedException ie) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  // ---- inputs and the internal-error budget ----------------------------------------------------

  /** What a driver feeds the transition function: the outcome of what the state asked for. */
  private sealed interface Input<T> {
    record Start<T>() implements Input<T> {}

    record BackOff<T>() implements Input<T> {}

    record Waited<T>() implements Input<T> {}

    record Close<T>() implements Input<T> {}

    record Listed<T>(ListResult<T> page) implements Input<T> {}

    record ListFailed<T>(Throwable error) implements Input<T> {}

    record Opened<T>() implements Input<T> {}

    record OpenFailed<T>(Throwable error) implements Input<T> {}

    record Received<T>(WatchEvent<T> event) implements Input<T> {}

    record Ended<T>() implements Input<T> {}

    record Broke<T>(Throwable error) implements Input<T> {}

    record ResyncFailed<T>(RuntimeException error) implements Input<T> {}

    static <T> Input<T> start() {
      return new Start<>();
    }

    static <T> Input<T> backOff() {
      return new BackOff<>();
    }

    static <T> Input<T> waited() {
      return new Waited<>();
    }

    static <T> Input<T> close() {
      return new Close<>();
    }

    static <T> Input<T> listed(ListResult<T> page) {
      return new Listed<>(page);
    }

    static <T> Input<T> listFailed(Throwable e) {
      return new ListFailed<>(e);
    }

    static <T> Input<T> opened() {
      return new Opened<>();
    }

    static <T> Input<T> openFailed(Throwable e) {
      return new OpenFailed<>(e);
    }

    static <T> Input<T> received(WatchEvent<T> event) {
      return new Received<>(event);
    }

    static <T> Input<T> ended() {
      return new Ended<>();
    }

    static <T> Input<T> broke(Throwable e) {
      return new Broke<>(e);
    }

    static <T> Input<T> resyncFailed(RuntimeException e) {
      return new ResyncFailed<>(e);
    }
  }

  /**
   * client-go's {@code RetryWithDeadline(MaxInternalErrorRetryDuration, time.Minute,
   * IsInternalError)}: internal errors are re-watched at once while the first of a run of them is
   * at most the maximum duration ago; a minute without one starts a new run. A maximum of zero
   * (the default) never re-watches.
   */
  private final class InternalErrorRetry {
    private long firstErrorNanos;
    private long lastErrorNanos;
    private boolean any;

    void reset() {
      any = false;
    }

    void after(boolean internalError) {
      if (!internalError) {
        return;
      }
      long now = clock.nanoTime();
      if (!any || now - lastErrorNanos >= INTERNAL_ERROR_RESET.toNanos()) {
        any = true;
        firstErrorNanos = now;
      }
      lastErrorNanos = now;
    }

    boolean shouldRetry() {
      if (maxInternalErrorRetryDuration.isZero()) {
        return false;
      }
      if (any && clock.nanoTime() - firstErrorNanos <= maxInternalErrorRetryDuration.toNanos()) {
        return true;
      }
      reset();
      return false;
    }
  }

  // ---- the builder -----------------------------------------------------------------------------

  /**
   * Builds a {@link Reflector}.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the object type
   */
  public static final class Builder<T extends HasMetadata> {
    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final Store<T> store;
    private long pageSize = PAGE_SIZE_UNSET;
    private boolean streamingList = true;
    private Duration minWatchTimeout = MIN_WATCH_TIMEOUT_FLOOR;
    private Duration resyncPeriod = Duration.ZERO;
    private BooleanSupplier shouldResync = () -> true;
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private @Nullable RandomGenerator random;
    private Backoff.Policy backoffPolicy = Backoff.Policy.clientGoDefault();
    private Duration maxInternalErrorRetryDuration = Duration.ZERO;
    private boolean rewatchOnWatchError;
    private @Nullable String expectedApiVersion;
    private @Nullable String expectedKind;
    private @Nullable WatchErrorHandler watchErrorHandler;
    private ReflectorMetrics metrics = ReflectorMetrics.NONE;
    private @Nullable ThreadFactory threadFactory;
    private @Nullable Executor runOn;

    private Builder(String name, ListerWatcher<T> listerWatcher, Store<T> store) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * The page size ({@code limit}) of every list, relists at a resourceVersion included (client-go's
     * {@code WatchListPageSize}); 0 never pages. Unset (the default), lists are paged by 500
     * except a relist at a resourceVersion, which is unpaged so that the watch cache can serve it,
     * unless the first list came back paged.
     */
    public Builder<T> pageSize(long pageSize) {
      if (pageSize < 0) {
        throw new IllegalArgumentException("pageSize must not be negative: " + pageSize);
      }
      this.pageSize = pageSize;
      return this;
    }

    /**
     * Whether to begin each cycle with a streaming list ({@code sendInitialEvents=true}), falling
     * back to a list when the server refuses it. Default true, as client-go 1.36's {@code
     * WatchListClient} gate. Ignored for a {@link ListerWatcher} that says it cannot stream.
     */
    public Builder<T> streamingList(boolean streamingList) {
      this.streamingList = streamingList;
      return this;
    }

    /**
     * Watches ask for a server timeout between this and twice this. Default, and at least, 5
     * minutes: shorter values are raised to it, as client-go does to spare the control plane.
     */
    public Builder<T> minWatchTimeout(Duration minWatchTimeout) {
      if (minWatchTimeout.toSeconds() < 1) {
        throw new IllegalArgumentException(
            "minWatchTimeout must be at least 1s: " + minWatchTimeout);
      }
      this.minWatchTimeout =
          minWatchTimeout.compareTo(MIN_WATCH_TIMEOUT_FLOOR) < 0
              ? MIN_WATCH_TIMEOUT_FLOOR
              : minWatchTimeout;
      return this;
    }

    /**
     * Calls {@link Store#resync()} every {@code period} while watching, when {@code shouldResync}
     * agrees; zero (the default) disables resync. The timer starts anew with each cycle's watch;
     * a resync that throws ends the cycle (client-go's {@code resyncerrc}).
     */
    public Builder<T> resync(Duration period, BooleanSupplier shouldResync) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("resync period must not be negative: " + period);
      }
      this.resyncPeriod = period;
      this.shouldResync = Objects.requireNonNull(shouldResync, "shouldResync");
      return this;
    }

    /** The clock. Default {@link Clock#system()}. */
    public Builder<T> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Where waits and resync ticks are scheduled. Default {@link Scheduler#system()}. */
    public Builder<T> scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Seeds the randomness for watch timeouts and jitter: each reflector built here gets a
     * generator of its own, split from or seeded by {@code random} at {@link #build()} (see {@link
     * Randoms#independent}), so that reflectors built from one builder share none. Default a new
     * {@link Random} for each reflector.
     */
    public Builder<T> random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The backoff between cycles and before 429 retries: each reflector built here makes its own
     * from {@code policy} (on its clock and random), so that reflectors built from one builder
     * share no backoff sequence. Default {@link Backoff.Policy#clientGoDefault}.
     */
    public Builder<T> backoff(Backoff.Policy policy) {
      this.backoffPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * How long a run of internal errors (500) on the watch is re-watched at once instead of ending
     * the cycle (client-go's {@code MaxInternalErrorRetryDuration}). Default zero: never.
     */
    public Builder<T> maxInternalErrorRetryDuration(Duration max) {
      if (max.isNegative()) {
        throw new IllegalArgumentException("max must not be negative: " + max);
      }
      this.maxInternalErrorRetryDuration = max;
      return this;
    }

    /**
     * Off by default (client-go's behaviour: relist). When on, a watch that fails in a way that
     * leaves the last resourceVersion usable (a refused watch, an ERROR event other than 410 and
     * too-large, a stream that could not be decoded, a very short watch) is re-watched from that
     * resourceVersion after the backoff instead of ending the cycle with a relist: equally correct,
     * as every event up to it is in the store, and it spares the server a full list per hiccup.
     */
    public Builder<T> rewatchOnWatchError(boolean rewatch) {
      this.rewatchOnWatchError = rewatch;
      return this;
    }

    /**
     * The {@code apiVersion} and {@code kind} of the objects the watch must bring (client-go's
     * expected GVK); an event whose object is of another kind is logged and skipped. Default none.
     */
    public Builder<T> expectedKind(String apiVersion, String kind) {
      this.expectedApiVersion = Objects.requireNonNull(apiVersion, "apiVersion");
      this.expectedKind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /** Told of every failure. Default none (failures are still logged). */
    public Builder<T> watchErrorHandler(@Nullable WatchErrorHandler handler) {
      this.watchErrorHandler = handler;
      return this;
    }

    /** Counts lists, watches, events and failures. Default {@link ReflectorMetrics#NONE}. */
    public Builder<T> metrics(ReflectorMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /** Makes the reflector's thread. Default a daemon thread {@code kinformer-<name>-reflector}. */
    public Builder<T> threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Runs {@link #start()}'s cycles on {@code executor} instead of a thread of its own. A cycle
     * holds the executor's thread while it lists and watches (reading a watch blocks); a backoff
     * holds none: the loop ends and is handed to the executor again, from the {@link Scheduler},
     * when the wait is over. The executor is not shut down by {@link #close()}, which cancels a
     * request in flight instead. Tests pass a direct executor (the loop runs on the test thread
     * until it waits on the clock) or one they run by hand, and may drive single transitions with
     * {@link #step()}. Default: a thread of its own, made by the {@link #threadFactory}.
     */
    public Builder<T> executor(Executor executor) {
      this.runOn = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** Builds the reflector; nothing starts until {@link Reflector#start()}. */
    public Reflector<T> build() {
      return new Reflector<>(this);
    }
  }
}

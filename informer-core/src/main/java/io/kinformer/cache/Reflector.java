package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kinformer.time.Backoff;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link Store} in step with the server by list and watch: client-go's {@code
 * cache.Reflector} ({@code tools/cache/reflector.go}).
 *
 * <h2>The loop</h2>
 *
 * <ol>
 *   <li><b>List</b> (when the store needs the full state): page through the collection with {@code
 *       limit} (default 500) and {@code continue}, then {@link Store#replace} the store with
 *       everything at the list's resourceVersion. The first list asks for {@code resourceVersion=0}
 *       (any cached state: the server's watch cache answers it cheaply and ignores {@code limit});
 *       a relist asks for the last resourceVersion seen, without {@code limit} so that the watch
 *       cache can serve it; when the server says that version is too old (410) or too new ({@code
 *       ResourceVersionTooLarge}), the list is retried at once as a consistent list (no
 *       resourceVersion). An expired {@code continue} token falls back to one unpaged list at the
 *       same resourceVersion. A server that ignores {@code limit} is fine. A list without a
 *       resourceVersion is stored all the same, and the watch then starts from "" (as client-go).
 *   <li><b>Watch</b> from the last resourceVersion, with bookmarks and a random {@code
 *       timeoutSeconds} between {@code minWatchTimeout} and twice that (client-go: 5 to 10 minutes)
 *       so that a fleet of informers does not reconnect in lockstep. Each ADDED, MODIFIED, DELETED
 *       event goes to the store, and its resourceVersion becomes the last one seen; a BOOKMARK only
 *       advances the resourceVersion. A watch from "" begins with an ADDED event per object, in no
 *       resourceVersion order: the resourceVersion advances only from its first other event.
 *   <li><b>The watch ends.</b> A clean end (the server's timeout) or a broken connection (an I/O
 *       error: a reset, a proxy's idle cut, a watch gone silent) re-watches at once from the last
 *       resourceVersion, without listing, as client-go's stream watcher treats a probable EOF or a
 *       timeout as the end of the stream; unless the watch lasted under a second without any event
 *       (client-go's "very short watch"), which backs off first. A refused watch or a server error
 *       re-watches after a backoff, still without listing, because the last resourceVersion is
 *       still valid: every event up to it is in the store. A stream that breaks on what the server
 *       sent (malformed JSON, an unknown event type, an event over the size limit) relists after a
 *       backoff, as client-go does (its stream watcher turns the decoding error into an ERROR
 *       event): re-watching from the same resourceVersion would only replay the same bytes. "Too
 *       old" (410 {@code Expired} or {@code Gone}, as an HTTP status or as an ERROR event) and "too
 *       large" force a relist too.
 * </ol>
 *
 * <p>Deliberate divergence from client-go: client-go relists after a refused watch or an ERROR
 * event of any kind; kinformer re-watches from the last resourceVersion unless the server said it
 * is unusable, which is equally correct and avoids a full list for every server hiccup.
 *
 * <p>Backoff between failures is client-go's by default ({@link Backoff#clientGoDefault}); a {@code
 * Retry-After} from the server lengthens it. Every failure is logged and reported to the {@link
 * WatchErrorHandler}; the loop itself only ends with {@link #close()}.
 *
 * <p>Optional <b>streaming list</b> ({@code sendInitialEvents=true}): instead of listing, a watch
 * streams the current state as ADDED events and marks its end with a bookmark annotated {@code
 * k8s.io/initial-events-end}; the reflector then replaces the store with what it collected and
 * keeps the same watch going. If the streaming list fails, the reflector falls back to a normal
 * list in the same attempt.
 *
 * <p>Optional <b>resync</b>: every {@code resyncPeriod}, if {@code shouldResync} agrees, {@link
 * Store#resync()} is called (the informer uses this to re-deliver cached objects to handlers).
 *
 * <h2>Threads</h2>
 *
 * One thread, {@code kinformer-<name>-reflector}, created by {@link #start()}, runs the lists and
 * reads the watch; it writes to the store. Waits between attempts are scheduled on the {@link
 * Scheduler} (no thread sleeps), and so is the resync tick, which calls {@link Store#resync()} on
 * the scheduler's thread. {@link #close()} may be called from any thread.
 *
 * <p>Thread safety: thread-safe.
 *
 * @param <T> the object type
 */
public final class Reflector<T extends HasMetadata> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Reflector.class);

  /** A watch that ends this soon after starting, with no event, counts as failed (client-go). */
  private static final Duration TOO_SHORT_WATCH = Duration.ofSeconds(1);

  /**
   * How long close() lets an interrupt alone end the reflector thread before it cancels the
   * thread's request in flight through {@link ListerWatcher#cancelCalls}.
   */
  private static final Duration INTERRUPT_GRACE = Duration.ofMillis(200);

  /** How long close() waits for the reflector thread to end once it interrupted it. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final String name;
  private final ListerWatcher<T> listerWatcher;
  private final Store<T> store;
  private final long pageSize;
  private final boolean streamingList;
  private final Duration minWatchTimeout;
  private final Duration resyncPeriod;
  private final BooleanSupplier shouldResync;
  private final Clock clock;
  private final Scheduler scheduler;
  private final RandomGenerator random;
  private final Backoff backoff;
  private final @Nullable WatchErrorHandler watchErrorHandler;
  private final ThreadFactory threadFactory;

  /** Every thread {@link #threadFactory} made for this reflector, so that close() can join it. */
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

  private final Object lifecycleLock = new Object();
  // @GuardedBy("lifecycleLock")
  private @Nullable ExecutorService executor;
  // @GuardedBy("lifecycleLock")
  private @Nullable Cancellable pendingRetry;
  // @GuardedBy("lifecycleLock")
  private @Nullable Cancellable pendingResync;
  private volatile boolean closed;
  private volatile @Nullable Watch<T> currentWatch;

  // State of the loop, touched only by the reflector thread (published to readers via volatile).
  private volatile String lastSyncResourceVersion = "";

  /** The last resourceVersion is known to be unusable for a list: list consistently instead. */
  private boolean lastSyncResourceVersionUnavailable;

  /** The store needs the full state before the next watch. */
  private boolean needsList = true;

  /** The first resourceVersion=0 list came back paged: the server has no watch cache. */
  private boolean paginatedResult;

  private Reflector(Builder<T> b) {
    this.name = b.name;
    this.listerWatcher = b.listerWatcher;
    this.store = b.store;
    this.pageSize = b.pageSize;
    this.streamingList = b.streamingList;
    this.minWatchTimeout = b.minWatchTimeout;
    this.resyncPeriod = b.resyncPeriod;
    this.shouldResync = b.shouldResync;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.random = b.random != null ? b.random : new Random();
    this.backoff = b.backoff != null ? b.backoff : Backoff.clientGoDefault(clock, random);
    this.watchErrorHandler = b.watchErrorHandler;
    ThreadFactory base =
        b.threadFactory != null ? b.threadFactory : namedDaemon("kinformer-" + name + "-reflector");
    this.threadFactory =
        r -> {
          Thread t = base.newThread(r);
          threads.add(t);
          return t;
        };
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

  /**
   * Starts the list-and-watch loop on its own thread, and the resync tick if configured.
   * Idempotent; returns at once.
   *
   * @throws IllegalStateException if the reflector was closed
   */
  public void start() {
    synchronized (lifecycleLock) {
      if (closed) {
        throw new IllegalStateException("reflector " + name + " is closed and cannot start");
      }
      if (executor != null) {
        return;
      }
      ThreadPoolExecutor e =
          new ThreadPoolExecutor(
              1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
      executor = e;
      e.execute(this::runAttempts);
      if (!resyncPeriod.isZero()) {
        pendingResync = scheduler.schedule(this::resyncTick, resyncPeriod);
      }
    }
    log.debug("reflector={} started", name);
  }

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
   * Stops the loop: ends the open watch, cancels pending retries and the resync tick, interrupts
   * the reflector thread and, if that did not end it within a moment, cancels the request it has in
   * flight (a list, or a watch being opened) through {@link ListerWatcher#cancelCalls}, since an
   * interrupt does not end a blocked socket read (OkHttp over HTTP/1.1); then waits for the thread
   * to end. Called on the reflector
   * thread itself (from a {@link WatchErrorHandler}, or from a transform), it neither interrupts nor
   * waits for that thread, which ends as soon as the callback returns. Idempotent.
   */
  @Override
  public void close() {
    ExecutorService e;
    synchronized (lifecycleLock) {
      if (closed) {
        return;
      }
      closed = true;
      e = executor;
      if (pendingRetry != null) {
        pendingRetry.cancel();
      }
      if (pendingResync != null) {
        pendingResync.cancel();
      }
    }
    Watch<T> w = currentWatch;
    if (w != null) {
      w.close();
    }
    if (e != null) {
      if (threads.contains(Thread.currentThread())) {
        e.shutdown(); // called from a callback on our own thread: neither interrupt nor wait
      } else {
        // Abandon a list (or watch) request in flight instead of waiting for it: the interrupt
        // reaches a thread waiting in Java (OkHttp over HTTP/2 waits so), the cancellation one
        // blocked in a socket read (HTTP/1.1). Cancel only if the interrupt did not do: OkHttp
        // may keep a pooled HTTP/2 connection busy after a call cancelled before its headers.
        e.shutdownNow();
        if (!awaitTermination(e, INTERRUPT_GRACE)) {
          for (Thread t : threads) {
            try {
              listerWatcher.cancelCalls(t);
            } catch (RuntimeException cancelFailure) {
              log.warn("reflector={} cancelling the calls of {} failed", name, t, cancelFailure);
            }
          }
        }
        awaitThreads(e);
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

  // ---- the loop --------------------------------------------------------------------------------

  /** Runs list/watch attempts until one fails or the reflector closes; a failure reschedules. */
  private void runAttempts() {
    while (!closed) {
      try {
        @Nullable Watch<T> openWatch = null;
        if (needsList) {
          openWatch = listOrStream();
        }
        if (closed) {
          closeQuietly(openWatch);
          return;
        }
        watch(openWatch);
      } catch (ReflectorException e) {
        if (closed) {
          return;
        }
        report(e);
        scheduleRetry(delayAfter(e));
        return;
      } catch (Throwable e) {
        // Not from the list or watch but from what we feed (the store, a transform, a key
        // function), Errors included: a thread ended by an AssertionError would leave the cache
        // stale for good. As client-go after a store error, back off and relist.
        if (closed) {
          return;
        }
        needsList = true;
        ReflectorException re =
            new ReflectorException(
                name, ReflectorException.Phase.WATCH_STREAM, "unexpected failure", e);
        report(re);
        scheduleRetry(delayAfter(re));
        return;
      }
    }
  }

  /**
   * Whether a failure is the routine end of a watch stream, logged at DEBUG and followed by a
   * re-watch: the connection broke (an {@link IOException} among the causes) or the stream ended
   * without a cause of its own. A stream that failed on what the server sent (malformed JSON, an
   * unknown event type, an event over the size limit) is not routine: it is logged as a WARN and
   * followed by a relist, since a server that keeps sending it keeps the informer from seeing
   * changes.
   */
  static boolean isRoutineStreamEnd(ReflectorException e) {
    if (e.phase() != ReflectorException.Phase.WATCH_STREAM) {
      return false;
    }
    Throwable cause = e.getCause();
    if (cause == null) {
      return true;
    }
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private void scheduleRetry(Duration delay) {
    synchronized (lifecycleLock) {
      if (closed || executor == null) {
        return;
      }
      ExecutorService e = executor;
      log.debug("reflector={} retrying in {}", name, delay);
      pendingRetry =
          scheduler.schedule(
              () -> {
                try {
                  e.execute(this::runAttempts);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                  // closed meanwhile: nothing to do
                }
              },
              delay);
    }
  }

  private Duration delayAfter(ReflectorException e) {
    Duration d = backoff.next();
    Duration retryAfter = e.apiError().flatMap(ApiException::retryAfter).orElse(Duration.ZERO);
    return retryAfter.compareTo(d) > 0 ? retryAfter : d;
  }

  private void report(ReflectorException e) {
    boolean expected =
        isRoutineStreamEnd(e) || e.apiError().map(ApiException::isResourceExpired).orElse(false);
    if (expected) {
      log.debug("reflector={} {}", name, e.getMessage(), e);
    } else {
      log.warn("reflector={} list/watch failed; will retry", name, e);
    }
    WatchErrorHandler h = watchErrorHandler;
    if (h != null) {
      try {
        h.onWatchError(e);
      } catch (RuntimeException handlerFailure) {
        log.warn("reflector={} watch error handler threw", name, handlerFailure);
      }
    }
  }

  /**
   * Brings the store to the full current state: a streaming list if enabled (returning its still
   * open watch), else a paged list (returning null).
   */
  private @Nullable Watch<T> listOrStream() {
    if (streamingList) {
      try {
        Watch<T> w = streamInitialState();
        needsList = false;
        return w;
      } catch (ReflectorException e) {
        if (closed) {
          throw e;
        }
        log.debug("reflector={} streaming list failed, falling back to a list", name, e);
        report(e);
      }
    }
    list();
    needsList = false;
    return null;
  }

  private void list() {
    String rv = relistResourceVersion();
    ListResult<T> all;
    try {
      all = listAllPages(rv);
    } catch (ApiException e) {
      if (!rv.isEmpty() && (e.isResourceExpired() || e.isTooLargeResourceVersion())) {
        // client-go: the version we asked for is unusable; ask for the latest, consistently.
        log.debug(
            "reflector={} list at rv={} refused ({}); listing consistently",
            name,
            rv,
            e.getMessage());
        lastSyncResourceVersionUnavailable = true;
        try {
          all = listAllPages("");
        } catch (RuntimeException again) {
          ReflectorException failed =
              new ReflectorException(
                  name,
                  ReflectorException.Phase.LIST,
                  "consistent list failed after the list at rv=" + rv + " was refused",
                  again);
          failed.addSuppressed(e); // why the consistent list ran
          throw failed;
        }
      } else {
        throw new ReflectorException(name, ReflectorException.Phase.LIST, "list failed", e);
      }
    } catch (RuntimeException e) {
      throw new ReflectorException(name, ReflectorException.Phase.LIST, "list failed", e);
    }
    // A list without a resourceVersion (some aggregated APIs) is stored as it is, as client-go
    // does: the watch then starts from "", and the server begins it with an ADDED event for every
    // object (see watch()).
    store.replace(all.items(), all.resourceVersion());
    lastSyncResourceVersion = all.resourceVersion();
    lastSyncResourceVersionUnavailable = false;
    log.debug(
        "reflector={} listed {} objects at rv={}", name, all.items().size(), all.resourceVersion());
  }

  /**
   * Lists every page at {@code rv}. Paging follows client-go's reflector: page when listing at "0"
   * or consistently, but not when relisting at a specific version (the watch cache serves that only
   * unpaged) unless the server showed it pages "0" lists (no watch cache).
   */
  private ListResult<T> listAllPages(String rv) {
    Long limit = pageSize > 0 ? pageSize : null;
    if (!rv.isEmpty() && !rv.equals("0") && !paginatedResult) {
      limit = null;
    }
    ListOptions first =
        ListOptions.builder().resourceVersion(rv.isEmpty() ? null : rv).limit(limit).build();
    ListResult<T> page = listerWatcher.list(first);
    if (!page.hasMore()) {
      return page;
    }
    if (rv.equals("0")) {
      paginatedResult = true;
    }
    List<T> items = new ArrayList<>(page.items());
    String listRv = page.resourceVersion();
    while (page.hasMore()) {
      if (closed) {
        throw new ReflectorException(name, ReflectorException.Phase.LIST, "closed while listing");
      }
      try {
        page =
            listerWatcher.list(
                ListOptions.builder().limit(limit).continueToken(page.continueToken()).build());
      } catch (ApiException e) {
        if (!e.isResourceExpired()) {
          throw e;
        }
        // client-go's pager (FullListIfExpired): the continue token expired mid-way; list
        // everything at once at the requested version instead.
        log.debug("reflector={} continue token expired; listing unpaged", name);
        return listerWatcher.list(
            ListOptions.builder().resourceVersion(rv.isEmpty() ? null : rv).build());
      }
      items.addAll(page.items());
    }
    return new ListResult<>(items, listRv, null, null);
  }

  /** client-go's {@code relistResourceVersion}. */
  private String relistResourceVersion() {
    if (lastSyncResourceVersionUnavailable) {
      return "";
    }
    return lastSyncResourceVersion.isEmpty() ? "0" : lastSyncResourceVersion;
  }

  private ListOptions watchOptions() {
    long min = minWatchTimeout.toSeconds();
    long timeout = min + (long) (random.nextDouble() * min);
    String rv = lastSyncResourceVersion;
    return ListOptions.builder()
        .resourceVersion(rv.isEmpty() ? null : rv)
        .timeoutSeconds(Math.max(1, timeout))
        .allowWatchBookmarks(true)
        .build();
  }

  /** A streaming list: returns the watch, still open, once the initial state is in the store. */
  private Watch<T> streamInitialState() {
    String rv = lastSyncResourceVersionUnavailable ? "" : lastSyncResourceVersion;
    ListOptions options =
        watchOptions().toBuilder()
            .resourceVersion(rv.isEmpty() ? null : rv)
            .resourceVersionMatch(ListOptions.NOT_OLDER_THAN)
            .sendInitialEvents(true)
            .build();
    Watch<T> w = openWatch(options);
    Map<String, T> initial = new LinkedHashMap<>();
    try {
      while (!closed) {
        WatchEvent<T> event = w.next();
        if (event == null) {
          throw new ReflectorException(
              name,
              ReflectorException.Phase.WATCH_STREAM,
              "streaming list ended before its initial-events-end bookmark");
        }
        switch (event.type()) {
          case ADDED, MODIFIED ->
              initial.put(Keys.metaNamespaceKey(event.object()), event.object());
          case DELETED -> initial.remove(Keys.metaNamespaceKey(event.object()));
          case ERROR -> throw watchErrorEvent(event.error());
          case BOOKMARK -> {
            String bookmarkRv = resourceVersionOf(event.object());
            if (isInitialEventsEnd(event.object())) {
              store.replace(new ArrayList<>(initial.values()), bookmarkRv);
              lastSyncResourceVersion = bookmarkRv;
              lastSyncResourceVersionUnavailable = false;
              log.debug(
                  "reflector={} streamed {} objects at rv={}", name, initial.size(), bookmarkRv);
              return w;
            }
          }
        }
      }
      throw new ReflectorException(
          name, ReflectorException.Phase.WATCH_STREAM, "closed while streaming");
    } catch (RuntimeException e) {
      currentWatch = null;
      closeQuietly(w);
      if (e instanceof ReflectorException re) {
        throw re;
      }
      throw new ReflectorException(
          name, ReflectorException.Phase.WATCH_STREAM, "streaming list broke", e);
    }
  }

  private static boolean isInitialEventsEnd(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    return m != null
        && m.getAnnotations() != null
        && "true".equals(m.getAnnotations().get(WatchEvent.INITIAL_EVENTS_END_ANNOTATION));
  }

  private Watch<T> openWatch(ListOptions options) {
    Watch<T> w;
    try {
      w = listerWatcher.watch(options);
    } catch (ApiException e) {
      noteRelistIfNeeded(e);
      throw new ReflectorException(name, ReflectorException.Phase.WATCH_START, "watch refused", e);
    } catch (RuntimeException e) {
      throw new ReflectorException(
          name, ReflectorException.Phase.WATCH_START, "watch failed to start", e);
    }
    currentWatch = w;
    if (closed) {
      // close() may have run between the call and the assignment above
      closeQuietly(w);
    }
    return w;
  }

  /** Watches until the stream ends cleanly (returns) or fails (throws). */
  private void watch(@Nullable Watch<T> alreadyOpen) {
    // As client-go, start the clock before the request: some proxies send the response headers
    // only with the first event, so the call itself may take the whole short watch.
    long started = clock.nanoTime();
    ListOptions options = alreadyOpen != null ? null : watchOptions();
    Watch<T> w = alreadyOpen != null ? alreadyOpen : openWatch(options);
    // A watch from "" or "0" (after a list that carried no resourceVersion) begins with synthetic
    // ADDED events for every object, in no resourceVersion order: as client-go, take no
    // resourceVersion from them, since resuming from one could skip objects not yet sent; the
    // first other event (a change or a bookmark) shows the watch is past them.
    boolean pastInitialEvents = options == null || !isSyntheticStart(options.resourceVersion());
    int events = 0;
    try {
      while (!closed) {
        WatchEvent<T> event;
        try {
          event = w.next();
        } catch (RuntimeException e) {
          ReflectorException broke =
              new ReflectorException(
                  name, ReflectorException.Phase.WATCH_STREAM, "watch stream broke", e);
          if (closed) {
            throw broke;
          }
          if (!isRoutineStreamEnd(broke)) {
            // Bad data from the server. client-go's stream watcher turns it into an ERROR event
            // and the reflector relists after its backoff; re-watching from the last
            // resourceVersion instead would replay the event that failed, forever.
            needsList = true;
            throw broke;
          }
          if (isTooShort(alreadyOpen, started, events)) {
            throw broke; // broke at once: back off before trying again
          }
          // A broken connection ends the stream as a clean end does (client-go's stream watcher
          // takes a probable EOF or a timeout for the end): re-watch at once from the last
          // resourceVersion, however long the watch stayed quiet. Backing off here would leave the
          // cache stale for up to a minute after every routine disconnect, and the backoff would
          // grow across the idle cuts of a quiet resource. Still reported, at DEBUG.
          report(broke);
          break;
        }
        if (event == null) {
          break;
        }
        events++;
        pastInitialEvents |= event.type() != WatchEventType.ADDED;
        apply(event, pastInitialEvents);
      }
    } finally {
      currentWatch = null;
      closeQuietly(w);
      if (!pastInitialEvents) {
        // It ended, however, before showing it was past its synthetic ADDED events: the
        // resourceVersion is still "", and a watch from "" again would not report what was
        // deleted meanwhile. Relist instead.
        needsList = true;
      }
    }
    if (!closed && isTooShort(alreadyOpen, started, events)) {
      throw new ReflectorException(
          name,
          ReflectorException.Phase.WATCH_TOO_SHORT,
          "watch ended within a second without any event");
    }
    if (!closed) {
      log.debug(
          "reflector={} watch ended after {} events; re-watching from rv={}",
          name,
          events,
          lastSyncResourceVersion);
    }
  }

  /**
   * client-go's "very short watch": opened by watch() (not a streaming list's, whose time went
   * into the initial events), under {@link #TOO_SHORT_WATCH} ago, without any event.
   */
  private boolean isTooShort(@Nullable Watch<T> alreadyOpen, long started, int events) {
    return alreadyOpen == null
        && events == 0
        && clock.nanoTime() - started < TOO_SHORT_WATCH.toNanos();
  }

  private static boolean isSyntheticStart(@Nullable String rv) {
    return rv == null || rv.isEmpty() || rv.equals("0");
  }

  /** Applies one event; takes its resourceVersion as the last one seen if {@code advanceRv}. */
  private void apply(WatchEvent<T> event, boolean advanceRv) {
    switch (event.type()) {
      case ERROR -> throw watchErrorEvent(event.error());
      case BOOKMARK -> {
        String rv = resourceVersionOf(event.object());
        if (!rv.isEmpty() && advanceRv) {
          lastSyncResourceVersion = rv;
          store.bookmark(rv);
        }
        log.trace("reflector={} bookmark rv={}", name, rv);
      }
      case ADDED, MODIFIED, DELETED -> {
        T obj = Objects.requireNonNull(event.object());
        try {
          switch (event.type()) {
            case ADDED -> store.add(obj);
            case MODIFIED -> store.update(obj);
            default -> store.delete(obj);
          }
        } catch (RuntimeException e) {
          // client-go logs and goes on: one unstorable object must not stall the informer.
          log.warn(
              "reflector={} could not store {} event for rv={}",
              name,
              event.type(),
              resourceVersionOf(obj),
              e);
        }
        String rv = resourceVersionOf(obj);
        if (!rv.isEmpty() && advanceRv) {
          lastSyncResourceVersion = rv;
        }
      }
    }
  }

  private ReflectorException watchErrorEvent(@Nullable ApiException error) {
    ApiException e = Objects.requireNonNull(error);
    noteRelistIfNeeded(e);
    return new ReflectorException(
        name, ReflectorException.Phase.WATCH_ERROR_EVENT, "watch ended with an error", e);
  }

  private void noteRelistIfNeeded(ApiException e) {
    if (e.isTooLargeResourceVersion()) {
      needsList = true;
      lastSyncResourceVersionUnavailable = true;
    } else if (e.isResourceExpired()) {
      // client-go: relist at the last version (NotOlderThan semantics, served by the watch cache);
      // if that is refused too, list() falls back to a consistent list.
      needsList = true;
    }
  }

  private void resyncTick() {
    try {
      if (!closed && shouldResync.getAsBoolean()) {
        store.resync();
      }
    } catch (RuntimeException e) {
      // One failed resync must not stop the next ones (PITFALLS: fabric8 #7435).
      log.warn("reflector={} resync failed; will try again in {}", name, resyncPeriod, e);
    } finally {
      synchronized (lifecycleLock) {
        if (!closed) {
          pendingResync = scheduler.schedule(this::resyncTick, resyncPeriod);
        }
      }
    }
  }

  private static String resourceVersionOf(@Nullable HasMetadata obj) {
    if (obj == null || obj.getMetadata() == null) {
      return "";
    }
    String rv = obj.getMetadata().getResourceVersion();
    return rv == null ? "" : rv;
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
    private long pageSize = 500;
    private boolean streamingList;
    private Duration minWatchTimeout = Duration.ofMinutes(5);
    private Duration resyncPeriod = Duration.ZERO;
    private BooleanSupplier shouldResync = () -> true;
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private @Nullable RandomGenerator random;
    private @Nullable Backoff backoff;
    private @Nullable WatchErrorHandler watchErrorHandler;
    private @Nullable ThreadFactory threadFactory;

    private Builder(String name, ListerWatcher<T> listerWatcher, Store<T> store) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
      this.store = Objects.requireNonNull(store, "store");
    }

    /** Page size of lists ({@code limit}); 0 disables paging. Default 500. */
    public Builder<T> pageSize(long pageSize) {
      if (pageSize < 0) {
        throw new IllegalArgumentException("pageSize must not be negative: " + pageSize);
      }
      this.pageSize = pageSize;
      return this;
    }

    /** Use a streaming list ({@code sendInitialEvents=true}) instead of a list. Default false. */
    public Builder<T> streamingList(boolean streamingList) {
      this.streamingList = streamingList;
      return this;
    }

    /** Watches ask for a timeout between this and twice this. Default 5 minutes. */
    public Builder<T> minWatchTimeout(Duration minWatchTimeout) {
      if (minWatchTimeout.toSeconds() < 1) {
        throw new IllegalArgumentException(
            "minWatchTimeout must be at least 1s: " + minWatchTimeout);
      }
      this.minWatchTimeout = minWatchTimeout;
      return this;
    }

    /**
     * Calls {@link Store#resync()} every {@code period} when {@code shouldResync} agrees; zero (the
     * default) disables resync.
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

    /** Where waits are scheduled. Default {@link Scheduler#system()}. */
    public Builder<T> scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Randomness for watch timeouts and jitter. Default a new {@link Random}. */
    public Builder<T> random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** The backoff between failed attempts. Default {@link Backoff#clientGoDefault}. */
    public Builder<T> backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** Told of every failed attempt. Default none (failures are still logged). */
    public Builder<T> watchErrorHandler(@Nullable WatchErrorHandler handler) {
      this.watchErrorHandler = handler;
      return this;
    }

    /** Makes the reflector's thread. Default a daemon thread {@code kinformer-<name>-reflector}. */
    public Builder<T> threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /** Builds the reflector; nothing starts until {@link Reflector#start()}. */
    public Reflector<T> build() {
      return new Reflector<>(this);
    }
  }
}

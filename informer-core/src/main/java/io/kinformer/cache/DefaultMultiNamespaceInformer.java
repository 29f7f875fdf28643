package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link MultiNamespaceInformer}: a map of per-namespace informers behind one handle.
 *
 * <h2>Concurrency</h2>
 *
 * {@code lock} guards the membership (which namespaces, which handlers, indices, transform) and is
 * never held while anything may block or run user code: namespace informers are created and
 * closed outside it, and are only configured under it while unstarted (nothing of theirs runs
 * yet). Reads use {@code parts}, an immutable map replaced under {@code lock} and read without it.
 *
 * <p>Each handler added to the handle becomes a {@link Fanout}: one registration per namespace
 * informer, whose calls take the fanout's {@link Turn} so that the user's handler is called by one
 * thread at a time (as {@link ResourceEventHandler} promises), and record what they delivered, so
 * that a removed namespace's objects can be taken back with deletions. A turn is not a lock held
 * around the handler: its own lock guards only who owns it, and a delivery waiting for it gives up
 * once its namespace informer has left {@code parts}, its handler was removed or the handle closed
 * (each of which wakes the waiters). {@code lock} is never taken while a turn's lock is held.
 *
 * <p>Removing a namespace: under {@code lock} the informer leaves {@code parts}, so reads no
 * longer see its objects and its deliveries no longer reach handlers (except one in progress);
 * outside it, waiting deliveries are woken to give up and the informer is closed; then a task per
 * fanout on the delivery executor takes the turn (after a call in progress) and delivers the
 * deletions. A namespace added again while its removal is still being delivered starts once that
 * removal is done, so that a handler never sees the new additions before the old deletions.
 */
final class DefaultMultiNamespaceInformer<T extends HasMetadata>
    implements MultiNamespaceInformer<T> {

  private static final Logger log = LoggerFactory.getLogger(DefaultMultiNamespaceInformer.class);

  private final String name;
  private final Function<String, SharedIndexInformer<T>> informerForNamespace;
  private final Executor deliveryExecutor;
  private final MergedIndexer<T> indexer;
  private final CompletableFuture<Void> firstSynced = new CompletableFuture<>();

  private final Object lock = new Object();

  /** The namespaces' informers, sorted by namespace; replaced (never changed) under lock. */
  private volatile Map<String, SharedIndexInformer<T>> parts = Map.of();

  // @GuardedBy("lock")
  private final List<Fanout> fanouts = new ArrayList<>();
  /** The indices the namespace informers are built with, and those added to the handle since. */
  // @GuardedBy("lock")
  private final Map<String, IndexFunc<T>> indexers = new LinkedHashMap<>();
  // @GuardedBy("lock")
  private final Map<String, IndexFunc<T>> addedIndexers = new LinkedHashMap<>();
  // @GuardedBy("lock")
  private @Nullable UnaryOperator<T> transform;
  // @GuardedBy("lock")
  private @Nullable WatchErrorHandler watchErrorHandler;
  /** Removals whose deletions are still being delivered, by namespace. */
  // @GuardedBy("lock")
  private final Map<String, CompletableFuture<Void>> removing = new HashMap<>();
  // @GuardedBy("lock")
  private boolean started;
  // @GuardedBy("lock")
  private boolean closed;
  /** Whether {@code indexers} holds the namespace informers' built-in indices yet. */
  // @GuardedBy("lock")
  private boolean baseIndexersKnown;

  DefaultMultiNamespaceInformer(
      String name,
      Collection<String> namespaces,
      Function<String, SharedIndexInformer<T>> informerForNamespace,
      Executor deliveryExecutor) {
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    this.name = name;
    this.informerForNamespace = Objects.requireNonNull(informerForNamespace, "informerForNamespace");
    this.deliveryExecutor = Objects.requireNonNull(deliveryExecutor, "deliveryExecutor");
    this.indexer =
        new MergedIndexer<>(
            () -> parts,
            () -> {
              synchronized (lock) {
                return Map.copyOf(indexers);
              }
            });
    for (String ns : namespaces) {
      requireNamespace(ns);
    }
    synchronized (lock) {
      indexers.put(Indexers.NAMESPACE, Indexers.namespaceIndexFunc());
    }
    for (String ns : new java.util.TreeSet<>(namespaces)) {
      addNamespace(ns);
    }
  }

  private static void requireNamespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException(
          "namespace must not be empty: \"\" means all namespaces, which one informer watches");
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Set<String> namespaces() {
    return parts.keySet();
  }

  @Override
  public Optional<SharedIndexInformer<T>> informerFor(String namespace) {
    return Optional.ofNullable(parts.get(namespace));
  }

  @Override
  public boolean addNamespace(String namespace) {
    requireNamespace(namespace);
    synchronized (lock) {
      requireOpenLocked();
      if (parts.containsKey(namespace)) {
        return false;
      }
    }
    SharedIndexInformer<T> part =
        Objects.requireNonNull(
            informerForNamespace.apply(namespace), "informerForNamespace returned null");
    if (part.isStarted() || part.isStopped()) {
      throw new IllegalStateException(
          "informerForNamespace must return a new, unstarted informer; got " + part.name());
    }
    boolean startNow;
    @Nullable CompletableFuture<Void> after;
    boolean lostRace;
    synchronized (lock) {
      // Lost a race with close() or another addNamespace: the new informer is not needed.
      lostRace = closed || parts.containsKey(namespace);
      if (!lostRace) {
        configureLocked(namespace, part);
      }
      after = removing.get(namespace);
      startNow = started;
    }
    if (lostRace) {
      part.close(); // unstarted: gives its name back at once
      if (isStopped()) {
        throw new IllegalStateException("informer " + name + " is closed");
      }
      return false;
    }
    part.synced().thenRun(this::checkSynced);
    if (startNow) {
      SharedIndexInformer<T> p = part;
      if (after == null) {
        startPart(p);
      } else {
        after.whenComplete((v, e) -> startPart(p));
      }
    }
    return true;
  }

  /** Gives a new, unstarted namespace informer the handle's state, and makes it visible. */
  private void configureLocked(String namespace, SharedIndexInformer<T> part) {
    if (!baseIndexersKnown) {
      baseIndexersKnown = true;
      part.getIndexer().getIndexers().forEach(indexers::putIfAbsent);
    }
    if (!addedIndexers.isEmpty()) {
      part.addIndexers(addedIndexers); // an empty cache: no index function runs
    }
    if (transform != null) {
      part.setTransform(transform);
    }
    if (watchErrorHandler != null) {
      part.setWatchErrorHandler(watchErrorHandler);
    }
    for (Fanout f : fanouts) {
      f.register(namespace, part); // unstarted: nothing to replay
    }
    Map<String, SharedIndexInformer<T>> next = new TreeMap<>(parts);
    next.put(namespace, part);
    parts = java.util.Collections.unmodifiableMap(next);
  }

  /** Starts a namespace informer unless it was removed or the handle closed meanwhile. */
  private void startPart(SharedIndexInformer<T> part) {
    try {
      part.start();
    } catch (IllegalStateException closedMeanwhile) {
      if (!part.isStopped()) {
        throw closedMeanwhile;
      }
    }
  }

  @Override
  public CompletableFuture<Void> removeNamespace(String namespace) {
    requireNamespace(namespace);
    SharedIndexInformer<T> part;
    List<Fanout> toTell;
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (lock) {
      part = parts.get(namespace);
      if (part == null) {
        return CompletableFuture.completedFuture(null);
      }
      Map<String, SharedIndexInformer<T>> next = new TreeMap<>(parts);
      next.remove(namespace);
      parts = java.util.Collections.unmodifiableMap(next);
      toTell = List.copyOf(fanouts);
      for (Fanout f : toTell) {
        f.registrations.remove(namespace); // its informer closes: no need to remove them
      }
      CompletableFuture<Void> earlier = removing.get(namespace);
      CompletableFuture<Void> mine =
          earlier == null ? done : CompletableFuture.allOf(earlier, done);
      removing.put(namespace, mine);
      mine.whenComplete(
          (v, e) -> {
            synchronized (lock) {
              removing.remove(namespace, mine);
            }
          });
    }
    // Deliveries of that informer waiting for a turn give up, so that its close() below does not
    // wait for one stuck behind this thread's own handler call (removeNamespace from a handler).
    toTell.forEach(f -> f.turn.wake());
    part.close();
    List<CompletableFuture<Void>> told = new ArrayList<>();
    for (Fanout f : toTell) {
      try {
        told.add(CompletableFuture.runAsync(() -> f.forget(part), deliveryExecutor));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        told.add(CompletableFuture.failedFuture(e)); // the executor is shutting down
      }
    }
    CompletableFuture.allOf(told.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                done.complete(null);
              } else {
                done.completeExceptionally(e);
              }
            });
    checkSynced(); // the rest may all be synced now
    return done.copy();
  }

  private void requireOpenLocked() {
    if (closed) {
      throw new IllegalStateException("informer " + name + " is closed");
    }
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler) {
    return addFanout(handler, null);
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(
      ResourceEventHandler<? super T> handler, Duration resyncPeriod) {
    return addFanout(handler, Objects.requireNonNull(resyncPeriod, "resyncPeriod"));
  }

  private ResourceEventHandlerRegistration addFanout(
      ResourceEventHandler<? super T> handler, @Nullable Duration resyncPeriod) {
    Objects.requireNonNull(handler, "handler");
    Fanout f = new Fanout(handler, resyncPeriod);
    synchronized (lock) {
      requireOpenLocked();
      fanouts.add(f);
      // A started informer replays its cache to the new registration on its delivery executor.
      parts.forEach(f::register);
    }
    checkSynced();
    return f;
  }

  @Override
  public void removeEventHandler(ResourceEventHandlerRegistration registration) {
    Fanout f = ownFanout(registration);
    if (f != null) {
      removeFanout(f);
    }
  }

  /** The registration as one of this handle's, or null if it is another informer's. */
  @SuppressWarnings("unchecked")
  private @Nullable Fanout ownFanout(ResourceEventHandlerRegistration registration) {
    if (registration instanceof DefaultMultiNamespaceInformer<?>.Fanout f && f.owner() == this) {
      return (Fanout) registration;
    }
    return null;
  }

  private void removeFanout(Fanout f) {
    List<ResourceEventHandlerRegistration> regs;
    synchronized (lock) {
      fanouts.remove(f);
      f.removed = true;
      regs = List.copyOf(f.registrations.values());
    }
    f.turn.wake();
    regs.forEach(ResourceEventHandlerRegistration::close);
  }

  @Override
  public boolean shutDownEventHandler(
      ResourceEventHandlerRegistration registration, Duration timeout) throws InterruptedException {
    Fanout f = ownFanout(registration);
    if (f == null) {
      return true;
    }
    removeFanout(f);
    // Removed from every namespace informer and marked removed: a call that starts now sees the
    // mark under the turn and skips the handler; so once the turn is free, no call runs or will.
    if (f.turn.heldByCurrentThread()) {
      return true; // called from the handler: do not wait for the call it is made from
    }
    return f.turn.awaitFree(timeout);
  }

  @Override
  public ReadOnlyStore<T> getStore() {
    return indexer;
  }

  @Override
  public ReadOnlyIndexer<T> getIndexer() {
    return indexer;
  }

  @Override
  public void addIndexers(Map<String, IndexFunc<T>> newIndexers) {
    Objects.requireNonNull(newIndexers, "indexers");
    Collection<SharedIndexInformer<T>> current;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("indexer was not added because it has stopped already");
      }
      for (String n : newIndexers.keySet()) {
        if (indexers.containsKey(n)) {
          throw new IllegalArgumentException("index " + n + " is already defined");
        }
      }
      indexers.putAll(newIndexers);
      addedIndexers.putAll(newIndexers);
      current = parts.values();
    }
    // Outside the lock: the index functions run over the objects already cached.
    for (SharedIndexInformer<T> p : current) {
      p.addIndexers(newIndexers);
    }
  }

  @Override
  public boolean hasSynced() {
    Map<String, SharedIndexInformer<T>> now = parts;
    synchronized (lock) {
      if (!started) {
        return false;
      }
    }
    for (SharedIndexInformer<T> p : now.values()) {
      if (!p.hasSynced()) {
        return false;
      }
    }
    return true;
  }

  /** Completes the sync futures that became due; called holding no lock. */
  private void checkSynced() {
    if (!firstSynced.isDone() && hasSynced()) {
      firstSynced.complete(null);
    }
    List<Fanout> all;
    synchronized (lock) {
      all = List.copyOf(fanouts);
    }
    for (Fanout f : all) {
      f.checkSynced();
    }
  }

  @Override
  public CompletableFuture<Void> resourceVersionSeen(@Nullable String key, String resourceVersion) {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    ResourceVersions.requireComparable(resourceVersion);
    SharedIndexInformer<T> part = partOfKey(key);
    if (part == null) {
      return CompletableFuture.failedFuture(notWatched(key));
    }
    return part.resourceVersionSeen(key, resourceVersion);
  }

  /**
   * As {@link #resourceVersionSeen}, waiting on the key's namespace informer.
   *
   * @throws IllegalArgumentException also if the key's namespace is not watched
   */
  @Override
  public boolean awaitResourceVersion(
      @Nullable String key, String resourceVersion, Duration timeout) throws InterruptedException {
    SharedIndexInformer<T> part = partOfKey(key);
    if (part == null) {
      throw notWatched(key);
    }
    return part.awaitResourceVersion(key, resourceVersion, timeout);
  }

  /**
   * The informer of the key's namespace, or null if that namespace is not watched.
   *
   * @throws IllegalArgumentException if the key is null or names no namespace
   */
  private @Nullable SharedIndexInformer<T> partOfKey(@Nullable String key) {
    if (key == null || Keys.split(key).namespace().isEmpty()) {
      throw new IllegalArgumentException(
          "informer "
              + name
              + " needs a namespace/name key to tell which namespace's watch to wait on; got "
              + key);
    }
    return parts.get(Keys.split(key).namespace());
  }

  private IllegalArgumentException notWatched(@Nullable String key) {
    return new IllegalArgumentException(
        "informer " + name + " does not watch the namespace of key " + key);
  }

  @Override
  public CompletableFuture<Void> synced() {
    return firstSynced.copy();
  }

  @Override
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    boolean synced =
        Informers.waitForCacheSync(timeout, () -> hasSynced() || isStopped()) && !isStopped();
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return synced;
  }

  @Override
  public String lastSyncResourceVersion() {
    return MergedIndexer.lowest(parts.values(), SharedIndexInformer::lastSyncResourceVersion);
  }

  @Override
  public void setTransform(UnaryOperator<T> transform) {
    Objects.requireNonNull(transform, "transform");
    Collection<SharedIndexInformer<T>> current;
    synchronized (lock) {
      requireUnstartedLocked("transform");
      this.transform = transform;
      current = parts.values();
    }
    current.forEach(p -> p.setTransform(transform));
  }

  @Override
  public void setWatchErrorHandler(WatchErrorHandler handler) {
    Objects.requireNonNull(handler, "handler");
    Collection<SharedIndexInformer<T>> current;
    synchronized (lock) {
      requireUnstartedLocked("watch error handler");
      this.watchErrorHandler = handler;
      current = parts.values();
    }
    current.forEach(p -> p.setWatchErrorHandler(handler));
  }

  private void requireUnstartedLocked(String what) {
    if (started) {
      throw new IllegalStateException(
          "informer " + name + " has started: set its " + what + " before start()");
    }
  }

  @Override
  public void start() {
    Collection<SharedIndexInformer<T>> current;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("informer " + name + " is closed and cannot start again");
      }
      if (started) {
        return;
      }
      started = true;
      current = parts.values();
    }
    current.forEach(this::startPart);
    checkSynced(); // no namespace at all: synced at once
  }

  @Override
  public boolean isStarted() {
    synchronized (lock) {
      return started;
    }
  }

  @Override
  public boolean isStopped() {
    synchronized (lock) {
      return closed;
    }
  }

  /**
   * The namespace informers' health in one: the state, progress time and failure count of the
   * worst part (stopped, then failing most, then not synced, then least recently progressing), the
   * latest event and error of any part (the error named by its part), synced as {@link
   * #hasSynced()}, terminal if this informer or any part is.
   */
  @Override
  public InformerHealth health() {
    boolean stopped = isStopped();
    Collection<SharedIndexInformer<T>> now = parts.values();
    if (now.isEmpty()) {
      return InformerHealth.notStarted(name, stopped);
    }
    InformerHealth worst = null;
    Instant lastEvent = null;
    InformerHealth lastErrorOf = null;
    boolean terminal = stopped;
    for (SharedIndexInformer<T> p : now) {
      InformerHealth h = p.health();
      terminal |= h.terminal();
      if (worst == null || WORST_FIRST.compare(h, worst) < 0) {
        worst = h;
      }
      if (h.lastEventTime() != null
          && (lastEvent == null || h.lastEventTime().isAfter(lastEvent))) {
        lastEvent = h.lastEventTime();
      }
      if (h.lastErrorTime() != null
          && (lastErrorOf == null || h.lastErrorTime().isAfter(lastErrorOf.lastErrorTime()))) {
        lastErrorOf = h;
      }
    }
    return new InformerHealth(
        name,
        worst.state(),
        hasSynced(),
        lastEvent,
        worst.lastProgressTime(),
        lastErrorOf == null ? null : lastErrorOf.name() + ": " + lastErrorOf.lastError(),
        lastErrorOf == null ? null : lastErrorOf.lastErrorTime(),
        worst.consecutiveFailures(),
        terminal);
  }

  private static final Comparator<InformerHealth> WORST_FIRST =
      Comparator.comparing(InformerHealth::terminal)
          .thenComparingInt(InformerHealth::consecutiveFailures)
          .thenComparing(h -> !h.synced())
          .reversed()
          .thenComparing(
              InformerHealth::lastProgressTime, Comparator.nullsFirst(Comparator.naturalOrder()));

  /**
   * Closes every namespace informer (each returns once its handler calls are over, see {@link
   * SharedIndexInformer#close()}). Handlers are not told deletions: the cache keeps its last
   * content, as a closed informer's does.
   */
  @Override
  public void close() {
    Collection<SharedIndexInformer<T>> current;
    List<Fanout> all;
    synchronized (lock) {
      closed = true;
      current = parts.values();
      all = List.copyOf(fanouts);
      all.forEach(f -> f.removed = true);
    }
    all.forEach(f -> f.turn.wake());
    current.forEach(SharedIndexInformer::close);
    firstSynced.completeExceptionally(
        new IllegalStateException("informer " + name + " closed before it synced"));
  }

  @Override
  public String toString() {
    return "MultiNamespaceInformer[" + name + " " + parts.keySet() + "]";
  }

  /**
   * Whose turn it is to call one handler: the namespace informers' deliveries wait here for each
   * other. A waiting delivery gives up when its {@code abandoned} condition turns true (its
   * namespace was removed, the handler removed, the handle closed) and {@link #wake()} is called,
   * so that closing an informer, which waits for its deliveries, never waits for one stuck behind
   * the closing thread's own handler call. {@code lock} is held only to read and write {@code
   * owner}, never around the handler.
   */
  private static final class Turn {
    private final ReentrantLock lock = new ReentrantLock();
    private final java.util.concurrent.locks.Condition free = lock.newCondition();
    // @GuardedBy("lock"): the thread calling the handler, or null
    private @Nullable Thread owner;

    /**
     * Takes the turn, waiting for the current owner; false (without the turn) if {@code
     * abandoned} holds first or the thread is interrupted (the flag is then set again).
     */
    boolean acquire(java.util.function.BooleanSupplier abandoned) {
      lock.lock();
      try {
        while (owner != null) {
          if (abandoned.getAsBoolean()) {
            return false;
          }
          try {
            free.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
        if (abandoned.getAsBoolean()) {
          return false;
        }
        owner = Thread.currentThread();
        return true;
      } finally {
        lock.unlock();
      }
    }

    void release() {
      lock.lock();
      try {
        owner = null;
        free.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /** Makes waiting deliveries look at their {@code abandoned} condition again. */
    void wake() {
      lock.lock();
      try {
        free.signalAll();
      } finally {
        lock.unlock();
      }
    }

    boolean heldByCurrentThread() {
      lock.lock();
      try {
        return owner == Thread.currentThread();
      } finally {
        lock.unlock();
      }
    }

    /** Waits until nobody has the turn; false if {@code timeout} passed first. */
    boolean awaitFree(Duration timeout) throws InterruptedException {
      lock.lock();
      try {
        long nanos = Math.max(0, timeout.toNanos());
        while (owner != null) {
          if (nanos <= 0) {
            return false;
          }
          nanos = free.awaitNanos(nanos);
        }
        return true;
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * One handler of the handle, registered with every namespace informer; its registration on the
   * handle.
   */
  private final class Fanout implements ResourceEventHandlerRegistration {
    final ResourceEventHandler<? super T> handler;
    final @Nullable Duration resyncPeriod;
    /** Taken around each call of {@code handler}: the namespaces take turns. */
    final Turn turn = new Turn();
    /**
     * Per namespace informer, the objects {@code handler} was last told exist, by key: added on
     * add and update, removed on delete; taken back (told as deletions) when the namespace goes.
     */
    // @GuardedBy("turn")
    final Map<SharedIndexInformer<T>, Map<String, T>> delivered = new HashMap<>();

    /** The registrations with the namespace informers, by namespace. */
    final Map<String, ResourceEventHandlerRegistration> registrations = new ConcurrentHashMap<>();

    volatile boolean removed;
    final CompletableFuture<Void> syncedFuture = new CompletableFuture<>();

    Fanout(ResourceEventHandler<? super T> handler, @Nullable Duration resyncPeriod) {
      this.handler = handler;
      this.resyncPeriod = resyncPeriod;
    }

    DefaultMultiNamespaceInformer<?> owner() {
      return DefaultMultiNamespaceInformer.this;
    }

    void register(String namespace, SharedIndexInformer<T> part) {
      ResourceEventHandler<T> h = new PartHandler(namespace, part);
      ResourceEventHandlerRegistration r =
          resyncPeriod == null ? part.addEventHandler(h) : part.addEventHandler(h, resyncPeriod);
      registrations.put(namespace, r);
      r.synced().thenRun(DefaultMultiNamespaceInformer.this::checkSynced);
    }

    /** Tells the handler that the objects of a removed namespace informer are gone. */
    void forget(SharedIndexInformer<T> part) {
      if (!turn.acquire(() -> removed)) {
        return;
      }
      try {
        Map<String, T> gone = delivered.remove(part);
        if (removed || gone == null) {
          return;
        }
        for (T obj : gone.values()) {
          try {
            handler.onDelete(obj, /* finalStateUnknown= */ true);
          } catch (RuntimeException e) {
            log.warn(
                "handler {} of informer {} threw on the deletion of {} (namespace removed)",
                handler,
                name,
                Keys.metaNamespaceKey(obj),
                e);
          }
        }
      } finally {
        turn.release();
      }
    }

    void checkSynced() {
      if (!syncedFuture.isDone() && hasSynced()) {
        syncedFuture.complete(null);
      }
    }

    @Override
    public boolean hasSynced() {
      if (removed || !DefaultMultiNamespaceInformer.this.hasSynced()) {
        return false;
      }
      for (String ns : parts.keySet()) {
        ResourceEventHandlerRegistration r = registrations.get(ns);
        if (r == null || !r.hasSynced()) {
          return false;
        }
      }
      return true;
    }

    @Override
    public CompletableFuture<Void> synced() {
      return syncedFuture.copy();
    }

    @Override
    public int pendingNotifications() {
      int n = 0;
      for (ResourceEventHandlerRegistration r : registrations.values()) {
        n += r.pendingNotifications();
      }
      return n;
    }

    @Override
    public boolean isRemoved() {
      return removed;
    }

    @Override
    public void close() {
      removeFanout(this);
    }

    @Override
    public String toString() {
      return handler.toString();
    }

    /** The fanout's handler as one namespace informer's: takes the turn, records, delivers. */
    private final class PartHandler implements ResourceEventHandler<T> {
      private final SharedIndexInformer<T> part;

      private final String namespace;

      PartHandler(String namespace, SharedIndexInformer<T> part) {
        this.namespace = namespace;
        this.part = part;
      }

      /** The handler was removed, or this namespace informer left the handle. */
      private boolean abandoned() {
        return removed || parts.get(namespace) != part;
      }

      private Map<String, T> deliveredLocked() {
        return delivered.computeIfAbsent(part, p -> new HashMap<>());
      }

      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        if (!turn.acquire(this::abandoned)) {
          return;
        }
        try {
          deliveredLocked().put(Keys.metaNamespaceKey(obj), obj);
          handler.onAdd(obj, isInInitialList);
        } finally {
          turn.release();
        }
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (!turn.acquire(this::abandoned)) {
          return;
        }
        try {
          deliveredLocked().put(Keys.metaNamespaceKey(newObj), newObj);
          handler.onUpdate(oldObj, newObj);
        } finally {
          turn.release();
        }
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        if (!turn.acquire(this::abandoned)) {
          return;
        }
        try {
          deliveredLocked().remove(Keys.metaNamespaceKey(obj));
          handler.onDelete(obj, finalStateUnknown);
        } finally {
          turn.release();
        }
      }

      @Override
      public String toString() {
        return handler.toString();
      }
    }
  }
}

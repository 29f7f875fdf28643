package io.kinformer.testing;

import io.kinformer.cache.WatchEventType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The in-memory MVCC store: every object of every resource, one cluster-wide increasing
 * resourceVersion, a bounded history of changes per resource (the "watch cache" window), and the
 * open watches that changes fan out to.
 *
 * <p>Past states (for {@code resourceVersionMatch=Exact} lists and continue tokens) are rebuilt by
 * undoing the retained history from the current state: each change remembers the state it
 * replaced. A state older than the retained history is "compacted" (410 Expired).
 *
 * <p>Locking: one lock, {@link #lock}, guards everything here, including the watchers' lists;
 * writes run under it (they are short: a JSON merge and a serialization), so RVs are assigned and
 * dispatched in order. {@link WatchSink#deliver} runs under it and only enqueues. Nothing calls
 * user code under it.
 *
 * <p>Thread safety: thread-safe.
 */
final class Store {

  private static final Logger log = LoggerFactory.getLogger(Store.class);

  private final ReentrantLock lock = new ReentrantLock();
  private final int historyLimit;

  // @GuardedBy("lock")
  private long rv;
  // @GuardedBy("lock")
  private final Map<ServedResource, ResourceState> states = new HashMap<>();

  /** Per-resource state. All fields guarded by {@link Store#lock}. */
  private static final class ResourceState {
    /** Live objects by key ("ns/name" or "name"), in key order. */
    final TreeMap<String, StoredObject> objects = new TreeMap<>();
    /** Changes in RV order; at most historyLimit of them. */
    final ArrayDeque<Event> history = new ArrayDeque<>();
    /**
     * A watch may start from RV R (receiving every change after R) iff R >= oldestRv: every
     * change after oldestRv is in history.
     */
    long oldestRv;
    final List<WatchSink> watchers = new ArrayList<>();
  }

  /** One change: what watchers are told, and the state it replaced (null for a creation). */
  record Event(WatchEventType type, StoredObject object, @Nullable StoredObject prev) {}

  private final int maxObjectBytes;

  Store(int historyLimit, long initialRv) {
    this(historyLimit, initialRv, Integer.MAX_VALUE);
  }

  /**
   * A store refusing objects whose stored encoding is over {@code maxObjectBytes}, as etcd
   * refuses requests over its limit.
   */
  Store(int historyLimit, long initialRv, int maxObjectBytes) {
    if (maxObjectBytes < 1) {
      throw new IllegalArgumentException("maxObjectBytes must be positive: " + maxObjectBytes);
    }
    this.maxObjectBytes = maxObjectBytes;
    if (historyLimit < 1) {
      throw new IllegalArgumentException("historyLimit must be positive: " + historyLimit);
    }
    this.historyLimit = historyLimit;
    this.rv = initialRv;
  }

  void register(ServedResource type) {
    lock.lock();
    try {
      states.computeIfAbsent(type, t -> {
        ResourceState s = new ResourceState();
        s.oldestRv = 0;
        return s;
      });
    } finally {
      lock.unlock();
    }
  }

  long currentRv() {
    lock.lock();
    try {
      return rv;
    } finally {
      lock.unlock();
    }
  }

  private ResourceState stateLocked(ServedResource type) {
    assert lock.isHeldByCurrentThread();
    ResourceState s = states.get(type);
    if (s == null) {
      throw new IllegalArgumentException("resource not registered: " + type.qualifiedName());
    }
    return s;
  }

  @Nullable StoredObject get(ServedResource type, String key) {
    lock.lock();
    try {
      return stateLocked(type).objects.get(key);
    } finally {
      lock.unlock();
    }
  }

  /** A write transaction on one key, valid only inside {@link Store#write}. */
  final class Txn {
    private final ServedResource type;
    private final String key;
    private final ResourceState state;
    private final boolean dryRun;
    /** In a dry run, what the last put would have stored. */
    private @Nullable StoredObject pending;

    private Txn(ServedResource type, String key, ResourceState state, boolean dryRun) {
      this.type = type;
      this.key = key;
      this.state = state;
      this.dryRun = dryRun;
    }

    @Nullable StoredObject current() {
      return state.objects.get(key);
    }

    /** The RV the next put or delete will get. */
    long nextRv() {
      return rv + 1;
    }

    /** Stores {@code tree} (whose name/namespace make {@code key}) at a new RV. */
    StoredObject put(ObjectNode tree) {
      if (dryRun) {
        // As the registry's dry-run storage: the object as it would be, at the RV it has now
        // (zero for a creation); nothing stored, no RV consumed, no event.
        StoredObject cur = current();
        pending = StoredObject.of(type, tree, cur == null ? 0 : cur.rv);
        return pending;
      }
      StoredObject o = StoredObject.of(type, tree, rv + 1);
      if (o.json.length > maxObjectBytes) {
        // What etcd answers for a request over its limit; kube-apiserver passes it on as a 500.
        // Nothing is stored and the RV does not move.
        throw ApiError.unknown("etcdserver: request is too large");
      }
      rv++;
      if (!o.key.equals(key)) {
        throw new IllegalStateException("key mismatch: " + o.key + " != " + key);
      }
      StoredObject prev = state.objects.put(key, o);
      record(state, new Event(prev == null ? WatchEventType.ADDED : WatchEventType.MODIFIED, o,
          prev));
      return o;
    }

    /** Removes the object; returns its last state stamped with the deletion's RV. */
    StoredObject delete() {
      if (dryRun) {
        StoredObject cur = pending != null ? pending : current();
        if (cur == null) {
          throw new IllegalStateException("no object at " + key);
        }
        return cur;
      }
      StoredObject cur = state.objects.remove(key);
      if (cur == null) {
        throw new IllegalStateException("no object at " + key);
      }
      StoredObject last = cur.withRv(++rv);
      record(state, new Event(WatchEventType.DELETED, last, cur));
      return last;
    }
  }

  /** Every object's resource and key, for remembering what the server started with. */
  Set<String> allKeys() {
    lock.lock();
    try {
      Set<String> keys = new HashSet<>();
      states.forEach((type, st) -> st.objects.keySet()
          .forEach(k -> keys.add(type.qualifiedName() + "|" + k)));
      return keys;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Deletes every object whose resource and key (as {@link #allKeys()} gives them) are not in
   * {@code keep}, each as a deletion its watchers see; returns how many.
   */
  int deleteAllExcept(Set<String> keep) {
    lock.lock();
    try {
      int deleted = 0;
      for (Map.Entry<ServedResource, ResourceState> e : states.entrySet()) {
        ResourceState st = e.getValue();
        for (String key : new ArrayList<>(st.objects.keySet())) {
          if (keep.contains(e.getKey().qualifiedName() + "|" + key)) {
            continue;
          }
          StoredObject cur = st.objects.remove(key);
          record(st, new Event(WatchEventType.DELETED, cur.withRv(++rv), cur));
          deleted++;
        }
      }
      return deleted;
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code body} under the lock as one transaction on {@code key}. */
  <R> R write(ServedResource type, String key, Function<Txn, R> body) {
    return write(type, key, false, body);
  }

  /**
   * Runs {@code body} under the lock as one transaction on {@code key}; with {@code dryRun} the
   * transaction's puts and deletes only say what they would do.
   */
  <R> R write(ServedResource type, String key, boolean dryRun, Function<Txn, R> body) {
    lock.lock();
    try {
      return body.apply(new Txn(type, key, stateLocked(type), dryRun));
    } finally {
      lock.unlock();
    }
  }

  private void record(ResourceState state, Event e) {
    assert lock.isHeldByCurrentThread();
    state.history.addLast(e);
    while (state.history.size() > historyLimit) {
      state.oldestRv = state.history.pollFirst().object().rv;
    }
    // One item for everyone who sees the event as it is, so its framed line is built once.
    WatchItem shared = null;
    for (WatchSink w : state.watchers) {
      // The change is stored: a watcher that cannot take it must not turn the write into a
      // failure for its caller. Its stream ends instead, so its client re-lists and sees it.
      try {
        if (shared == null) {
          shared = WatchItem.event(e.type(), e.object());
        }
        WatchItem item = transition(w.filter(), e, shared);
        if (item != null) {
          w.deliver(item);
        }
      } catch (RuntimeException failed) {
        log.warn("ending a watch on {} that failed to take the event at resourceVersion {}",
            e.object().type.plural(), e.object().rv, failed);
        endQuietly(w);
      }
    }
  }

  private static void endQuietly(WatchSink w) {
    try {
      w.deliver(WatchItem.END);
    } catch (RuntimeException again) {
      log.warn("cannot end the failed watch", again);
    }
  }

  /**
   * What a watcher with {@code f} sees of {@code e}: an object that starts matching is ADDED, one
   * that stops matching is DELETED (with its old content at the new RV), as the real server does.
   */
  static @Nullable WatchItem transition(Filter f, Event e, @Nullable WatchItem shared) {
    StoredObject o = e.object();
    WatchItem same = shared != null ? shared : WatchItem.event(e.type(), o);
    switch (e.type()) {
      case ADDED:
      case DELETED:
        return f.matches(o) ? same : null;
      case MODIFIED:
        boolean now = f.matches(o);
        StoredObject prev = e.prev();
        boolean before = prev != null && f.matches(prev);
        if (now) {
          return before ? same : WatchItem.event(WatchEventType.ADDED, o);
        }
        if (before) {
          return WatchItem.event(WatchEventType.DELETED, prev.withRv(o.rv));
        }
        return null;
      default:
        throw new IllegalStateException("unexpected stored event " + e.type());
    }
  }

  /** A consistent state of one resource: its RV and its objects in key order. */
  record Snapshot(long rv, List<StoredObject> items) {}

  /**
   * The objects of {@code namespace} (all if null) with keys after {@code startAfter} (all if
   * null), at {@code atRv} (the current state if negative).
   *
   * @return null if {@code atRv} is older than the retained history
   */
  @Nullable Snapshot snapshot(
      ServedResource type, @Nullable String namespace, @Nullable String startAfter, long atRv) {
    lock.lock();
    try {
      ResourceState st = stateLocked(type);
      NavigableMap<String, StoredObject> range = range(st.objects, namespace, startAfter);
      if (atRv < 0 || atRv >= rv) {
        return new Snapshot(rv, new ArrayList<>(range.values()));
      }
      if (atRv < st.oldestRv) {
        return null;
      }
      TreeMap<String, StoredObject> past = new TreeMap<>(range);
      Iterator<Event> it = st.history.descendingIterator();
      while (it.hasNext()) {
        Event e = it.next();
        if (e.object().rv <= atRv) {
          break;
        }
        String k = e.object().key;
        if (!inRange(k, namespace, startAfter)) {
          continue;
        }
        if (e.prev() == null) {
          past.remove(k);
        } else {
          past.put(k, e.prev());
        }
      }
      return new Snapshot(atRv, new ArrayList<>(past.values()));
    } finally {
      lock.unlock();
    }
  }

  private static NavigableMap<String, StoredObject> range(
      TreeMap<String, StoredObject> objects, @Nullable String namespace,
      @Nullable String startAfter) {
    String from = namespace == null ? null : StoredObject.namespaceStart(namespace);
    boolean fromInclusive = true;
    if (startAfter != null && (from == null || startAfter.compareTo(from) >= 0)) {
      from = startAfter;
      fromInclusive = false;
    }
    String to = namespace == null ? null : StoredObject.namespaceEnd(namespace);
    if (from != null && to != null && from.compareTo(to) >= 0) {
      return new TreeMap<>();
    }
    if (from == null) {
      return to == null ? objects : objects.headMap(to, false);
    }
    return to == null ? objects.tailMap(from, fromInclusive)
        : objects.subMap(from, fromInclusive, to, false);
  }

  private static boolean inRange(String key, @Nullable String namespace,
      @Nullable String startAfter) {
    if (namespace != null && !key.startsWith(StoredObject.namespaceStart(namespace))) {
      return false;
    }
    return startAfter == null || key.compareTo(startAfter) > 0;
  }

  /** How a watch starts. */
  record WatchStart(
      long startRv, List<StoredObject> initialState, List<WatchItem> replay, long tooOldFloor) {}

  /**
   * Registers {@code sink} and returns what it must send before live events, atomically with
   * respect to writes (so nothing is missed or duplicated).
   *
   * @param initialState send the current state as synthetic ADDED events first
   * @param fromRv without initial state: replay the changes after this RV (negative: start now)
   * @return with {@code tooOldFloor >= 0} if {@code fromRv} is older than the retained history
   *     (then the sink is not registered)
   */
  WatchStart watch(ServedResource type, WatchSink sink, boolean initialState, long fromRv) {
    lock.lock();
    try {
      ResourceState st = stateLocked(type);
      if (initialState) {
        List<StoredObject> items =
            new ArrayList<>(range(st.objects, sink.filter().namespace, null).values());
        st.watchers.add(sink);
        return new WatchStart(rv, items, List.of(), -1);
      }
      if (fromRv < 0) {
        st.watchers.add(sink);
        return new WatchStart(rv, List.of(), List.of(), -1);
      }
      if (fromRv < st.oldestRv) {
        return new WatchStart(fromRv, List.of(), List.of(), st.oldestRv);
      }
      List<WatchItem> replay = new ArrayList<>();
      for (Event e : st.history) {
        if (e.object().rv > fromRv) {
          WatchItem item = transition(sink.filter(), e, null);
          if (item != null) {
            replay.add(item);
          }
        }
      }
      st.watchers.add(sink);
      return new WatchStart(fromRv, List.of(), replay, -1);
    } finally {
      lock.unlock();
    }
  }

  void unwatch(ServedResource type, WatchSink sink) {
    lock.lock();
    try {
      stateLocked(type).watchers.remove(sink);
    } finally {
      lock.unlock();
    }
  }

  /** Delivers a bookmark at the current RV to {@code sink}, ordered after every earlier event. */
  void deliverBookmark(WatchSink sink) {
    lock.lock();
    try {
      sink.deliver(WatchItem.bookmark(rv));
    } finally {
      lock.unlock();
    }
  }

  /** Forgets all history: every earlier RV becomes too old for watches and continue tokens. */
  void compact() {
    lock.lock();
    try {
      for (ResourceState st : states.values()) {
        st.history.clear();
        st.oldestRv = rv;
      }
    } finally {
      lock.unlock();
    }
  }

  /** The keys of the objects of {@code type} in {@code namespace} (all if null). */
  List<String> keys(ServedResource type, @Nullable String namespace) {
    lock.lock();
    try {
      return new ArrayList<>(range(stateLocked(type).objects, namespace, null).keySet());
    } finally {
      lock.unlock();
    }
  }

  Collection<ServedResource> types() {
    lock.lock();
    try {
      return new ArrayList<>(states.keySet());
    } finally {
      lock.unlock();
    }
  }
}

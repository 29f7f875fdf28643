package io.kinformer.cache.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Reflector;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory {@link ListerWatcher} for tests (client-go's {@code FakeControllerSource}): it keeps
 * objects and a history of changes under one increasing resourceVersion, serves lists (paged when
 * asked) and watches from any retained resourceVersion, records every call, and lets a test push
 * events, break or end watches, expire history and script failures.
 *
 * <p>Objects passed to {@link #add}, {@link #modify} and {@link #delete} are owned by the fake from
 * then on: it stamps their {@code metadata.resourceVersion}. Pass a fresh object for every change.
 *
 * <p>A call whose {@link Cancellation} is already cancelled fails with an {@link
 * InformerException} (and is still recorded); a watch ends, as if closed, once its cancellation is
 * cancelled.
 *
 * <p>Thread safety: thread-safe. A {@link Watch} it returns may be read by one thread and closed by
 * any.
 *
 * @param <T> the object type
 */
public final class FakeListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  private final ReentrantLock lock = new ReentrantLock();
  private final Function<String, T> bookmarkFactory;

  // @GuardedBy("lock")
  private long resourceVersion;
  // @GuardedBy("lock"): current objects by key, in key order (the order a real server lists in)
  private final TreeMap<String, T> objects = new TreeMap<>();
  // @GuardedBy("lock"): every change after compactedThrough, oldest first
  private final List<Change<T>> history = new ArrayList<>();
  // @GuardedBy("lock"): changes at or below this resourceVersion are forgotten
  private long compactedThrough;
  // @GuardedBy("lock")
  private final List<FakeWatch<T>> openWatches = new ArrayList<>();
  // @GuardedBy("lock")
  private final Deque<RuntimeException> listFailures = new ArrayDeque<>();
  // @GuardedBy("lock")
  private final Deque<RuntimeException> watchFailures = new ArrayDeque<>();
  // @GuardedBy("lock")
  private boolean ignoreLimit;
  // @GuardedBy("lock")
  private boolean expiredWatchAsHttpError;

  private final List<ListOptions> listCalls = new CopyOnWriteArrayList<>();
  private final List<ListOptions> watchCalls = new CopyOnWriteArrayList<>();

  /**
   * A fake starting empty at resourceVersion 1.
   *
   * @param bookmarkFactory makes the (otherwise empty) object a BOOKMARK event carries, given the
   *     resourceVersion to stamp on it, e.g. {@code rv -> new PodBuilder().withNewMetadata()
   *     .withResourceVersion(rv).endMetadata().build()}
   */
  public FakeListerWatcher(Function<String, T> bookmarkFactory) {
    this.bookmarkFactory = Objects.requireNonNull(bookmarkFactory, "bookmarkFactory");
    this.resourceVersion = 1;
  }

  private record Change<T>(long rv, WatchEventType type, T object) {}

  // ---- mutations a test makes -------------------------------------------------------------

  /** Creates {@code obj} at the next resourceVersion and tells open watches; returns that RV. */
  public String add(T obj) {
    return change(WatchEventType.ADDED, obj);
  }

  /** Replaces the object with {@code obj}'s key at the next resourceVersion; returns that RV. */
  public String modify(T obj) {
    return change(WatchEventType.MODIFIED, obj);
  }

  /** Deletes the object with {@code obj}'s key at the next resourceVersion; returns that RV. */
  public String delete(T obj) {
    return change(WatchEventType.DELETED, obj);
  }

  private String change(WatchEventType type, T obj) {
    lock.lock();
    try {
      long rv = ++resourceVersion;
      meta(obj).setResourceVersion(Long.toString(rv));
      String key = Keys.metaNamespaceKey(obj);
      if (type == WatchEventType.DELETED) {
        objects.remove(key);
      } else {
        objects.put(key, obj);
      }
      history.add(new Change<>(rv, type, obj));
      for (FakeWatch<T> w : openWatches) {
        w.offer(WatchEvent.of(type, obj));
      }
      return Long.toString(rv);
    } finally {
      lock.unlock();
    }
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch that allowed bookmarks. */
  public void bookmark() {
    lock.lock();
    try {
      T mark = bookmarkFactory.apply(Long.toString(resourceVersion));
      for (FakeWatch<T> w : openWatches) {
        if (w.options.allowWatchBookmarks()) {
          w.offer(WatchEvent.of(WatchEventType.BOOKMARK, mark));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Sends {@code event} as is to every open watch (for example an ERROR event). */
  public void sendToWatches(WatchEvent<T> event) {
    lock.lock();
    try {
      for (FakeWatch<T> w : openWatches) {
        w.offer(event);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Ends every open watch cleanly, as a server does at {@code timeoutSeconds}. */
  public void endWatches() {
    closeWatches(null);
  }

  /**
   * Breaks every open watch: its next {@link Watch#next()} throws {@code failure}. As from the HTTP
   * watch, a {@link Reflector} takes a failure with an {@link java.io.IOException} among its causes
   * for a broken connection (it re-watches from its last resourceVersion) and any other for bad
   * data from the server (it relists after a backoff).
   */
  public void breakWatches(InformerException failure) {
    closeWatches(Objects.requireNonNull(failure, "failure"));
  }

  private void closeWatches(@Nullable InformerException failure) {
    lock.lock();
    try {
      for (FakeWatch<T> w : openWatches) {
        w.finish(failure);
      }
      openWatches.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forgets the history up to now: a later watch from an older resourceVersion is answered, like
   * kube-apiserver does, by an ERROR event carrying 410 Expired (or by an HTTP 410 after {@link
   * #answerExpiredWatchWithHttpError}).
   */
  public void compact() {
    lock.lock();
    try {
      compactedThrough = resourceVersion;
      history.clear();
    } finally {
      lock.unlock();
    }
  }

  /** Answer a watch from a compacted resourceVersion with a thrown HTTP 410 instead of an event. */
  public void answerExpiredWatchWithHttpError(boolean httpError) {
    lock.lock();
    try {
      this.expiredWatchAsHttpError = httpError;
    } finally {
      lock.unlock();
    }
  }

  /** Make lists ignore {@code limit} and return everything, as the watch cache does. */
  public void ignoreLimit(boolean ignore) {
    lock.lock();
    try {
      this.ignoreLimit = ignore;
    } finally {
      lock.unlock();
    }
  }

  /** The next list call throws {@code failure} (failures queue up in order). */
  public void failNextList(RuntimeException failure) {
    lock.lock();
    try {
      listFailures.add(failure);
    } finally {
      lock.unlock();
    }
  }

  /** The next watch call throws {@code failure} (failures queue up in order). */
  public void failNextWatch(RuntimeException failure) {
    lock.lock();
    try {
      watchFailures.add(failure);
    } finally {
      lock.unlock();
    }
  }

  // ---- what a test inspects -----------------------------------------------------------------

  /** The options of every list call so far, in order. */
  public List<ListOptions> listCalls() {
    return List.copyOf(listCalls);
  }

  /** The options of every watch call so far, in order. */
  public List<ListOptions> watchCalls() {
    return List.copyOf(watchCalls);
  }

  /** How many watches are open now. */
  public int openWatchCount() {
    lock.lock();
    try {
      return openWatches.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * How many items the open watches hold that {@code next()} would return without waiting (events,
   * and a failure or the end of a stream): for tests that read a watch on their own thread and must
   * not read one with nothing in it.
   */
  public int readableOnOpenWatches() {
    lock.lock();
    try {
      int n = 0;
      for (FakeWatch<T> w : openWatches) {
        n += w.readable();
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** The current resourceVersion. */
  public String resourceVersion() {
    lock.lock();
    try {
      return Long.toString(resourceVersion);
    } finally {
      lock.unlock();
    }
  }

  /** A snapshot of the current objects by key. */
  public Map<String, T> objects() {
    lock.lock();
    try {
      return Map.copyOf(objects);
    } finally {
      lock.unlock();
    }
  }

  // ---- ListerWatcher ------------------------------------------------------------------------

  @Override
  public ListResult<T> list(ListOptions options, Cancellation cancellation) {
    listCalls.add(options);
    failIfCancelled(cancellation, "list");
    lock.lock();
    try {
      RuntimeException failure = listFailures.poll();
      if (failure != null) {
        throw failure;
      }
      List<T> all = new ArrayList<>(objects.values());
      String rv = Long.toString(resourceVersion);
      int from = 0;
      if (options.continueToken() != null) {
        String[] parts = options.continueToken().split(":", 2);
        long tokenRv = Long.parseLong(parts[0]);
        if (tokenRv != resourceVersion) {
          throw new ApiException(
              ApiException.GONE,
              "Expired",
              "The provided continue parameter is too old to display a consistent list result.",
              null,
              List.of(),
              false);
        }
        from = Integer.parseInt(parts[1]);
      }
      Long limit = options.limit();
      if (limit == null || ignoreLimit || from + limit >= all.size()) {
        return new ListResult<>(all.subList(from, all.size()), rv, null, null);
      }
      int to = from + (int) (long) limit;
      return new ListResult<>(
          all.subList(from, to), rv, resourceVersion + ":" + to, (long) (all.size() - to));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Watch<T> watch(ListOptions options, Cancellation cancellation) {
    watchCalls.add(options);
    failIfCancelled(cancellation, "watch");
    FakeWatch<T> w = openWatch(options);
    // Registered outside the lock: the action runs at once if cancelled meanwhile.
    w.endOn(cancellation);
    return w;
  }

  private static void failIfCancelled(Cancellation cancellation, String call) {
    if (cancellation.isCancelled()) {
      throw new InformerException("the " + call + " call was cancelled");
    }
  }

  private FakeWatch<T> openWatch(ListOptions options) {
    lock.lock();
    try {
      RuntimeException failure = watchFailures.poll();
      if (failure != null) {
        throw failure;
      }
      FakeWatch<T> w = new FakeWatch<>(this, options);
      String rvText = options.resourceVersion();
      boolean streamingList = Boolean.TRUE.equals(options.sendInitialEvents());
      if (streamingList || rvText == null || rvText.isEmpty() || rvText.equals("0")) {
        for (T obj : objects.values()) {
          w.offer(WatchEvent.of(WatchEventType.ADDED, obj));
        }
        if (streamingList) {
          T mark = bookmarkFactory.apply(Long.toString(resourceVersion));
          ObjectMeta m = meta(mark);
          Map<String, String> annotations = new java.util.HashMap<>();
          if (m.getAnnotations() != null) {
            annotations.putAll(m.getAnnotations());
          }
          annotations.put(WatchEvent.INITIAL_EVENTS_END_ANNOTATION, "true");
          m.setAnnotations(annotations);
          w.offer(WatchEvent.of(WatchEventType.BOOKMARK, mark));
        }
      } else {
        long from = Long.parseLong(rvText);
        if (from < compactedThrough) {
          ApiException gone =
              new ApiException(
                  ApiException.GONE,
                  "Expired",
                  "too old resource version: " + from + " (" + compactedThrough + ")",
                  null,
                  List.of(),
                  !expiredWatchAsHttpError);
          if (expiredWatchAsHttpError) {
            throw gone;
          }
          w.offer(WatchEvent.error(gone));
          w.finish(null);
          return w;
        }
        for (Change<T> c : history) {
          if (c.rv > from) {
            w.offer(WatchEvent.of(c.type, c.object));
          }
        }
      }
      openWatches.add(w);
      return w;
    } finally {
      lock.unlock();
    }
  }

  private void forget(FakeWatch<T> w) {
    lock.lock();
    try {
      openWatches.remove(w);
    } finally {
      lock.unlock();
    }
  }

  private static ObjectMeta meta(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    if (m == null) {
      throw new IllegalArgumentException("object has no metadata");
    }
    return m;
  }

  /** A watch fed through a queue; the end of the stream is a sentinel. */
  private static final class FakeWatch<T extends HasMetadata> implements Watch<T> {
    private static final Object END = new Object();

    private final FakeListerWatcher<T> source;
    final ListOptions options;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile boolean finished;
    private volatile Cancellation.@Nullable Registration cancelRegistration;

    FakeWatch(FakeListerWatcher<T> source, ListOptions options) {
      this.source = source;
      this.options = options;
    }

    /** Closes this watch when {@code cancellation} is cancelled, until it is closed. */
    void endOn(Cancellation cancellation) {
      cancelRegistration = cancellation.onCancel(this::close);
    }

    void offer(WatchEvent<T> event) {
      if (!finished) {
        queue.add(event);
      }
    }

    int readable() {
      return queue.size();
    }

    void finish(@Nullable InformerException failure) {
      if (!finished) {
        finished = true;
        queue.add(failure != null ? failure : END);
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public @Nullable WatchEvent<T> next() {
      Object item;
      try {
        // Polling in slices keeps the reading thread responsive to interrupts and close().
        do {
          item = queue.poll(100, TimeUnit.MILLISECONDS);
        } while (item == null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
      if (item == END) {
        queue.add(END);
        return null;
      }
      if (item instanceof InformerException failure) {
        queue.add(END);
        throw failure;
      }
      return (WatchEvent<T>) item;
    }

    @Override
    public void close() {
      Cancellation.Registration r = cancelRegistration;
      if (r != null) {
        r.close();
      }
      source.forget(this);
      finish(null);
    }
  }
}

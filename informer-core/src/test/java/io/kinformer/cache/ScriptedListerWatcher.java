package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ListerWatcher} that answers from a script, for reflector tests that run on the test
 * thread: each list call takes the next scripted page or failure, each watch call the next
 * scripted watch (a sequence of events, failures to throw from {@code next()}, and durations by
 * which to advance the {@link FakeClock} when reached; then a clean end) or failure. Every request
 * is recorded as a short line: {@code list rv=0 limit=500}, {@code list continue=t1 limit=2},
 * {@code watch rv=5}, {@code stream rv=5} (a streaming list). A request beyond the script fails
 * with an {@link AssertionError}.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class ScriptedListerWatcher implements ListerWatcher<Pod> {

  static final ApiException EXPIRED =
      new ApiException(410, "Expired", "too old resource version: 2 (9)", null, List.of(), true);
  static final ApiException TOO_LARGE =
      new ApiException(
          504, "Timeout", "Timeout: Too large resource version: 100394, current: 397", null,
          List.of("ResourceVersionTooLarge"), List.of("Too large resource version"), true);
  /** A kube-apiserver 1.17 too-large error: the message says it, no cause reason does. */
  static final ApiException TOO_LARGE_BY_MESSAGE =
      new ApiException(
          504, "Timeout", "Too large resource version: 9, current: 5", null, List.of(), false);
  static final ApiException INTERNAL =
      new ApiException(500, "InternalError", "etcdserver: no leader", null, List.of(), true);
  static final ApiException TOO_MANY =
      new ApiException(429, "TooManyRequests", "slow down", null, List.of(), false);
  static final ApiException FORBIDDEN =
      new ApiException(403, "Forbidden", "pods is forbidden", null, List.of(), false);
  /** How a server without streaming lists (WatchList gate off) refuses one. */
  static final ApiException STREAMING_REFUSED =
      new ApiException(
          422, "Invalid",
          "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents"
              + " is forbidden for watch unless the WatchList feature gate is enabled",
          null, List.of("FieldValueForbidden"), false);

  private final FakeClock clock;
  private final Deque<Object> lists = new ArrayDeque<>();
  private final Deque<Object> watches = new ArrayDeque<>();
  private boolean supportsWatchList = true;
  final List<String> requests = new ArrayList<>();
  final List<ListOptions> watchOptions = new ArrayList<>();

  ScriptedListerWatcher(FakeClock clock) {
    this.clock = clock;
  }

  /** The next list call returns a page of {@code pods} at {@code rv}, with {@code next} to come. */
  ScriptedListerWatcher page(String rv, @Nullable String next, Pod... pods) {
    lists.add(new ListResult<>(List.of(pods), rv, next, null));
    return this;
  }

  /** The next list call returns all of {@code pods} at {@code rv}. */
  ScriptedListerWatcher list(String rv, Pod... pods) {
    return page(rv, null, pods);
  }

  /** The next list call throws {@code failure}. */
  ScriptedListerWatcher listFails(RuntimeException failure) {
    lists.add(failure);
    return this;
  }

  /**
   * The next watch call returns a watch that yields {@code script} in order ({@link WatchEvent}s;
   * a {@link RuntimeException} is thrown from {@code next()} and ends the watch; a {@link
   * Duration} advances the clock), then ends cleanly.
   */
  ScriptedListerWatcher watch(Object... script) {
    watches.add(new ArrayDeque<>(Arrays.asList(script)));
    return this;
  }

  /** The next watch call throws {@code failure}. */
  ScriptedListerWatcher watchFails(RuntimeException failure) {
    watches.add(failure);
    return this;
  }

  ScriptedListerWatcher cannotStream() {
    supportsWatchList = false;
    return this;
  }

  /** Whether every scripted answer was used. */
  boolean exhausted() {
    return lists.isEmpty() && watches.isEmpty();
  }

  @Override
  public boolean supportsWatchList() {
    return supportsWatchList;
  }

  @Override
  public ListResult<Pod> list(ListOptions o, Cancellation cancellation) {
    StringBuilder sb = new StringBuilder("list");
    append(sb, "rv", o.resourceVersion());
    append(sb, "continue", o.continueToken());
    append(sb, "limit", o.limit());
    requests.add(sb.toString());
    Object next = lists.poll();
    if (next == null) {
      throw new AssertionError("unscripted " + sb);
    }
    if (next instanceof RuntimeException e) {
      throw e;
    }
    @SuppressWarnings("unchecked")
    ListResult<Pod> page = (ListResult<Pod>) next;
    return page;
  }

  @Override
  public Watch<Pod> watch(ListOptions o, Cancellation cancellation) {
    boolean streaming = Boolean.TRUE.equals(o.sendInitialEvents());
    StringBuilder sb = new StringBuilder(streaming ? "stream" : "watch");
    append(sb, "rv", o.resourceVersion());
    requests.add(sb.toString());
    watchOptions.add(o);
    Object next = watches.poll();
    if (next == null) {
      throw new AssertionError("unscripted " + sb);
    }
    if (next instanceof RuntimeException e) {
      throw e;
    }
    @SuppressWarnings("unchecked")
    Deque<Object> script = (Deque<Object>) next;
    return new ScriptedWatch(script);
  }

  private static void append(StringBuilder sb, String key, @Nullable Object value) {
    if (value != null) {
      sb.append(' ').append(key).append('=').append(value);
    }
  }

  /** Events of a scripted watch. */
  private final class ScriptedWatch implements Watch<Pod> {
    private final Deque<Object> script;
    private boolean closed;

    ScriptedWatch(Deque<Object> script) {
      this.script = script;
    }

    @Override
    public @Nullable WatchEvent<Pod> next() {
      while (!closed) {
        Object item = script.poll();
        if (item == null) {
          return null;
        }
        if (item instanceof Duration d) {
          clock.advance(d); // may run a resync that closes this watch
          continue;
        }
        if (item instanceof RuntimeException e) {
          closed = true;
          throw e;
        }
        @SuppressWarnings("unchecked")
        WatchEvent<Pod> event = (WatchEvent<Pod>) item;
        return event;
      }
      return null;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  // ---- events ----

  static WatchEvent<Pod> added(String name, String rv) {
    return WatchEvent.of(WatchEventType.ADDED, TestPods.pod("ns", name, rv));
  }

  static WatchEvent<Pod> modified(String name, String rv) {
    return WatchEvent.of(WatchEventType.MODIFIED, TestPods.pod("ns", name, rv));
  }

  static WatchEvent<Pod> deleted(String name, String rv) {
    return WatchEvent.of(WatchEventType.DELETED, TestPods.pod("ns", name, rv));
  }

  static WatchEvent<Pod> bookmark(String rv) {
    return WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark(rv));
  }

  /** The bookmark that ends a streaming list's initial events. */
  static WatchEvent<Pod> initialEventsEnd(String rv) {
    Pod mark = TestPods.bookmark(rv);
    mark.getMetadata().setAnnotations(Map.of(WatchEvent.INITIAL_EVENTS_END_ANNOTATION, "true"));
    return WatchEvent.of(WatchEventType.BOOKMARK, mark);
  }

  static WatchEvent<Pod> error(ApiException e) {
    return WatchEvent.error(e);
  }

  static Pod pod(String name, String rv) {
    return TestPods.pod("ns", name, rv);
  }
}

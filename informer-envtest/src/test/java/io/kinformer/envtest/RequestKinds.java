package io.kinformer.envtest;

import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Watch;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The kind of a list or watch request, without what legitimately varies between two clients
 * (timeouts, the exact resourceVersion): for example {@code watch sendInitialEvents
 * match=NotOlderThan bookmarks rv=none} or {@code list limit=500 rv=0}.
 */
final class RequestKinds {
  private RequestKinds() {}

  static String of(boolean watch, Map<String, String> q) {
    StringBuilder b = new StringBuilder(watch ? "watch" : "list");
    if ("true".equals(q.get("sendInitialEvents"))) {
      b.append(" sendInitialEvents");
    }
    if (q.get("resourceVersionMatch") != null) {
      b.append(" match=").append(q.get("resourceVersionMatch"));
    }
    if ("true".equals(q.get("allowWatchBookmarks"))) {
      b.append(" bookmarks");
    }
    if (q.get("limit") != null) {
      b.append(" limit=").append(q.get("limit"));
    }
    if (q.get("continue") != null) {
      b.append(" continue");
    }
    String rv = q.get("resourceVersion");
    b.append(" rv=").append(rv == null || rv.isEmpty() ? "none" : rv.equals("0") ? "0" : "N");
    return b.toString();
  }

  /** The kind of a client-go request, from its query string. */
  static String ofQuery(String query) {
    Map<String, String> q = new HashMap<>();
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        q.put(pair.substring(0, eq),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return of("true".equals(q.get("watch")), q);
  }

  /** The kind of one of our calls, from its options. */
  static String ofOptions(boolean watch, ListOptions o) {
    Map<String, String> q = new HashMap<>();
    if (o.sendInitialEvents() != null) {
      q.put("sendInitialEvents", o.sendInitialEvents().toString());
    }
    if (o.resourceVersionMatch() != null) {
      q.put("resourceVersionMatch", o.resourceVersionMatch());
    }
    if (o.allowWatchBookmarks()) {
      q.put("allowWatchBookmarks", "true");
    }
    if (o.limit() != null) {
      q.put("limit", o.limit().toString());
    }
    if (o.continueToken() != null) {
      q.put("continue", o.continueToken());
    }
    if (o.resourceVersion() != null) {
      q.put("resourceVersion", o.resourceVersion());
    }
    return of(watch, q);
  }

  /** A ListerWatcher that records the kind of every call before making it. */
  static final class Recording<T> implements ListerWatcher<T> {
    private final ListerWatcher<T> delegate;
    final List<String> kinds = new CopyOnWriteArrayList<>();

    Recording(ListerWatcher<T> delegate) {
      this.delegate = delegate;
    }

    @Override
    public ListResult<T> list(ListOptions options, Cancellation cancellation) {
      kinds.add(ofOptions(false, options));
      return delegate.list(options, cancellation);
    }

    @Override
    public Watch<T> watch(ListOptions options, Cancellation cancellation) {
      kinds.add(ofOptions(true, options));
      return delegate.watch(options, cancellation);
    }

    @Override
    public boolean supportsWatchList() {
      return delegate.supportsWatchList();
    }
  }
}

package io.kinformer.testing;

import io.kinformer.cache.WatchEventType;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open watch stream. The store (and faults, and timers) enqueue {@link WatchItem}s; the
 * request's thread (a Jetty pool thread, named {@code kinformer-apiserver-N}) drains them in
 * batches and writes each batch with one flush, so a fast stream puts several events in a chunk,
 * as the real server does.
 *
 * <p>Timers (periodic bookmarks, the pre-deadline bookmark and the deadline) run on the injected
 * {@link Scheduler} and only enqueue, so a {@code FakeClock} drives them deterministically.
 *
 * <p>Thread safety: {@link #deliver} and {@link #stop} may be called from any thread; {@link #run}
 * belongs to the request's thread.
 */
final class WatchSession implements WatchSink {

  private static final Logger log = LoggerFactory.getLogger(WatchSession.class);
  private static final Duration PRE_DEADLINE_BOOKMARK = Duration.ofSeconds(2);
  private static final byte[] ADDED_HEAD =
      "{\"type\":\"ADDED\",\"object\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] FRAME_TAIL = {'}', '\n'};

  final ServedResource type;
  private final Filter filter;
  /** The PartialObjectMetadata apiVersion for a metadata-only watch; null for full objects. */
  private final @Nullable String metaApiVersion;
  private final boolean bookmarks;
  private final int maxPending;
  private final LinkedBlockingQueue<WatchItem> queue = new LinkedBlockingQueue<>();
  private final List<Cancellable> timers = new ArrayList<>();
  private volatile boolean overflowed;
  /** The Table view of each event's object, when the client asked for tables. */
  private @Nullable Tables table;
  /** Whether a table event carried the column definitions yet; only the writer touches it. */
  private boolean columnsSent;
  /** Events at or before this RV are not sent (a watch from a future RV waits for it). */
  private volatile long startRv;

  WatchSession(
      ServedResource type, Filter filter, @Nullable String metaApiVersion, boolean bookmarks,
      int maxPending) {
    this.type = type;
    this.filter = filter;
    this.metaApiVersion = metaApiVersion;
    this.bookmarks = bookmarks;
    this.maxPending = maxPending;
  }

  /** Sends each object as a one-row Table (before {@link #run}). */
  void renderAsTable(Tables tables) {
    this.table = tables;
  }

  private byte[] tableRow(StoredObject o) {
    byte[] b = table.single(o, !columnsSent);
    columnsSent = true;
    return b;
  }

  private byte[] line(WatchItem item) {
    if (table == null) {
      return item.line(metaApiVersion);
    }
    return WatchItem.frame(item.type, tableRow(item.object));
  }

  @Override
  public Filter filter() {
    return filter;
  }

  @Override
  public void deliver(WatchItem item) {
    if (overflowed) {
      return;
    }
    if (item.kind == WatchItem.Kind.EVENT && queue.size() >= maxPending) {
      // A client this far behind is dropped, as the real server drops a watcher whose buffer
      // stays full; the stream ends cleanly and the client re-watches.
      overflowed = true;
      queue.offer(WatchItem.END);
      return;
    }
    queue.offer(item);
  }

  /** Ends the stream: cleanly, or by aborting the connection. */
  void stop(boolean reset) {
    queue.offer(reset ? WatchItem.RESET : WatchItem.END);
  }

  /** Writes raw bytes into the stream (a fault). */
  void injectRaw(byte[] bytes) {
    queue.offer(WatchItem.raw(bytes));
  }

  /**
   * Starts the timers: a bookmark every {@code bookmarkInterval} (when bookmarks were asked
   * for), and the end of the stream at {@code deadline} with a bookmark 2 s before it.
   */
  void startTimers(Scheduler scheduler, Store store, Duration bookmarkInterval,
      Duration deadline) {
    synchronized (timers) {
      if (bookmarks) {
        schedulePeriodic(scheduler, store, bookmarkInterval);
        if (deadline.compareTo(PRE_DEADLINE_BOOKMARK) > 0) {
          timers.add(scheduler.schedule(() -> store.deliverBookmark(this),
              deadline.minus(PRE_DEADLINE_BOOKMARK)));
        }
      }
      timers.add(scheduler.schedule(() -> stop(false), deadline));
    }
  }

  private void schedulePeriodic(Scheduler scheduler, Store store, Duration interval) {
    timers.add(scheduler.schedule(() -> {
      store.deliverBookmark(this);
      synchronized (timers) {
        if (!timers.isEmpty()) {
          schedulePeriodic(scheduler, store, interval);
        }
      }
    }, interval));
  }

  private void cancelTimers() {
    synchronized (timers) {
      for (Cancellable c : timers) {
        c.cancel();
      }
      timers.clear();
    }
  }

  /**
   * Writes the stream until it ends.
   *
   * @param initial the synthetic ADDED objects (already in key order; filtered here)
   * @param replay history events to send first
   * @param initialEnd whether to send the initial-events-end bookmark after the initial events
   * @return true for a clean end, false if the connection must be aborted
   */
  boolean run(ResponseOutput out, Store.WatchStart start, boolean initialEnd)
      throws IOException, InterruptedException {
    try {
      startRv = start.startRv();
      out.commit();
      for (StoredObject o : start.initialState()) {
        if (filter.matches(o)) {
          // Framed in place: no per-object copy for large initial states.
          out.write(ADDED_HEAD);
          out.write(table != null ? tableRow(o)
              : metaApiVersion != null ? o.partialMetadata(metaApiVersion) : o.json);
          out.write(FRAME_TAIL);
        }
      }
      for (WatchItem item : start.replay()) {
        out.write(line(item));
      }
      if (initialEnd) {
        out.write(bookmark(start.startRv(), true));
      }
      out.flush();
      List<WatchItem> batch = new ArrayList<>();
      while (true) {
        batch.clear();
        batch.add(queue.take());
        queue.drainTo(batch);
        for (WatchItem item : batch) {
          switch (item.kind) {
            case EVENT:
              if (item.rv > startRv) {
                out.write(line(item));
              }
              break;
            case BOOKMARK:
              if (bookmarks && item.rv > startRv) {
                out.write(bookmark(item.rv, false));
              }
              break;
            case INITIAL_EVENTS_END:
              out.write(bookmark(item.rv, true));
              break;
            case RAW:
              out.write(item.raw);
              break;
            case END:
              if (overflowed) {
                log.warn("watch on {} fell {} events behind and was closed", type.plural(),
                    maxPending);
              }
              out.close();
              return true;
            case RESET:
              out.flush();
              return false;
            default:
              throw new IllegalStateException("unknown item " + item.kind);
          }
        }
        out.flush();
      }
    } finally {
      cancelTimers();
    }
  }

  private byte[] bookmark(long rv, boolean initialEventsEnd) {
    StringBuilder sb = new StringBuilder(160);
    sb.append("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"");
    if (metaApiVersion != null) {
      sb.append("PartialObjectMetadata\",\"apiVersion\":\"").append(metaApiVersion).append('"');
    } else {
      sb.append(type.kind()).append("\",\"apiVersion\":\"").append(type.apiVersion()).append('"');
    }
    sb.append(",\"metadata\":{\"resourceVersion\":\"").append(rv).append('"');
    if (initialEventsEnd) {
      sb.append(",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}");
    }
    sb.append('}');
    if (metaApiVersion == null && !type.bookmarkBody().isEmpty()) {
      sb.append(',').append(type.bookmarkBody());
    }
    sb.append("}}\n");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The ERROR event line carrying {@code status}. */
  static byte[] errorLine(byte[] statusJson) {
    return WatchItem.frame(WatchEventType.ERROR, statusJson);
  }
}

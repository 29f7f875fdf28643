package io.kinformer.benchmarks;

import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;

/**
 * A minimal in-memory {@link ListerWatcher} for benchmarks: it lists a fixed set of objects in one
 * page and hands out one watch, fed by {@link #send}. Unlike {@code FakeListerWatcher} it keeps no
 * history, so millions of events cost no memory.
 *
 * <p>Thread safety: thread-safe.
 */
final class QueueListerWatcher<T> implements ListerWatcher<T> {

  private static final Object END = new Object();

  private final List<T> items;
  private final String resourceVersion;
  private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();

  QueueListerWatcher(List<T> items, String resourceVersion) {
    this.items = List.copyOf(items);
    this.resourceVersion = resourceVersion;
  }

  /** Queues an event for the (single) watch. */
  void send(WatchEvent<T> event) {
    events.add(event);
  }

  /** Its watch sends no initial events: the reflector lists instead of streaming. */
  @Override
  public boolean supportsWatchList() {
    return false;
  }

  @Override
  public ListResult<T> list(ListOptions options, Cancellation cancellation) {
    return new ListResult<>(items, resourceVersion, null, null);
  }

  /** Its watch ends once closed or once {@code cancellation} is cancelled. */
  @Override
  public Watch<T> watch(ListOptions options, Cancellation cancellation) {
    Cancellation.Registration ended = cancellation.onCancel(() -> events.add(END));
    return new Watch<>() {
      @Override
      @SuppressWarnings("unchecked")
      public @Nullable WatchEvent<T> next() {
        try {
          Object next = events.take();
          if (next == END) {
            events.add(END);
            return null;
          }
          return (WatchEvent<T>) next;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
      }

      @Override
      public void close() {
        ended.close();
        events.add(END);
      }
    };
  }
}

package io.kinformer.cache;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Ready-made handler adapters.
 *
 * <p>Thread safety: stateless; the returned handlers are as thread-safe as the ones they wrap.
 */
public final class ResourceEventHandlers {

  private ResourceEventHandlers() {}

  /**
   * A handler that passes on only the objects {@code filter} accepts (client-go's {@code
   * FilteringResourceEventHandler}). An update is translated when the object crosses the filter:
   * from rejected to accepted it is an {@code onAdd(new, false)}, from accepted to rejected an
   * {@code onDelete(old, false)}. To drop events without translating them, or to filter on what
   * an update changed, use {@link #filtered} with an {@link EventFilter}.
   *
   * @param filter must be side-effect free and fast; it runs on the delivery thread
   */
  public static <T> ResourceEventHandler<T> filtering(
      Predicate<? super T> filter, ResourceEventHandler<T> handler) {
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(handler, "handler");
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        if (filter.test(obj)) {
          handler.onAdd(obj, isInInitialList);
        }
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        boolean newer = filter.test(newObj);
        boolean older = filter.test(oldObj);
        if (newer && older) {
          handler.onUpdate(oldObj, newObj);
        } else if (newer) {
          handler.onAdd(newObj, false);
        } else if (older) {
          handler.onDelete(oldObj, false);
        }
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        if (filter.test(obj)) {
          handler.onDelete(obj, finalStateUnknown);
        }
      }

      @Override
      public String toString() {
        return "filtering(" + ProcessorListener.nameOf(handler) + ")";
      }
    };
  }

  /**
   * A handler that passes on the events {@code filter} accepts, unchanged, and drops the others
   * (controller-runtime's predicates): e.g. {@code filtered(EventFilter.generationChanged(),
   * handler)} to ignore status-only updates and resyncs. Unlike {@link #filtering}, which tests
   * objects and turns an update that crosses its predicate into an add or a delete, every event is
   * decided on its own, an update on both of its states.
   *
   * @param filter runs on the delivery thread before each call; must be fast
   */
  public static <T> ResourceEventHandler<T> filtered(
      EventFilter<? super T> filter, ResourceEventHandler<T> handler) {
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(handler, "handler");
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        if (filter.acceptsAdd(obj, isInInitialList)) {
          handler.onAdd(obj, isInInitialList);
        }
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (filter.acceptsUpdate(oldObj, newObj)) {
          handler.onUpdate(oldObj, newObj);
        }
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        if (filter.acceptsDelete(obj, finalStateUnknown)) {
          handler.onDelete(obj, finalStateUnknown);
        }
      }

      @Override
      public String toString() {
        return "filtered(" + filter + ", " + ProcessorListener.nameOf(handler) + ")";
      }
    };
  }

  /**
   * A handler that calls {@code action} with the object of every add, update (the new state) and
   * delete (the last known state): the usual controller handler, which only enqueues a key, e.g.
   * {@code onAnyChange(pod -> queue.add(Keys.metaNamespaceKey(pod)))}.
   */
  public static <T> ResourceEventHandler<T> onAnyChange(Consumer<? super T> action) {
    Objects.requireNonNull(action, "action");
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        action.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        action.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        action.accept(obj);
      }

      @Override
      public String toString() {
        return "onAnyChange(" + ProcessorListener.nameOf(action) + ")";
      }
    };
  }
}

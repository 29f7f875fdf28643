package io.kinformer.cache;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * {@link EventFilter#and} and {@link EventFilter#or}: asks its filters in order and stops at the
 * first whose answer settles the result.
 *
 * <p>Thread safety: immutable; as thread-safe as its filters.
 */
final class CompositeEventFilter<T> implements EventFilter<T> {

  /** true for {@code and} (every filter must accept), false for {@code or} (any filter may). */
  private final boolean all;

  private final List<EventFilter<? super T>> filters;

  private CompositeEventFilter(boolean all, List<EventFilter<? super T>> filters) {
    this.all = all;
    this.filters = filters;
  }

  /** Combines {@code filters}, none of which may be null; takes the list over. */
  static <T> EventFilter<T> of(boolean all, List<EventFilter<? super T>> filters) {
    filters.forEach(f -> Objects.requireNonNull(f, "filter"));
    return new CompositeEventFilter<T>(all, List.copyOf(filters));
  }

  @Override
  public boolean acceptsAdd(T obj, boolean isInInitialList) {
    return decide(f -> f.acceptsAdd(obj, isInInitialList));
  }

  @Override
  public boolean acceptsUpdate(T oldObj, T newObj) {
    return decide(f -> f.acceptsUpdate(oldObj, newObj));
  }

  @Override
  public boolean acceptsDelete(T obj, boolean finalStateUnknown) {
    return decide(f -> f.acceptsDelete(obj, finalStateUnknown));
  }

  /** Asks the filters in order until one answers {@code !all}, which is then the result. */
  private boolean decide(Predicate<EventFilter<? super T>> accepts) {
    for (EventFilter<? super T> f : filters) {
      if (accepts.test(f) != all) {
        return !all;
      }
    }
    return all;
  }

  @Override
  public String toString() {
    return filters.stream()
        .map(Object::toString)
        .collect(Collectors.joining(", ", all ? "and(" : "or(", ")"));
  }
}

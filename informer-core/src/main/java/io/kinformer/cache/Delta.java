package io.kinformer.cache;

import java.util.Objects;

/**
 * One change to one object, as queued in the {@link DeltaFifo}: its type and the object's state
 * after the change.
 *
 * <p>{@link #object()} is a {@code T}, except for a {@link DeltaType#DELETED} delta inferred by a
 * relist, where it is a {@link DeletedFinalStateUnknown DeletedFinalStateUnknown&lt;T&gt;}.
 *
 * <p>Thread safety: immutable (the object it holds is shared and must be treated as read-only).
 *
 * @param type what happened
 * @param object the state after it: a {@code T} or a {@code DeletedFinalStateUnknown<T>}
 * @param <T> the object type
 */
public record Delta<T>(DeltaType type, Object object) {

  /** Checks both components for null. */
  public Delta {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(object, "object");
  }

  /** Whether {@link #object()} is a {@link DeletedFinalStateUnknown}. */
  public boolean isFinalStateUnknown() {
    return object instanceof DeletedFinalStateUnknown<?>;
  }

  /**
   * The object itself: {@link #object()} if it is a {@code T}, else the last known state held by
   * the {@link DeletedFinalStateUnknown}.
   */
  @SuppressWarnings("unchecked")
  public T unwrap() {
    if (object instanceof DeletedFinalStateUnknown<?> d) {
      return (T) d.obj();
    }
    return (T) object;
  }
}

package io.kinformer.cache;

import java.util.Objects;

/**
 * A deletion that the informer inferred instead of seeing: the object vanished from a relist while
 * the watch was down, so its final state is unknown. {@link #obj()} is the last state the informer
 * knew (from its queue if newer there, else from its cache).
 *
 * <p>Handlers receive it unwrapped, as {@code onDelete(lastKnown, finalStateUnknown = true)}; the
 * wrapper itself appears only in {@link Delta}s and to {@link Keys#deletionHandlingMetaNamespaceKey}.
 *
 * <p>Thread safety: immutable (the object it holds is shared and must be treated as read-only).
 *
 * @param key the store key of the deleted object
 * @param obj the last known state of the object
 * @param <T> the object type
 */
public record DeletedFinalStateUnknown<T>(String key, T obj) {

  /** Checks both components for null. */
  public DeletedFinalStateUnknown {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(obj, "obj");
  }
}

package io.kinformer.cache;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A deletion that the informer inferred instead of seeing: the object vanished from a relist while
 * the watch was down, so its final state is unknown. {@link #obj()} is the last state the informer
 * knew (from its queue if newer there, else from its cache).
 *
 * <p>{@link #obj()} is null in one case, as in client-go: a {@link DeltaFifo} relist found the key
 * in its {@code knownObjects} listing, but the object was gone when it asked for it (client-go's
 * "placing DeleteFinalStateUnknown marker without object"). Only a writer that changes {@code
 * knownObjects} outside the FIFO's lock can cause that. The key is then all that is known;
 * consumers delete by {@link #key()} and have no object to report.
 *
 * <p>Handlers receive it unwrapped, as {@code onDelete(lastKnown, finalStateUnknown = true)}; the
 * wrapper itself appears only in {@link Delta}s and to {@link Keys#deletionHandlingMetaNamespaceKey}.
 *
 * <p>Thread safety: immutable (the object it holds is shared and must be treated as read-only).
 *
 * @param key the store key of the deleted object
 * @param obj the last known state of the object, or null if none is known (see above)
 * @param <T> the object type
 */
public record DeletedFinalStateUnknown<T>(String key, @Nullable T obj) {

  /** Checks the key for null. */
  public DeletedFinalStateUnknown {
    Objects.requireNonNull(key, "key");
  }
}

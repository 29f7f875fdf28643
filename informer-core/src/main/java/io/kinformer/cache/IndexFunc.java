package io.kinformer.cache;

import java.util.List;

/**
 * Computes the values under which an index files an object: an object may be filed under none, one
 * or several values of one index (for example every label value, or the node a pod runs on).
 *
 * <p>Thread safety: implementations must be thread-safe and side-effect free, and return the same
 * values for the same object; they run under the store's write lock, so they must be fast.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface IndexFunc<T> {

  /** The index values of {@code obj}; an empty list means "not in this index". Never null. */
  List<String> values(T obj);
}

package io.kinformer.cache;

import java.util.Map;

/**
 * A {@link Store} that also keeps named secondary indices (client-go's {@code cache.Indexer}). Each
 * index is defined by an {@link IndexFunc}; the indices are maintained on every write, so a value
 * that changes on update no longer finds the object under the old value.
 *
 * <p>Thread safety: thread-safe, as {@link Store}. Index functions may run under the write lock:
 * keep them fast.
 *
 * @param <T> the object type
 */
public interface Indexer<T> extends Store<T>, ReadOnlyIndexer<T> {

  /**
   * Adds indices. Objects already stored are indexed at once.
   *
   * @throws IllegalArgumentException if a name is already in use
   */
  void addIndexers(Map<String, IndexFunc<T>> newIndexers);
}

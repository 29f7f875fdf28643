package io.kinformer.cache;

import java.util.List;
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
public interface Indexer<T> extends Store<T> {

  /**
   * The objects that share at least one value of index {@code indexName} with {@code obj} (the
   * values {@code obj} itself would be filed under).
   *
   * @throws IllegalArgumentException if no index has that name
   */
  List<T> index(String indexName, T obj);

  /**
   * The keys of the objects filed under {@code indexedValue} in index {@code indexName}, sorted (as
   * client-go's {@code IndexKeys}).
   *
   * @throws IllegalArgumentException if no index has that name
   */
  List<String> indexKeys(String indexName, String indexedValue);

  /**
   * Every value of index {@code indexName} that at least one object is filed under; empty if no
   * index has that name (as client-go's {@code ListIndexFuncValues}).
   */
  List<String> listIndexFuncValues(String indexName);

  /**
   * The objects filed under {@code indexedValue} in index {@code indexName}.
   *
   * @throws IllegalArgumentException if no index has that name
   */
  List<T> byIndex(String indexName, String indexedValue);

  /** The index functions by name; an unmodifiable snapshot. */
  Map<String, IndexFunc<T>> getIndexers();

  /**
   * Adds indices. Objects already stored are indexed at once.
   *
   * @throws IllegalArgumentException if a name is already in use
   */
  void addIndexers(Map<String, IndexFunc<T>> newIndexers);
}

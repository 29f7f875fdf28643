package io.kinformer.cache;

import java.util.List;
import java.util.Map;

/**
 * The reads of an {@link Indexer}: what an informer hands out as its indexed cache ({@link
 * SharedIndexInformer#getIndexer()}). It has no write method; add indices with {@link
 * SharedIndexInformer#addIndexers}. What the returned objects permit is stated once, in {@link
 * ReadOnlyStore} ("Cached objects").
 *
 * <p>Thread safety: thread-safe, as {@link ReadOnlyStore}.
 *
 * @param <T> the object type
 */
public interface ReadOnlyIndexer<T> extends ReadOnlyStore<T> {

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
}

package io.kinformer.cache;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The view of a cache that informers hand out: it forwards the reads and implements no writable
 * interface, so a cast cannot reach the writes of the cache behind it.
 *
 * <p>Thread safety: as the cache it wraps.
 */
final class ReadOnlyView<T> implements ReadOnlyIndexer<T> {

  private final ReadOnlyIndexer<T> cache;

  ReadOnlyView(ReadOnlyIndexer<T> cache) {
    this.cache = cache;
  }

  @Override
  public List<T> list() {
    return cache.list();
  }

  @Override
  public List<String> listKeys() {
    return cache.listKeys();
  }

  @Override
  public Optional<T> get(T obj) {
    return cache.get(obj);
  }

  @Override
  public Optional<T> getByKey(String key) {
    return cache.getByKey(key);
  }

  @Override
  public String lastStoreSyncResourceVersion() {
    return cache.lastStoreSyncResourceVersion();
  }

  @Override
  public List<T> index(String indexName, T obj) {
    return cache.index(indexName, obj);
  }

  @Override
  public List<String> indexKeys(String indexName, String indexedValue) {
    return cache.indexKeys(indexName, indexedValue);
  }

  @Override
  public List<String> listIndexFuncValues(String indexName) {
    return cache.listIndexFuncValues(indexName);
  }

  @Override
  public List<T> byIndex(String indexName, String indexedValue) {
    return cache.byIndex(indexName, indexedValue);
  }

  @Override
  public Map<String, IndexFunc<T>> getIndexers() {
    return cache.getIndexers();
  }

  @Override
  public String toString() {
    return "ReadOnlyView[" + cache + "]";
  }
}

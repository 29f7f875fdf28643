package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A read-only indexer over the caches of a {@link MultiNamespaceInformer}'s per-namespace
 * informers: lists are the concatenation of theirs, keys ({@code namespace/name}, client-go's) are
 * looked up in the cache of their namespace. Each part's read is consistent on its own; a read
 * spanning several namespaces is not one snapshot of all of them (they are separate watches).
 * It has no writes: only the informers write to their caches.
 *
 * <p>Thread safety: thread-safe; reads take a snapshot of the parts first.
 */
final class MergedIndexer<T extends HasMetadata> implements ReadOnlyIndexer<T> {

  private final Supplier<Map<String, SharedIndexInformer<T>>> parts;
  private final Supplier<Map<String, IndexFunc<T>>> indexers;

  /**
   * @param parts the current per-namespace informers by namespace (an immutable snapshot per call)
   * @param indexers the index functions every part has
   */
  MergedIndexer(
      Supplier<Map<String, SharedIndexInformer<T>>> parts,
      Supplier<Map<String, IndexFunc<T>>> indexers) {
    this.parts = parts;
    this.indexers = indexers;
  }

  private Collection<SharedIndexInformer<T>> all() {
    return parts.get().values();
  }

  private Optional<SharedIndexInformer<T>> partOfKey(String key) {
    String namespace = Keys.split(key).namespace();
    return Optional.ofNullable(parts.get().get(namespace));
  }

  @Override
  public List<T> list() {
    List<T> out = new ArrayList<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().list());
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public List<String> listKeys() {
    List<String> out = new ArrayList<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().listKeys());
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public Optional<T> get(T obj) {
    return getByKey(Keys.metaNamespaceKey(obj));
  }

  @Override
  public Optional<T> getByKey(String key) {
    return partOfKey(key).flatMap(p -> p.getIndexer().getByKey(key));
  }

  @Override
  public List<T> index(String indexName, T obj) {
    requireIndex(indexName);
    List<T> out = new ArrayList<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().index(indexName, obj));
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public List<String> indexKeys(String indexName, String indexedValue) {
    requireIndex(indexName);
    List<String> out = new ArrayList<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().indexKeys(indexName, indexedValue));
    }
    Collections.sort(out);
    return Collections.unmodifiableList(out);
  }

  @Override
  public List<String> listIndexFuncValues(String indexName) {
    Set<String> out = new LinkedHashSet<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().listIndexFuncValues(indexName));
    }
    return List.copyOf(out);
  }

  @Override
  public List<T> byIndex(String indexName, String indexedValue) {
    requireIndex(indexName);
    if (Indexers.NAMESPACE.equals(indexName)) {
      SharedIndexInformer<T> p = parts.get().get(indexedValue);
      return p == null ? List.of() : p.getIndexer().byIndex(indexName, indexedValue);
    }
    List<T> out = new ArrayList<>();
    for (SharedIndexInformer<T> p : all()) {
      out.addAll(p.getIndexer().byIndex(indexName, indexedValue));
    }
    return Collections.unmodifiableList(out);
  }

  /** Refuses an unknown index even when no part exists to refuse it. */
  private void requireIndex(String indexName) {
    if (!indexers.get().containsKey(indexName)) {
      throw new IllegalArgumentException("no index named " + indexName);
    }
  }

  @Override
  public Map<String, IndexFunc<T>> getIndexers() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(indexers.get()));
  }

  /**
   * The lowest of the parts. {@link ReadOnlyStore#lastStoreSyncResourceVersion()}s (the point every
   * namespace's cache has reached), or {@code ""} while one of them has none.
   */
  @Override
  public String lastStoreSyncResourceVersion() {
    return lowest(all(), p -> p.getIndexer().lastStoreSyncResourceVersion());
  }

  static <T extends HasMetadata> String lowest(
      Collection<SharedIndexInformer<T>> parts,
      java.util.function.Function<SharedIndexInformer<T>, String> version) {
    String low = null;
    for (SharedIndexInformer<T> p : parts) {
      String rv = version.apply(p);
      if (rv.isEmpty()) {
        return "";
      }
      if (low == null
          || (ResourceVersions.isComparable(rv)
              && ResourceVersions.isComparable(low)
              && ResourceVersions.compare(rv, low) < 0)) {
        low = rv;
      }
    }
    return low == null ? "" : low;
  }
}

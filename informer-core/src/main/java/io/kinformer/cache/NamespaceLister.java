package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Lister} narrowed to one namespace (client-go's generated {@code PodNamespaceLister} and
 * friends); get one from {@link Lister#namespace(String)}.
 *
 * <p>Listing uses the {@link Indexers#NAMESPACE} index when the indexer has one (as informers'
 * indexers do), and otherwise scans the whole cache. The namespace {@code ""} stands for every
 * namespace (client-go's {@code NamespaceAll}) when listing.
 *
 * <p>As for {@link Lister}: reads never block on the network; the objects are the cached ones,
 * read-only (see {@link ReadOnlyStore}, "Cached objects"); lists are unmodifiable snapshots in no
 * particular order.
 *
 * <p>Thread safety: thread-safe.
 *
 * @param <T> the object type
 */
public final class NamespaceLister<T extends HasMetadata> {

  private final ReadOnlyIndexer<T> indexer;
  private final String namespace;

  NamespaceLister(ReadOnlyIndexer<T> indexer, String namespace) {
    this.indexer = indexer;
    this.namespace = namespace;
  }

  /** The namespace this lister reads; {@code ""} for all namespaces. */
  public String namespace() {
    return namespace;
  }

  /**
   * The object named {@code name} in this namespace.
   *
   * @throws IllegalArgumentException if {@code name} is empty or contains '/'
   * @throws IllegalStateException if this lister is for all namespaces ({@code ""}), where a name
   *     does not identify one object
   */
  public Optional<T> get(String name) {
    Lister.requireName(name);
    if (namespace.isEmpty()) {
      throw new IllegalStateException(
          "get(\"" + name + "\") needs a namespace: this lister lists all namespaces");
    }
    return indexer.getByKey(namespace + "/" + name);
  }

  /** Every object of this namespace. */
  public List<T> list() {
    return list(LabelSelector.everything());
  }

  /** The objects of this namespace whose labels match {@code selector}. */
  public List<T> list(LabelSelector selector) {
    Objects.requireNonNull(selector, "selector");
    if (namespace.isEmpty()) {
      return Lister.filter(indexer.list(), selector);
    }
    if (indexer.getIndexers().containsKey(Indexers.NAMESPACE)) {
      return Lister.filter(indexer.byIndex(Indexers.NAMESPACE, namespace), selector);
    }
    List<T> out = new ArrayList<>();
    for (T obj : indexer.list()) {
      if (namespace.equals(obj.getMetadata().getNamespace())
          && selector.matches(obj.getMetadata().getLabels())) {
        out.add(obj);
      }
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * The objects of this namespace filed under {@code indexedValue} in index {@code indexName}.
   *
   * @throws IllegalArgumentException if the indexer has no index of that name
   */
  public List<T> byIndex(String indexName, String indexedValue) {
    List<T> all = indexer.byIndex(indexName, indexedValue);
    if (namespace.isEmpty()) {
      return all;
    }
    List<T> out = new ArrayList<>();
    for (T obj : all) {
      if (namespace.equals(obj.getMetadata().getNamespace())) {
        out.add(obj);
      }
    }
    return Collections.unmodifiableList(out);
  }
}

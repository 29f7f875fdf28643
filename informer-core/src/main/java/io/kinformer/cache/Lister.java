package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads an informer's cache the way controllers do (client-go's generated listers and {@code
 * tools/cache/listers.go}): list by label selector, get by name, narrow to a namespace, or look up
 * a secondary index.
 *
 * <pre>{@code
 * Lister<Pod> pods = new Lister<>(informer.getIndexer());
 * Optional<Pod> web0 = pods.namespace("default").get("web-0");
 * List<Pod> web = pods.list(LabelSelector.parse("app=web"));
 * }</pre>
 *
 * <p>Reads never block on the network; they wait at most for a cache write in progress. The
 * objects returned are the cached ones, shared with every other reader and with the event handlers,
 * and read-only: {@link ReadOnlyStore} ("Cached objects") says what that means. Returned lists are
 * unmodifiable snapshots in no particular order; later cache changes do not show in them.
 *
 * <p>Thread safety: thread-safe (as the indexer it wraps); share one lister freely.
 *
 * @param <T> the object type
 */
public final class Lister<T extends HasMetadata> {

  private final ReadOnlyIndexer<T> indexer;

  /**
   * A lister over {@code indexer}, whose keys must be {@link Keys#metaNamespaceKey} keys (as an
   * informer's are); a {@link Indexers#NAMESPACE} index speeds up namespace listing.
   */
  public Lister(ReadOnlyIndexer<T> indexer) {
    this.indexer = Objects.requireNonNull(indexer, "indexer");
  }

  /** Every object in the cache. */
  public List<T> list() {
    return indexer.list();
  }

  /** The objects whose labels match {@code selector}. */
  public List<T> list(LabelSelector selector) {
    Objects.requireNonNull(selector, "selector");
    return filter(indexer.list(), selector);
  }

  /**
   * The cluster-scoped object named {@code name}; for namespaced objects use {@link
   * #namespace(String)}.
   */
  public Optional<T> get(String name) {
    requireName(name);
    return indexer.getByKey(name);
  }

  /**
   * A lister for the objects of namespace {@code namespace}. As client-go's {@code NamespaceAll},
   * {@code ""} means every namespace for listing; {@code get} then throws.
   */
  public NamespaceLister<T> namespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    return new NamespaceLister<>(indexer, namespace);
  }

  /**
   * The objects filed under {@code indexedValue} in index {@code indexName}.
   *
   * @throws IllegalArgumentException if the indexer has no index of that name
   */
  public List<T> byIndex(String indexName, String indexedValue) {
    return indexer.byIndex(indexName, indexedValue);
  }

  static <T extends HasMetadata> List<T> filter(List<T> objects, LabelSelector selector) {
    if (selector.isEmpty()) {
      return objects;
    }
    List<T> out = new ArrayList<>();
    for (T obj : objects) {
      if (selector.matches(obj.getMetadata().getLabels())) {
        out.add(obj);
      }
    }
    return Collections.unmodifiableList(out);
  }

  static void requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "invalid object name \"" + name + "\": must be non-empty and contain no '/'");
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * Factories for the thread-safe {@link Store} and {@link Indexer}, and the built-in namespace
 * index (client-go's {@code NewStore}, {@code NewIndexer}, {@code NamespaceIndex} and {@code
 * MetaNamespaceIndexFunc}).
 *
 * <p>The stores keep the objects they are given, not copies: a store costs one map entry per
 * object plus one entry per index value. Reads return unmodifiable snapshots and never wait for
 * anything but a write in progress; index functions that throw fail the write with an {@link
 * IllegalArgumentException} and leave the store unchanged.
 *
 * <p>Thread safety: stateless; all methods are thread-safe, and so are the stores they return.
 */
public final class Indexers {

  /** The name of the namespace index, filed by {@link #namespaceIndexFunc()}. */
  public static final String NAMESPACE = "namespace";

  private Indexers() {}

  /**
   * The index function that files an object under its namespace; cluster-scoped objects (no or
   * empty namespace) are filed under {@code ""}, as client-go's {@code MetaNamespaceIndexFunc}.
   *
   * @param <T> the object type
   */
  public static <T extends HasMetadata> IndexFunc<T> namespaceIndexFunc() {
    return Indexers::namespaceOf;
  }

  private static List<String> namespaceOf(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null) {
      throw new IllegalArgumentException(
          "object of kind " + obj.getKind() + " has no metadata, so it has no namespace");
    }
    String ns = meta.getNamespace();
    return List.of(ns == null ? "" : ns);
  }

  /**
   * A thread-safe store without indices that files objects under {@code keyFunc}.
   *
   * @param <T> the object type
   */
  public static <T> Store<T> newStore(KeyFunc<T> keyFunc) {
    return new ThreadSafeIndexer<>(keyFunc, Map.of());
  }

  /**
   * A thread-safe indexer that files objects under {@code keyFunc} and maintains one index per
   * entry of {@code indexers} (more can be added later with {@link Indexer#addIndexers}).
   *
   * @param <T> the object type
   */
  public static <T> Indexer<T> newIndexer(KeyFunc<T> keyFunc, Map<String, IndexFunc<T>> indexers) {
    return new ThreadSafeIndexer<>(keyFunc, indexers);
  }

  /**
   * The indexer informers use by default: keys from {@link Keys#metaNamespaceKey} and the {@link
   * #NAMESPACE} index.
   *
   * @param <T> the object type
   */
  public static <T extends HasMetadata> Indexer<T> newNamespaceIndexer() {
    return new ThreadSafeIndexer<>(
        Keys.metaNamespaceKeyFunc(), Map.of(NAMESPACE, Indexers.<T>namespaceIndexFunc()));
  }
}

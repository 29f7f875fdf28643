package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * The standard key functions: {@code "namespace/name"} for namespaced objects and {@code "name"}
 * for cluster-scoped ones (client-go's {@code MetaNamespaceKeyFunc} and {@code SplitMetaNamespaceKey}).
 *
 * <p>Thread safety: stateless; all methods are thread-safe.
 */
public final class Keys {

  private Keys() {}

  /**
   * {@code "namespace/name"}, or {@code "name"} when the namespace is empty or absent.
   *
   * @throws IllegalArgumentException if the object has no metadata or no name
   */
  public static String metaNamespaceKey(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null) {
      throw new IllegalArgumentException(
          "object of kind " + obj.getKind() + " has no metadata, so it has no key");
    }
    String name = meta.getName();
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(
          "object of kind " + obj.getKind() + " has no metadata.name, so it has no key");
    }
    String ns = meta.getNamespace();
    return ns == null || ns.isEmpty() ? name : ns + "/" + name;
  }

  /**
   * Like {@link #metaNamespaceKey}, but a {@link DeletedFinalStateUnknown} yields the key it
   * carries (client-go's {@code DeletionHandlingMetaNamespaceKeyFunc}).
   *
   * @param obj a {@link HasMetadata} or a {@link DeletedFinalStateUnknown}
   * @throws IllegalArgumentException if {@code obj} is neither, or has no name
   */
  public static String deletionHandlingMetaNamespaceKey(Object obj) {
    if (obj instanceof DeletedFinalStateUnknown<?> d) {
      return d.key();
    }
    if (obj instanceof HasMetadata m) {
      return metaNamespaceKey(m);
    }
    throw new IllegalArgumentException(
        "cannot compute a key for " + obj.getClass().getName() + ": not a Kubernetes object");
  }

  /** A key function for {@code T} that is {@link #metaNamespaceKey}. */
  public static <T extends HasMetadata> KeyFunc<T> metaNamespaceKeyFunc() {
    return Keys::metaNamespaceKey;
  }

  /**
   * Splits a key made by {@link #metaNamespaceKey}.
   *
   * @return the namespace ({@code ""} for a cluster-scoped key) and the name
   * @throws IllegalArgumentException if the key is empty, has an empty part, or has more than one
   *     {@code '/'}
   */
  public static NamespacedName split(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      if (key.isEmpty()) {
        throw new IllegalArgumentException("malformed key \"\": empty");
      }
      return new NamespacedName("", key);
    }
    if (key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "malformed key \"" + key + "\": more than one '/' (expected namespace/name or name)");
    }
    String ns = key.substring(0, slash);
    String name = key.substring(slash + 1);
    if (ns.isEmpty() || name.isEmpty()) {
      throw new IllegalArgumentException(
          "malformed key \"" + key + "\": empty namespace or name around '/'");
    }
    return new NamespacedName(ns, name);
  }

  /**
   * A namespace and name pair, as split from a key.
   *
   * <p>Thread safety: immutable.
   *
   * @param namespace the namespace, {@code ""} for cluster-scoped objects
   * @param name the name
   */
  public record NamespacedName(String namespace, String name) {

    /** The key this pair was split from. */
    public String key() {
      return namespace.isEmpty() ? name : namespace + "/" + name;
    }
  }
}

package io.kinformer.cache;

/**
 * Computes the key under which a store files an object (client-go's {@code KeyFunc}); {@link
 * Keys#metaNamespaceKey} is the usual one, {@link Keys#keyFunc()} the one for untyped stores.
 *
 * <p>The queues and stores of this package report a key function's failure as a {@link
 * KeyException} carrying the object and the failure (client-go's {@code KeyError}), before they
 * change anything.
 *
 * <p>Thread safety: implementations must be thread-safe and side-effect free.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface KeyFunc<T> {

  /**
   * The key of {@code obj}; deterministic.
   *
   * @throws IllegalArgumentException if no key can be computed (for example, {@link Keys#keyOf}
   *     of an object that is not a Kubernetes object)
   */
  String key(T obj);
}

package io.kinformer.cache;

/**
 * Computes the key under which a store files an object; {@link Keys#metaNamespaceKey} is the usual
 * one.
 *
 * <p>Thread safety: implementations must be thread-safe and side-effect free.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface KeyFunc<T> {

  /**
   * The key of {@code obj}.
   *
   * @throws IllegalArgumentException if no key can be computed (for example, no name)
   */
  String key(T obj);
}

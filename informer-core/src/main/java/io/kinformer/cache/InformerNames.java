package io.kinformer.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The informer names reserved in this process for metrics (client-go's {@code NewInformerName}
 * registry, {@code tools/cache/identity.go}): two informers publishing under one name would mix
 * their series.
 *
 * <p>Thread safety: thread-safe.
 */
final class InformerNames {

  private static final Set<String> RESERVED = ConcurrentHashMap.newKeySet();

  private InformerNames() {}

  /**
   * Reserves {@code name}.
   *
   * @throws IllegalStateException if another live informer publishes metrics under it
   */
  static void reserve(String name) {
    if (!RESERVED.add(name)) {
      throw new IllegalStateException(
          "informer name \"" + name + "\" is already registered for metrics in this process;"
              + " give each informer with metrics a unique name");
    }
  }

  /** Releases {@code name} (when its informer closes). */
  static void release(String name) {
    RESERVED.remove(name);
  }
}

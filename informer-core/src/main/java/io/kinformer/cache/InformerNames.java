package io.kinformer.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The informer names taken in this process: for metrics (client-go's {@code NewInformerName}
 * registry, {@code tools/cache/identity.go}), where two informers publishing under one name would
 * mix their series and a clash is refused; and for logs and thread names, where a clash gets the
 * next free {@code #N} suffix, so that every log line names one informer.
 *
 * <p>Thread safety: thread-safe.
 */
final class InformerNames {

  private static final Set<String> RESERVED = ConcurrentHashMap.newKeySet();
  private static final Set<String> LIVE = ConcurrentHashMap.newKeySet();

  private InformerNames() {}

  /**
   * Takes {@code requested} as a live informer's name, or if another live informer has it, the
   * first free {@code requested#N} (N from 2).
   */
  static String takeUnique(String requested) {
    if (LIVE.add(requested)) {
      return requested;
    }
    for (int n = 2; ; n++) {
      String name = requested + "#" + n;
      if (LIVE.add(name)) {
        return name;
      }
    }
  }

  /** Gives back a name {@link #takeUnique} returned (when its informer closes). */
  static void releaseUnique(String name) {
    LIVE.remove(name);
  }

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

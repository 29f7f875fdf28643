package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a controller wrote, so that its reconciler can tell when its cache has not yet seen its own
 * writes, in the manner of Kubernetes' own controllers: after a write succeeds, {@link #record}
 * its key and resourceVersion; before reconciling a key, {@link #isCacheCurrent} says whether the
 * cache has caught up with it (then the record is dropped). A reconcile that finds the cache
 * behind should requeue the key (after a short delay, or from {@link
 * SharedIndexInformer#resourceVersionSeen}) instead of acting on a state it has already changed.
 *
 * <pre>{@code
 * WrittenVersions written = new WrittenVersions(informer.getIndexer());
 * // in the reconciler:
 * if (!written.isCacheCurrent(key)) {
 *   return Result.requeueAfter(Duration.ofMillis(100));
 * }
 * ConfigMap updated = client.resources(ConfigMap.class).inNamespace(ns).update(desired);
 * written.record(key, updated.getMetadata().getResourceVersion());
 * }</pre>
 *
 * <p>Memory: one entry per key written and not yet seen by the cache; {@link #forget} drops one
 * (for a key that will not be reconciled again).
 *
 * <p>Thread safety: thread-safe; workers may record and check different keys at once.
 */
public final class WrittenVersions {

  private final ReadOnlyStore<? extends HasMetadata> cache;
  private final ConcurrentHashMap<String, String> written = new ConcurrentHashMap<>();

  /** Tracks writes against {@code cache}, an informer's store or indexer. */
  public WrittenVersions(ReadOnlyStore<? extends HasMetadata> cache) {
    this.cache = Objects.requireNonNull(cache, "cache");
  }

  /**
   * Records that the object at {@code key} was written at {@code resourceVersion} (a delete's too).
   * A later record for the key replaces an earlier one only if it is newer.
   *
   * @throws IllegalArgumentException if {@code resourceVersion} cannot be compared ({@link
   *     ResourceVersions})
   */
  public void record(String key, String resourceVersion) {
    Objects.requireNonNull(key, "key");
    ResourceVersions.requireComparable(resourceVersion);
    written.merge(
        key,
        resourceVersion,
        (old, now) -> ResourceVersions.compare(now, old) > 0 ? now : old);
  }

  /**
   * Whether the cache has seen the last write recorded for {@code key} (true if none is
   * recorded). Once it has, the record is dropped.
   */
  public boolean isCacheCurrent(String key) {
    String rv = written.get(key);
    if (rv == null) {
      return true;
    }
    if (!ResourceVersions.isSeen(cache, key, rv)) {
      return false;
    }
    written.remove(key, rv); // unless a newer write was recorded meanwhile
    return true;
  }

  /** Drops the record for {@code key}. */
  public void forget(String key) {
    written.remove(key);
  }

  /** How many writes the cache has not been checked to have seen. */
  public int size() {
    return written.size();
  }
}

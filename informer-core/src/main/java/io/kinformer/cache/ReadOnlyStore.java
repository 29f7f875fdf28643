package io.kinformer.cache;

import java.util.List;
import java.util.Optional;

/**
 * The reads of a {@link Store}: what an informer hands out as its cache ({@link
 * SharedIndexInformer#getStore()}). It has no write method, and the views informers return
 * implement no writable interface, so code outside the informer cannot change its cache.
 *
 * <h2 id="cached-objects">Cached objects</h2>
 *
 * The objects returned by an informer's cache, by a {@link Lister} and to a {@link
 * ResourceEventHandler} are the cached objects themselves, shared with every other reader and
 * handler, not copies. They are read-only: copy one (for example {@code new
 * PodBuilder(pod).build()}) before changing it. Objects that kinformer's client decoded for a
 * cache enforce part of this after the informer's transform ({@link
 * SharedIndexInformer#setTransform}) has run: every list and map of theirs, empty, small or large,
 * throws {@link UnsupportedOperationException} on any change, and otherwise answers as an
 * ordinary list or map does (a {@code contains(null)} is false, not an exception as with {@link
 * List#of}). The transform itself sees ordinary
 * modifiable collections. Setters of the model objects cannot be guarded: calling one on a cached
 * object is a bug that corrupts the cache and every other reader's view.
 *
 * <p>Thread safety: the informers' stores are thread-safe; reads never block behind the network and
 * see a consistent state. Returned lists are unmodifiable snapshots.
 *
 * @param <T> the object type
 */
public interface ReadOnlyStore<T> {

  /** Every object, in no particular order. */
  List<T> list();

  /** Every key, in no particular order. */
  List<String> listKeys();

  /** The stored object with the same key as {@code obj}. */
  Optional<T> get(T obj);

  /** The stored object filed under {@code key}. */
  Optional<T> getByKey(String key);

  /**
   * The resourceVersion of the newest write or bookmark this store has applied (client-go's {@code
   * LastStoreSyncResourceVersion}): the version of the object last added, updated or deleted, of the
   * last replace, or of the last bookmark, whichever came last. A controller that wrote an object
   * compares it with the version its write returned to tell whether its cache has seen that write.
   * Empty before the first write and for stores that do not track it (the default).
   */
  default String lastStoreSyncResourceVersion() {
    return "";
  }
}

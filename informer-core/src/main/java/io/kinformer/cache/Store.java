package io.kinformer.cache;

import java.util.Collection;

/**
 * A keyed collection of objects (client-go's {@code cache.Store}): each object is filed under the
 * key its {@link KeyFunc} gives.
 *
 * <p>Thread safety: implementations returned by {@link Indexers} are thread-safe; reads never block
 * behind the network and see a consistent state. Objects handed out are shared with the cache:
 * read-only (see {@link ReadOnlyStore}). Returned lists are unmodifiable snapshots.
 *
 * @param <T> the object type
 */
public interface Store<T> extends ReadOnlyStore<T> {

  /** Inserts {@code obj}, or replaces the object with the same key. */
  void add(T obj);

  /** Same as {@link #add}: replaces (or inserts) the object with the same key. */
  void update(T obj);

  /** Removes the object with the key of {@code obj}; does nothing if there is none. */
  void delete(T obj);

  /**
   * Atomically replaces the whole content with {@code objects}. {@code resourceVersion} is the
   * version of the list the objects came from; plain stores ignore it.
   */
  void replace(Collection<? extends T> objects, String resourceVersion);

  /** Meaningless for a plain store (does nothing); queues use it to re-deliver objects. */
  void resync();

  /**
   * Records that the server has sent every change up to {@code resourceVersion} (a watch bookmark),
   * so that {@link #lastStoreSyncResourceVersion()} can move on while no object changes (client-go's
   * {@code Store.Bookmark}). The reflector calls it for every bookmark; a queue passes it on to its
   * consumer in order with the objects. Does nothing by default.
   */
  default void bookmark(String resourceVersion) {}

  /**
   * {@inheritDoc} The last {@link #replace} and {@link #bookmark} count as writes.
   */
  @Override
  default String lastStoreSyncResourceVersion() {
    return "";
  }
}

package io.kinformer.cache;

/**
 * A handler's registration with an informer: tells whether the handler has caught up with the
 * informer's initial state, how much it lags, and removes it.
 *
 * <p>Thread safety: thread-safe.
 */
public interface ResourceEventHandlerRegistration extends AutoCloseable {

  /**
   * True once the informer has synced and this handler has been handed every object of its initial
   * state (the informer's first list, or for a handler added late the cache content at the time it
   * joined) and its calls for them have returned. A handler removed (or whose informer closed)
   * before that point never becomes synced.
   */
  boolean hasSynced();

  /**
   * Completes when {@link #hasSynced()} turns true (client-go's {@code HasSyncedChecker}, a done
   * signal), on the thread that made it so, holding no lock of the informer; never completes for a
   * registration removed before. A copy: completing it has no effect.
   */
  java.util.concurrent.CompletableFuture<Void> synced();

  /**
   * How many notifications wait in this handler's buffer: a growing number means it is too slow.
   */
  int pendingNotifications();

  /** Whether the handler was removed (or the informer closed). */
  boolean isRemoved();

  /**
   * Removes the handler (same as {@link SharedIndexInformer#removeEventHandler}): its pending
   * notifications are dropped and no new ones are queued for it. It does not wait for the handler:
   * a call in progress, or one its delivery thread had already taken when this ran, still runs to
   * its end, as with client-go's {@code RemoveEventHandler}. Idempotent.
   */
  @Override
  void close();
}

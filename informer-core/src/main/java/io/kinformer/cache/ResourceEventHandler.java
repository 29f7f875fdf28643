package io.kinformer.cache;

/**
 * Receives the changes an informer sees (client-go's {@code ResourceEventHandler}). Every method
 * has an empty default, so implement only what you need.
 *
 * <h2>Delivery contract</h2>
 *
 * <ul>
 *   <li>Calls to one handler are sequential (never concurrent) and, for each object, in the order
 *       the informer saw the changes. There is no ordering promise between different objects, nor
 *       between different handlers.
 *   <li>Calls run on a thread of the informer's delivery executor, never on the thread that
 *       registered the handler and never while kinformer holds a lock; each handler has its own
 *       unbounded buffer, so a slow handler delays only itself (its buffer grows: watch {@link
 *       ResourceEventHandlerRegistration#pendingNotifications()}). Handlers share a bounded pool
 *       of threads: when blocked handlers hold every one of them for a second, the pool adds a
 *       thread and logs a WARN naming them; do slow work on a {@code WorkQueue} instead.
 *   <li>The informer's cache is updated before the handler is told, so a {@link Lister} read inside
 *       a call sees at least the state being delivered (possibly a newer one).
 *   <li>An exception thrown by a handler is logged (WARN, with its stack trace, the handler and the
 *       object's key; an {@code Error} at ERROR) and delivery goes on with the next notification a
 *       second later (client-go's pause after a handler panicked), so a handler that fails on every
 *       call does not spin; only this handler waits.
 *   <li>Objects are the cached ones, shared with the cache and with every other handler, and
 *       read-only: see {@link ReadOnlyStore} ("Cached objects").
 *   <li>Handlers should be quick: the usual handler only puts a key on a work queue.
 * </ul>
 *
 * <p>Thread safety: called from one thread at a time per registration.
 *
 * @param <T> the object type
 */
public interface ResourceEventHandler<T> {

  /**
   * An object appeared in the cache.
   *
   * @param obj the object
   * @param isInInitialList true if it is part of the state the informer had when the handler
   *     started (its initial list, or the cache content replayed to a handler added late)
   */
  default void onAdd(T obj, boolean isInInitialList) {}

  /**
   * An object changed; also called, with the same object twice, for a periodic resync, and after a
   * relist: for objects whose resourceVersion changed while the watch was down, and for objects
   * whose resourceVersion did not change (a resync: two equal states with the same
   * resourceVersion; see {@link SharedIndexInformer} for which handlers get it).
   *
   * @param oldObj the previous state in the cache
   * @param newObj the new state
   */
  default void onUpdate(T oldObj, T newObj) {}

  /**
   * An object left the cache.
   *
   * @param obj the object's final state, or, if {@code finalStateUnknown}, the last state the
   *     informer knew
   * @param finalStateUnknown true if the deletion was inferred from a relist (the watch missed it):
   *     client-go's {@code DeletedFinalStateUnknown}
   */
  default void onDelete(T obj, boolean finalStateUnknown) {}
}

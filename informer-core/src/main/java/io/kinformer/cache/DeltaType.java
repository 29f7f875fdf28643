package io.kinformer.cache;

/**
 * What happened to an object, as recorded in a {@link Delta}.
 *
 * <p>Thread safety: immutable.
 */
public enum DeltaType {
  /** The object was created (a watch ADDED, or an add to the queue). */
  ADDED,
  /** The object changed (a watch MODIFIED). */
  UPDATED,
  /**
   * The object was deleted. Its {@link Delta#object()} is either the last state seen or, when the
   * deletion was inferred from a relist, a {@link DeletedFinalStateUnknown}.
   */
  DELETED,
  /**
   * A relist (Replace) listed the object. The FIFO always emits this for listed objects; the
   * informer then compares resourceVersions with its cache to tell a real change (delivered to
   * every handler) from an unchanged object (delivered as a resync: to the handlers found due at
   * the last resync check, or to every handler before the first, as in client-go).
   */
  REPLACED,
  /** A periodic resync re-delivers the cached object. */
  SYNC
}

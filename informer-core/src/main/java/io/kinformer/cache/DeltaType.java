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
  /** A relist (Replace) listed the object, and its resourceVersion changed or was not known. */
  REPLACED,
  /** A periodic resync, or a relist that found the object unchanged. */
  SYNC
}

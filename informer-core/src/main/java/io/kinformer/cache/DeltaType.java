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
   * A relist (Replace) listed the object: emitted by a {@link DeltaFifo} built with {@code
   * emitDeltaTypeReplaced(true)} (otherwise it emits {@link #SYNC}) and by a {@link RealFifo}
   * without atomic events. A consumer compares resourceVersions with its cache to tell a real change
   * (delivered to every handler) from an unchanged object (delivered as a resync), as client-go.
   */
  REPLACED,
  /**
   * A periodic resync re-delivers the cached object; a {@link DeltaFifo} built with {@code
   * emitDeltaTypeReplaced(false)} (the default) also emits it for a relisted object.
   */
  SYNC,
  /**
   * A whole relist, as one delta ({@link RealFifo} with atomic events): its {@link Delta#object()}
   * is a {@link Delta.ReplacedAllInfo} with every listed object (transformed) and the list's
   * resourceVersion. The consumer works out the deletions against its store (client-go's {@code
   * ReplacedAll}).
   */
  REPLACED_ALL,
  /**
   * A whole resync, as one delta ({@link RealFifo} with atomic events): its {@link Delta#object()}
   * is {@link Delta.SyncAllInfo#INSTANCE}; the consumer re-delivers every stored object (client-go's
   * {@code SyncAll}).
   */
  SYNC_ALL,
  /**
   * A watch bookmark ({@link RealFifo} with atomic events): its {@link Delta#object()} is a {@link
   * Delta.BookmarkInfo}; the consumer passes the resourceVersion to {@link Store#bookmark}
   * (client-go's {@code Bookmark}).
   */
  BOOKMARK;

  /**
   * Whether a delta of this type concerns one object and may share a batch with others (client-go's
   * {@code batchable}): every type but {@link #REPLACED_ALL}, {@link #SYNC_ALL} and {@link
   * #BOOKMARK}, which are processed alone.
   */
  public boolean isBatchable() {
    return this != REPLACED_ALL && this != SYNC_ALL && this != BOOKMARK;
  }
}

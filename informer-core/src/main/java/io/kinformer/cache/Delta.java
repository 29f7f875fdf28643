package io.kinformer.cache;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One change, as queued in a {@link DeltaFifo} or a {@link RealFifo}: its type and the object's
 * state after the change.
 *
 * <p>{@link #object()} is a {@code T}, except for a {@link DeltaType#DELETED} delta inferred by a
 * relist, where it is a {@link DeletedFinalStateUnknown DeletedFinalStateUnknown&lt;T&gt;}, and for
 * the deltas that concern no single object: a {@link ReplacedAllInfo} for {@link
 * DeltaType#REPLACED_ALL}, {@link SyncAllInfo#INSTANCE} for {@link DeltaType#SYNC_ALL} and a {@link
 * BookmarkInfo} for {@link DeltaType#BOOKMARK}.
 *
 * <p>Thread safety: immutable (the object it holds is shared and must be treated as read-only).
 *
 * @param type what happened
 * @param object the state after it: a {@code T} or a {@code DeletedFinalStateUnknown<T>}
 * @param <T> the object type
 */
public record Delta<T>(DeltaType type, Object object) {

  /** Checks both components for null. */
  public Delta {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(object, "object");
  }

  /** A {@link DeltaType#REPLACED_ALL} delta for a relist of {@code objects} at {@code rv}. */
  public static <T> Delta<T> replacedAll(List<? extends T> objects, String resourceVersion) {
    return new Delta<>(DeltaType.REPLACED_ALL, new ReplacedAllInfo<T>(resourceVersion, Collections.unmodifiableList(objects)));
  }

  /** The {@link DeltaType#SYNC_ALL} delta. */
  public static <T> Delta<T> syncAll() {
    return new Delta<>(DeltaType.SYNC_ALL, SyncAllInfo.INSTANCE);
  }

  /** A {@link DeltaType#BOOKMARK} delta for {@code resourceVersion}. */
  public static <T> Delta<T> bookmark(String resourceVersion) {
    return new Delta<>(DeltaType.BOOKMARK, new BookmarkInfo(resourceVersion));
  }

  /** Whether {@link #object()} is a {@link DeletedFinalStateUnknown}. */
  public boolean isFinalStateUnknown() {
    return object instanceof DeletedFinalStateUnknown<?>;
  }

  /**
   * The object itself: {@link #object()} if it is a {@code T}, else the last known state held by
   * the {@link DeletedFinalStateUnknown}, which is null for a tombstone whose key the known objects
   * listed but then lacked.
   *
   * @throws IllegalStateException for a delta that concerns no single object ({@link
   *     DeltaType#isBatchable()} false)
   */
  @SuppressWarnings("unchecked")
  public @Nullable T unwrap() {
    if (!type.isBatchable()) {
      throw new IllegalStateException("a " + type + " delta concerns no single object");
    }
    if (object instanceof DeletedFinalStateUnknown<?> d) {
      return (T) d.obj();
    }
    return (T) object;
  }

  /**
   * What a {@link DeltaType#REPLACED_ALL} delta carries (client-go's {@code ReplacedAllInfo}).
   *
   * <p>Thread safety: immutable (the objects are shared and must be treated as read-only).
   *
   * @param resourceVersion the resourceVersion of the list
   * @param objects every listed object, transformed, in list order (unmodifiable)
   * @param <T> the object type
   */
  public record ReplacedAllInfo<T>(String resourceVersion, List<T> objects) {
    /** Checks for null and wraps {@code objects} in an unmodifiable view (no copy). */
    public ReplacedAllInfo {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
      objects = Collections.unmodifiableList(objects);
    }

    @Override
    public String toString() {
      return "ReplacedAllInfo[resourceVersion=" + resourceVersion + ", " + objects.size()
          + " objects]";
    }
  }

  /**
   * What a {@link DeltaType#BOOKMARK} delta carries (client-go's {@code BookmarkInfo}).
   *
   * <p>Thread safety: immutable.
   *
   * @param resourceVersion the bookmark's resourceVersion
   */
  public record BookmarkInfo(String resourceVersion) {
    /** Checks for null. */
    public BookmarkInfo {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
    }
  }

  /**
   * What a {@link DeltaType#SYNC_ALL} delta carries: nothing (client-go's {@code SyncAllInfo}).
   *
   * <p>Thread safety: immutable.
   */
  public enum SyncAllInfo {
    /** The only value. */
    INSTANCE
  }
}

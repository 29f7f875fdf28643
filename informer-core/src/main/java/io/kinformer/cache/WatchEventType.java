package io.kinformer.cache;

/**
 * The {@code type} of a watch event.
 *
 * <p>Thread safety: immutable.
 */
public enum WatchEventType {
  /** An object was created, or is part of a watch's initial state. */
  ADDED,
  /** An object changed. */
  MODIFIED,
  /** An object was deleted; the event carries its last state. */
  DELETED,
  /**
   * A progress marker: the watch is current up to the event object's resourceVersion. Its object
   * is an otherwise empty object of the resource's kind; the end of a streaming list's initial
   * events is a bookmark annotated {@code k8s.io/initial-events-end: "true"}.
   */
  BOOKMARK,
  /** The server reports an error (a {@code Status}) and then ends the stream. */
  ERROR
}

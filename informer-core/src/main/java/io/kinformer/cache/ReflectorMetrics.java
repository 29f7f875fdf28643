package io.kinformer.cache;

/**
 * What a reflector counts, for metrics: lists (first lists and relists), watches opened, events
 * by type (bookmarks among them), and failures by phase and HTTP status. Made per informer by
 * {@link InformerMetricsProvider#newReflectorMetrics}; every method has a no-op default, so a
 * binding implements only what it wants.
 *
 * <p>A relist is a list after the first; why it happened is the failure counted just before it
 * (a 410 on the watch, an ERROR event, a watch that ended at once, ...).
 *
 * <p>Thread safety: implementations must be thread-safe. They are called on the reflector's
 * thread, holding none of the informer's locks, once per event on the hot path: keep them to a
 * counter increment.
 */
public interface ReflectorMetrics {

  /** A list (or a streaming list, {@code streamed}) was stored, with {@code items} objects. */
  default void listed(boolean streamed, int items) {}

  /** A watch (or the stream of a streaming list, {@code streaming}) opened. */
  default void watchOpened(boolean streaming) {}

  /** A watch delivered an event of {@code type} (ADDED, MODIFIED, DELETED or BOOKMARK). */
  default void event(WatchEventType type) {}

  /**
   * A list or watch attempt failed in {@code phase}, with HTTP {@code status} when the server
   * answered (0 when it did not: a broken connection, a decoding failure).
   */
  default void failed(ReflectorException.Phase phase, int status) {}

  /** The metrics that record nothing. */
  ReflectorMetrics NONE = new ReflectorMetrics() {};
}

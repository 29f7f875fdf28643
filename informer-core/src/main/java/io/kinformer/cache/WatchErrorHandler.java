package io.kinformer.cache;

/**
 * Told of every failed list or watch attempt of a reflector, for visibility (metrics, health
 * checks, alerting). The reflector recovers on its own whatever the handler does.
 *
 * <p>This is more than client-go tells its {@code WatchErrorHandler}, which sees only the failures
 * {@code ListAndWatch} returns (a failed list, a watch that could not be opened). Here the handler
 * also sees a watch stream that ended badly: a connection that broke mid-stream (phase {@link
 * ReflectorException.Phase#WATCH_STREAM} with an {@code IOException} among the causes, logged at
 * DEBUG and followed by an immediate re-watch, not a backoff), data from the server that could not
 * be decoded, and a watch that ended within a second without events. A handler that alerts should
 * look at {@link ReflectorException#phase()} and {@link ReflectorException#apiError()} rather than
 * count calls.
 *
 * <p>Called on the reflector's thread, sequentially; it must be fast and must not block. An
 * exception it throws is logged and ignored.
 *
 * <p>Thread safety: implementations are called from one thread at a time.
 */
@FunctionalInterface
public interface WatchErrorHandler {

  /** One attempt failed; the reflector will retry (after its backoff, except as said above). */
  void onWatchError(ReflectorException error);
}

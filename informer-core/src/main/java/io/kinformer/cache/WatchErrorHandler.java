package io.kinformer.cache;

/**
 * Told of every failure a reflector meets, for visibility (metrics, health checks, alerting). The
 * reflector recovers on its own whatever the handler does.
 *
 * <p>This is more than client-go tells its {@code WatchErrorHandler}, which sees only the failures
 * {@code ListAndWatch} returns (a failed list, a watch that could not be opened). Here the handler
 * sees what ended each cycle (an ERROR event, a stream that could not be decoded, a very short
 * watch, a failed resync) and what the reflector recovered from inside a cycle: a 429 or a refused
 * connection before a retry, a streaming list refused before the fallback to a list, an internal
 * error re-watched. A connection that breaks mid-watch is the end of the stream, as in client-go,
 * and is not reported. A handler that alerts should look at {@link ReflectorException#phase()} and
 * {@link ReflectorException#apiError()} rather than count calls; {@link Reflector#state()} tells
 * whether the reflector is watching now.
 *
 * <p>Called on the reflector's thread (or the caller of {@link Reflector#listAndWatch()}),
 * sequentially; it must be fast and must not block. An exception it throws is logged and ignored.
 *
 * <p>Thread safety: implementations are called from one thread at a time.
 */
@FunctionalInterface
public interface WatchErrorHandler {

  /** A failure; the reflector goes on (after its backoff, except for an internal-error retry). */
  void onWatchError(ReflectorException error);
}

package io.kinformer.cache;

/**
 * Told of every failed list or watch attempt of a reflector, for visibility (metrics, health
 * checks, alerting). The reflector recovers on its own whatever the handler does.
 *
 * <p>Called on the reflector's thread, sequentially; it must be fast and must not block. An
 * exception it throws is logged and ignored.
 *
 * <p>Thread safety: implementations are called from one thread at a time.
 */
@FunctionalInterface
public interface WatchErrorHandler {

  /** One attempt failed; the reflector will retry after its backoff. */
  void onWatchError(ReflectorException error);
}

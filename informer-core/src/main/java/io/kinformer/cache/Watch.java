package io.kinformer.cache;

import org.jspecify.annotations.Nullable;

/**
 * An open watch stream: a blocking source of events that ends when the server ends it, when it
 * fails, or when it is closed.
 *
 * <p>Thread safety: {@link #next()} is called by one thread (the reflector's); {@link #close()} may
 * be called from any thread, at any time, and makes a blocked {@code next()} return or throw
 * promptly.
 *
 * @param <T> the object type
 */
public interface Watch<T> extends AutoCloseable {

  /**
   * Blocks for the next event.
   *
   * @return the next event, or {@code null} once the stream has ended cleanly or was closed
   * @throws InformerException if the stream broke (I/O error, malformed or unknown event); the
   *     watch is then finished and should be closed
   */
  @Nullable
  WatchEvent<T> next();

  /** Ends the stream and releases its connection. Idempotent. */
  @Override
  void close();
}

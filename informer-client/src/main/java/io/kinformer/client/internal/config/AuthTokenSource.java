package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import org.jspecify.annotations.Nullable;

/**
 * A bearer token that may change over time: a token file that rotates, or an exec plugin's
 * expiring credential. Implementations cache and decide themselves when to fetch anew.
 *
 * <p>Thread safety: implementations are thread-safe; every HTTP call asks for the token.
 */
interface AuthTokenSource extends AutoCloseable {

  /**
   * The token to send now, or null if the credentials are not a token (an exec plugin that
   * returned a client certificate, presented in the TLS handshake instead).
   *
   * @throws KubeConfigException if none can be obtained; the message never contains a token
   */
  @Nullable
  String token();

  /**
   * Called after the server answered 401 to {@code rejected}: fetch anew unless that happened
   * already, and say whether a different token is now available (so the request is worth one
   * retry).
   *
   * @throws KubeConfigException if fetching fails
   */
  boolean refreshAfterUnauthorized(String rejected);

  /**
   * Releases what the source holds (ends a plugin that is running); later calls fail. Default:
   * nothing to release.
   */
  @Override
  default void close() {}
}

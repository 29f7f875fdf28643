package io.kinformer.client.internal.http;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The time limits of our HTTP calls.
 *
 * <p>Thread safety: immutable.
 *
 * @param request whole-call limit of a get, create, update, patch or delete
 * @param listIdle the inactivity limit of one list response, the wait for its headers included: a
 *     list fails once no byte came for that long, but one that keeps receiving bytes is never cut,
 *     however long it takes (a {@code resourceVersion=0} list ignores {@code limit}, so on a large
 *     cluster and a slow link one response can take minutes; client-go sets no limit at all)
 * @param watchIdleGrace added to a watch's {@code timeoutSeconds} to give its inactivity limit: the
 *     server must have ended the watch by then, so silence beyond it means a dead connection
 * @param watchIdle the inactivity limit of a watch sent without {@code timeoutSeconds}; a watch
 *     that stays silent longer fails and is re-opened by the reflector (harmless on a quiet
 *     resource: the server itself ends such watches only after 30 to 60 minutes)
 */
public record HttpTimeouts(
    Duration request, Duration listIdle, Duration watchIdleGrace, Duration watchIdle) {

  /**
   * 30 s per request; lists: 5 min without a byte; watches: timeoutSeconds + 30 s without a byte,
   * or 5 min.
   */
  public static final HttpTimeouts DEFAULT =
      new HttpTimeouts(
          Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofSeconds(30),
          Duration.ofMinutes(5));

  public HttpTimeouts {
    requirePositive(request, "request");
    requirePositive(listIdle, "listIdle");
    Objects.requireNonNull(watchIdleGrace, "watchIdleGrace");
    if (watchIdleGrace.isNegative()) {
      throw new IllegalArgumentException("watchIdleGrace must not be negative: " + watchIdleGrace);
    }
    requirePositive(watchIdle, "watchIdle");
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }

  /** The inactivity limit of a watch sent with this {@code timeoutSeconds} (or none). */
  public Duration watchIdleFor(@Nullable Long timeoutSeconds) {
    return timeoutSeconds == null
        ? watchIdle
        : Duration.ofSeconds(timeoutSeconds).plus(watchIdleGrace);
  }
}

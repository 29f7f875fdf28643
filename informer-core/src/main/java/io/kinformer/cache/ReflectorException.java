package io.kinformer.cache;

import java.util.Objects;
import java.util.Optional;

/**
 * A failure met by a {@link Reflector}: what ended one list-and-watch cycle ({@link
 * Reflector#listAndWatch()} throws it; {@link ReflectorState.Idle} and {@link
 * ReflectorState.BackingOff} carry it), or what the reflector recovered from inside a cycle (a 429
 * on a watch, a refused streaming list). A reflector started with {@link Reflector#start()} never
 * stops because of one: it backs off and tries again. Each is also reported to the {@link
 * WatchErrorHandler}.
 *
 * <p>{@link #phase()} says where the attempt failed; {@link #getCause()} holds the underlying error
 * (often an {@link ApiException}, see {@link #apiError()}).
 *
 * <p>Thread safety: immutable.
 */
public final class ReflectorException extends InformerException {

  private static final long serialVersionUID = 1L;

  /** Where a list/watch attempt failed. */
  public enum Phase {
    /** A list request (initial or relist) failed. */
    LIST,
    /** Opening a watch failed. */
    WATCH_START,
    /** The server sent an ERROR event inside the watch stream (its Status is the cause). */
    WATCH_ERROR_EVENT,
    /**
     * The watch stream broke: an I/O error (the reflector re-watches), or malformed or unexpected
     * data (the reflector relists).
     */
    WATCH_STREAM,
    /** A watch ended cleanly within a second without delivering any event. */
    WATCH_TOO_SHORT,
    /** {@link Store#resync()} threw; the watch cycle ends, as client-go's. */
    RESYNC,
    /** The store (or a transform or key function it runs) failed on what the server sent. */
    STORE
  }

  private final String reflectorName;
  private final Phase phase;

  ReflectorException(String reflectorName, Phase phase, String message, Throwable cause) {
    super(reflectorName + ": " + message, cause);
    this.reflectorName = Objects.requireNonNull(reflectorName);
    this.phase = Objects.requireNonNull(phase);
  }

  ReflectorException(String reflectorName, Phase phase, String message) {
    super(reflectorName + ": " + message);
    this.reflectorName = Objects.requireNonNull(reflectorName);
    this.phase = Objects.requireNonNull(phase);
  }

  /** The name of the reflector (its resource) that failed. */
  public String reflectorName() {
    return reflectorName;
  }

  /** Where the attempt failed. */
  public Phase phase() {
    return phase;
  }

  /** The server's refusal behind this failure, if the cause is one. */
  public Optional<ApiException> apiError() {
    return getCause() instanceof ApiException a ? Optional.of(a) : Optional.empty();
  }
}

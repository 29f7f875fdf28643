package io.kinformer.cache;

import java.util.Objects;
import java.util.Optional;

/**
 * A failure of one list or watch attempt of a {@link Reflector}. The reflector itself never stops
 * because of one: it backs off, then re-watches from the last resourceVersion it saw, or relists
 * when the server says that version is gone. This exception only reports what happened, to logs and
 * to the {@link WatchErrorHandler}.
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
    WATCH_TOO_SHORT
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

package io.kinformer.cache;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The API server refused a request: a non-2xx HTTP response, or an {@code ERROR} event inside a
 * watch stream. Carries the HTTP status code and, when the server sent a {@code Status} body, its
 * {@code reason} and {@code message}, plus the {@code Retry-After} delay if one was given.
 *
 * <p>Classify failures by {@link #code()} and {@link #reason()}, never by message text.
 *
 * <p>Thread safety: immutable.
 */
public class ApiException extends InformerException {

  private static final long serialVersionUID = 1L;

  /** 410: the requested resourceVersion or continue token is older than the server keeps. */
  public static final int GONE = 410;

  /** 504: the server timed out, for example waiting for a resourceVersion it has not reached. */
  public static final int GATEWAY_TIMEOUT = 504;

  /** 404: no such object or resource. */
  public static final int NOT_FOUND = 404;

  /** 409: a conflict (stale resourceVersion on update, or the object already exists). */
  public static final int CONFLICT = 409;

  /** 429: the server asks the client to slow down. */
  public static final int TOO_MANY_REQUESTS = 429;

  private final int code;
  private final @Nullable String reason;
  private final @Nullable String statusMessage;
  private final @Nullable Duration retryAfter;
  private final List<String> causeReasons;
  private final boolean fromWatchEvent;

  /**
   * @param code HTTP status code (for an ERROR event, the code of its Status)
   * @param reason the Status {@code reason}, for example {@code Expired}, or null if none was sent
   * @param statusMessage the Status {@code message}, or null if none was sent
   * @param retryAfter the server's {@code Retry-After} (header, or {@code
   *     details.retryAfterSeconds}), or null if none was sent
   * @param causeReasons the {@code reason} of each of the Status's {@code details.causes}
   * @param fromWatchEvent true if this came from an {@code ERROR} event inside a watch stream
   */
  public ApiException(
      int code,
      @Nullable String reason,
      @Nullable String statusMessage,
      @Nullable Duration retryAfter,
      List<String> causeReasons,
      boolean fromWatchEvent) {
    super(describe(code, reason, statusMessage, fromWatchEvent));
    this.code = code;
    this.reason = reason;
    this.statusMessage = statusMessage;
    this.retryAfter = retryAfter;
    this.causeReasons = List.copyOf(causeReasons);
    this.fromWatchEvent = fromWatchEvent;
  }

  /** An HTTP error with only a code and a message (no Status body). */
  public ApiException(int code, @Nullable String statusMessage) {
    this(code, null, statusMessage, null, List.of(), false);
  }

  private static String describe(
      int code, @Nullable String reason, @Nullable String message, boolean fromWatchEvent) {
    StringBuilder sb = new StringBuilder(fromWatchEvent ? "watch ERROR event: " : "HTTP ");
    sb.append(code);
    if (reason != null && !reason.isEmpty()) {
      sb.append(' ').append(reason);
    }
    if (message != null && !message.isEmpty()) {
      sb.append(": ").append(message);
    }
    return sb.toString();
  }

  /** The HTTP status code (or the code of the ERROR event's Status). */
  public int code() {
    return code;
  }

  /** The Status {@code reason} ({@code Expired}, {@code Gone}, {@code NotFound}, ...), if sent. */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** The Status {@code message}, if sent. */
  public Optional<String> statusMessage() {
    return Optional.ofNullable(statusMessage);
  }

  /** The server's {@code Retry-After}, if sent. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** The {@code reason} of each entry of the Status's {@code details.causes}, in order. */
  public List<String> causeReasons() {
    return causeReasons;
  }

  /** Whether this came from an ERROR event inside a watch stream (rather than an HTTP status). */
  public boolean fromWatchEvent() {
    return fromWatchEvent;
  }

  /** Whether this is a 404 (the object or the resource does not exist). */
  public boolean isNotFound() {
    return code == NOT_FOUND;
  }

  /**
   * Whether this is a 409: an update with a stale resourceVersion ({@code Conflict}) or a create
   * of an existing object ({@code AlreadyExists}). Controllers usually requeue the key.
   */
  public boolean isConflict() {
    return code == CONFLICT;
  }

  /**
   * Whether the resourceVersion or continue token sent is too old: HTTP 410, or reason {@code
   * Expired}/{@code Gone}. The client must relist.
   */
  public boolean isResourceExpired() {
    return code == GONE || "Expired".equals(reason) || "Gone".equals(reason);
  }

  /**
   * Whether the server has not reached the requested resourceVersion yet: a Status whose causes
   * include {@code ResourceVersionTooLarge} (kube-apiserver sends it as 504 {@code Timeout}). The
   * client should relist without a resourceVersion (client-go: {@code
   * apierrors.IsTooLargeResourceVersion}).
   */
  public boolean isTooLargeResourceVersion() {
    return causeReasons.contains("ResourceVersionTooLarge");
  }
}

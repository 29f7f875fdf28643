package io.kinformer.cache;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The API server refused a request: a non-2xx HTTP response, or an {@code ERROR} event inside a
 * watch stream. Carries the HTTP status code and, when the server sent a {@code Status} body, its
 * {@code reason} and {@code message}, plus the {@code Retry-After} delay if one was given.
 *
 * <p>Classify failures by {@link #code()} and {@link #reason()}, never by message text (the one
 * exception is {@link #isTooLargeResourceVersion()}, which reads it as client-go does for servers
 * that sent nothing better).
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

  /** 500: the server failed (for example etcd had no leader). */
  public static final int INTERNAL_SERVER_ERROR = 500;

  /** The Status reasons apimachinery knows; a code alone classifies only an unknown reason. */
  private static final Set<String> KNOWN_REASONS =
      Set.of(
          "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid",
          "ServerTimeout", "StoreReadError", "Timeout", "TooManyRequests", "BadRequest",
          "MethodNotAllowed", "NotAcceptable", "RequestEntityTooLarge", "UnsupportedMediaType",
          "InternalError", "Expired", "ServiceUnavailable");

  /** The message kube-apiserver 1.17 and older put where 1.18+ put the cause's reason. */
  private static final String TOO_LARGE_RESOURCE_VERSION_MESSAGE = "Too large resource version";

  private final int code;
  private final @Nullable String reason;
  private final @Nullable String statusMessage;
  private final @Nullable Duration retryAfter;
  private final List<String> causeReasons;
  private final List<String> causeMessages;
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
    this(code, reason, statusMessage, retryAfter, causeReasons, List.of(), fromWatchEvent);
  }

  /**
   * As {@link #ApiException(int, String, String, Duration, List, boolean)}, with the {@code
   * message} of each of the Status's {@code details.causes} as well.
   */
  public ApiException(
      int code,
      @Nullable String reason,
      @Nullable String statusMessage,
      @Nullable Duration retryAfter,
      List<String> causeReasons,
      List<String> causeMessages,
      boolean fromWatchEvent) {
    super(describe(code, reason, statusMessage, fromWatchEvent));
    this.code = code;
    this.reason = reason;
    this.statusMessage = statusMessage;
    this.retryAfter = retryAfter;
    this.causeReasons = List.copyOf(causeReasons);
    this.causeMessages = List.copyOf(causeMessages);
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

  /** The {@code message} of each entry of the Status's {@code details.causes}, in order. */
  public List<String> causeMessages() {
    return causeMessages;
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
   * Whether the server has not reached the requested resourceVersion yet (client-go's reflector
   * {@code isTooLargeResourceVersionError}): a Status whose causes include {@code
   * ResourceVersionTooLarge} (kube-apiserver 1.18+ sends it as 504 {@code Timeout}), or, from
   * older servers, a timeout whose cause message or own message says "Too large resource version".
   * The client should relist without a resourceVersion. The message is read only here, where
   * client-go reads it for servers that sent nothing else.
   */
  public boolean isTooLargeResourceVersion() {
    if (causeReasons.contains("ResourceVersionTooLarge")) {
      return true;
    }
    if (!isTimeout()) {
      return false;
    }
    return causeMessages.contains(TOO_LARGE_RESOURCE_VERSION_MESSAGE)
        || (statusMessage != null && statusMessage.contains(TOO_LARGE_RESOURCE_VERSION_MESSAGE));
  }

  /** Whether the server timed out (apimachinery's {@code IsTimeout}: reason or 504). */
  public boolean isTimeout() {
    return is("Timeout", GATEWAY_TIMEOUT);
  }

  /** Whether the server asks the client to slow down (apimachinery's {@code IsTooManyRequests}). */
  public boolean isTooManyRequests() {
    return is("TooManyRequests", TOO_MANY_REQUESTS);
  }

  /** Whether the server failed internally (apimachinery's {@code IsInternalError}). */
  public boolean isInternalError() {
    return is("InternalError", INTERNAL_SERVER_ERROR);
  }

  /**
   * apimachinery's classification: by reason, or by code when the reason is absent or unknown.
   */
  private boolean is(String expectedReason, int expectedCode) {
    if (expectedReason.equals(reason)) {
      return true;
    }
    return (reason == null || !KNOWN_REASONS.contains(reason)) && code == expectedCode;
  }
}

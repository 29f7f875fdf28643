package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kinformer.cache.ApiException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;

/**
 * Turns the API server's refusals into {@link ApiException}: a non-2xx response (with a {@code
 * Status} body, or any other body such as the plain-text {@code 404 page not found} of an unknown
 * API group), or the {@code Status} of a watch {@code ERROR} event.
 *
 * <p>Thread safety: immutable.
 */
public final class StatusCodec {

  /** Error bodies are small; never read more than this of one. */
  private static final int MAX_ERROR_BODY = 64 * 1024;

  /** The longest message we quote from a body that is not a Status. */
  private static final int MAX_PLAIN_MESSAGE = 200;

  private final ObjectReader statusReader;

  public StatusCodec(ObjectReader statusReader) {
    this.statusReader = statusReader.forType(Status.class);
  }

  /** The reader for {@code Status} objects (for watch ERROR events). */
  ObjectReader statusReader() {
    return statusReader;
  }

  /**
   * The exception for a non-2xx response. Reads at most 64 KiB of the body; does not close
   * the response itself (the body is consumed).
   */
  public ApiException fromResponse(Response response) {
    int code = response.code();
    Duration retryAfterHeader = parseRetryAfter(response.header("Retry-After"));
    byte[] body = readBounded(response.body());
    Status status = parseStatus(body);
    if (status != null) {
      return fromStatus(status, code, retryAfterHeader, /* fromWatchEvent= */ false);
    }
    String text = new String(body, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      text = response.message().isEmpty() ? null : response.message();
    } else if (text.length() > MAX_PLAIN_MESSAGE) {
      text = text.substring(0, MAX_PLAIN_MESSAGE) + "…";
    }
    return new ApiException(code, null, text, retryAfterHeader, List.of(), false);
  }

  /**
   * The exception for a {@code Status}.
   *
   * @param httpCode the HTTP code to use when the Status carries none
   * @param retryAfterHeader the {@code Retry-After} header, which wins over {@code
   *     details.retryAfterSeconds}
   */
  static ApiException fromStatus(
      Status status, int httpCode, @Nullable Duration retryAfterHeader, boolean fromWatchEvent) {
    Integer statusCode = status.getCode();
    int code = statusCode != null && statusCode > 0 ? statusCode : httpCode;
    Duration retryAfter = retryAfterHeader;
    List<String> causes = new ArrayList<>();
    List<String> causeMessages = new ArrayList<>();
    StatusDetails details = status.getDetails();
    if (details != null) {
      Integer seconds = details.getRetryAfterSeconds();
      if (retryAfter == null && seconds != null && seconds > 0) {
        retryAfter = Duration.ofSeconds(seconds);
      }
      if (details.getCauses() != null) {
        for (StatusCause cause : details.getCauses()) {
          if (cause != null && cause.getReason() != null) {
            causes.add(cause.getReason());
          }
          if (cause != null && cause.getMessage() != null) {
            causeMessages.add(cause.getMessage());
          }
        }
      }
    }
    return new ApiException(
        code, emptyToNull(status.getReason()), emptyToNull(status.getMessage()), retryAfter,
        causes, causeMessages, fromWatchEvent);
  }

  private @Nullable Status parseStatus(byte[] body) {
    int i = 0;
    while (i < body.length && Character.isWhitespace(body[i])) {
      i++;
    }
    if (i == body.length || body[i] != '{') {
      return null;
    }
    try {
      Status status = statusReader.readValue(body);
      boolean looksLikeStatus =
          "Status".equals(status.getKind()) || status.getCode() != null
              || status.getReason() != null;
      return looksLikeStatus ? status : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  private static byte[] readBounded(ResponseBody body) {
    try (InputStream in = body.byteStream()) {
      return in.readNBytes(MAX_ERROR_BODY);
    } catch (IOException e) {
      // The status code alone still makes a useful exception.
      return new byte[0];
    }
  }

  /** {@code Retry-After} in seconds; the HTTP-date form is not used by the API server. */
  static @Nullable Duration parseRetryAfter(@Nullable String header) {
    if (header == null) {
      return null;
    }
    try {
      long seconds = Long.parseLong(header.strip());
      return seconds >= 0 ? Duration.ofSeconds(seconds) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static @Nullable String emptyToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}

package io.kinformer.testing;

import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request failure that becomes a {@code Status} body, shaped like kube-apiserver's (see
 * transcript 08). Thrown inside the request handler and turned into a response at its top.
 */
final class ApiError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  final int code;
  final transient ObjectNode status;
  final int retryAfterSeconds;

  private ApiError(int code, ObjectNode status, int retryAfterSeconds) {
    super(status.path("message").asString(""), null, false, false);
    this.code = code;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** A Failure Status; {@code details} may be null (omitted) or an object (possibly empty). */
  static ObjectNode status(
      int code, String reason, String message, @Nullable ObjectNode details) {
    ObjectNode s = Json.MAPPER.createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", message);
    s.put("reason", reason);
    if (details != null) {
      s.set("details", details);
    }
    s.put("code", code);
    return s;
  }

  static ApiError of(int code, String reason, String message, @Nullable ObjectNode details) {
    return new ApiError(code, status(code, reason, message, details), 0);
  }

  static ApiError withRetryAfter(ApiError e, int seconds) {
    return new ApiError(e.code, e.status, seconds);
  }

  static ObjectNode details(String name, String kind) {
    ObjectNode d = Json.MAPPER.createObjectNode();
    d.put("name", name);
    d.put("kind", kind);
    return d;
  }

  /**
   * What kube-apiserver answers for an error that is not an API status (a plain Go error from
   * storage): 500 with reason Unknown, which leaves {@code reason} out.
   */
  static ApiError unknown(String message) {
    ObjectNode s = status(500, "", message, null);
    s.remove("reason");
    return new ApiError(500, s, 0);
  }

  static ApiError badRequest(String message) {
    return of(400, "BadRequest", message, null);
  }

  static ApiError notFound(String plural, String name) {
    return of(
        404, "NotFound", plural + " \"" + name + "\" not found", details(name, plural));
  }

  static ApiError resourceNotFound() {
    return of(
        404,
        "NotFound",
        "the server could not find the requested resource",
        Json.MAPPER.createObjectNode());
  }

  static ApiError methodNotAllowed() {
    return of(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        Json.MAPPER.createObjectNode());
  }

  static ApiError alreadyExists(String plural, String name) {
    return of(
        409, "AlreadyExists", plural + " \"" + name + "\" already exists",
        details(name, plural));
  }

  static ApiError conflict(String plural, String name) {
    return of(
        409,
        "Conflict",
        "Operation cannot be fulfilled on "
            + plural
            + " \""
            + name
            + "\": the object has been modified; please apply your changes to the latest version"
            + " and try again",
        details(name, plural));
  }

  /** 413 for a request body over the server's limit, as kube-apiserver words it. */
  static ApiError requestEntityTooLarge(long limit) {
    return of(413, "RequestEntityTooLarge", "Request entity too large: limit is " + limit,
        null);
  }

  static ApiError unsupportedMediaType() {
    return of(
        415, "UnsupportedMediaType", "415: Unsupported Media Type",
        Json.MAPPER.createObjectNode());
  }

  static ApiError expired(String message) {
    return of(410, "Expired", message, null);
  }

  static ApiError tooLargeResourceVersion(long requested, long current) {
    ObjectNode details = Json.MAPPER.createObjectNode();
    ArrayNode causes = details.putArray("causes");
    causes
        .addObject()
        .put("reason", "ResourceVersionTooLarge")
        .put("message", "Too large resource version");
    details.put("retryAfterSeconds", 1);
    return new ApiError(
        504,
        status(
            504,
            "Timeout",
            "Timeout: Too large resource version: " + requested + ", current: " + current,
            details),
        1);
  }

  /** One field cause of a 422 Invalid {@code ListOptions}. */
  record Cause(String reason, String message, String field) {}

  /** 422 for invalid list options, as in transcripts 01 and 04. */
  static ApiError invalidListOptions(List<Cause> causes) {
    StringBuilder msg = new StringBuilder("ListOptions.meta.k8s.io \"\" is invalid: ");
    if (causes.size() > 1) {
      msg.append('[');
    }
    for (int i = 0; i < causes.size(); i++) {
      if (i > 0) {
        msg.append(", ");
      }
      msg.append(causes.get(i).field()).append(": ").append(causes.get(i).message());
    }
    if (causes.size() > 1) {
      msg.append(']');
    }
    ObjectNode details = Json.MAPPER.createObjectNode();
    details.put("group", "meta.k8s.io");
    details.put("kind", "ListOptions");
    ArrayNode arr = details.putArray("causes");
    for (Cause c : causes) {
      arr.addObject().put("reason", c.reason()).put("message", c.message()).put("field", c.field());
    }
    return of(422, "Invalid", msg.toString(), details);
  }

  /** 422 Invalid for an object. */
  static ApiError invalid(String kind, String name, String field, String reason, String message) {
    ObjectNode details = details(name, kind);
    details.putArray("causes").addObject()
        .put("reason", reason).put("message", message).put("field", field);
    return of(422, "Invalid",
        kind + " \"" + name + "\" is invalid: " + field + ": " + message, details);
  }
}

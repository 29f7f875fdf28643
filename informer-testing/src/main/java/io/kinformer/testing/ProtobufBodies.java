package io.kinformer.testing;

import io.kinformer.proto.internal.MalformedProtobufException;
import io.kinformer.proto.internal.ProtoEnvelope;
import io.kinformer.proto.internal.ProtoJson;
import io.kinformer.proto.internal.ProtoSchema;
import java.io.ByteArrayOutputStream;
import java.util.Locale;
import tools.jackson.core.JsonGenerator;

/**
 * Request bodies in Kubernetes protobuf ({@code application/vnd.kubernetes.protobuf}, what
 * kubectl's typed commands send), read as the JSON the rest of the server handles: the {@code
 * k8s\0} envelope's runtime.Unknown names the apiVersion and kind, and its raw message is
 * transcoded with the schema of the built-in types. As the real server: only built-in kinds have
 * a protobuf encoding, so a custom resource's endpoint answers 415; an envelope's kind that the
 * target does not take is the 400 of the JSON path (its apiVersion and kind stay in the JSON,
 * which {@link ApiOps} checks); bytes that do not decode are a 400 naming what is wrong.
 *
 * <p>Thread safety: stateless; the schema and decoder are immutable and shared.
 */
final class ProtobufBodies {
  private static final ProtoSchema SCHEMA = ProtoSchema.builtIn();
  private static final ProtoJson DECODER = new ProtoJson(Json.MAPPER);

  private ProtobufBodies() {}

  /** Whether a request's Content-Type is Kubernetes protobuf. */
  static boolean isProtobuf(String contentType) {
    return contentType.toLowerCase(Locale.ROOT).contains("protobuf");
  }

  /**
   * The JSON of a protobuf body sent to an endpoint taking {@code group/version kind}.
   *
   * @throws ApiError 415 if that kind has no protobuf encoding (a custom resource), 400 if the
   *     body is no Kubernetes protobuf object or its message does not decode
   */
  static byte[] toJson(byte[] body, String group, String version, String kind) {
    if (SCHEMA.kind(group, version, kind) == null) {
      throw ApiError.unsupportedMediaType();
    }
    ProtoEnvelope envelope;
    try {
      envelope = ProtoEnvelope.read(body, 0, body.length);
    } catch (MalformedProtobufException e) {
      if (body.length < 4 || body[0] != 'k' || body[1] != '8' || body[2] != 's' || body[3] != 0) {
        throw ApiError.badRequest("provided data does not appear to be a protobuf message, "
            + "expected prefix [107 56 115 0]");
      }
      throw unrecognized(kind, e);
    }
    if (!envelope.contentType().isEmpty()
        && !envelope.contentType().equals("application/vnd.kubernetes.protobuf")) {
      throw ApiError.badRequest("the object provided is unrecognized (must be of type " + kind
          + "): its envelope holds " + envelope.contentType() + ", not protobuf");
    }
    // As the server's decoder: what the envelope leaves out is the endpoint's.
    String apiVersion = envelope.apiVersion().isEmpty()
        ? (group.isEmpty() ? version : group + "/" + version) : envelope.apiVersion();
    String sentKind = envelope.kind().isEmpty() ? kind : envelope.kind();
    ProtoSchema.Kind sent = SCHEMA.kind(envelope.apiVersion().isEmpty() ? group : envelope.group(),
        envelope.apiVersion().isEmpty() ? version : envelope.version(), sentKind);
    if (sent == null) {
      String sentVersion = apiVersion.substring(apiVersion.indexOf('/') + 1);
      throw ApiError.badRequest(sentKind + " in version \"" + sentVersion
          + "\" cannot be handled as a " + kind + ": no kind \"" + sentKind
          + "\" is registered for version \"" + apiVersion + "\"");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length * 2);
    try (JsonGenerator g = Json.MAPPER.createGenerator(out)) {
      DECODER.writeObject(sent.message(), apiVersion, sentKind, envelope.data(),
          envelope.offset(), envelope.length(), g);
    } catch (MalformedProtobufException e) {
      throw unrecognized(kind, e);
    }
    return out.toByteArray();
  }

  private static ApiError unrecognized(String kind, MalformedProtobufException e) {
    return ApiError.badRequest("the object provided is unrecognized (must be of type " + kind
        + "): " + e.getMessage());
  }
}

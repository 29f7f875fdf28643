package io.kinformer.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The protobuf form of {@code /openapi/v2} ({@code
 * application/com.github.proto-openapi.spec.v2@v1.0+protobuf}), which kubectl asks for when it
 * falls back from OpenAPI v3: gnostic's {@code openapi.v2.Document} message
 * (github.com/google/gnostic-models, {@code openapiv2/OpenAPIv2.proto}), encoded from the JSON
 * document of {@link OpenApiDocuments#v2()}. Vendor extensions and enum values are {@code Any}
 * messages carrying their value as YAML text (JSON, which YAML reads), as gnostic writes them.
 *
 * <p>Thread safety: stateless.
 */
final class OpenApiV2Proto {

  /** The media type kubectl requests. */
  static final String MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

  /**
   * The media type of the response, as kube-apiserver writes it: without the {@code @}, which
   * Go's {@code mime.ParseMediaType} refuses.
   */
  static final String CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

  private OpenApiV2Proto() {}

  /** A protobuf message being written: tagged fields in order. */
  private static final class Message {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private void varint(long v) {
      while ((v & ~0x7FL) != 0) {
        out.write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      out.write((int) v);
    }

    private void tag(int field, int wireType) {
      varint(((long) field << 3) | wireType);
    }

    Message string(int field, String s) {
      if (!s.isEmpty()) {
        bytes(field, s.getBytes(StandardCharsets.UTF_8));
      }
      return this;
    }

    Message stringIfPresent(int field, JsonNode n) {
      return n.isString() ? string(field, n.asString()) : this;
    }

    Message bool(int field, boolean b) {
      if (b) {
        tag(field, 0);
        varint(1);
      }
      return this;
    }

    Message message(int field, Message m) {
      return bytes(field, m.out.toByteArray());
    }

    private Message bytes(int field, byte[] b) {
      tag(field, 2);
      varint(b.length);
      out.write(b, 0, b.length);
      return this;
    }

    Message strings(int field, JsonNode array) {
      array.forEach(v -> string(field, v.asString()));
      return this;
    }

    byte[] toByteArray() {
      return out.toByteArray();
    }
  }

  /** The {@code Document} message of a Swagger 2.0 JSON document. */
  static byte[] encode(JsonNode doc) {
    Message d = new Message();
    d.stringIfPresent(1, doc.path("swagger"));
    JsonNode info = doc.path("info");
    d.message(2, new Message().stringIfPresent(1, info.path("title"))
        .stringIfPresent(2, info.path("version")));
    Message paths = new Message();
    for (Map.Entry<String, JsonNode> p : doc.path("paths").properties()) {
      paths.message(2, new Message().string(1, p.getKey()).message(2, pathItem(p.getValue())));
    }
    d.message(8, paths);
    Message defs = new Message();
    for (Map.Entry<String, JsonNode> e : doc.path("definitions").properties()) {
      defs.message(1, named(e.getKey(), schema(e.getValue())));
    }
    d.message(9, defs);
    return d.toByteArray();
  }

  private static Message named(String name, Message value) {
    return new Message().string(1, name).message(2, value);
  }

  private static Message any(JsonNode value) {
    return new Message().string(2, Json.MAPPER.writeValueAsString(value) + "\n");
  }

  private static void extensions(Message m, int field, JsonNode node) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (e.getKey().startsWith("x-")) {
        m.message(field, named(e.getKey(), any(e.getValue())));
      }
    }
  }

  private static Message schema(JsonNode s) {
    Message m = new Message();
    m.stringIfPresent(1, s.path("$ref"));
    m.stringIfPresent(2, s.path("format"));
    m.stringIfPresent(4, s.path("description"));
    m.strings(19, s.path("required"));
    s.path("enum").forEach(v -> m.message(20, any(v)));
    JsonNode additional = s.path("additionalProperties");
    if (additional.isObject()) {
      m.message(21, new Message().message(1, schema(additional)));
    } else if (additional.isBoolean()) {
      m.message(21, new Message().bool(2, additional.asBoolean()));
    }
    if (s.path("type").isString()) {
      m.message(22, new Message().string(1, s.path("type").asString()));
    }
    if (s.path("items").isObject()) {
      m.message(23, new Message().message(1, schema(s.path("items"))));
    }
    s.path("allOf").forEach(a -> m.message(24, schema(a)));
    if (s.path("properties").isObject()) {
      Message props = new Message();
      for (Map.Entry<String, JsonNode> p : s.path("properties").properties()) {
        props.message(1, named(p.getKey(), schema(p.getValue())));
      }
      m.message(25, props);
    }
    extensions(m, 31, s);
    return m;
  }

  private static final List<String> METHODS =
      List.of("", "get", "put", "post", "delete", "options", "head", "patch");

  private static Message pathItem(JsonNode item) {
    Message m = new Message();
    for (int i = 1; i < METHODS.size(); i++) {
      JsonNode op = item.get(METHODS.get(i));
      if (op != null) {
        m.message(i + 1, operation(op));
      }
    }
    item.path("parameters").forEach(p -> m.message(9, parameter(p)));
    extensions(m, 10, item);
    return m;
  }

  private static Message operation(JsonNode op) {
    Message m = new Message();
    m.strings(1, op.path("tags"));
    m.stringIfPresent(3, op.path("description"));
    m.stringIfPresent(5, op.path("operationId"));
    m.strings(6, op.path("produces"));
    m.strings(7, op.path("consumes"));
    op.path("parameters").forEach(p -> m.message(8, parameter(p)));
    Message responses = new Message();
    for (Map.Entry<String, JsonNode> r : op.path("responses").properties()) {
      Message response = new Message().stringIfPresent(1, r.getValue().path("description"));
      if (r.getValue().path("schema").isObject()) {
        response.message(2, new Message().message(1, schema(r.getValue().path("schema"))));
      }
      responses.message(1, new Message().string(1, r.getKey())
          .message(2, new Message().message(1, response)));
    }
    m.message(9, responses);
    m.strings(10, op.path("schemes"));
    extensions(m, 13, op);
    return m;
  }

  /** A {@code ParametersItem}: a body, query or path parameter. */
  private static Message parameter(JsonNode p) {
    String in = p.path("in").asString("");
    Message parameter = new Message();
    if (in.equals("body")) {
      parameter.message(1, new Message().stringIfPresent(1, p.path("description"))
          .stringIfPresent(2, p.path("name")).string(3, in).bool(4, p.path("required")
              .asBoolean(false)).message(5, schema(p.path("schema"))));
    } else {
      boolean path = in.equals("path");
      // Query and path sub-schemas number their fields alike, but for allow_empty_value.
      int shift = path ? 0 : 1;
      Message sub = new Message().bool(1, p.path("required").asBoolean(false)).string(2, in)
          .stringIfPresent(3, p.path("description")).stringIfPresent(4, p.path("name"))
          .stringIfPresent(5 + shift, p.path("type"))
          .bool(19 + shift, p.path("uniqueItems").asBoolean(false));
      parameter.message(2, new Message().message(path ? 4 : 3, sub));
    }
    return new Message().message(1, parameter);
  }
}

package io.kinformer.testing;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The shared Jackson mappers and small tree helpers. Immutable; thread-safe. */
final class Json {

  /** Compact JSON, no pretty printing: the wire form of the real server for non-curl clients. */
  static final JsonMapper MAPPER =
      JsonMapper.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

  static final YAMLMapper YAML = YAMLMapper.builder().build();

  private Json() {}

  static byte[] bytes(JsonNode node) {
    return MAPPER.writeValueAsBytes(node);
  }

  /** A timestamp as the API server writes it: RFC 3339, whole seconds, UTC. */
  static String timestamp(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  static ObjectNode objectOrEmpty(ObjectNode parent, String field) {
    JsonNode n = parent.get(field);
    if (n instanceof ObjectNode o) {
      return o;
    }
    return parent.putObject(field);
  }
}

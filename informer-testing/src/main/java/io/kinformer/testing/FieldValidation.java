package io.kinformer.testing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;

/**
 * Server-side field validation of create, update and patch bodies, as kube-apiserver's strict
 * decoding does it: every field the schema of the kind does not declare ({@code unknown field
 * "spec.foo"}) and every field given twice in one object ({@code duplicate field
 * "metadata.name"}), in the order they appear. The {@code fieldValidation} query parameter
 * decides what happens to them: {@code Strict} fails the request with 400 BadRequest, {@code
 * Warn} (the default) sends one {@code Warning} header for each, {@code Ignore} ignores them.
 * Unknown fields are not dropped from the stored object.
 *
 * <p>Built-in kinds are checked against their generated definitions (objects without declared
 * properties, such as a RawExtension, accept anything); custom resources against their
 * openAPIV3Schema as a structural schema ({@code x-kubernetes-preserve-unknown-fields}, {@code
 * additionalProperties} and {@code x-kubernetes-embedded-resource} honoured); a custom resource
 * registered without a schema accepts any field but in {@code metadata}.
 *
 * <p>Thread safety: stateless.
 */
final class FieldValidation {

  /** What the client asked to happen to unknown and duplicate fields. */
  enum Directive {
    IGNORE, WARN, STRICT;

    /** The directive of a {@code fieldValidation} query parameter value (absent: Warn). */
    static Directive of(@Nullable String value) {
      if (value == null || value.isEmpty()) {
        return WARN;
      }
      return switch (value) {
        case "Ignore" -> IGNORE;
        case "Warn" -> WARN;
        case "Strict" -> STRICT;
        default -> throw ApiError.badRequest("fieldValidation: Unsupported value: \"" + value
            + "\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
      };
    }
  }

  /** A schema with how to read it; {@code schema == null} accepts anything. */
  private record Node(@Nullable JsonNode schema, boolean structural) {
    static final Node FREE = new Node(null, false);
  }

  private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

  private FieldValidation() {}

  /**
   * The unknown and duplicate fields of {@code body}, a JSON object of kind {@code type}; for a
   * patch ({@code patch} true) null values (removals) and {@code $}-directives of strategic merge
   * patches are not fields.
   */
  static List<String> problems(OpenApiDocuments documents, ServedResource type, byte[] body,
      boolean patch) {
    Node root;
    if (OpenApiDocuments.isBuiltIn(type)) {
      String name = OpenApiDocuments.definitionName(type, type.kind());
      root = new Node(OpenApiDefinitions.get().v3().get(name), false);
    } else {
      root = new Node(documents.customResourceSchema(type), true);
    }
    List<String> out = new ArrayList<>();
    try (JsonParser p = Json.MAPPER.createParser(body)) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        walk(p, root, "", patch, out);
      }
    } catch (JacksonException e) {
      return List.of(); // the body's own parse reports it
    }
    return out;
  }

  /**
   * Checks {@code body} under {@code directive}: throws the strict decoding error for {@code
   * Strict}, returns the warnings to send for {@code Warn}, nothing for {@code Ignore}.
   *
   * @param prefix what precedes {@code strict decoding error: } in the message
   */
  static List<String> check(Directive directive, OpenApiDocuments documents, ServedResource type,
      byte[] body, boolean patch, String prefix) {
    if (directive == Directive.IGNORE) {
      return List.of();
    }
    List<String> found = problems(documents, type, body, patch);
    if (found.isEmpty() || directive == Directive.WARN) {
      return found;
    }
    throw ApiError.badRequest(prefix + "strict decoding error: " + String.join(", ", found));
  }

  /** The message prefix of create and update: {@code Pod in version "v1" cannot be ...}. */
  static String decodePrefix(ServedResource type) {
    return type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
        + type.kind() + ": ";
  }

  /** The JSON form of an apply patch (YAML), for {@link #check}. */
  static byte[] yamlToJson(byte[] yaml) {
    try {
      return Json.bytes(Json.YAML.readTree(yaml));
    } catch (JacksonException e) {
      return new byte[0];
    }
  }

  private static void walk(JsonParser p, Node node, String path, boolean patch,
      List<String> out) {
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT) {
      Set<String> seen = new HashSet<>();
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        String child = path.isEmpty() ? name : path + "." + name;
        JsonToken value = p.nextToken();
        if (patch && (name.startsWith("$") || value == JsonToken.VALUE_NULL)) {
          p.skipChildren();
          continue;
        }
        if (!seen.add(name)) {
          out.add("duplicate field \"" + child + "\"");
        }
        Node c = property(node, name);
        if (c == null) {
          out.add("unknown field \"" + child + "\"");
          p.skipChildren();
        } else {
          walk(p, c, child, patch, out);
        }
      }
    } else if (t == JsonToken.START_ARRAY) {
      Node items = items(node);
      int i = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        walk(p, items, path + "[" + i++ + "]", patch, out);
      }
    }
  }

  /** Follows {@code $ref} and a single-reference {@code allOf} to the schema they name. */
  private static Node resolve(@Nullable JsonNode s, boolean structural) {
    for (int depth = 0; s != null && depth < 16; depth++) {
      JsonNode ref = s.get("$ref");
      if (ref == null && s.path("allOf").size() == 1) {
        ref = s.path("allOf").get(0).get("$ref");
      }
      if (ref == null) {
        return new Node(s, structural);
      }
      String r = ref.asString("");
      if (!r.startsWith(OpenApiDefinitions.V3_PREFIX)) {
        return Node.FREE;
      }
      s = OpenApiDefinitions.get().v3().get(r.substring(OpenApiDefinitions.V3_PREFIX.length()));
      structural = false;
    }
    return Node.FREE;
  }

  /** The schema of field {@code name} of an object, or null when it is unknown. */
  private static @Nullable Node property(Node node, String name) {
    JsonNode s = node.schema();
    if (s == null) {
      return Node.FREE;
    }
    JsonNode props = s.get("properties");
    if (props != null && props.has(name)) {
      return resolve(props.get(name), node.structural());
    }
    JsonNode additional = s.get("additionalProperties");
    if (additional != null && additional.isObject()) {
      return resolve(additional, node.structural());
    }
    if (additional != null && additional.asBoolean(false)
        || s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
      return Node.FREE;
    }
    if (s.path("x-kubernetes-embedded-resource").asBoolean(false)) {
      if (name.equals("apiVersion") || name.equals("kind")) {
        return Node.FREE;
      }
      if (name.equals("metadata")) {
        return new Node(OpenApiDefinitions.get().v3().get(OBJECT_META), false);
      }
    }
    if (props != null || node.structural()) {
      return null;
    }
    return Node.FREE; // a built-in object without declared fields, such as RawExtension
  }

  private static Node items(Node node) {
    JsonNode s = node.schema();
    if (s == null || s.get("items") == null) {
      return Node.FREE;
    }
    return resolve(s.get("items"), node.structural());
  }
}

package io.kinformer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI definitions of the Kubernetes kinds, generated from the Go sources of k8s.io/api by
 * {@code informer-testing/openapi-gen} into the resource {@code openapi-definitions.json.gz}: each
 * named as kube-apiserver names it ({@code io.k8s.api.core.v1.Pod}), in the OpenAPI v2 form
 * ({@code $ref} to {@code #/definitions/...}) and converted once to the v3 form ({@code
 * #/components/schemas/...}, a {@code $ref} with siblings wrapped in {@code allOf}).
 *
 * <p>Thread safety: immutable after loading; loaded once, on first use.
 */
final class OpenApiDefinitions {

  static final String V2_PREFIX = "#/definitions/";
  static final String V3_PREFIX = "#/components/schemas/";
  static final String GVK = "x-kubernetes-group-version-kind";

  private static final String RESOURCE = "openapi-definitions.json.gz";

  private final String generator;
  private final String source;
  private final Map<String, ObjectNode> v2;
  private final Map<String, ObjectNode> v3;
  private final Map<String, String> byGvk;

  private OpenApiDefinitions(ObjectNode file) {
    this.generator = file.path("generator").asString("");
    this.source = file.path("source").asString("");
    Map<String, ObjectNode> defs2 = new TreeMap<>();
    Map<String, ObjectNode> defs3 = new TreeMap<>();
    Map<String, String> gvks = new HashMap<>();
    JsonNode overrides = file.path("definitionsV3");
    for (Map.Entry<String, JsonNode> e : file.path("definitions").properties()) {
      ObjectNode d = (ObjectNode) e.getValue();
      defs2.put(e.getKey(), d);
      JsonNode o = overrides.get(e.getKey());
      defs3.put(e.getKey(), (ObjectNode) toV3(o != null ? o : d));
      for (JsonNode gvk : d.path(GVK)) {
        gvks.putIfAbsent(key(gvk.path("group").asString(""), gvk.path("version").asString(""),
            gvk.path("kind").asString("")), e.getKey());
      }
    }
    this.v2 = Collections.unmodifiableMap(defs2);
    this.v3 = Collections.unmodifiableMap(defs3);
    this.byGvk = Map.copyOf(gvks);
  }

  private static final class Holder {
    static final OpenApiDefinitions INSTANCE = load();
  }

  /** The definitions of the bundled resource. */
  static OpenApiDefinitions get() {
    return Holder.INSTANCE;
  }

  private static OpenApiDefinitions load() {
    try (InputStream in = OpenApiDefinitions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the resource " + RESOURCE + " of informer-testing is"
            + " missing: regenerate it with informer-testing/openapi-gen/gen.sh");
      }
      return new OpenApiDefinitions((ObjectNode) Json.MAPPER.readTree(new GZIPInputStream(in)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  private static String key(String group, String version, String kind) {
    return group + "/" + version + "/" + kind;
  }

  /** The generator that wrote the definitions and the release they describe. */
  String provenance() {
    return generator + " from " + source;
  }

  /** The definition name of a built-in kind, if it has one. */
  Optional<String> nameOf(String group, String version, String kind) {
    return Optional.ofNullable(byGvk.get(key(group, version, kind)));
  }

  Map<String, ObjectNode> v2() {
    return v2;
  }

  Map<String, ObjectNode> v3() {
    return v3;
  }

  /**
   * The v3 form of a v2 schema: references to {@code #/components/schemas/}, and a reference
   * with siblings (a description) wrapped in {@code allOf}, as kube-apiserver serves them.
   */
  static JsonNode toV3(JsonNode n) {
    if (n instanceof ArrayNode a) {
      return mapElements(a, OpenApiDefinitions::toV3);
    }
    if (!(n instanceof ObjectNode o)) {
      return n;
    }
    ObjectNode out = Json.MAPPER.createObjectNode();
    JsonNode ref = o.get("$ref");
    for (Map.Entry<String, JsonNode> e : o.properties()) {
      if (e.getKey().equals("$ref")) {
        continue;
      }
      boolean schemaMap = e.getKey().equals("properties");
      if (schemaMap) {
        ObjectNode props = out.putObject("properties");
        e.getValue().properties().forEach(p -> props.set(p.getKey(), toV3(p.getValue())));
      } else if (e.getKey().startsWith("x-kubernetes-")) {
        out.set(e.getKey(), e.getValue());
      } else {
        out.set(e.getKey(), toV3(e.getValue()));
      }
    }
    if (ref != null) {
      String target = V3_PREFIX + ref.asString().substring(V2_PREFIX.length());
      if (out.isEmpty()) {
        out.put("$ref", target);
      } else {
        ObjectNode wrapped = Json.MAPPER.createObjectNode();
        wrapped.putArray("allOf").addObject().put("$ref", target);
        wrapped.setAll(out);
        return wrapped;
      }
    }
    return out;
  }

  /** A v3 schema in v2 form: references to {@code #/definitions/}, {@code allOf} unwrapped. */
  static JsonNode toV2(JsonNode n) {
    if (n instanceof ArrayNode a) {
      return mapElements(a, OpenApiDefinitions::toV2);
    }
    if (!(n instanceof ObjectNode o)) {
      return n;
    }
    ObjectNode out = Json.MAPPER.createObjectNode();
    for (Map.Entry<String, JsonNode> e : o.properties()) {
      String k = e.getKey();
      JsonNode v = e.getValue();
      if (k.equals("$ref") && v.asString("").startsWith(V3_PREFIX)) {
        out.put("$ref", V2_PREFIX
            + v.asString().substring(V3_PREFIX.length()));
      } else if (k.equals("allOf") && v.size() == 1 && v.get(0).has("$ref")) {
        out.setAll((ObjectNode) toV2(v.get(0)));
      } else if (k.equals("properties")) {
        ObjectNode props = out.putObject("properties");
        v.properties().forEach(p -> props.set(p.getKey(), toV2(p.getValue())));
      } else if (k.startsWith("x-kubernetes-")) {
        out.set(k, v);
      } else {
        out.set(k, toV2(v));
      }
    }
    return out;
  }

  private static ArrayNode mapElements(ArrayNode a, UnaryOperator<JsonNode> f) {
    ArrayNode out = Json.MAPPER.createArrayNode();
    a.forEach(x -> out.add(f.apply(x)));
    return out;
  }
}

package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A YAML mapping of a kubeconfig file together with its label ({@code file: users[dev].user}), so
 * every accessor can name the exact field in its error. Error messages never quote a value of a
 * field: values may be secrets.
 *
 * <p>Thread safety: immutable.
 */
final class KubeConfigNode {

  private final JsonNode node;
  private final String label;

  KubeConfigNode(JsonNode node, String label) {
    this.node = node;
    this.label = label;
  }

  String label() {
    return label;
  }

  String field(String name) {
    return label.endsWith(":") ? label + " " + name : label + "." + name;
  }

  /** Whether the field holds something: not absent, null, "", [] or {} (Go's zero values). */
  boolean isSet(String name) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return false;
    }
    if (v.isString()) {
      return !v.asString().isEmpty();
    }
    return !(v.isContainer() && v.isEmpty());
  }

  /** A scalar as a string; empty strings count as absent, as Go's zero value does. */
  @Nullable String string(String name) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isValueNode()) {
      throw new KubeConfigException(field(name) + ": must be a string");
    }
    String s = v.asString();
    return s.isEmpty() ? null : s;
  }

  String requiredString(String name) {
    String s = string(name);
    if (s == null) {
      throw new KubeConfigException(field(name) + ": missing");
    }
    return s;
  }

  boolean bool(String name) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isString() && (v.asString().equals("true") || v.asString().equals("false"))) {
      return Boolean.parseBoolean(v.asString());
    }
    throw new KubeConfigException(field(name) + ": must be true or false");
  }

  /** Base64 data ({@code ...-data} fields); absent or empty gives null. */
  byte @Nullable [] base64(String name) {
    String s = string(name);
    if (s == null) {
      return null;
    }
    try {
      return Base64.getDecoder().decode(s.replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new KubeConfigException(field(name) + ": not valid base64");
    }
  }

  @Nullable KubeConfigNode object(String name) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw new KubeConfigException(field(name) + ": must be a mapping");
    }
    return new KubeConfigNode(v, field(name));
  }

  /** The elements of a list field, each labelled {@code field[i]}. */
  List<JsonNode> list(String name) {
    JsonNode v = node.get(name);
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!v.isArray()) {
      throw new KubeConfigException(field(name) + ": must be a list");
    }
    List<JsonNode> out = new ArrayList<>();
    v.values().forEach(out::add);
    return out;
  }

  /** A list of strings (exec args). */
  List<String> strings(String name) {
    List<String> out = new ArrayList<>();
    List<JsonNode> items = list(name);
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      if (!item.isValueNode() || item.isNull()) {
        throw new KubeConfigException(field(name) + "[" + i + "]: must be a string");
      }
      out.add(item.asString());
    }
    return out;
  }

  /** The names of the fields set, to refuse unsupported ones. */
  List<String> fieldNames() {
    return new ArrayList<>(node.propertyNames());
  }
}

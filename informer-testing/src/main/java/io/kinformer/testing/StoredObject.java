package io.kinformer.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One stored version of an object: its serialized JSON plus the parsed metadata the server needs
 * to key, filter and select it.
 *
 * <p>Why bytes and not trees: a list or watch writes the stored bytes straight to the socket, so
 * serving 100,000 pods costs a memory copy per object, not a serialization; a tree costs several
 * times the memory of its bytes. Writes (rare next to reads) parse the bytes back into a tree.
 *
 * <p>Invariant: {@link #json} starts with {@code {"kind":...,"apiVersion":...,} and {@link
 * #bodyOffset} points just past that prefix, so a list item (which carries no kind/apiVersion, like
 * the real server's) is {@code '{'} followed by {@code json[bodyOffset..]}.
 *
 * <p>Thread safety: immutable (the lazily computed caches are benign races of equal values).
 */
final class StoredObject {

  /** The usual apiVersion of PartialObjectMetadata. */
  static final String META_V1 = "meta.k8s.io/v1";

  final ServedResource type;
  final String namespace;
  final String name;
  final String key;
  final long rv;
  final String uid;
  final byte[] json;
  final int bodyOffset;
  final Map<String, String> labels;
  final List<String> finalizers;
  final boolean deleting;
  private final Map<String, String> fields;
  private volatile byte @Nullable [] partialMetadata;

  private StoredObject(ServedResource type, ObjectNode tree, long rv) {
    this.type = type;
    ObjectNode meta = (ObjectNode) tree.get("metadata");
    this.name = meta.path("name").asString("");
    this.namespace = meta.path("namespace").asString("");
    this.key = key(namespace, name);
    this.rv = rv;
    this.uid = meta.path("uid").asString("");
    this.json = Json.bytes(tree);
    this.bodyOffset = PREFIX_LENGTHS.computeIfAbsent(type, StoredObject::prefixLength);
    this.labels = stringMap(meta.get("labels"));
    List<String> fin = new ArrayList<>();
    JsonNode f = meta.get("finalizers");
    if (f != null && f.isArray()) {
      for (JsonNode n : f) {
        fin.add(n.asString(""));
      }
    }
    this.finalizers = Collections.unmodifiableList(fin);
    this.deleting = meta.hasNonNull("deletionTimestamp");
    Map<String, String> fl = new HashMap<>();
    fl.put("metadata.name", name);
    fl.put("metadata.namespace", namespace);
    if (type.group().isEmpty() && type.plural().equals("pods")) {
      fl.put("spec.nodeName", tree.path("spec").path("nodeName").asString(""));
      fl.put("spec.restartPolicy", tree.path("spec").path("restartPolicy").asString(""));
      fl.put("spec.schedulerName", tree.path("spec").path("schedulerName").asString(""));
      fl.put(
          "spec.serviceAccountName", tree.path("spec").path("serviceAccountName").asString(""));
      fl.put("status.phase", tree.path("status").path("phase").asString(""));
      fl.put("status.podIP", tree.path("status").path("podIP").asString(""));
    } else if (type.group().isEmpty() && type.plural().equals("secrets")) {
      fl.put("type", tree.path("type").asString(""));
    } else if (type.group().isEmpty() && type.plural().equals("events")) {
      JsonNode io = tree.path("involvedObject");
      for (String k : List.of("kind", "namespace", "name", "uid", "apiVersion", "fieldPath")) {
        fl.put("involvedObject." + k, io.path(k).asString(""));
      }
      fl.put("reason", tree.path("reason").asString(""));
      fl.put("type", tree.path("type").asString(""));
    }
    this.fields = fl;
  }

  private static final Map<ServedResource, Integer> PREFIX_LENGTHS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The length of {@code {"kind":"K","apiVersion":"V",} as Jackson writes it. */
  private static int prefixLength(ServedResource type) {
    ObjectNode prefix = Json.MAPPER.createObjectNode();
    prefix.put("kind", type.kind());
    prefix.put("apiVersion", type.apiVersion());
    // "{"kind":"K","apiVersion":"V"}" minus the closing brace, plus the comma that follows.
    return Json.bytes(prefix).length;
  }

  /**
   * Stores {@code tree} at {@code rv}: stamps {@code metadata.resourceVersion}, puts kind and
   * apiVersion first and orders the metadata as the real server does. Mutates {@code tree}.
   */
  static StoredObject of(ServedResource type, ObjectNode tree, long rv) {
    ObjectNode meta = Json.objectOrEmpty(tree, "metadata");
    meta.put("resourceVersion", Long.toString(rv));
    return new StoredObject(type, normalize(type, tree), rv);
  }

  static String key(String namespace, String name) {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }

  /** The first key of a namespace's range; every key of the namespace sorts at or after it. */
  static String namespaceStart(String namespace) {
    return namespace + "/";
  }

  /** A key sorting after every key of the namespace ({@code '0'} follows {@code '/'}). */
  static String namespaceEnd(String namespace) {
    return namespace + "0";
  }

  /** A fresh, mutable tree of this object. */
  ObjectNode tree() {
    return (ObjectNode) Json.MAPPER.readTree(json);
  }

  /** This object's content with another resourceVersion. */
  StoredObject withRv(long newRv) {
    return of(type, tree(), newRv);
  }

  /** Whether both versions serialize to the same bytes. */
  boolean equalsContent(StoredObject other) {
    return java.util.Arrays.equals(json, other.json);
  }

  @Nullable String field(String field) {
    return fields.get(field);
  }

  /** {@code {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}}. */
  byte[] partialMetadata() {
    byte[] p = partialMetadata;
    if (p == null) {
      p = partialMetadataBytes(META_V1);
      partialMetadata = p;
    }
    return p;
  }

  /**
   * The object as a {@code PartialObjectMetadata} of {@code apiVersion} ({@code meta.k8s.io/v1}
   * or {@code meta.k8s.io/v1beta1}, whichever the client asked for); only v1 is cached.
   */
  byte[] partialMetadata(String apiVersion) {
    return META_V1.equals(apiVersion) ? partialMetadata() : partialMetadataBytes(apiVersion);
  }

  private byte[] partialMetadataBytes(String apiVersion) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("kind", "PartialObjectMetadata");
    out.put("apiVersion", apiVersion);
    out.set("metadata", tree().get("metadata"));
    return Json.bytes(out);
  }

  @Override
  public String toString() {
    return type.plural() + "/" + key + "@" + rv + " " + new String(json, StandardCharsets.UTF_8);
  }

  private static Map<String, String> stringMap(@Nullable JsonNode node) {
    if (node == null || !node.isObject()) {
      return Map.of();
    }
    Map<String, String> m = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      m.put(e.getKey(), e.getValue().asString(""));
    }
    return Collections.unmodifiableMap(m);
  }

  private static final List<String> METADATA_ORDER =
      List.of(
          "name",
          "generateName",
          "namespace",
          "selfLink",
          "uid",
          "resourceVersion",
          "generation",
          "creationTimestamp",
          "deletionTimestamp",
          "deletionGracePeriodSeconds",
          "labels",
          "annotations",
          "ownerReferences",
          "finalizers",
          "managedFields");

  private static ObjectNode normalize(ServedResource type, ObjectNode tree) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("kind", type.kind());
    out.put("apiVersion", type.apiVersion());
    ObjectNode meta = (ObjectNode) tree.get("metadata");
    Map<String, JsonNode> rest = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : meta.properties()) {
      rest.put(e.getKey(), e.getValue());
    }
    ObjectNode m = out.putObject("metadata");
    for (String k : METADATA_ORDER) {
      JsonNode v = rest.remove(k);
      if (v != null && !v.isNull()) {
        m.set(k, v);
      }
    }
    rest.forEach(m::set);
    for (Map.Entry<String, JsonNode> e : tree.properties()) {
      String k = e.getKey();
      if (!k.equals("kind") && !k.equals("apiVersion") && !k.equals("metadata")) {
        out.set(k, e.getValue());
      }
    }
    return out;
  }
}

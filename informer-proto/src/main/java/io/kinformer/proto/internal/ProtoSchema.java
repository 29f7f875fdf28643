package io.kinformer.proto.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The protobuf messages of the built-in types, as {@code informer-proto/proto-schema} generated
 * them from k8s.io/api and k8s.io/apimachinery into {@code schema.json.gz} beside this class:
 * field numbers and types, and the facts of the Go types the JSON encoding depends on (JSON name,
 * {@code omitempty}, {@code omitzero}, pointer or value, inlined structs, types with their own
 * encoding).
 *
 * <p>Thread safety: immutable once built; {@link #builtIn()} is read once and shared.
 */
public final class ProtoSchema {

  /** The type of a field's value (of a map's key or value). */
  public enum ValueType {
    STRING, BOOL, INT32, INT64, BYTES, MESSAGE, MAP;

    static ValueType of(String name) {
      return switch (name) {
        case "string" -> STRING;
        case "bool" -> BOOL;
        case "int32" -> INT32;
        case "int64" -> INT64;
        case "bytes" -> BYTES;
        case "message" -> MESSAGE;
        case "map" -> MAP;
        default -> throw new IllegalArgumentException("unknown value type " + name);
      };
    }

    /** The protobuf wire type a single value of this type is written with. */
    int wireType() {
      return switch (this) {
        case BOOL, INT32, INT64 -> ProtoReader.VARINT;
        case STRING, BYTES, MESSAGE, MAP -> ProtoReader.LEN;
      };
    }
  }

  /** A type whose protobuf and JSON encodings are written by hand, not derived from its fields. */
  public enum Special {
    /** metav1.Time: Timestamp{seconds, nanos}; JSON RFC 3339 in seconds, null when zero. */
    TIME,
    /** metav1.MicroTime: as TIME, JSON with six fractional digits. */
    MICROTIME,
    /** metav1.Duration: {duration (ns)}; JSON Go's duration string. */
    DURATION,
    /** intstr.IntOrString: {type, intVal, strVal}; JSON a number or a string. */
    INTORSTRING,
    /** resource.Quantity: {string}; JSON the string. */
    QUANTITY,
    /** runtime.RawExtension: {raw}; JSON the raw JSON, null when empty. */
    RAWEXTENSION,
    /** metav1.FieldsV1: {Raw}; JSON the raw JSON, null when empty. */
    FIELDSV1;

    static Special of(String name) {
      return valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
  }

  /** One field of a message. */
  public static final class Field {
    final int number;
    final String name;
    final @Nullable String json;
    final boolean inline;
    final boolean repeated;
    final boolean pointer;
    final boolean omitEmpty;
    final boolean omitZero;
    final ValueType type;
    final @Nullable ValueType mapKey;
    final @Nullable ValueType mapValue;
    final @Nullable String messageName;
    @Nullable Message message;
    /** {@code message.name}, for errors. */
    final String where;

    Field(String owner, JsonNode f) {
      number = f.get("n").asInt();
      name = f.get("name").asString();
      json = f.has("json") ? f.get("json").asString() : null;
      inline = f.path("inline").asBoolean(false);
      repeated = f.path("rep").asBoolean(false);
      pointer = f.path("ptr").asBoolean(false);
      omitEmpty = f.path("omitempty").asBoolean(false);
      omitZero = f.path("omitzero").asBoolean(false);
      type = ValueType.of(f.get("type").asString());
      mapKey = f.has("key") ? ValueType.of(f.get("key").asString()) : null;
      mapValue = f.has("val") ? ValueType.of(f.get("val").asString()) : null;
      messageName = f.has("msg") ? f.get("msg").asString() : null;
      where = owner + "." + name;
      if (number <= 0 || number > ProtoReader.MAX_FIELD_NUMBER) {
        throw new IllegalArgumentException(where + ": field number " + number);
      }
      if (json == null && !inline) {
        throw new IllegalArgumentException(where + ": no JSON name and not inlined");
      }
      if (type == ValueType.MAP && (mapKey != ValueType.STRING || mapValue == null
          || mapValue == ValueType.MAP)) {
        throw new IllegalArgumentException(where + ": only maps from strings are supported");
      }
      boolean needsMessage = type == ValueType.MESSAGE || mapValue == ValueType.MESSAGE;
      if (needsMessage != (messageName != null)) {
        throw new IllegalArgumentException(where + ": message type " + messageName);
      }
    }

    /** The field's protobuf name. */
    public String name() {
      return name;
    }

    /** The field's JSON name, or null if its message's fields are inlined into the parent's. */
    public @Nullable String jsonName() {
      return json;
    }

    /** Whether JSON inlines the fields of this field's message into the parent object. */
    public boolean inline() {
      return inline;
    }

    /** The message of a message field or of a map's values; null for scalars. */
    public @Nullable Message message() {
      return message;
    }
  }

  /** One message: its fields in number order, or the special encoding it has. */
  public static final class Message {
    final String name;
    final @Nullable Special special;
    /** A Go named slice: field 1 (repeated) is the JSON value, an array. */
    final boolean items;
    final Field[] fields;
    /** Field number → index in {@link #fields} + 1; 0 for an unknown number. */
    private final int[] byNumber;

    Message(String name, JsonNode m) {
      this.name = name;
      special = m.has("special") ? Special.of(m.get("special").asString()) : null;
      items = m.path("items").asBoolean(false);
      List<Field> list = new ArrayList<>();
      int max = 0;
      for (JsonNode f : m.path("fields")) {
        Field field = new Field(name, f);
        list.add(field);
        max = Math.max(max, field.number);
      }
      fields = list.toArray(new Field[0]);
      byNumber = new int[max + 1];
      for (int i = 0; i < fields.length; i++) {
        if (i > 0 && fields[i - 1].number >= fields[i].number) {
          throw new IllegalArgumentException(name + ": fields not in number order");
        }
        byNumber[fields[i].number] = i + 1;
      }
      if (items && (fields.length != 1 || !fields[0].repeated)) {
        throw new IllegalArgumentException(name + ": a named slice has one repeated field");
      }
    }

    /** The message's full protobuf name, as {@code k8s.io.api.core.v1.Pod}. */
    public String name() {
      return name;
    }

    /** The special encoding of this message, or null for one encoded by its fields. */
    public @Nullable Special special() {
      return special;
    }

    /** Whether this is a Go named slice: its one repeated field is the JSON value, an array. */
    public boolean items() {
      return items;
    }

    /** The fields in number order; empty for a special message. */
    public List<Field> fields() {
      return List.of(fields);
    }

    /** The index in the field array of field {@code number}, or -1 if the message has none. */
    int indexOf(int number) {
      return number < byNumber.length ? byNumber[number] - 1 : -1;
    }
  }

  /** A group/version/kind of the scheme and its message. */
  public record Kind(String group, String version, String kind, Message message) {}

  private final Map<String, Message> messages;
  private final List<Kind> kinds;
  private final Map<String, Kind> kindsByGvk;

  private ProtoSchema(Map<String, Message> messages, List<Kind> kinds) {
    this.messages = Collections.unmodifiableMap(messages);
    this.kinds = List.copyOf(kinds);
    Map<String, Kind> byGvk = new HashMap<>();
    for (Kind k : kinds) {
      byGvk.put(gvk(k.group, k.version, k.kind), k);
    }
    this.kindsByGvk = byGvk;
  }

  private static String gvk(String group, String version, String kind) {
    return group + "/" + version + "/" + kind;
  }

  private static final class BuiltIn {
    static final ProtoSchema SCHEMA = load();

    private static ProtoSchema load() {
      try (InputStream in = ProtoSchema.class.getResourceAsStream("schema.json.gz")) {
        if (in == null) {
          throw new IllegalStateException("schema.json.gz is missing beside ProtoSchema");
        }
        return read(in);
      } catch (IOException e) {
        throw new UncheckedIOException("reading the protobuf schema of the built-in types", e);
      }
    }
  }

  /** The schema of the built-in types of this release. */
  public static ProtoSchema builtIn() {
    return BuiltIn.SCHEMA;
  }

  /**
   * Reads a gzipped schema as {@code proto-schema} writes it.
   *
   * @throws IllegalArgumentException if it is inconsistent (a message named but not defined)
   */
  public static ProtoSchema read(InputStream gzipped) throws IOException {
    JsonNode root = JsonMapper.shared().readTree(new GZIPInputStream(gzipped));
    Map<String, Message> messages = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : root.get("messages").properties()) {
      messages.put(e.getKey(), new Message(e.getKey(), e.getValue()));
    }
    for (Message m : messages.values()) {
      for (Field f : m.fields) {
        if (f.messageName != null) {
          f.message = messages.get(f.messageName);
          if (f.message == null) {
            throw new IllegalArgumentException(f.where + ": message " + f.messageName
                + " is not in the schema");
          }
          if (f.inline && (f.message.special != null || f.message.items)) {
            throw new IllegalArgumentException(f.where + ": only a plain message is inlined");
          }
        }
      }
    }
    List<Kind> kinds = new ArrayList<>();
    for (JsonNode k : root.get("kinds")) {
      String msg = k.get("msg").asString();
      Message m = messages.get(msg);
      if (m == null) {
        throw new IllegalArgumentException("kind " + k + ": message " + msg + " is not in the schema");
      }
      kinds.add(new Kind(k.get("group").asString(), k.get("version").asString(),
          k.get("kind").asString(), m));
    }
    return new ProtoSchema(messages, kinds);
  }

  /** The message named {@code name} (as {@code k8s.io.api.core.v1.Pod}), or null. */
  public @Nullable Message message(String name) {
    return messages.get(name);
  }

  /** Every message. */
  public Collection<Message> messages() {
    return messages.values();
  }

  /** Every kind of the scheme, in group, version, kind order. */
  public List<Kind> kinds() {
    return kinds;
  }

  /** The kind's entry, or null if the scheme has no such kind ({@code group} "" is core). */
  public @Nullable Kind kind(String group, String version, String kind) {
    return kindsByGvk.get(gvk(group, version, kind));
  }
}

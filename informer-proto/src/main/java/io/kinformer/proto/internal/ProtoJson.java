package io.kinformer.proto.internal;

import io.kinformer.proto.internal.ProtoSchema.Field;
import io.kinformer.proto.internal.ProtoSchema.Message;
import io.kinformer.proto.internal.ProtoSchema.Special;
import io.kinformer.proto.internal.ProtoSchema.ValueType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Decodes a protobuf message of a built-in type into the JSON tokens of the JSON the API server
 * writes for the same object, so that a mapper binds it to the same model object as it would that
 * JSON.
 *
 * <p>The JSON of a Go object follows its struct tags, which the schema carries: a field is written
 * under its JSON name; a value that is not a pointer is always written, even when zero (protobuf
 * carries it or not: an absent one is its zero value), unless {@code omitempty} drops the zero
 * (for scalars, slices and maps; Go never drops a struct for {@code omitempty}) or {@code
 * omitzero} does; a pointer is written when set; a nil slice or map with no {@code omitempty} is
 * {@code null}; an inlined struct's fields are the parent's. What the server writes as JSON has
 * been read from protobuf (etcd), so a slice or map that protobuf leaves empty is nil there too.
 * Special types: metav1.Time and MicroTime in RFC 3339 (null when zero), Duration as Go prints
 * it, IntOrString as a number or string, Quantity as its string, RawExtension and FieldsV1 as the
 * JSON they hold (null when empty), byte slices in base64. Field order follows the field numbers,
 * which need not be the Go struct's order; Jackson's binding does not depend on it.
 *
 * <p>Bounded: every length is checked against the bytes it lies in, messages nest at most {@link
 * #MAX_DEPTH} deep, and the work and memory are linear in the input; a bad input is a {@link
 * MalformedProtobufException} naming the message and field. Unknown field numbers are skipped, as
 * protobuf readers do. Of a non-repeated field written more than once the last value counts
 * (for messages protobuf would merge the values; no Kubernetes encoder writes one twice).
 *
 * <p>Thread safety: immutable; each call decodes with state of its own.
 */
public final class ProtoJson {

  /** How deep messages may nest; the built-in types nest about a dozen deep. */
  public static final int MAX_DEPTH = 100;

  private static final byte[] K8S_MAGIC = {'k', '8', 's', 0};

  private final ObjectMapper json;
  private final int maxDepth;

  /**
   * @param json the mapper whose parser reads the JSON that RawExtension and FieldsV1 carry (and
   *     applies its stream constraints to it)
   */
  public ProtoJson(ObjectMapper json) {
    this(json, MAX_DEPTH);
  }

  ProtoJson(ObjectMapper json, int maxDepth) {
    this.json = json;
    this.maxDepth = maxDepth;
  }

  /** The tokens of the JSON value of {@code data[off, off + len)} read as {@code type}. */
  public TokenBuffer toTokens(Message type, byte[] data, int off, int len) {
    TokenBuffer tokens = TokenBuffer.forGeneration();
    write(type, data, off, len, tokens);
    return tokens;
  }

  /**
   * Writes the JSON value of {@code data[off, off + len)} read as {@code type} to {@code out}.
   *
   * @throws MalformedProtobufException if the bytes are not a {@code type}
   */
  public void write(Message type, byte[] data, int off, int len, JsonGenerator out) {
    checkRange(data, off, len);
    new Decoding(data, out).value(type, off, off + len, 0);
  }

  /**
   * Writes the JSON object of an object that came in an envelope: its {@code apiVersion} and
   * {@code kind} (which the envelope carries, not the message), then its fields.
   *
   * @throws MalformedProtobufException if the bytes are not a {@code type}
   */
  public void writeObject(Message type, String apiVersion, String kind, byte[] data, int off,
      int len, JsonGenerator out) {
    checkRange(data, off, len);
    if (type.special != null || type.items) {
      throw new IllegalArgumentException(type.name + " is not an object");
    }
    out.writeStartObject();
    if (!apiVersion.isEmpty()) {
      out.writeName("apiVersion");
      out.writeString(apiVersion);
    }
    if (!kind.isEmpty()) {
      out.writeName("kind");
      out.writeString(kind);
    }
    new Decoding(data, out).fields(type, off, off + len, 0);
    out.writeEndObject();
  }

  private static void checkRange(byte[] data, int off, int len) {
    if (off < 0 || len < 0 || len > data.length - off) {
      throw new IndexOutOfBoundsException("range " + off + "+" + len + " of " + data.length);
    }
  }

  /** The state of one decoding. */
  private final class Decoding {
    private final byte[] buf;
    private final JsonGenerator out;
    private final ProtoReader r;
    /** Field records of the messages being written, 4 ints each: field index, wire, start, end. */
    private int[] records = new int[64];
    private int top;
    /** The start and end of fields 1 to 3 of a special message, -1 when absent. */
    private final int[] specialStart = new int[4];
    private final int[] specialEnd = new int[4];

    Decoding(byte[] buf, JsonGenerator out) {
      this.buf = buf;
      this.out = out;
      this.r = new ProtoReader(buf, 0, buf.length);
    }

    /** Writes the JSON value of one message. */
    void value(Message m, int start, int end, int depth) {
      value(m, start, end, depth, false);
    }

    /**
     * Writes the JSON value of one message; {@code emptyArray}: a named slice with no items is
     * {@code []}, as Go reads a map's value, rather than {@code null}, as it reads a field.
     */
    private void value(Message m, int start, int end, int depth, boolean emptyArray) {
      if (depth > maxDepth) {
        throw new MalformedProtobufException(m.name + ": messages nested deeper than " + maxDepth);
      }
      if (m.special != null) {
        special(m, start, end);
      } else if (m.items) {
        int base = index(m, start, end);
        Field f = m.fields[0];
        if (!hasValues(f, base, top) && !emptyArray) {
          out.writeNull();
        } else {
          out.writeStartArray();
          elements(f, base, top, depth);
          out.writeEndArray();
        }
        top = base;
      } else {
        out.writeStartObject();
        fields(m, start, end, depth);
        out.writeEndObject();
      }
    }

    /** Writes the properties of a message (into the object already open). */
    void fields(Message m, int start, int end, int depth) {
      if (depth > maxDepth) {
        throw new MalformedProtobufException(m.name + ": messages nested deeper than " + maxDepth);
      }
      int base = index(m, start, end);
      int recordsEnd = top;
      int rec = base;
      for (int i = 0; i < m.fields.length; i++) {
        int first = rec;
        while (rec < recordsEnd && records[rec] == i) {
          rec += 4;
        }
        field(m.fields[i], first, rec, depth);
      }
      top = base;
    }

    /**
     * Records the known fields of a message, grouped by field (stable: repeated values keep
     * their order), and returns where its records start; they end at {@link #top}.
     */
    private int index(Message m, int start, int end) {
      int base = top;
      r.pos = start;
      r.limit = end;
      r.where = m.name;
      boolean sorted = true;
      int last = -1;
      while (r.pos < end) {
        int tag = r.readTag();
        int wire = tag & 7;
        int idx = m.indexOf(tag >>> 3);
        if (idx < 0) {
          r.skip(wire);
          continue;
        }
        Field f = m.fields[idx];
        int expected = f.type.wireType();
        boolean packed = f.repeated && expected == ProtoReader.VARINT && wire == ProtoReader.LEN;
        if (wire != expected && !packed) {
          r.where = f.where;
          throw r.error("wire type " + wire + ", but a " + f.type.name().toLowerCase(java.util.Locale.ROOT)
              + " field has wire type " + expected);
        }
        int vs;
        int ve;
        if (wire == ProtoReader.LEN) {
          r.where = f.where;
          int len = r.readLength();
          vs = r.pos;
          ve = vs + len;
          r.pos = ve;
          r.where = m.name;
        } else {
          vs = r.pos;
          r.readVarint();
          ve = r.pos;
        }
        if (top + 4 > records.length) {
          records = Arrays.copyOf(records, records.length * 2);
        }
        records[top] = idx;
        records[top + 1] = wire;
        records[top + 2] = vs;
        records[top + 3] = ve;
        top += 4;
        sorted &= idx >= last;
        last = idx;
      }
      if (!sorted) {
        sort(base, m.fields.length);
      }
      return base;
    }

    /** A stable counting sort of the records from base to top by field index. */
    private void sort(int base, int fieldCount) {
      int[] starts = new int[fieldCount + 1];
      for (int i = base; i < top; i += 4) {
        starts[records[i] + 1] += 4;
      }
      for (int i = 1; i <= fieldCount; i++) {
        starts[i] += starts[i - 1];
      }
      int[] copy = Arrays.copyOfRange(records, base, top);
      for (int i = 0; i < copy.length; i += 4) {
        int at = base + starts[copy[i]];
        starts[copy[i]] += 4;
        System.arraycopy(copy, i, records, at, 4);
      }
    }

    /** Writes one field (name and value) from its records [first, last), or its absence. */
    private void field(Field f, int first, int last, int depth) {
      boolean present = last > first;
      int vs = present ? records[last - 2] : 0;
      int ve = present ? records[last - 1] : 0;
      Message msg = f.message;
      if (f.inline) {
        fields(msg, vs, ve, depth + 1);
        return;
      }
      boolean omits = f.omitEmpty || f.omitZero;
      if (f.type == ValueType.MAP) {
        if (!present) {
          absent(f, omits);
          return;
        }
        out.writeName(f.json);
        out.writeStartObject();
        for (int rec = first; rec < last; rec += 4) {
          entry(f, records[rec + 2], records[rec + 3], depth);
        }
        out.writeEndObject();
      } else if (f.repeated) {
        if (!hasValues(f, first, last)) {
          absent(f, omits);
          return;
        }
        out.writeName(f.json);
        out.writeStartArray();
        elements(f, first, last, depth);
        out.writeEndArray();
      } else if (f.type == ValueType.MESSAGE) {
        if (!present && f.pointer) {
          absent(f, omits);
          return;
        }
        if (!f.pointer && f.omitZero && isZero(msg, vs, ve)) {
          return;
        }
        if (msg.items && (f.omitEmpty || !present) && !f.pointer && isZero(msg, vs, ve)) {
          absent(f, f.omitEmpty);
          return;
        }
        out.writeName(f.json);
        value(msg, vs, ve, depth + 1);
      } else {
        if (!present && (f.pointer || f.type == ValueType.BYTES)) {
          absent(f, omits); // a nil pointer or byte slice
          return;
        }
        if (!f.pointer && omits && (!present || ve == vs || isZeroVarint(f.type, vs, ve))) {
          return;
        }
        out.writeName(f.json);
        if (present) {
          scalar(f, f.type, vs, ve);
        } else {
          zero(f.type);
        }
      }
    }

    /** A nil value: left out, or {@code null}. */
    private void absent(Field f, boolean omits) {
      if (!omits) {
        out.writeName(f.json);
        out.writeNull();
      }
    }

    private boolean isZeroVarint(ValueType type, int vs, int ve) {
      if (type.wireType() != ProtoReader.VARINT) {
        return false;
      }
      r.pos = vs;
      r.limit = ve;
      return r.readVarint() == 0;
    }

    /** Whether a message is its type's zero value (for omitzero and empty named slices). */
    private boolean isZero(Message m, int vs, int ve) {
      if (m.special == Special.TIME || m.special == Special.MICROTIME) {
        scanSpecial(m, vs, ve);
        return varint(1, 0) == 0 && varint(2, 0) == 0;
      }
      if (m.items) {
        int base = index(m, vs, ve);
        boolean empty = !hasValues(m.fields[0], base, top);
        top = base;
        return empty;
      }
      return ve == vs;
    }

    /** Whether the records of a repeated field hold any value (a packed run may hold none). */
    private boolean hasValues(Field f, int first, int last) {
      for (int rec = first; rec < last; rec += 4) {
        if (records[rec + 1] != ProtoReader.LEN || f.type.wireType() == ProtoReader.LEN
            || records[rec + 3] > records[rec + 2]) {
          return true;
        }
      }
      return false;
    }

    private void elements(Field f, int first, int last, int depth) {
      for (int rec = first; rec < last; rec += 4) {
        int vs = records[rec + 2];
        int ve = records[rec + 3];
        if (f.type == ValueType.MESSAGE) {
          value(f.message, vs, ve, depth + 1);
        } else if (records[rec + 1] == ProtoReader.LEN && f.type.wireType() == ProtoReader.VARINT) {
          for (int at = vs; at < ve; ) { // packed
            r.pos = at;
            r.limit = ve;
            r.where = f.where;
            r.readVarint();
            int next = r.pos;
            scalar(f, f.type, at, next);
            at = next;
          }
        } else {
          scalar(f, f.type, vs, ve);
        }
      }
    }

    /** Writes one map entry: the key as a property name, then the value. */
    private void entry(Field f, int vs, int ve, int depth) {
      r.pos = vs;
      r.limit = ve;
      r.where = f.where + " (a map entry)";
      int ks = -1;
      int ke = -1;
      int valueStart = -1;
      int valueEnd = -1;
      ValueType valueType = f.mapValue;
      while (r.pos < ve) {
        int tag = r.readTag();
        int number = tag >>> 3;
        int wire = tag & 7;
        if (number == 1 || number == 2) {
          int expected = number == 1 ? ProtoReader.LEN : valueType.wireType();
          if (wire != expected) {
            throw r.error("wire type " + wire + " for the " + (number == 1 ? "key" : "value"));
          }
          int s = r.pos;
          if (wire == ProtoReader.LEN) {
            int len = r.readLength();
            s = r.pos;
            r.pos += len;
          } else {
            r.readVarint();
          }
          if (number == 1) {
            ks = s;
            ke = r.pos;
          } else {
            valueStart = s;
            valueEnd = r.pos;
          }
        } else {
          r.skip(wire);
        }
      }
      out.writeName(ks < 0 ? "" : new String(buf, ks, ke - ks, StandardCharsets.UTF_8));
      if (valueType == ValueType.MESSAGE) {
        value(f.message, Math.max(valueStart, 0), Math.max(valueEnd, 0), depth + 1, true);
      } else if (valueStart >= 0) {
        scalar(f, valueType, valueStart, valueEnd);
      } else if (valueType == ValueType.BYTES) {
        out.writeNull();
      } else {
        zero(valueType);
      }
    }

    private void scalar(Field f, ValueType type, int vs, int ve) {
      switch (type) {
        case STRING -> out.writeString(new String(buf, vs, ve - vs, StandardCharsets.UTF_8));
        case BYTES -> out.writeString(StandardCharsets.ISO_8859_1.decode(
            Base64.getEncoder().encode(ByteBuffer.wrap(buf, vs, ve - vs))).toString());
        case BOOL, INT32, INT64 -> {
          r.pos = vs;
          r.limit = ve;
          r.where = f.where;
          long v = r.readVarint();
          if (type == ValueType.BOOL) {
            out.writeBoolean(v != 0);
          } else if (type == ValueType.INT32) {
            out.writeNumber((int) v);
          } else {
            out.writeNumber(v);
          }
        }
        default -> throw new IllegalStateException(f.where + ": not a scalar");
      }
    }

    private void zero(ValueType type) {
      switch (type) {
        case STRING -> out.writeString("");
        case BOOL -> out.writeBoolean(false);
        case INT32 -> out.writeNumber(0);
        case INT64 -> out.writeNumber(0L);
        default -> out.writeNull();
      }
    }

    /** Records where fields 1 to 3 of a special message are (the last of each). */
    private void scanSpecial(Message m, int vs, int ve) {
      Arrays.fill(specialStart, -1);
      Arrays.fill(specialEnd, -1);
      r.pos = vs;
      r.limit = ve;
      r.where = m.name;
      while (r.pos < ve) {
        int tag = r.readTag();
        int number = tag >>> 3;
        int wire = tag & 7;
        if (number > 3) {
          r.skip(wire);
          continue;
        }
        int expected = specialWire(m.special, number);
        if (wire != expected) {
          throw r.error("wire type " + wire + " for field " + number);
        }
        if (wire == ProtoReader.LEN) {
          int len = r.readLength();
          specialStart[number] = r.pos;
          r.pos += len;
        } else {
          specialStart[number] = r.pos;
          r.readVarint();
        }
        specialEnd[number] = r.pos;
      }
    }

    private static int specialWire(Special s, int number) {
      return switch (s) {
        case QUANTITY, RAWEXTENSION, FIELDSV1 -> ProtoReader.LEN;
        case INTORSTRING -> number == 3 ? ProtoReader.LEN : ProtoReader.VARINT;
        case TIME, MICROTIME, DURATION -> ProtoReader.VARINT;
      };
    }

    private long varint(int number, long absent) {
      if (specialStart[number] < 0) {
        return absent;
      }
      r.pos = specialStart[number];
      r.limit = specialEnd[number];
      return r.readVarint();
    }

    private String string(int number, String absent) {
      int s = specialStart[number];
      return s < 0 ? absent : new String(buf, s, specialEnd[number] - s, StandardCharsets.UTF_8);
    }

    private void special(Message m, int vs, int ve) {
      scanSpecial(m, vs, ve);
      switch (m.special) {
        case TIME, MICROTIME -> {
          long seconds = varint(1, 0);
          long nanos = (int) varint(2, 0);
          if (seconds == 0 && nanos == 0) {
            out.writeNull();
          } else {
            try {
              out.writeString(GoFormat.time(seconds, nanos, m.special == Special.MICROTIME));
            } catch (IllegalArgumentException e) {
              throw new MalformedProtobufException(m.name + ": " + e.getMessage());
            }
          }
        }
        case DURATION -> out.writeString(GoFormat.duration(varint(1, 0)));
        case INTORSTRING -> {
          long type = varint(1, 0);
          if (type == 0) {
            out.writeNumber((int) varint(2, 0));
          } else if (type == 1) {
            out.writeString(string(3, ""));
          } else {
            throw new MalformedProtobufException(m.name + ": type " + type + " is neither int (0) nor string (1)");
          }
        }
        case QUANTITY -> out.writeString(string(1, "0"));
        case RAWEXTENSION, FIELDSV1 -> embeddedJson(m, specialStart[1], specialEnd[1]);
      }
    }

    /** Copies the JSON value a RawExtension or FieldsV1 holds; null when it holds nothing. */
    private void embeddedJson(Message m, int s, int e) {
      if (s < 0 || e == s) {
        out.writeNull();
        return;
      }
      if (e - s >= K8S_MAGIC.length
          && Arrays.equals(buf, s, s + K8S_MAGIC.length, K8S_MAGIC, 0, K8S_MAGIC.length)) {
        throw new MalformedProtobufException(m.name
            + ": holds a protobuf-encoded object, which is decoded only in a list or watch event");
      }
      try (JsonParser p = json.createParser(buf, s, e - s)) {
        if (p.nextToken() == null) {
          throw new MalformedProtobufException(m.name + ": holds no JSON value");
        }
        out.copyCurrentStructure(p);
        JsonToken extra = p.nextToken();
        if (extra != null) {
          throw new MalformedProtobufException(m.name + ": holds more than one JSON value");
        }
      } catch (JacksonException bad) {
        throw new MalformedProtobufException(m.name + ": holds bad JSON: "
            + bad.getOriginalMessage());
      }
    }
  }
}

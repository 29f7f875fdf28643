package io.kinformer.proto.internal;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The envelope of an object in Kubernetes' protobuf encoding: the four bytes {@code k8s\0}, then a
 * {@code runtime.Unknown} message whose {@code typeMeta} names the object's apiVersion and kind and
 * whose {@code raw} is the object's own message (a list's is the list message, items and all).
 * Also a watch event ({@code metav1.WatchEvent}, which a watch stream frames without an envelope):
 * its {@code type} and its object, itself in an envelope.
 *
 * <p>Offsets point into the caller's array; nothing is copied.
 *
 * <p>Thread safety: immutable.
 *
 * @param apiVersion the object's apiVersion ({@code v1}, {@code apps/v1}); empty if not sent
 * @param kind the object's kind; empty if not sent
 * @param data the array the object's message is in
 * @param offset where the object's message starts
 * @param length the message's length
 * @param contentType the {@code contentType} of the envelope; empty means protobuf
 */
public record ProtoEnvelope(String apiVersion, String kind, byte[] data, int offset, int length,
    String contentType) {

  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final String UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown";
  private static final String WATCH_EVENT = "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent";

  /** One event of a watch stream: its type and its object. */
  public record Event(String type, ProtoEnvelope object) {}

  /**
   * Reads an envelope ({@code k8s\0} and a {@code runtime.Unknown}) from {@code data[off, off +
   * len)}.
   *
   * @throws MalformedProtobufException if the bytes do not start with {@code k8s\0}, the Unknown
   *     does not decode, or it is compressed ({@code contentEncoding}), which the API server never
   *     does
   */
  public static ProtoEnvelope read(byte[] data, int off, int len) {
    if (off < 0 || len < 0 || len > data.length - off) {
      throw new IndexOutOfBoundsException("range " + off + "+" + len + " of " + data.length);
    }
    if (len < MAGIC.length || data[off] != MAGIC[0] || data[off + 1] != MAGIC[1]
        || data[off + 2] != MAGIC[2] || data[off + 3] != MAGIC[3]) {
      throw new MalformedProtobufException(UNKNOWN
          + ": not a Kubernetes protobuf object (it does not start with k8s\\0)");
    }
    ProtoReader r = new ProtoReader(data, off + MAGIC.length, off + len);
    r.where = UNKNOWN;
    String[] strings = {"", "", "", ""}; // apiVersion, kind, contentEncoding, contentType
    int[] raw = {r.pos, r.pos};
    eachLenField(r, 4, (number, start, length) -> {
      switch (number) {
        case 1 -> {
          String[] typeMeta = typeMeta(data, start, start + length);
          strings[0] = typeMeta[0];
          strings[1] = typeMeta[1];
        }
        case 2 -> {
          raw[0] = start;
          raw[1] = start + length;
        }
        default -> strings[number - 1] = utf8(data, start, length);
      }
    });
    String contentEncoding = strings[2];
    if (!contentEncoding.isEmpty()) {
      throw new MalformedProtobufException(UNKNOWN + ": contentEncoding " + contentEncoding
          + " is not supported");
    }
    return new ProtoEnvelope(strings[0], strings[1], data, raw[0], raw[1] - raw[0], strings[3]);
  }

  /**
   * Reads one watch event: a {@code metav1.WatchEvent} message (a frame of a watch stream) whose
   * object is in an envelope.
   *
   * @throws MalformedProtobufException if it does not decode, or has no type or no object
   */
  public static Event readEvent(byte[] data, int off, int len) {
    ProtoReader r = new ProtoReader(data, off, off + len);
    r.where = WATCH_EVENT;
    String[] type = {null};
    ProtoEnvelope[] object = {null};
    eachLenField(r, 2, (number, start, length) -> {
      if (number == 1) {
        type[0] = utf8(data, start, length);
      } else {
        int[] raw = rawOf(data, start, start + length);
        object[0] = raw == null ? null : read(data, raw[0], raw[1] - raw[0]);
      }
    });
    if (type[0] == null || type[0].isEmpty()) {
      throw new MalformedProtobufException(WATCH_EVENT + ": no type");
    }
    if (object[0] == null) {
      throw new MalformedProtobufException(WATCH_EVENT + " " + type[0] + ": no object");
    }
    return new Event(type[0], object[0]);
  }

  /** The range of a RawExtension's raw bytes, or null if it has none. */
  private static int @Nullable [] rawOf(byte[] data, int start, int end) {
    ProtoReader r = new ProtoReader(data, start, end);
    r.where = "k8s.io.apimachinery.pkg.runtime.RawExtension";
    int[][] raw = {null};
    eachLenField(r, 1, (number, at, length) -> raw[0] = new int[] {at, at + length});
    return raw[0];
  }

  private static String[] typeMeta(byte[] data, int start, int end) {
    ProtoReader r = new ProtoReader(data, start, end);
    r.where = "k8s.io.apimachinery.pkg.runtime.TypeMeta";
    String[] out = {"", ""};
    eachLenField(r, 2, (number, at, length) -> out[number - 1] = utf8(data, at, length));
    return out;
  }

  /** Told of each length-delimited field of a message. */
  private interface LenField {
    void accept(int number, int start, int length);
  }

  /**
   * Calls {@code each} for fields 1 to {@code maxNumber} of the message {@code r} is on, which
   * must be length-delimited; other fields are skipped.
   */
  private static void eachLenField(ProtoReader r, int maxNumber, LenField each) {
    while (!r.atEnd()) {
      int tag = r.readTag();
      int number = tag >>> 3;
      int wire = tag & 7;
      if (number > maxNumber) {
        r.skip(wire);
        continue;
      }
      if (wire != ProtoReader.LEN) {
        throw r.error("wire type " + wire + " for field " + number);
      }
      int length = r.readLength();
      int start = r.pos;
      r.pos += length;
      each.accept(number, start, length);
    }
  }

  private static String utf8(byte[] data, int start, int length) {
    return new String(data, start, length, StandardCharsets.UTF_8);
  }

  /** The group of the apiVersion: {@code apps} of {@code apps/v1}, empty for {@code v1}. */
  public String group() {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  /** The version of the apiVersion: {@code v1} of {@code apps/v1}. */
  public String version() {
    return apiVersion.substring(apiVersion.indexOf('/') + 1);
  }

  /**
   * The message of the object in this envelope: a kind of the schema, or {@code metav1.Status}
   * (which every group version sends for errors).
   *
   * @throws MalformedProtobufException if the schema has no such kind
   */
  public ProtoSchema.Message message(ProtoSchema schema) {
    ProtoSchema.Kind k = schema.kind(group(), version(), kind);
    if (k != null) {
      return k.message();
    }
    if (kind.equals("Status")) {
      ProtoSchema.Message status = schema.message("k8s.io.apimachinery.pkg.apis.meta.v1.Status");
      if (status != null) {
        return status;
      }
    }
    throw new MalformedProtobufException(UNKNOWN + ": no protobuf schema for " + apiVersion
        + " " + kind);
  }

  @Override
  public String toString() {
    return "ProtoEnvelope[" + apiVersion + " " + kind + ", " + length + " bytes]";
  }
}

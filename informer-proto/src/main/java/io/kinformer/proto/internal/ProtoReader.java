package io.kinformer.proto.internal;

/**
 * Reads the protobuf wire format from a byte array, bounded by a limit: every read checks that it
 * stays inside, so bad bytes end in a {@link MalformedProtobufException}, never a read past the
 * end, a loop or an allocation larger than the input.
 *
 * <p>Thread safety: not thread-safe; one reader per decoding.
 */
final class ProtoReader {
  static final int VARINT = 0;
  static final int I64 = 1;
  static final int LEN = 2;
  static final int I32 = 5;
  /** Protobuf's largest field number, 2^29 - 1. */
  static final int MAX_FIELD_NUMBER = (1 << 29) - 1;

  final byte[] buf;
  int pos;
  int limit;
  /** What is being read, for errors. */
  String where = "";

  ProtoReader(byte[] buf, int pos, int limit) {
    if (pos < 0 || limit > buf.length || pos > limit) {
      throw new IndexOutOfBoundsException("range " + pos + ".." + limit + " of " + buf.length);
    }
    this.buf = buf;
    this.pos = pos;
    this.limit = limit;
  }

  MalformedProtobufException error(String what) {
    return new MalformedProtobufException(where + ": " + what + " at byte " + pos);
  }

  boolean atEnd() {
    return pos >= limit;
  }

  /** A varint of up to ten bytes. */
  long readVarint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        throw error("truncated varint");
      }
      byte b = buf[pos++];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw error("varint longer than ten bytes");
  }

  /** A field key: its number and wire type, {@code number << 3 | wireType}. */
  int readTag() {
    long tag = readVarint();
    int number = (int) (tag >>> 3);
    if (tag >>> 3 > MAX_FIELD_NUMBER || number == 0) {
      throw error("field number " + (tag >>> 3) + " out of range");
    }
    return (int) tag;
  }

  /** The length of a LEN value, checked against what is left. */
  int readLength() {
    int at = pos;
    long len = readVarint();
    if (len < 0 || len > limit - pos) {
      pos = at;
      throw error("length " + len + " runs past the end (" + (limit - pos) + " bytes left)");
    }
    return (int) len;
  }

  /** Skips the value of a field with wire type {@code wire}. */
  void skip(int wire) {
    switch (wire) {
      case VARINT -> readVarint();
      case LEN -> {
        int len = readLength(); // before pos is read: readLength moves it
        pos += len;
      }
      case I64 -> advance(8);
      case I32 -> advance(4);
      default -> throw error("wire type " + wire + " (groups are not used by Kubernetes)");
    }
  }

  private void advance(int n) {
    if (limit - pos < n) {
      throw error("truncated fixed-width value");
    }
    pos += n;
  }
}

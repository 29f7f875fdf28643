package io.kinformer.proto.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes protobuf bytes by hand, for tests: fields in any order, valid or not. */
final class ProtoBytes {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  ProtoBytes varint(long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
    return this;
  }

  ProtoBytes tag(int number, int wire) {
    return varint((long) number << 3 | wire);
  }

  ProtoBytes varintField(int number, long v) {
    return tag(number, ProtoReader.VARINT).varint(v);
  }

  ProtoBytes bytesField(int number, byte[] b) {
    tag(number, ProtoReader.LEN).varint(b.length);
    out.writeBytes(b);
    return this;
  }

  ProtoBytes stringField(int number, String s) {
    return bytesField(number, s.getBytes(StandardCharsets.UTF_8));
  }

  ProtoBytes messageField(int number, ProtoBytes m) {
    return bytesField(number, m.bytes());
  }

  ProtoBytes raw(int... bytes) {
    for (int b : bytes) {
      out.write(b);
    }
    return this;
  }

  byte[] bytes() {
    return out.toByteArray();
  }
}

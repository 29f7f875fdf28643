package io.kinformer.proto.internal;

/**
 * Protobuf bytes that do not decode as the message they are read as: a varint that is cut off or
 * longer than ten bytes, a length that runs past the end of its message, a field with a wire type
 * its schema does not allow, messages nested deeper than the limit, or a value its JSON form
 * cannot have. The message names the message and field and the offset of the bad bytes.
 *
 * <p>Thread safety: immutable.
 */
public final class MalformedProtobufException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  MalformedProtobufException(String message) {
    super(message);
  }
}

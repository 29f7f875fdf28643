package io.kinformer.proto.internal;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/**
 * Reads the frames of a protobuf watch stream: each a four-byte big-endian length and that many
 * bytes (a {@code metav1.WatchEvent} message; see {@link ProtoEnvelope#readEvent}).
 *
 * <p>Bounded: a frame longer than the limit is an error before anything is allocated for it.
 *
 * <p>Thread safety: not thread-safe; one reader per stream, which it does not close.
 */
public final class ProtoFrames {
  private final InputStream in;
  private final int maxFrameBytes;

  /**
   * @param in the response body
   * @param maxFrameBytes the largest frame accepted
   */
  public ProtoFrames(InputStream in, int maxFrameBytes) {
    if (maxFrameBytes <= 0) {
      throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
    }
    this.in = in;
    this.maxFrameBytes = maxFrameBytes;
  }

  /**
   * The next frame, or null at the end of the stream between frames.
   *
   * @throws EOFException if the stream ends inside a frame
   * @throws MalformedProtobufException if a frame is longer than the limit
   */
  public byte @Nullable [] next() throws IOException {
    byte[] header = new byte[4];
    int n = in.readNBytes(header, 0, 4);
    if (n == 0) {
      return null;
    }
    if (n < 4) {
      throw new EOFException("watch stream ended inside a frame header (" + n + " of 4 bytes)");
    }
    long length = ((header[0] & 0xffL) << 24) | ((header[1] & 0xff) << 16)
        | ((header[2] & 0xff) << 8) | (header[3] & 0xff);
    if (length > maxFrameBytes) {
      throw new MalformedProtobufException("watch frame of " + length
          + " bytes is over the limit of " + maxFrameBytes);
    }
    byte[] frame = in.readNBytes((int) length);
    if (frame.length < length) {
      throw new EOFException("watch stream ended inside a frame (" + frame.length + " of "
          + length + " bytes)");
    }
    return frame;
  }
}

package io.kinformer.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * An input stream that remembers the last bytes it passed on, so that a decoding error can quote
 * the bytes around the offset where the parser gave up. The window is larger than the parser's
 * read-ahead buffer (8000 bytes), so the error offset is always inside it.
 *
 * <p>Thread safety: confine to the reading thread.
 */
final class CodecTailStream extends FilterInputStream {

  /** Power of two, larger than Jackson's 8000-byte input buffer. */
  private static final int WINDOW = 1 << 14;

  private static final int MASK = WINDOW - 1;

  /** Quoted characters before and after the error offset. */
  private static final int BEFORE = 80;

  private static final int AFTER = 80;

  /** ring[(i & MASK)] holds byte i of the stream, for total - WINDOW <= i < total. */
  private final byte[] ring = new byte[WINDOW];

  private long total;

  CodecTailStream(InputStream in) {
    super(in);
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) {
      ring[(int) (total & MASK)] = (byte) b;
      total++;
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = in.read(b, off, len);
    if (n > 0) {
      record(b, off, n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    // Route skips through read() so that the window stays contiguous.
    byte[] scratch = new byte[(int) Math.min(n, 4096)];
    long skipped = 0;
    while (skipped < n) {
      int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
      if (r < 0) {
        break;
      }
      skipped += r;
    }
    return skipped;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  private void record(byte[] b, int off, int n) {
    int start = off;
    int len = n;
    if (len > WINDOW) {
      start = off + len - WINDOW;
      total += len - WINDOW;
      len = WINDOW;
    }
    int pos = (int) (total & MASK);
    int first = Math.min(len, WINDOW - pos);
    System.arraycopy(b, start, ring, pos, first);
    System.arraycopy(b, start + first, ring, 0, len - first);
    total += len;
  }

  /** How many bytes have passed through so far. */
  long position() {
    return total;
  }

  /**
   * The bytes around {@code offset} (a byte offset from the start of the stream; negative means
   * "the last bytes read"), as UTF-8 with control characters escaped, at most about 200
   * characters, with {@code …} where it was cut.
   */
  String excerptAround(long offset) {
    long lowest = Math.max(0, total - WINDOW);
    long at = offset < 0 || offset > total ? total : Math.max(offset, lowest);
    long from = Math.max(lowest, at - BEFORE);
    long to = Math.min(total, at + AFTER);
    byte[] window = new byte[(int) (to - from)];
    for (long i = from; i < to; i++) {
      window[(int) (i - from)] = ring[(int) (i & MASK)];
    }
    // Malformed UTF-8 (or a character cut at the window's edge) becomes U+FFFD.
    String text = new String(window, StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(text.length() + 8);
    if (from > 0) {
      sb.append('…');
    }
    for (int i = 0; i < text.length() && sb.length() < 200; i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (c < 0x20 || c == 0x7f) {
        sb.append(String.format("\\x%02x", (int) c));
      } else {
        sb.append(c);
      }
    }
    if (to < total || sb.length() >= 200) {
      sb.append('…');
    }
    return sb.toString();
  }
}

package io.kinformer.client.internal.codec;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * An input stream that remembers the last bytes it passed on, so that a decoding error can quote
 * the bytes around the offset where the parser gave up. The window is larger than the parser's
 * read-ahead buffer (8000 bytes), so the error offset is always inside it.
 *
 * <p>It also enforces a byte budget per decoded unit (a watch event, a list item): the codec
 * calls {@link #limitFrom} where a unit starts, and a read that would go past the budget fails
 * with {@link LimitExceededException} instead of reading on. The parser only asks for more bytes
 * once it has consumed all it holds, so when the budget runs out the unit has taken at least that
 * many bytes without ending. Reads are cut at the budget, so at most the budget is read.
 *
 * <p>Thread safety: confine to the reading thread, except {@link #position()}, which any thread may
 * read.
 */
public final class CodecTailStream extends FilterInputStream {

  /** Power of two, larger than Jackson's 8000-byte input buffer. */
  private static final int WINDOW = 1 << 14;

  private static final int MASK = WINDOW - 1;

  /** Quoted characters before and after the error offset. */
  private static final int BEFORE = 80;

  private static final int AFTER = 80;

  /** ring[(i & MASK)] holds byte i of the stream, for total - WINDOW <= i < total. */
  private final byte[] ring = new byte[WINDOW];

  // Volatile so that position() may be read from another thread (a watch's inactivity guard);
  // written once or twice per read call, never per byte of a bulk read.
  private volatile long total;

  /** Reads may not go past this byte offset (exclusive); Long.MAX_VALUE when unlimited. */
  private long limit = Long.MAX_VALUE;

  /** Set when a read was refused for the limit; the codec reports the unit as too large. */
  private boolean limitExceeded;

  public CodecTailStream(InputStream in) {
    super(in);
  }

  /**
   * {@code in} itself if it is already a {@code CodecTailStream} (a list response the caller
   * wrapped to follow its progress), else a new one over it: stacking two would copy every byte
   * into two windows.
   */
  static CodecTailStream over(InputStream in) {
    return in instanceof CodecTailStream tail ? tail : new CodecTailStream(in);
  }

  /**
   * Lets at most {@code maxBytes} be read past byte offset {@code from} (the start of the unit
   * being decoded; negative means "from what has been read so far").
   */
  void limitFrom(long from, long maxBytes) {
    long start = from < 0 || from > total ? total : from;
    limit = maxBytes >= Long.MAX_VALUE - start ? Long.MAX_VALUE : start + maxBytes;
  }

  /** Whether a read was refused because the unit went past its budget. */
  boolean limitExceeded() {
    return limitExceeded;
  }

  private void checkLimit() throws LimitExceededException {
    if (total >= limit) {
      limitExceeded = true;
      throw new LimitExceededException(total);
    }
  }

  @Override
  public int read() throws IOException {
    checkLimit();
    int b = in.read();
    if (b >= 0) {
      ring[(int) (total & MASK)] = (byte) b;
      total++;
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    checkLimit();
    int n = in.read(b, off, (int) Math.min(len, limit - total));
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

  /** How many bytes have passed through so far; may be called from any thread. */
  public long position() {
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

  /** {@code 67108864 bytes (64 MiB)}, or {@code 100 bytes}, for messages. */
  static String describeBytes(long bytes) {
    long mib = 1024 * 1024;
    return bytes >= mib && bytes % mib == 0
        ? bytes + " bytes (" + bytes / mib + " MiB)" : bytes + " bytes";
  }

  /** A read refused because the unit being decoded went past its byte budget. */
  static final class LimitExceededException extends IOException {
    LimitExceededException(long offset) {
      super("byte budget of the unit being decoded used up at byte " + offset);
    }
  }
}

package io.kinformer.proto.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The JSON forms Go gives the special types: {@code time.Time} in RFC 3339 (metav1.Time, in
 * seconds; metav1.MicroTime, in microseconds; both in UTC) and {@code time.Duration}'s {@code
 * String()} (metav1.Duration).
 *
 * <p>Thread safety: stateless.
 */
final class GoFormat {
  private GoFormat() {}

  /**
   * The RFC 3339 form of a protobuf Timestamp, as {@code 2006-01-02T15:04:05Z} or, with {@code
   * micros}, {@code 2006-01-02T15:04:05.000000Z}.
   *
   * @throws IllegalArgumentException outside the years 0 to 9999, which Go does not write
   */
  static String time(long seconds, long nanos, boolean micros) {
    LocalDateTime t;
    try {
      t = LocalDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), ZoneOffset.UTC);
    } catch (DateTimeException | ArithmeticException e) {
      throw new IllegalArgumentException("time " + seconds + "s " + nanos + "ns is out of range");
    }
    if (t.getYear() < 0 || t.getYear() > 9999) {
      throw new IllegalArgumentException("time in year " + t.getYear() + " (Go writes 0-9999)");
    }
    StringBuilder sb = new StringBuilder(micros ? 27 : 20);
    pad(sb, t.getYear(), 4).append('-');
    pad(sb, t.getMonthValue(), 2).append('-');
    pad(sb, t.getDayOfMonth(), 2).append('T');
    pad(sb, t.getHour(), 2).append(':');
    pad(sb, t.getMinute(), 2).append(':');
    pad(sb, t.getSecond(), 2);
    if (micros) {
      pad(sb.append('.'), t.getNano() / 1000, 6);
    }
    return sb.append('Z').toString();
  }

  private static StringBuilder pad(StringBuilder sb, int value, int width) {
    String s = Integer.toString(value);
    for (int i = s.length(); i < width; i++) {
      sb.append('0');
    }
    return sb.append(s);
  }

  /** Go's {@code time.Duration(nanos).String()}, as {@code 1h2m3.5s}, {@code 1.5µs} or {@code 0s}. */
  static String duration(long nanos) {
    if (nanos == 0) {
      return "0s";
    }
    // Digits are produced from the right, into a reversed buffer.
    StringBuilder rev = new StringBuilder(24);
    long u = nanos < 0 ? -nanos : nanos; // unsigned: Long.MIN_VALUE stays as its magnitude
    if (Long.compareUnsigned(u, 1_000_000_000L) < 0) {
      int prec;
      rev.append('s');
      if (u < 1_000L) {
        prec = 0;
        rev.append('n');
      } else if (u < 1_000_000L) {
        prec = 3;
        rev.append('\u00b5');
      } else {
        prec = 6;
        rev.append('m');
      }
      u = fraction(rev, u, prec);
      integer(rev, u);
    } else {
      rev.append('s');
      u = fraction(rev, u, 9);
      integer(rev, Long.remainderUnsigned(u, 60));
      u = Long.divideUnsigned(u, 60);
      if (u > 0) {
        rev.append('m');
        integer(rev, u % 60);
        u /= 60;
        if (u > 0) {
          rev.append('h');
          integer(rev, u);
        }
      }
    }
    if (nanos < 0) {
      rev.append('-');
    }
    return rev.reverse().toString();
  }

  /** Appends (reversed) the {@code prec} fraction digits of u without trailing zeros; returns u / 10^prec. */
  private static long fraction(StringBuilder rev, long u, int prec) {
    boolean print = false;
    for (int i = 0; i < prec; i++) {
      long digit = Long.remainderUnsigned(u, 10);
      print = print || digit != 0;
      if (print) {
        rev.append((char) ('0' + digit));
      }
      u = Long.divideUnsigned(u, 10);
    }
    if (print) {
      rev.append('.');
    }
    return u;
  }

  private static void integer(StringBuilder rev, long u) {
    if (u == 0) {
      rev.append('0');
      return;
    }
    while (u != 0) {
      rev.append((char) ('0' + Long.remainderUnsigned(u, 10)));
      u = Long.divideUnsigned(u, 10);
    }
  }
}

package io.kinformer.client.internal.codec;

import java.util.Arrays;

/**
 * A bounded, lossy canonicalizing cache of short strings, so that equal values decoded from many
 * objects (namespaces, node names, label values, images, condition types, "True") share one {@code
 * String} instead of one copy per object.
 *
 * <p>Design: a direct-mapped table of {@value #SLOTS} slots, indexed by a hash of the characters.
 * A lookup that finds an equal string in its slot returns it; otherwise it creates the string and
 * puts it in the slot, evicting whatever was there. There is no global intern and no growth: the
 * table holds at most {@value #SLOTS} strings of at most {@value #MAX_LENGTH} characters, each
 * with a copy of its characters for fast comparison, so a pool retains at most about {@code SLOTS
 * × (80 + 3 × MAX_LENGTH)} bytes (~3.8 MB) plus the table (32 KB), and typically (strings of 10
 * to 40 characters) under 1.5 MB. Unique values (uids, names, resourceVersions) evict slots at
 * random; a value that recurs every few hundred objects survives that with high probability, and a
 * lost slot only costs one extra copy.
 *
 * <p>Thread safety: thread-safe without locks. Slots are read and written racily; that is safe
 * because entries are immutable with final fields (a racy read sees a null, an older or a newer,
 * always fully constructed entry), and every hit is checked for equality, so the worst
 * outcome of a race is a missed sharing, never a wrong value.
 */
public final class StringPool {

  /** Number of slots (a power of two). */
  static final int SLOTS = 8192;

  /** Longer strings are never pooled: long values are rarely repeated and costly to compare. */
  static final int MAX_LENGTH = 128;

  /**
   * A pooled string with its characters and hash: lookups compare against {@code chars} with the
   * vectorized {@link Arrays#equals(char[], int, int, char[], int, int)}.
   */
  private record Entry(String string, char[] chars, int hash) {}

  private final Entry[] slots = new Entry[SLOTS];

  /**
   * The pooled string equal to {@code chars[offset, offset + length)}, created if not pooled.
   * Strings longer than {@link #MAX_LENGTH} are created and not pooled.
   */
  public String get(char[] chars, int offset, int length) {
    if (length > MAX_LENGTH) {
      return new String(chars, offset, length);
    }
    if (length == 0) {
      return "";
    }
    int h = 0;
    int end = offset + length;
    for (int i = offset; i < end; i++) {
      h = 31 * h + chars[i];
    }
    int index = (h ^ (h >>> 15)) & (SLOTS - 1);
    Entry e = slots[index];
    if (e != null && e.hash == h && Arrays.equals(e.chars, 0, e.chars.length, chars, offset, end)) {
      return e.string;
    }
    char[] copy = Arrays.copyOfRange(chars, offset, end);
    String s = new String(copy);
    slots[index] = new Entry(s, copy, h);
    return s;
  }

  /** The pooled string equal to {@code s}, or {@code s} itself (which may then be pooled). */
  public String get(String s) {
    int length = s.length();
    if (length > MAX_LENGTH || length == 0) {
      return s;
    }
    int h = s.hashCode();
    int index = (h ^ (h >>> 15)) & (SLOTS - 1);
    Entry e = slots[index];
    if (e != null && e.hash == h && e.string.equals(s)) {
      return e.string;
    }
    slots[index] = new Entry(s, s.toCharArray(), h);
    return s;
  }

  /** The number of occupied slots (for tests; racy). */
  int size() {
    int n = 0;
    for (Entry e : slots) {
      if (e != null) {
        n++;
      }
    }
    return n;
  }
}

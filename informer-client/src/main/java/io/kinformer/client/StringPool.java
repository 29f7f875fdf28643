package io.kinformer.client;

/**
 * A bounded, lossy canonicalizing cache of short strings, so that equal values decoded from many
 * objects (namespaces, node names, label values, images, condition types, "True") share one {@code
 * String} instead of one copy per object.
 *
 * <p>Design: a direct-mapped table of {@value #SLOTS} slots, indexed by a hash of the characters.
 * A lookup that finds an equal string in its slot returns it; otherwise it creates the string and
 * puts it in the slot, evicting whatever was there. There is no global intern and no growth: the
 * table holds at most {@value #SLOTS} strings of at most {@value #MAX_LENGTH} characters, so a
 * pool retains at most about {@code SLOTS × (40 + MAX_LENGTH)} bytes (~1.4 MB) plus the table
 * (32 KB), and typically far less. Unique values (uids, names, resourceVersions) evict slots at
 * random; a value that recurs every few hundred objects survives that with high probability, and a
 * lost slot only costs one extra copy.
 *
 * <p>Thread safety: thread-safe without locks. Slots are read and written racily; that is safe
 * because {@code String} is immutable with final fields (a racy read sees a null, an older or a
 * newer, always fully constructed string), and every hit is checked for equality, so the worst
 * outcome of a race is a missed sharing, never a wrong value.
 */
final class StringPool {

  /** Number of slots (a power of two). */
  static final int SLOTS = 8192;

  /** Longer strings are never pooled: long values are rarely repeated and costly to compare. */
  static final int MAX_LENGTH = 128;

  private final String[] slots = new String[SLOTS];

  /**
   * The pooled string equal to {@code chars[offset, offset + length)}, created if not pooled.
   * Strings longer than {@link #MAX_LENGTH} are created and not pooled.
   */
  String get(char[] chars, int offset, int length) {
    if (length > MAX_LENGTH) {
      return new String(chars, offset, length);
    }
    if (length == 0) {
      return "";
    }
    int h = 0;
    for (int i = offset, end = offset + length; i < end; i++) {
      h = 31 * h + chars[i];
    }
    int index = (h ^ (h >>> 15)) & (SLOTS - 1);
    String pooled = slots[index];
    if (pooled != null && equal(pooled, chars, offset, length)) {
      return pooled;
    }
    String s = new String(chars, offset, length);
    slots[index] = s;
    return s;
  }

  /** The pooled string equal to {@code s}, or {@code s} itself (which may then be pooled). */
  String get(String s) {
    int length = s.length();
    if (length > MAX_LENGTH || length == 0) {
      return s;
    }
    int h = s.hashCode();
    int index = (h ^ (h >>> 15)) & (SLOTS - 1);
    String pooled = slots[index];
    if (pooled != null && pooled.equals(s)) {
      return pooled;
    }
    slots[index] = s;
    return s;
  }

  /** The number of occupied slots (for tests; racy). */
  int size() {
    int n = 0;
    for (String s : slots) {
      if (s != null) {
        n++;
      }
    }
    return n;
  }

  private static boolean equal(String pooled, char[] chars, int offset, int length) {
    if (pooled.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (pooled.charAt(i) != chars[offset + i]) {
        return false;
      }
    }
    return true;
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A shard selector: the {@code shardSelector} of a list or watch (Kubernetes' {@code
 * ShardedListAndWatch} feature, alpha since 1.36, KEP-5866), and the same test on the client side.
 *
 * <p>A selector is one or more {@code shardRange(field, 'start', 'end')} terms joined by {@code
 * ||}. An object matches when the 64-bit FNV-1a hash of the UTF-8 bytes of its field (the uid, or
 * the namespace, which is {@code ""} for a cluster-scoped object) lies in {@code [start, end)} of
 * some term. Bounds are {@code 0x} and exactly 16 lowercase hex digits, except the upper end of the
 * space, {@code 0x10000000000000000} (2^64). This is apimachinery's {@code pkg/sharding} ({@code
 * HashField}, {@code shardSelector.Matches}) and apiserver's {@code sharding.Parse}, whose error
 * messages {@link #parse} repeats; {@link #toString()} is the server's canonical form, which a
 * list response echoes in {@code metadata.shardInfo.selector}.
 *
 * <pre>{@code
 * ShardSelector mine = ShardSelector.ofShard(ShardSelector.Field.UID, 1, 3); // second of three
 * mine.toString(); // shardRange(object.metadata.uid, '0x5555555555555555', '0xaaaaaaaaaaaaaaaa')
 * }</pre>
 *
 * <p>Thread safety: immutable.
 */
public final class ShardSelector {

  /** The largest (exclusive) upper bound: 2^64. */
  public static final String END_OF_SPACE = "0x10000000000000000";

  private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final BigInteger SPACE = BigInteger.ONE.shiftLeft(64);

  /** The metadata fields the server can hash. */
  public enum Field {
    /** {@code object.metadata.uid}: spreads objects evenly; an object never changes shard. */
    UID("object.metadata.uid"),
    /** {@code object.metadata.namespace}: keeps a namespace together on one shard. */
    NAMESPACE("object.metadata.namespace");

    private final String path;

    Field(String path) {
      this.path = path;
    }

    /** The CEL-style path of the field, as written in a selector. */
    public String path() {
      return path;
    }

    static Field ofPath(String path) {
      for (Field f : values()) {
        if (f.path.equals(path)) {
          return f;
        }
      }
      throw new IllegalArgumentException("unsupported field path \"" + path
          + "\"; supported: object.metadata.uid, object.metadata.namespace");
    }
  }

  /**
   * One {@code shardRange} term.
   *
   * @param start the inclusive lower bound, {@code 0x} and 16 hex digits
   * @param end the exclusive upper bound, {@code 0x} and 16 hex digits, or {@link #END_OF_SPACE}
   */
  public record Range(String start, String end) {
    /** Checks the bounds as the server does. */
    public Range {
      start = checkHex(start, "hexStart");
      end = checkHex(end, "hexEnd");
      if (!hexLess(start, end)) {
        throw new IllegalArgumentException(
            "shard range start " + start + " must be less than end " + end);
      }
    }

    boolean contains(String hash) {
      return !hexLess(hash, start) && hexLess(hash, end);
    }
  }

  private final Field field;
  private final List<Range> ranges;

  private ShardSelector(Field field, List<Range> ranges) {
    this.field = field;
    this.ranges = List.copyOf(ranges);
  }

  /**
   * A selector of the given ranges of {@code field}.
   *
   * @throws IllegalArgumentException if {@code ranges} is empty
   */
  public static ShardSelector of(Field field, List<Range> ranges) {
    Objects.requireNonNull(field, "field");
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("a shard selector needs at least one range");
    }
    return new ShardSelector(field, ranges);
  }

  /**
   * Shard {@code index} of {@code count} equal, contiguous ranges of the hash space: the range from
   * {@code floor(index * 2^64 / count)} to {@code floor((index + 1) * 2^64 / count)}, as
   * kube-state-metrics splits it.
   *
   * @throws IllegalArgumentException unless {@code 0 <= index < count}
   */
  public static ShardSelector ofShard(Field field, int index, int count) {
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException(
          "shard index must be in [0, count) and count positive: index=" + index
              + " count=" + count);
    }
    return of(field, List.of(new Range(boundary(index, count), boundary(index + 1, count))));
  }

  private static String boundary(int i, int count) {
    if (i >= count) {
      return END_OF_SPACE;
    }
    BigInteger b = SPACE.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(count));
    return String.format(Locale.ROOT, "0x%016x", b.longValue());
  }

  /**
   * Parses a selector in the server's syntax.
   *
   * @throws IllegalArgumentException with the API server's message for a malformed selector
   */
  public static ShardSelector parse(String expression) {
    Objects.requireNonNull(expression, "expression");
    String expr = expression.strip();
    if (expr.isEmpty()) {
      throw new IllegalArgumentException(
          "empty shard selector is not allowed; omit the parameter for unfiltered lists");
    }
    Parser p = new Parser(expr);
    List<Field> fields = new ArrayList<>();
    List<Range> ranges = new ArrayList<>();
    p.or(fields, ranges);
    p.skipSpace();
    if (!p.atEnd()) {
      throw p.syntax("unexpected '" + expr.charAt(p.pos) + "'");
    }
    for (Field f : fields) {
      if (f != fields.get(0)) {
        throw new IllegalArgumentException("all shard ranges must use the same field, got \""
            + fields.get(0).path + "\" and \"" + f.path + "\"");
      }
    }
    return new ShardSelector(fields.get(0), ranges);
  }

  /** The field hashed. */
  public Field field() {
    return field;
  }

  /** The ranges, in the order written. */
  public List<Range> ranges() {
    return ranges;
  }

  /** Whether {@code object}'s field hashes into one of the ranges. */
  public boolean matches(HasMetadata object) {
    ObjectMeta meta = object.getMetadata();
    String value = meta == null ? null
        : field == Field.UID ? meta.getUid() : meta.getNamespace();
    return matchesValue(value == null ? "" : value);
  }

  /** Whether {@code value}, as the selector's field, hashes into one of the ranges. */
  public boolean matchesValue(String value) {
    String hash = String.format(Locale.ROOT, "0x%016x", hash(value));
    for (Range r : ranges) {
      if (r.contains(hash)) {
        return true;
      }
    }
    return false;
  }

  /** The 64-bit FNV-1a hash of the UTF-8 bytes of {@code value} (Go's {@code fnv.New64a}). */
  public static long hash(String value) {
    long h = FNV_OFFSET_BASIS;
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= FNV_PRIME;
    }
    return h;
  }

  /** The canonical form: {@code shardRange(path, 'start', 'end')} terms joined by {@code  || }. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Range r : ranges) {
      if (sb.length() > 0) {
        sb.append(" || ");
      }
      sb.append("shardRange(").append(field.path).append(", '").append(r.start)
          .append("', '").append(r.end).append("')");
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardSelector s && s.field == field && s.ranges.equals(ranges);
  }

  @Override
  public int hashCode() {
    return field.hashCode() * 31 + ranges.hashCode();
  }

  /** apimachinery's {@code HexLess}: normalised hex strings compare by length, then text. */
  private static boolean hexLess(String a, String b) {
    return a.length() != b.length() ? a.length() < b.length() : a.compareTo(b) < 0;
  }

  /** apiserver's {@code extractHexLiteral}. */
  private static String checkHex(String s, String name) {
    Objects.requireNonNull(s, name);
    if (!s.startsWith("0x")) {
      throw new IllegalArgumentException(name + " must have '0x' prefix, got \"" + s + "\"");
    }
    String hex = s.substring(2);
    if (hex.isEmpty()) {
      throw new IllegalArgumentException(name + ": hex value is required after '0x'");
    }
    if (hex.length() > 17) {
      throw new IllegalArgumentException(name + ": hex value too long (" + hex.length()
          + " chars, max 17): \"" + hex + "\"");
    }
    for (char c : hex.toCharArray()) {
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        throw new IllegalArgumentException(
            name + ": invalid hex character \"" + c + "\" in \"" + s + "\"");
      }
    }
    if (hex.length() == 17) {
      if (!s.equals(END_OF_SPACE)) {
        throw new IllegalArgumentException(name
            + ": 17-digit hex value must be '0x10000000000000000' (2^64), got \"" + s + "\"");
      }
    } else if (hex.length() != 16) {
      String padded = "0x" + "0".repeat(16 - hex.length()) + hex;
      throw new IllegalArgumentException(name + " must be a 0x-prefixed 16-digit hex value, got \""
          + s + "\" (did you mean \"" + padded + "\"?)");
    }
    return s;
  }

  /**
   * The subset of CEL the server accepts: {@code shardRange(path, 'lo', 'hi')} calls, {@code ||}
   * and parentheses. The server parses full CEL and then rejects everything else; the messages
   * for the rejections it can reach here are its own, syntax errors are worded for this parser.
   */
  private static final class Parser {
    private final String s;
    int pos;

    Parser(String s) {
      this.s = s;
    }

    void or(List<Field> fields, List<Range> ranges) {
      term(fields, ranges);
      skipSpace();
      while (s.startsWith("||", pos)) {
        pos += 2;
        term(fields, ranges);
        skipSpace();
      }
    }

    private void term(List<Field> fields, List<Range> ranges) {
      skipSpace();
      if (peek() == '(') {
        pos++;
        or(fields, ranges);
        expect(')');
        return;
      }
      String name = identifier();
      skipSpace();
      if (peek() != '(') {
        throw new IllegalArgumentException("unexpected expression kind "
            + (peek() == '.' || isIdentStart(peek()) ? "SelectKind" : "IdentKind")
            + "; expected shardRange() call or || operator");
      }
      if (!name.equals("shardRange")) {
        throw new IllegalArgumentException(
            "unsupported function \"" + name + "\"; only shardRange() and || are allowed");
      }
      pos++;
      List<String> args = new ArrayList<>();
      skipSpace();
      while (peek() != ')') {
        skipSpace();
        args.add(args.isEmpty() ? path() : literal(args.size() == 1 ? "hexStart" : "hexEnd"));
        skipSpace();
        if (peek() == ',') {
          pos++;
        } else if (peek() != ')') {
          throw syntax("expected ',' or ')'");
        }
      }
      pos++;
      if (args.size() != 3) {
        throw new IllegalArgumentException(
            "shardRange() requires exactly 3 arguments, got " + args.size());
      }
      fields.add(Field.ofPath(args.get(0)));
      ranges.add(new Range(args.get(1), args.get(2)));
    }

    private String path() {
      StringBuilder sb = new StringBuilder(identifier());
      skipSpace();
      while (peek() == '.') {
        pos++;
        skipSpace();
        sb.append('.').append(identifier());
        skipSpace();
      }
      return sb.toString();
    }

    private String literal(String name) {
      char q = peek();
      if (q != '\'' && q != '"') {
        throw new IllegalArgumentException(
            name + " must be a string literal (e.g. '0xff'), got expression kind "
                + (isIdentStart(q) ? "IdentKind" : "LiteralKind"));
      }
      int end = s.indexOf(q, pos + 1);
      if (end < 0) {
        throw syntax("unterminated string literal");
      }
      String v = s.substring(pos + 1, end);
      pos = end + 1;
      return v;
    }

    private String identifier() {
      skipSpace();
      int start = pos;
      if (!isIdentStart(peek())) {
        throw syntax("expected an identifier");
      }
      while (pos < s.length()
          && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) {
        pos++;
      }
      return s.substring(start, pos);
    }

    private static boolean isIdentStart(char c) {
      return Character.isLetter(c) || c == '_';
    }

    private void expect(char c) {
      skipSpace();
      if (peek() != c) {
        throw syntax("expected '" + c + "'");
      }
      pos++;
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    boolean atEnd() {
      return pos >= s.length();
    }

    private char peek() {
      return pos < s.length() ? s.charAt(pos) : '\0';
    }

    IllegalArgumentException syntax(String what) {
      return new IllegalArgumentException(
          "CEL parse error: Syntax error: " + what + " at offset " + pos);
    }
  }
}

package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzing of {@link LabelSelector#parse}, driven by {@link ModelCheck} (failures are shrunk to a
 * short input and reported with the seed that reproduces them).
 *
 * <ul>
 *   <li>Random strings, made of selector-ish fragments or of arbitrary UTF-16 characters: the only
 *       outcomes allowed are a selector or an {@link IllegalArgumentException} that quotes the
 *       input (no other exception, no stack overflow, no hang). A selector that parses must round
 *       trip ({@code parse(sel.toString())} equals it, with the same canonical form and hash) and
 *       match consistently (the selector, its reparsed copy and the conjunction of its
 *       requirements agree on random label sets).
 *   <li>Random valid selectors, generated as requirements and printed with random blanks, {@code
 *       ==} for {@code =}, shuffled and duplicated set values, in random order: they must parse to
 *       the selector the builder makes from the same requirements, and match exactly as an
 *       independent implementation of the Kubernetes semantics in this test says.
 * </ul>
 *
 * <p>Tries are modest so that the suite runs in seconds; {@code -Dkinformer.fuzz.tries=N} runs N
 * per property. The timeout only guards against a hang; it is not a performance assertion.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LabelSelectorFuzzTest {

  private static final int TRIES = 2_000;

  private static final String NAME_63 = "n" + "a".repeat(61) + "z";
  /** A DNS subdomain of exactly 253 characters: four labels of at most 63. */
  private static final String PREFIX_253 =
      ("p" + "q".repeat(61) + "r.").repeat(4).substring(0, 253);

  /** Pieces of selectors, valid or not; random concatenations reach every parser branch. */
  private static final List<String> FRAGMENTS =
      List.of(
          "a", "b", "app", "tier", "x.y", "A_b.c-9", "in", "notin", "example.com/", "k8s.io/app",
          "/", "=", "==", "!=", "!", "(", ")", ",", ">", "<", " ", "  ", "\t", "\n", "\r", "0",
          "1", "42", "-1", "+7", "007", "9223372036854775807", "9223372036854775808", "-", ".",
          "_", "v1", "é", "\u0000", "\uD83D", "\uD83D\uDE00", NAME_63, NAME_63 + "x",
          PREFIX_253 + "/k", PREFIX_253 + "s/k", "UPPER.com/", "a b", "in(", "(in)");

  @Test
  void parse_whenSelectorishString_givesSelectorOrIllegalArgumentThatRoundTrips() {
    ModelCheck.forAll("parse of selector-ish strings", TRIES, LabelSelectorFuzzTest::fragments)
        .describeWith(LabelSelectorFuzzTest::quoted)
        .check(input -> checkParse(String.join("", input)));
  }

  @Test
  void parse_whenArbitraryString_givesSelectorOrIllegalArgumentThatRoundTrips() {
    ModelCheck.forAll("parse of arbitrary strings", TRIES, LabelSelectorFuzzTest::arbitraryChars)
        .describeWith(LabelSelectorFuzzTest::quoted)
        .check(input -> checkParse(String.join("", input)));
  }

  @Test
  void parse_whenValidSelectorPrintedLoosely_equalsBuiltSelectorAndMatchesLikeKubernetes() {
    ModelCheck.forAll("valid selectors printed loosely", TRIES, LabelSelectorFuzzTest::requirements)
        .simplifyWith(LabelSelectorFuzzTest::simpler)
        .check(LabelSelectorFuzzTest::checkValidSelector);
  }

  /**
   * A regression test for a bug the fuzzer found (shrunk to {@code key>0} against the label value
   * {@code "\uff15"}, a fullwidth 5): {@code Requirement.matches} read the label value with {@link
   * Long#parseLong}, which accepts any Unicode decimal digit, where apimachinery's {@code
   * strconv.ParseInt} accepts ASCII digits only.
   */
  @Test
  void matches_whenLabelValueHasNonAsciiDigits_treatsItAsNotAnInteger() {
    LabelSelector gt = LabelSelector.parse("x>0");
    LabelSelector lt = LabelSelector.parse("x<9");

    assertThat(gt.matches(Map.of("x", "\uff15"))).isFalse(); // fullwidth 5
    assertThat(lt.matches(Map.of("x", "\u0663"))).isFalse(); // Arabic-Indic 3
  }

  /** The properties of one random string. */
  static void checkParse(String input) {
    LabelSelector sel;
    try {
      sel = LabelSelector.parse(input);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage())
          .as("the error message quotes the selector")
          .contains("\"" + input + "\"");
      return;
    }
    String canonical = sel.toString();
    LabelSelector again = LabelSelector.parse(canonical);
    assertThat(again).as("parse(toString()) of %s", quoted(List.of(input))).isEqualTo(sel);
    assertThat(again.toString()).as("canonical form is a fixed point").isEqualTo(canonical);
    assertThat(again.hashCode()).isEqualTo(sel.hashCode());
    assertThat(again.requirements()).isEqualTo(sel.requirements());
    assertThat(sel.isEmpty()).isEqualTo(sel.requirements().isEmpty());
    assertThat(sel.isEmpty()).isEqualTo(canonical.isEmpty());

    SplittableRandom random = new SplittableRandom(input.hashCode());
    for (Map<String, String> labels : labelSets(sel.requirements(), random)) {
      boolean expected = true;
      for (LabelSelector.Requirement r : sel.requirements()) {
        expected &= r.matches(labels);
      }
      assertThat(sel.matches(labels)).as("matches %s", labels).isEqualTo(expected);
      assertThat(again.matches(labels)).as("reparsed matches %s", labels).isEqualTo(expected);
    }
    assertThat(sel.matches(null)).isEqualTo(sel.matches(Map.of()));
  }

  /** The properties of one generated valid selector. */
  private static void checkValidSelector(List<Req> reqs) {
    LabelSelector.Builder builder = LabelSelector.builder();
    List<String> printed = new ArrayList<>();
    for (Req r : reqs) {
      builder.add(r.toRequirement());
      printed.add(r.print());
    }
    LabelSelector built = builder.build();
    String text = String.join(",", printed);
    LabelSelector parsed;
    try {
      parsed = LabelSelector.parse(text);
    } catch (IllegalArgumentException e) {
      throw new AssertionError("a valid selector was rejected: " + quoted(List.of(text)), e);
    }
    assertThat(parsed).as("parse of %s", quoted(List.of(text))).isEqualTo(built);
    assertThat(LabelSelector.parse(built.toString())).isEqualTo(built);

    List<LabelSelector.Requirement> requirements = built.requirements();
    SplittableRandom random = new SplittableRandom(reqs.hashCode());
    for (Map<String, String> labels : labelSets(requirements, random)) {
      boolean expected = true;
      for (Req r : reqs) {
        expected &= r.matches(labels);
      }
      assertThat(parsed.matches(labels))
          .as("%s matches %s", parsed, labels)
          .isEqualTo(expected);
    }
  }

  // ---------------------------------------------------------------- generators

  static List<String> fragments(SplittableRandom random) {
    int length = random.nextInt(random.nextInt(8) == 0 ? 200 : 16);
    List<String> out = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      out.add(FRAGMENTS.get(random.nextInt(FRAGMENTS.size())));
    }
    return out;
  }

  private static final String SPECIALS = "=!(),<> \t\n\r/.-_aZ09";

  static List<String> arbitraryChars(SplittableRandom random) {
    int length = random.nextInt(random.nextInt(8) == 0 ? 400 : 24);
    List<String> out = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      char c =
          switch (random.nextInt(3)) {
            case 0 -> (char) random.nextInt(0x80); // ASCII, controls included
            case 1 -> SPECIALS.charAt(random.nextInt(SPECIALS.length()));
            default -> (char) random.nextInt(0x10000); // any UTF-16 unit, lone surrogates too
          };
      out.add(String.valueOf(c));
    }
    return out;
  }

  /** Simpler variants of a generated requirement, for shrinking. */
  static List<Req> simpler(Req r) {
    List<Req> out = new ArrayList<>();
    if (!r.key().equals("a")) {
      out.add(new Req("a", r.op(), r.values(), r.style()));
    }
    if (r.values().size() > 1) {
      out.add(new Req(r.key(), r.op(), r.values().subList(0, 1), r.style()));
    }
    if (r.style() != 0) {
      out.add(new Req(r.key(), r.op(), r.values(), 0));
    }
    return out;
  }

  private static final List<String> KEYS =
      List.of("a", "app", "tier", "A_b.c-9", "in", "notin", "1", NAME_63, "example.com/app",
          "k8s.io/x", "a-b.c/d", PREFIX_253 + "/k");
  private static final List<String> VALUES =
      List.of("", "v", "V1", "a-b_c.d", "0", "7", "123", "in", "notin", NAME_63);
  private static final List<String> INTEGERS =
      List.of("0", "5", "42", "007", "9223372036854775807");
  private static final List<String> OPERATORS =
      List.of("=", "==", "!=", "in", "notin", "exists", "!", ">", "<");

  static List<Req> requirements(SplittableRandom random) {
    int count = random.nextInt(6);
    List<Req> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String key = KEYS.get(random.nextInt(KEYS.size()));
      String op = OPERATORS.get(random.nextInt(OPERATORS.size()));
      List<String> values = new ArrayList<>();
      switch (op) {
        case "=", "==", "!=" -> values.add(VALUES.get(random.nextInt(VALUES.size())));
        case ">", "<" -> values.add(INTEGERS.get(random.nextInt(INTEGERS.size())));
        case "in", "notin" -> {
          int n = 1 + random.nextInt(4);
          for (int j = 0; j < n; j++) {
            values.add(VALUES.get(random.nextInt(VALUES.size())));
          }
        }
        default -> {
          // exists and !: no values
        }
      }
      out.add(new Req(key, op, List.copyOf(values), random.nextLong()));
    }
    return out;
  }

  /**
   * Label sets to match against: built from the requirements' keys and values (so that every
   * requirement can be both met and missed), plus numbers around the bounds and invalid values.
   */
  private static List<Map<String, String>> labelSets(
      List<LabelSelector.Requirement> requirements, SplittableRandom random) {
    List<String> keys = new ArrayList<>(List.of("other"));
    // Besides plain values: signs, overflow, and non-ASCII digits (Arabic-Indic 3, fullwidth 5),
    // which Go's strconv.ParseInt rejects and Long.parseLong accepts.
    List<String> values =
        new ArrayList<>(
            List.of("", "zz", "-3", "+4", "10", "6", "99999999999999999999", "\u0663", "\uff15"));
    for (LabelSelector.Requirement r : requirements) {
      keys.add(r.key());
      values.addAll(r.values());
      for (String v : r.values()) {
        BigInteger n = integer(v);
        if (n != null) {
          values.add(n.add(BigInteger.ONE).toString());
          values.add(n.subtract(BigInteger.ONE).toString());
        }
      }
    }
    List<Map<String, String>> out = new ArrayList<>();
    out.add(Map.of());
    for (int i = 0; i < 24; i++) {
      Map<String, String> labels = new HashMap<>();
      for (String k : keys) {
        if (random.nextBoolean()) {
          labels.put(k, values.get(random.nextInt(values.size())));
        }
      }
      out.add(labels);
    }
    return out;
  }

  /** Go's strconv.ParseInt(s, 10, 64), written independently: sign, digits, 64-bit range. */
  private static BigInteger integer(String s) {
    if (!s.matches("[+-]?[0-9]+")) {
      return null;
    }
    BigInteger n = new BigInteger(s.startsWith("+") ? s.substring(1) : s);
    if (n.bitLength() > 63) {
      return null;
    }
    return n;
  }

  private static String quoted(List<String> parts) {
    String s = String.join("", parts);
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        sb.append(c);
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    return sb.append("\" (").append(s.length()).append(" chars)").toString();
  }

  /**
   * One generated requirement: key, operator as written ({@code exists} and {@code !} for the
   * value-less ones), values as written (in/notin may repeat), and a seed for how it is printed.
   */
  record Req(String key, String op, List<String> values, long style) {

    LabelSelector.Requirement toRequirement() {
      LabelSelector.Operator operator =
          switch (op) {
            case "=", "==" -> LabelSelector.Operator.EQUALS;
            case "!=" -> LabelSelector.Operator.NOT_EQUALS;
            case "in" -> LabelSelector.Operator.IN;
            case "notin" -> LabelSelector.Operator.NOT_IN;
            case "exists" -> LabelSelector.Operator.EXISTS;
            case "!" -> LabelSelector.Operator.DOES_NOT_EXIST;
            case ">" -> LabelSelector.Operator.GREATER_THAN;
            case "<" -> LabelSelector.Operator.LESS_THAN;
            default -> throw new IllegalStateException(op);
          };
      return new LabelSelector.Requirement(key, operator, values);
    }

    /** The requirement as text, with random blanks where the grammar allows them. */
    String print() {
      SplittableRandom random = new SplittableRandom(style);
      List<String> tokens = new ArrayList<>();
      switch (op) {
        case "exists" -> tokens.add(key);
        case "!" -> {
          tokens.add("!");
          tokens.add(key);
        }
        case "in", "notin" -> {
          tokens.add(key);
          tokens.add(op);
          tokens.add("(");
          List<String> shuffled = new ArrayList<>(values);
          Collections.shuffle(shuffled, new Random(style));
          for (int i = 0; i < shuffled.size(); i++) {
            if (i > 0) {
              tokens.add(",");
            }
            if (!shuffled.get(i).isEmpty()) {
              tokens.add(shuffled.get(i));
            }
          }
          tokens.add(")");
        }
        default -> {
          tokens.add(key);
          tokens.add(op);
          if (!values.get(0).isEmpty()) {
            tokens.add(values.get(0));
          }
        }
      }
      StringBuilder sb = new StringBuilder();
      sb.append(blanks(random, 0));
      for (int i = 0; i < tokens.size(); i++) {
        if (i > 0) {
          // A key followed by in/notin needs a blank between them; elsewhere blanks are optional.
          boolean wordsMeet = isWord(tokens.get(i - 1)) && isWord(tokens.get(i));
          sb.append(blanks(random, wordsMeet ? 1 : 0));
        }
        sb.append(tokens.get(i));
      }
      sb.append(blanks(random, 0));
      return sb.toString();
    }

    private static boolean isWord(String token) {
      return !token.isEmpty() && "=!(),<>".indexOf(token.charAt(0)) < 0;
    }

    private static String blanks(SplittableRandom random, int min) {
      int n = min + (random.nextInt(3) == 0 ? random.nextInt(3) : 0);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.append(" \t\r\n".charAt(random.nextInt(4)));
      }
      return sb.toString();
    }

    /** Kubernetes' Requirement.Matches, written independently of {@link LabelSelector}. */
    boolean matches(Map<String, String> labels) {
      String actual = labels.get(key);
      return switch (op) {
        case "=", "==", "in" -> actual != null && values.contains(actual);
        case "!=", "notin" -> actual == null || !values.contains(actual);
        case "exists" -> actual != null;
        case "!" -> actual == null;
        case ">", "<" -> {
          BigInteger a = actual == null ? null : integer(actual);
          BigInteger bound = Objects.requireNonNull(integer(values.get(0)));
          yield a != null && (op.equals(">") ? a.compareTo(bound) > 0 : a.compareTo(bound) < 0);
        }
        default -> throw new IllegalStateException(op);
      };
    }
  }
}

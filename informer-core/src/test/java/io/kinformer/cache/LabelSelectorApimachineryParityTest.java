package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Parity of {@link LabelSelector#parse} with apimachinery's {@code labels.Parse}, checked against
 * an oracle: {@link GoParser} below follows {@code Lexer} and {@code Parser} of {@code
 * pkg/labels/selector.go} statement by statement (greedy special-symbol scan, keywords that are
 * identifiers in value position, {@code parseIdentifiersList}'s handling of empty values), and
 * {@code NewRequirement}'s checks. Random near-selectors (requirements built from a grammar, then
 * sometimes corrupted with stray tokens) must be accepted by both or rejected by both, and when
 * accepted give the same requirements.
 *
 * <p>The other selector tests check that what we accept round trips and matches as Kubernetes
 * does; this one checks that we accept and reject the same strings and read them the same way.
 *
 * <p>Known divergence, left out of the alphabet: Go's lexer reads a NUL byte as the end of the
 * input (so {@code "a=b\u0000junk"} parses as {@code a=b}); we reject such a selector.
 */
class LabelSelectorApimachineryParityTest {

  private static final int TRIES = 100_000;

  private static final String[] KEYS = {
    "a", "x", "in", "notin", "a.b/c", "A", "_", "-x", "/a", "a/", "ab-c", "Up.com/k"
  };
  private static final String[] VALUES = {
    "a", "b", "in", "notin", "1", "01", "-1", "+1", "9223372036854775808", "", "A_b", "x-", "_"
  };
  private static final String[] OPERATORS = {
    "=", "==", "!=", " in ", " notin ", ">", "<", "", "!", "in", "notin"
  };
  private static final String[] NOISE = {"(", ")", ",", " ", "\t", "!", "=", "<", ">", "in", "a"};

  @Test
  void parse_acceptsRejectsAndReadsLikeApimachinery() {
    SplittableRandom random = new SplittableRandom(20251201);
    int accepted = 0;
    for (int i = 0; i < TRIES; i++) {
      String input = nearSelector(random);
      String expected;
      try {
        expected = new GoParser(input).parse();
        accepted++;
      } catch (GoParser.ParseError e) {
        expected = "error";
      }
      String actual;
      try {
        actual = describe(LabelSelector.parse(input));
      } catch (IllegalArgumentException e) {
        actual = "error";
      }
      assertThat(actual).as("parse of \"%s\"", input).isEqualTo(expected);
    }
    // The generator must reach both outcomes in earnest, or the comparison proves little.
    assertThat(accepted).isBetween(TRIES / 10, TRIES - TRIES / 10);
  }

  @Test
  void parse_whenSetValuesAreEmptyOrKeywords_readsThemLikeApimachinery() {
    // The cases of apimachinery's TestSetSelectorParser that exercise parseIdentifiersList.
    for (String input :
        List.of(
            "x in (abc,)", "x in ()", "x in (a,,)", "x in (a,,,,,,)", "x in (a,,a,,a,,a,,)",
            "x notin (, a)", "x notin ( )", "a in (x,y,notin, z,in)", "in in (in)", "x in (,)")) {
      assertThat(describe(LabelSelector.parse(input)))
          .as("parse of \"%s\"", input)
          .isEqualTo(new GoParser(input).parse());
    }
  }

  /** Requirements from the grammar with random keys, operators and values, sometimes corrupted. */
  private static String nearSelector(SplittableRandom r) {
    StringBuilder sb = new StringBuilder();
    int requirements = r.nextInt(0, 4);
    for (int i = 0; i < requirements; i++) {
      if (i > 0 || r.nextInt(10) == 0) {
        sb.append(r.nextInt(8) == 0 ? ",," : ",");
      }
      if (r.nextInt(4) == 0) {
        sb.append(' ');
      }
      String op = OPERATORS[r.nextInt(OPERATORS.length)];
      if (op.equals("!")) {
        sb.append('!').append(KEYS[r.nextInt(KEYS.length)]);
        continue;
      }
      sb.append(KEYS[r.nextInt(KEYS.length)]);
      if (op.isEmpty()) {
        continue;
      }
      sb.append(op);
      if (op.contains("in")) {
        sb.append(r.nextInt(6) == 0 ? "" : "(");
        int n = r.nextInt(0, 4);
        for (int j = 0; j < n; j++) {
          if (j > 0 || r.nextInt(5) == 0) {
            sb.append(',');
          }
          if (r.nextInt(3) != 0) {
            sb.append(VALUES[r.nextInt(VALUES.length)]);
          }
          if (r.nextInt(6) == 0) {
            sb.append(' ');
          }
        }
        if (r.nextInt(6) == 0) {
          sb.append(',');
        }
        sb.append(r.nextInt(6) == 0 ? "" : ")");
      } else {
        if (r.nextInt(5) == 0) {
          sb.append(' ');
        }
        sb.append(VALUES[r.nextInt(VALUES.length)]);
      }
    }
    int noise = r.nextInt(4) == 0 ? r.nextInt(1, 3) : 0;
    for (int k = 0; k < noise; k++) {
      sb.insert(r.nextInt(sb.length() + 1), NOISE[r.nextInt(NOISE.length)]);
    }
    return sb.toString();
  }

  private static String describe(LabelSelector selector) {
    List<String> out = new ArrayList<>();
    for (LabelSelector.Requirement req : selector.requirements()) {
      String op =
          switch (req.operator()) {
            case IN -> "in";
            case NOT_IN -> "notin";
            case EQUALS -> "=";
            case NOT_EQUALS -> "!=";
            case GREATER_THAN -> ">";
            case LESS_THAN -> "<";
            case EXISTS -> "exists";
            case DOES_NOT_EXIST -> "!";
          };
      out.add(requirement(req.key(), op, req.values()));
    }
    return sorted(out);
  }

  private static String requirement(String key, String op, List<String> values) {
    return key + " " + op + " [" + String.join(",", values) + "]";
  }

  private static String sorted(List<String> requirements) {
    List<String> copy = new ArrayList<>(requirements);
    Collections.sort(copy);
    return String.join("; ", copy);
  }

  /** apimachinery's selector parser, transliterated; parse() describes the result as above. */
  private static final class GoParser {

    enum Tok {
      ERROR, END, CLOSED_PAR, COMMA, BANG, DOUBLE_EQUALS, EQUALS, GREATER, IDENTIFIER, IN, LESS,
      NOT_EQUALS, NOT_IN, OPEN_PAR
    }

    record Item(Tok tok, String literal) {}

    static final class ParseError extends RuntimeException {
      private static final long serialVersionUID = 1L;

      ParseError(String message) {
        super(message);
      }
    }

    private static final Map<String, Tok> STRING_TO_TOKEN =
        Map.of(
            ")", Tok.CLOSED_PAR, ",", Tok.COMMA, "!", Tok.BANG, "==", Tok.DOUBLE_EQUALS,
            "=", Tok.EQUALS, ">", Tok.GREATER, "in", Tok.IN, "<", Tok.LESS,
            "!=", Tok.NOT_EQUALS, "notin", Tok.NOT_IN);

    private final String s;
    private int pos;
    private final List<Item> items = new ArrayList<>();
    private int position;

    GoParser(String s) {
      this.s = s;
    }

    private static Tok token(String literal) {
      return literal.equals("(") ? Tok.OPEN_PAR : STRING_TO_TOKEN.get(literal);
    }

    private static boolean isWhitespace(char c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isSpecialSymbol(char c) {
      return "=!(),><".indexOf(c) >= 0;
    }

    private char read() {
      return pos < s.length() ? s.charAt(pos++) : 0;
    }

    private Item lex() {
      char ch = read();
      while (isWhitespace(ch)) {
        ch = read();
      }
      if (ch == 0) {
        return new Item(Tok.END, "");
      }
      pos--;
      StringBuilder buffer = new StringBuilder();
      if (isSpecialSymbol(ch)) { // scanSpecialSymbol
        Item last = null;
        while (true) {
          char c = read();
          if (c == 0) {
            break;
          }
          if (!isSpecialSymbol(c)) {
            pos--;
            break;
          }
          buffer.append(c);
          Tok t = token(buffer.toString());
          if (t != null) {
            last = new Item(t, buffer.toString());
          } else if (last != null) {
            pos--;
            break;
          }
        }
        return last == null ? new Item(Tok.ERROR, buffer.toString()) : last;
      }
      while (true) { // scanIDOrKeyword
        char c = read();
        if (c == 0) {
          break;
        }
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer.append(c);
      }
      Tok t = token(buffer.toString());
      return new Item(t == null ? Tok.IDENTIFIER : t, buffer.toString());
    }

    private Item lookahead(boolean values) {
      Item i = items.get(position);
      return values && (i.tok() == Tok.IN || i.tok() == Tok.NOT_IN)
          ? new Item(Tok.IDENTIFIER, i.literal())
          : i;
    }

    private Item consume(boolean values) {
      Item i = lookahead(values);
      position++;
      return i;
    }

    String parse() {
      Item scanned;
      do {
        scanned = lex();
        items.add(scanned);
      } while (scanned.tok() != Tok.END);
      List<String> requirements = new ArrayList<>();
      while (true) {
        Tok t = lookahead(true).tok();
        if (t == Tok.END) {
          return sorted(requirements);
        }
        if (t != Tok.IDENTIFIER && t != Tok.BANG) {
          throw new ParseError("expected: !, identifier, or 'end of string'");
        }
        requirements.add(parseRequirement());
        Tok after = consume(true).tok();
        if (after == Tok.END) {
          return sorted(requirements);
        }
        if (after != Tok.COMMA) {
          throw new ParseError("expected: ',' or 'end of string'");
        }
        Tok next = lookahead(true).tok();
        if (next != Tok.IDENTIFIER && next != Tok.BANG) {
          throw new ParseError("expected: identifier after ','");
        }
      }
    }

    private String parseRequirement() {
      // parseKeyAndInferOperator
      String op = null;
      Item t = consume(true);
      if (t.tok() == Tok.BANG) {
        op = "!";
        t = consume(true);
      }
      if (t.tok() != Tok.IDENTIFIER) {
        throw new ParseError("expected: identifier");
      }
      String key = t.literal();
      if (LabelSelector.LabelSyntax.labelKeyError(key) != null) {
        throw new ParseError("invalid key");
      }
      Tok next = lookahead(true).tok();
      if ((next == Tok.END || next == Tok.COMMA) && op == null) {
        op = "exists";
      }
      if (op != null) {
        return requirement(key, op, List.of());
      }
      // parseOperator
      Tok opTok = consume(false).tok();
      op =
          switch (opTok) {
            case IN -> "in";
            case NOT_IN -> "notin";
            case EQUALS, DOUBLE_EQUALS -> "=";
            case NOT_EQUALS -> "!=";
            case GREATER -> ">";
            case LESS -> "<";
            default -> throw new ParseError("expected an operator");
          };
      TreeSet<String> values =
          opTok == Tok.IN || opTok == Tok.NOT_IN ? parseValues() : parseExactValue();
      // NewRequirement
      if (op.equals(">") || op.equals("<")) {
        for (String v : values) {
          if (!v.matches("[+-]?[0-9]+")) {
            throw new ParseError("not an integer");
          }
          try {
            Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw new ParseError("not an int64");
          }
        }
      }
      for (String v : values) {
        if (LabelSelector.LabelSyntax.labelValueError(v) != null) {
          throw new ParseError("invalid value");
        }
      }
      return requirement(key, op, List.copyOf(values));
    }

    private TreeSet<String> parseValues() {
      if (consume(true).tok() != Tok.OPEN_PAR) {
        throw new ParseError("expected: '('");
      }
      Tok t = lookahead(true).tok();
      if (t == Tok.CLOSED_PAR) {
        consume(true);
        return new TreeSet<>(List.of(""));
      }
      if (t != Tok.IDENTIFIER && t != Tok.COMMA) {
        throw new ParseError("expected: ',', ')' or identifier");
      }
      TreeSet<String> s = parseIdentifiersList();
      if (consume(true).tok() != Tok.CLOSED_PAR) {
        throw new ParseError("expected: ')'");
      }
      return s;
    }

    private TreeSet<String> parseIdentifiersList() {
      TreeSet<String> s = new TreeSet<>();
      while (true) {
        Item t = consume(true);
        if (t.tok() == Tok.IDENTIFIER) {
          s.add(t.literal());
          Tok next = lookahead(true).tok();
          if (next == Tok.CLOSED_PAR) {
            return s;
          }
          if (next != Tok.COMMA) {
            throw new ParseError("expected: ',' or ')'");
          }
        } else if (t.tok() == Tok.COMMA) {
          if (s.isEmpty()) {
            s.add("");
          }
          Tok next = lookahead(true).tok();
          if (next == Tok.CLOSED_PAR) {
            s.add("");
            return s;
          }
          if (next == Tok.COMMA) {
            s.add("");
          }
        } else {
          throw new ParseError("expected: ',', or identifier");
        }
      }
    }

    private TreeSet<String> parseExactValue() {
      Tok t = lookahead(true).tok();
      if (t == Tok.END || t == Tok.COMMA) {
        return new TreeSet<>(List.of(""));
      }
      Item value = consume(true);
      if (value.tok() != Tok.IDENTIFIER) {
        throw new ParseError("expected: identifier");
      }
      return new TreeSet<>(List.of(value.literal()));
    }
  }
}

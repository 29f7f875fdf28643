package io.kinformer.cache;

import io.kinformer.cache.LabelSelector.Operator;
import io.kinformer.cache.LabelSelector.Requirement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The lexer and recursive-descent parser behind {@link LabelSelector#parse}, a port of the {@code
 * Lexer} and {@code Parser} of apimachinery's {@code pkg/labels/selector.go}, with the same
 * grammar:
 *
 * <pre>
 * selector    ::= requirement | requirement "," selector
 * requirement ::= ["!"] KEY [ ("in" | "notin") "(" values ")"
 *                             | ("=" | "==" | "!=" | "&gt;" | "&lt;") VALUE ]
 * values      ::= VALUE | VALUE "," values
 * </pre>
 *
 * <p>As in Go: blanks separate tokens and are otherwise ignored; an identifier is any run of
 * characters that are neither blank nor one of {@code = ! ( ) , > <}; {@code in} and {@code notin}
 * are keywords only where an operator is expected (so {@code in in (in)} is valid); a missing value
 * after {@code =} is the empty value; empty entries in a value list are the empty value. Errors are
 * reported with the character position of the offending token.
 *
 * <p>Thread safety: confine to one thread (one instance parses one string).
 */
final class LabelSelectorParser {

  private enum Kind {
    END("end of string"),
    IDENTIFIER("identifier"),
    IN("in"),
    NOT_IN("notin"),
    OPEN_PAR("("),
    CLOSED_PAR(")"),
    COMMA(","),
    BANG("!"),
    EQUALS("="),
    DOUBLE_EQUALS("=="),
    NOT_EQUALS("!="),
    GREATER_THAN(">"),
    LESS_THAN("<");

    private final String text;

    Kind(String text) {
      this.text = text;
    }
  }

  private record Token(Kind kind, String text, int position) {

    /** The token's kind where a value is expected: the keywords are plain identifiers there. */
    Kind asValue() {
      return kind == Kind.IN || kind == Kind.NOT_IN ? Kind.IDENTIFIER : kind;
    }

    String describe() {
      return kind == Kind.END ? "end of string" : "'" + text + "'";
    }
  }

  private final String input;
  private final List<Token> tokens;
  private int next;

  LabelSelectorParser(String input) {
    this.input = input;
    this.tokens = lex(input);
  }

  List<Requirement> parse() {
    List<Requirement> requirements = new ArrayList<>();
    while (true) {
      Token t = peek();
      switch (t.asValue()) {
        case IDENTIFIER, BANG -> {
          requirements.add(parseRequirement());
          Token after = consume();
          if (after.kind() == Kind.END) {
            return requirements;
          }
          if (after.kind() != Kind.COMMA) {
            throw error(after, "',' or end of string");
          }
          Token first = peek();
          if (first.asValue() != Kind.IDENTIFIER && first.kind() != Kind.BANG) {
            throw error(first, "'!' or a label key after ','");
          }
        }
        case END -> {
          return requirements;
        }
        default -> throw error(t, "'!', a label key, or end of string");
      }
    }
  }

  private Requirement parseRequirement() {
    Token keyToken = consume();
    boolean negated = keyToken.kind() == Kind.BANG;
    if (negated) {
      keyToken = consume();
    }
    if (keyToken.asValue() != Kind.IDENTIFIER) {
      throw error(keyToken, "a label key");
    }
    String key = keyToken.text();
    Kind following = peek().kind();
    if (negated || following == Kind.END || following == Kind.COMMA) {
      // A bare key (or !key): the caller reports anything that is not ',' or the end.
      return build(keyToken, key, negated ? Operator.DOES_NOT_EXIST : Operator.EXISTS, List.of());
    }
    Token opToken = consume();
    Operator op =
        switch (opToken.kind()) {
          case IN -> Operator.IN;
          case NOT_IN -> Operator.NOT_IN;
          case EQUALS, DOUBLE_EQUALS -> Operator.EQUALS;
          case NOT_EQUALS -> Operator.NOT_EQUALS;
          case GREATER_THAN -> Operator.GREATER_THAN;
          case LESS_THAN -> Operator.LESS_THAN;
          default -> throw error(opToken, "an operator: in, notin, =, ==, !=, >, <");
        };
    List<String> values =
        op == Operator.IN || op == Operator.NOT_IN ? parseValueSet() : List.of(parseExactValue());
    return build(keyToken, key, op, values);
  }

  /** {@code "(" values ")"}, where {@code ()}, {@code (a,)} and {@code (,,a)} hold "". */
  private List<String> parseValueSet() {
    Token open = consume();
    if (open.kind() != Kind.OPEN_PAR) {
      throw error(open, "'('");
    }
    TreeSet<String> values = new TreeSet<>();
    boolean expectValue = true;
    while (true) {
      Token t = consume();
      switch (t.asValue()) {
        case IDENTIFIER -> {
          if (!expectValue) {
            throw error(t, "',' or ')'");
          }
          values.add(t.text());
          expectValue = false;
        }
        case COMMA -> {
          if (expectValue) {
            values.add(""); // "(," or ",,": an empty value before this comma
          }
          expectValue = true;
        }
        case CLOSED_PAR -> {
          if (expectValue) {
            values.add(""); // "()" or ",)": an empty value before the parenthesis
          }
          return List.copyOf(values);
        }
        default -> throw error(t, expectValue ? "a value, ',' or ')'" : "',' or ')'");
      }
    }
  }

  /** The value after {@code =}, {@code !=}, {@code >} or {@code <}; nothing there means "". */
  private String parseExactValue() {
    Kind k = peek().kind();
    if (k == Kind.END || k == Kind.COMMA) {
      return "";
    }
    Token t = consume();
    if (t.asValue() != Kind.IDENTIFIER) {
      throw error(t, "a value");
    }
    return t.text();
  }

  private Requirement build(Token keyToken, String key, Operator op, List<String> values) {
    try {
      return new Requirement(key, op, values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid label selector \""
              + input
              + "\": in the requirement at position "
              + keyToken.position()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private Token peek() {
    return tokens.get(next);
  }

  private Token consume() {
    Token t = tokens.get(next);
    if (t.kind() != Kind.END) {
      next++;
    }
    return t;
  }

  private IllegalArgumentException error(Token found, String expected) {
    return new IllegalArgumentException(
        "invalid label selector \""
            + input
            + "\": found "
            + found.describe()
            + " at position "
            + found.position()
            + ", expected "
            + expected);
  }

  /** Splits {@code s} into tokens; the last one is always END. Lexing itself never fails. */
  private static List<Token> lex(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (true) {
      while (i < n && isBlank(s.charAt(i))) {
        i++;
      }
      if (i >= n) {
        out.add(new Token(Kind.END, "", n));
        return out;
      }
      char c = s.charAt(i);
      int start = i;
      if (isSpecial(c)) {
        // Longest match, as Go's scanSpecialSymbol: only "==" and "!=" have two characters.
        char d = i + 1 < n ? s.charAt(i + 1) : 0;
        if (d == '=' && (c == '=' || c == '!')) {
          out.add(new Token(c == '=' ? Kind.DOUBLE_EQUALS : Kind.NOT_EQUALS, c + "=", start));
          i += 2;
          continue;
        }
        Kind kind =
            switch (c) {
              case '=' -> Kind.EQUALS;
              case '!' -> Kind.BANG;
              case '(' -> Kind.OPEN_PAR;
              case ')' -> Kind.CLOSED_PAR;
              case ',' -> Kind.COMMA;
              case '>' -> Kind.GREATER_THAN;
              default -> Kind.LESS_THAN;
            };
        out.add(new Token(kind, kind.text, start));
        i++;
        continue;
      }
      while (i < n && !isBlank(s.charAt(i)) && !isSpecial(s.charAt(i))) {
        i++;
      }
      String word = s.substring(start, i);
      Kind kind =
          switch (word) {
            case "in" -> Kind.IN;
            case "notin" -> Kind.NOT_IN;
            default -> Kind.IDENTIFIER;
          };
      out.add(new Token(kind, word, start));
    }
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static boolean isSpecial(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
  }
}

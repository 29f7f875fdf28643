package io.kinformer.client.internal.http;

/**
 * Checks a field selector's syntax as apimachinery's {@code fields.ParseSelector} does, so that a
 * malformed one is refused when an informer is asked for, not answered with a 400 on every list.
 * Terms are separated by unescaped commas; each is {@code key=value}, {@code key==value} or {@code
 * key!=value}; in a value, {@code \}, {@code ,} and {@code =} must be escaped with a backslash.
 * Which fields a resource supports is the server's to say.
 *
 * <p>Thread safety: stateless.
 */
public final class FieldSelectors {

  private static final String[] OPERATORS = {"!=", "==", "="};

  private FieldSelectors() {}

  /**
   * @throws IllegalArgumentException naming the selector and the term or escape it cannot read
   */
  public static void validate(String selector) {
    int start = 0;
    for (int i = 0; i < selector.length(); i++) {
      char c = selector.charAt(i);
      if (c == '\\') {
        i++; // the escaped character is part of the term
      } else if (c == ',') {
        validateTerm(selector, selector.substring(start, i));
        start = i + 1;
      }
    }
    validateTerm(selector, selector.substring(Math.min(start, selector.length())));
  }

  private static void validateTerm(String selector, String term) {
    if (term.isEmpty()) {
      return; // as apimachinery: "a=b,,c=d" has an empty term, skipped
    }
    for (int i = 0; i < term.length(); i++) {
      if (term.charAt(i) == '\\') {
        i++;
        continue;
      }
      for (String op : OPERATORS) {
        if (term.startsWith(op, i)) {
          validateValue(selector, term.substring(i + op.length()));
          return;
        }
      }
    }
    throw new IllegalArgumentException(
        "invalid field selector: '" + selector + "'; can't understand '" + term + "'");
  }

  private static void validateValue(String selector, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        if (i + 1 == value.length() || "\\,=".indexOf(value.charAt(i + 1)) < 0) {
          throw new IllegalArgumentException(
              "invalid field selector: '"
                  + selector
                  + "'; invalid escape sequence '"
                  + value.substring(i, Math.min(i + 2, value.length()))
                  + "' (escape \\, , and = with a backslash)");
        }
        i++;
      } else if (c == ',' || c == '=') {
        throw new IllegalArgumentException(
            "invalid field selector: '"
                + selector
                + "'; unescaped '"
                + c
                + "' in the value '"
                + value
                + "' (escape it with a backslash)");
      }
    }
  }
}

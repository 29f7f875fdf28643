package io.kinformer.testing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Label selector parsing and matching, with Kubernetes' grammar: {@code k=v}, {@code k==v}, {@code
 * k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}, {@code k>1}, {@code
 * k<1}, joined by commas. {@code !=} and {@code notin} also match objects without the label.
 *
 * <p>Thread safety: stateless; the returned predicates are immutable.
 */
final class LabelSelectors {

  private LabelSelectors() {}

  /**
   * @throws IllegalArgumentException naming the problem, for a malformed selector
   */
  static Predicate<Map<String, String>> parse(String selector) {
    List<Predicate<Map<String, String>>> reqs = new ArrayList<>();
    for (String part : splitTopLevel(selector)) {
      String p = part.trim();
      if (p.isEmpty()) {
        throw new IllegalArgumentException(
            "unable to parse requirement: found '', expected: identifier");
      }
      reqs.add(requirement(p));
    }
    return labels -> {
      for (Predicate<Map<String, String>> r : reqs) {
        if (!r.test(labels)) {
          return false;
        }
      }
      return true;
    };
  }

  private static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }

  private static Predicate<Map<String, String>> requirement(String p) {
    if (p.startsWith("!")) {
      String key = checkKey(p.substring(1).trim());
      return m -> !m.containsKey(key);
    }
    int paren = p.indexOf('(');
    if (paren >= 0) {
      if (!p.endsWith(")")) {
        throw new IllegalArgumentException("unable to parse requirement: missing ')' in " + p);
      }
      String head = p.substring(0, paren).trim();
      Set<String> values = new HashSet<>();
      for (String v : p.substring(paren + 1, p.length() - 1).split(",")) {
        values.add(checkValue(v.trim()));
      }
      if (head.endsWith(" notin")) {
        String key = checkKey(head.substring(0, head.length() - 6).trim());
        return m -> !values.contains(m.get(key));
      }
      if (head.endsWith(" in")) {
        String key = checkKey(head.substring(0, head.length() - 3).trim());
        return m -> m.containsKey(key) && values.contains(m.get(key));
      }
      throw new IllegalArgumentException(
          "unable to parse requirement: expected 'in' or 'notin' in " + p);
    }
    for (String op : new String[] {"!=", "==", "=", ">", "<"}) {
      int i = p.indexOf(op);
      if (i >= 0) {
        String rawKey = p.substring(0, i).trim();
        if (rawKey.isEmpty()) {
          throw new IllegalArgumentException(
              "unable to parse requirement: found '" + op + "', expected: identifier");
        }
        String key = checkKey(rawKey);
        String value = checkValue(p.substring(i + op.length()).trim());
        switch (op) {
          case "!=":
            return m -> !value.equals(m.get(key));
          case ">":
          case "<":
            long bound = parseLong(value, p);
            boolean gt = op.equals(">");
            return m -> {
              String v = m.get(key);
              if (v == null) {
                return false;
              }
              try {
                long n = Long.parseLong(v);
                return gt ? n > bound : n < bound;
              } catch (NumberFormatException e) {
                return false;
              }
            };
          default:
            return m -> value.equals(m.get(key));
        }
      }
    }
    String key = checkKey(p);
    return m -> m.containsKey(key);
  }

  private static long parseLong(String v, String requirement) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer: "
              + requirement);
    }
  }

  private static String checkKey(String key) {
    if (key.isEmpty() || !key.matches("([a-z0-9A-Z.-]+/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?")
        || key.length() > 316) {
      throw new IllegalArgumentException("unable to parse requirement: invalid label key: " + key);
    }
    return key;
  }

  private static String checkValue(String value) {
    if (!value.isEmpty() && !value.matches("[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?")) {
      throw new IllegalArgumentException(
          "unable to parse requirement: invalid label value: \"" + value + "\"");
    }
    return value;
  }
}

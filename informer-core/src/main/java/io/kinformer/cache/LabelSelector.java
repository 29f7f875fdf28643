package io.kinformer.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A Kubernetes label selector: a conjunction of requirements on an object's labels, parsed from
 * the string syntax of {@code ?labelSelector=} and {@code kubectl -l} (a port of apimachinery's
 * {@code pkg/labels/selector.go}).
 *
 * <p>Syntax, requirements separated by commas (AND); blanks (space, tab, CR, LF) between tokens are
 * ignored:
 *
 * <ul>
 *   <li>{@code key=value}, {@code key==value}: the label is present with that value;
 *   <li>{@code key!=value}: the label is absent or has another value;
 *   <li>{@code key in (v1,v2)}: the label is present with one of the values;
 *   <li>{@code key notin (v1,v2)}: the label is absent or has none of the values;
 *   <li>{@code key}: the label is present; {@code !key}: the label is absent;
 *   <li>{@code key>5}, {@code key<5}: the label is present and is an integer greater (less) than
 *       the bound.
 * </ul>
 *
 * <p>Note that {@code !=} and {@code notin} match objects that lack the key, as in Kubernetes. The
 * empty string selects everything. Keys are {@code [prefix/]name} where the optional prefix is a
 * DNS subdomain (at most 253 characters) and the name at most 63 characters of {@code
 * [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?}; values are empty or follow the same rule as names. As
 * in apimachinery, a value may be empty ({@code key=}, {@code key in (a,)}), and {@code in} /
 * {@code notin} value lists are sets (sorted, without duplicates).
 *
 * <p>{@link #toString()} gives a canonical form that {@link #parse} reads back into an equal
 * selector: requirements sorted by key (then operator and values), {@code ==} written as {@code
 * =}, set values sorted. Two selectors are {@link #equals equal} when their canonical forms are.
 *
 * <p>{@link #nothing()} is the one selector outside that syntax (apimachinery's {@code
 * labels.Nothing()}): it matches no object. Like apimachinery's, its string form is {@code ""},
 * the same as {@link #everything()}'s, so it cannot be parsed back nor sent to a server (where
 * {@code ""} selects everything); it is equal only to itself.
 *
 * <p>Thread safety: immutable.
 */
public final class LabelSelector {

  private static final LabelSelector EVERYTHING = new LabelSelector(List.of());

  private static final LabelSelector NOTHING = new LabelSelector();

  private static final Comparator<Requirement> ORDER =
      Comparator.comparing(Requirement::key)
          .thenComparing(Requirement::operator)
          .thenComparing(r -> String.join(",", r.values()));

  /** Sorted by {@link #ORDER}; unmodifiable. Empty means "select everything". */
  private final List<Requirement> requirements;

  /** The canonical form, computed once: it backs toString, equals and hashCode. */
  private final String canonical;

  /** True for {@link #NOTHING} only, which has no requirements yet matches nothing. */
  private final boolean matchesNothing;

  /** The selector that matches nothing. */
  private LabelSelector() {
    this.requirements = List.of();
    this.canonical = "";
    this.matchesNothing = true;
  }

  private LabelSelector(List<Requirement> requirements) {
    List<Requirement> sorted = new ArrayList<>(requirements);
    sorted.sort(ORDER);
    this.requirements = List.copyOf(sorted);
    StringBuilder sb = new StringBuilder();
    for (Requirement r : this.requirements) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      r.appendTo(sb);
    }
    this.canonical = sb.toString();
    this.matchesNothing = false;
  }

  /** The selector that matches every object (the empty selector). */
  public static LabelSelector everything() {
    return EVERYTHING;
  }

  /**
   * The selector that matches no object (apimachinery's {@code labels.Nothing()}), for example
   * what an absent {@code spec.selector} stands for (see {@link #from}). It is not {@link
   * #isEmpty() empty}, has no {@link #requirements()}, and its {@link #toString()} is {@code ""}:
   * do not parse it back or send it to a server, where {@code ""} selects everything.
   */
  public static LabelSelector nothing() {
    return NOTHING;
  }

  /**
   * Parses a selector in the Kubernetes string syntax (see the class Javadoc).
   *
   * @throws IllegalArgumentException if the syntax is wrong or a key or value is invalid; the
   *     message quotes the selector, gives the position (0-based character index) and token where
   *     parsing failed and says what was expected
   */
  public static LabelSelector parse(String selector) {
    Objects.requireNonNull(selector, "selector");
    List<Requirement> parsed = new LabelSelectorParser(selector).parse();
    return parsed.isEmpty() ? EVERYTHING : new LabelSelector(parsed);
  }

  /**
   * The equality selector for {@code labels} (a {@code matchLabels} map): every key must be
   * present with the given value. An empty map gives {@link #everything()}.
   *
   * @throws IllegalArgumentException if a key or value is not a valid label key or value
   */
  public static LabelSelector of(Map<String, String> labels) {
    Objects.requireNonNull(labels, "labels");
    if (labels.isEmpty()) {
      return EVERYTHING;
    }
    List<Requirement> reqs = new ArrayList<>(labels.size());
    labels.forEach((k, v) -> reqs.add(new Requirement(k, Operator.EQUALS, List.of(v))));
    return new LabelSelector(reqs);
  }

  /**
   * The selector that a Kubernetes {@code metav1.LabelSelector} (as found in a Deployment's or a
   * Service's {@code spec.selector}) stands for, as apimachinery's {@code LabelSelectorAsSelector}:
   * {@code matchLabels} become {@code key=value}, {@code matchExpressions} with the operators
   * {@code In}, {@code NotIn}, {@code Exists} and {@code DoesNotExist} become the corresponding
   * requirements, and an empty selector selects everything.
   *
   * <p>An absent ({@code null}) selector selects nothing: it gives {@link #nothing()}, as in
   * apimachinery.
   *
   * @throws IllegalArgumentException if an operator is unknown, or a key or value is invalid, or
   *     the number of values does not suit the operator
   */
  public static LabelSelector from(
      io.fabric8.kubernetes.api.model.@Nullable LabelSelector selector) {
    if (selector == null) {
      return NOTHING;
    }
    List<Requirement> reqs = new ArrayList<>();
    Map<String, String> matchLabels = selector.getMatchLabels();
    if (matchLabels != null) {
      matchLabels.forEach((k, v) -> reqs.add(new Requirement(k, Operator.EQUALS, List.of(v))));
    }
    List<io.fabric8.kubernetes.api.model.LabelSelectorRequirement> expressions =
        selector.getMatchExpressions();
    if (expressions != null) {
      for (io.fabric8.kubernetes.api.model.LabelSelectorRequirement e : expressions) {
        String op = e.getOperator();
        Operator operator =
            switch (op == null ? "" : op) {
              case "In" -> Operator.IN;
              case "NotIn" -> Operator.NOT_IN;
              case "Exists" -> Operator.EXISTS;
              case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
              default ->
                  throw new IllegalArgumentException(
                      "\""
                          + op
                          + "\" is not a valid label selector operator (expected In, NotIn,"
                          + " Exists or DoesNotExist) in the expression on key \""
                          + e.getKey()
                          + "\"");
            };
        List<String> values = e.getValues() == null ? List.of() : e.getValues();
        reqs.add(new Requirement(e.getKey(), operator, values));
      }
    }
    return reqs.isEmpty() ? EVERYTHING : new LabelSelector(reqs);
  }

  /** A builder starting with no requirements. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * True if this selector does not restrict anything: it has no requirements and is not {@link
   * #nothing()} (apimachinery's {@code Empty()}).
   */
  public boolean isEmpty() {
    return requirements.isEmpty() && !matchesNothing;
  }

  /** The requirements, sorted as in {@link #toString()}; unmodifiable. */
  public List<Requirement> requirements() {
    return requirements;
  }

  /**
   * Whether {@code labels} satisfy every requirement.
   *
   * @param labels an object's labels; {@code null} means no labels
   */
  public boolean matches(@Nullable Map<String, String> labels) {
    if (matchesNothing) {
      return false;
    }
    Map<String, String> ls = labels == null ? Map.of() : labels;
    for (Requirement r : requirements) {
      if (!r.matches(ls)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof LabelSelector other
        && matchesNothing == other.matchesNothing
        && canonical.equals(other.canonical);
  }

  @Override
  public int hashCode() {
    return matchesNothing ? -1 : canonical.hashCode();
  }

  /**
   * The canonical form: {@link #parse} of it gives an equal selector; "" for everything, and ""
   * for {@link #nothing()} too (as apimachinery's), which is the one selector it does not give
   * back.
   */
  @Override
  public String toString() {
    return canonical;
  }

  /**
   * The operator of a {@link Requirement}.
   *
   * <p>Thread safety: immutable.
   */
  public enum Operator {
    /** {@code key=value} (also written {@code key==value}). */
    EQUALS("="),
    /** {@code key!=value}; matches objects without the key. */
    NOT_EQUALS("!="),
    /** {@code key in (v1,v2)}. */
    IN(" in "),
    /** {@code key notin (v1,v2)}; matches objects without the key. */
    NOT_IN(" notin "),
    /** {@code key}. */
    EXISTS(""),
    /** {@code !key}. */
    DOES_NOT_EXIST(""),
    /** {@code key>n}: the label value is an integer greater than n. */
    GREATER_THAN(">"),
    /** {@code key<n}: the label value is an integer less than n. */
    LESS_THAN("<");

    private final String symbol;

    Operator(String symbol) {
      this.symbol = symbol;
    }
  }

  /**
   * One requirement of a selector: a label key, an operator and its values (apimachinery's {@code
   * Requirement}).
   *
   * <p>Thread safety: immutable.
   *
   * @param key a valid label key
   * @param operator the operator
   * @param values one value for {@code =}, {@code !=}, {@code >}, {@code <} (an integer for the
   *     last two); at least one for {@code in}/{@code notin} (stored sorted and without
   *     duplicates); none for {@code exists}/{@code !}
   */
  public record Requirement(String key, Operator operator, List<String> values) {

    /**
     * Validates the key, the number of values for the operator and each value, and normalizes the
     * values of {@code in}/{@code notin} to a sorted set.
     *
     * @throws IllegalArgumentException naming the bad key or value
     */
    public Requirement {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operator, "operator");
      Objects.requireNonNull(values, "values");
      String keyError = LabelSyntax.labelKeyError(key);
      if (keyError != null) {
        throw new IllegalArgumentException("invalid label key \"" + key + "\": " + keyError);
      }
      switch (operator) {
        case IN, NOT_IN -> {
          if (values.isEmpty()) {
            throw new IllegalArgumentException(
                "requirement on \"" + key + "\": 'in' and 'notin' need at least one value");
          }
          values = List.copyOf(new TreeSet<>(values));
        }
        case EQUALS, NOT_EQUALS -> {
          requireOneValue(key, operator, values);
          values = List.copyOf(values);
        }
        case GREATER_THAN, LESS_THAN -> {
          requireOneValue(key, operator, values);
          values = List.copyOf(values);
          if (parseLong(values.get(0)) == null) {
            throw new IllegalArgumentException(
                "requirement on \""
                    + key
                    + "\": the value of '>' and '<' must be an integer, got \""
                    + values.get(0)
                    + "\"");
          }
        }
        case EXISTS, DOES_NOT_EXIST -> {
          if (!values.isEmpty()) {
            throw new IllegalArgumentException(
                "requirement on \""
                    + key
                    + "\": exists and does-not-exist take no values, got "
                    + values);
          }
          values = List.of();
        }
        default -> throw new IllegalStateException("unknown operator " + operator);
      }
      for (String v : values) {
        String valueError = LabelSyntax.labelValueError(v);
        if (valueError != null) {
          throw new IllegalArgumentException(
              "invalid value \"" + v + "\" for label key \"" + key + "\": " + valueError);
        }
      }
    }

    private static void requireOneValue(String key, Operator operator, List<String> values) {
      if (values.size() != 1) {
        throw new IllegalArgumentException(
            "requirement on \""
                + key
                + "\": operator '"
                + operator.symbol.trim()
                + "' needs exactly one value, got "
                + values);
      }
    }

    /** Whether {@code labels} satisfy this requirement (see apimachinery Requirement.Matches). */
    public boolean matches(Map<String, String> labels) {
      switch (operator) {
        case EQUALS, IN -> {
          String v = labels.get(key);
          return v != null && values.contains(v);
        }
        case NOT_EQUALS, NOT_IN -> {
          String v = labels.get(key);
          return v == null || !values.contains(v);
        }
        case EXISTS -> {
          return labels.containsKey(key);
        }
        case DOES_NOT_EXIST -> {
          return !labels.containsKey(key);
        }
        case GREATER_THAN, LESS_THAN -> {
          String v = labels.get(key);
          Long actual = v == null ? null : parseLong(v);
          if (actual == null) {
            return false;
          }
          long bound = Long.parseLong(values.get(0));
          return operator == Operator.GREATER_THAN ? actual > bound : actual < bound;
        }
        default -> throw new IllegalStateException("unknown operator " + operator);
      }
    }

    /** The canonical text of this requirement, which the parser reads back. */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder();
      appendTo(sb);
      return sb.toString();
    }

    void appendTo(StringBuilder sb) {
      if (operator == Operator.DOES_NOT_EXIST) {
        sb.append('!');
      }
      sb.append(key).append(operator.symbol);
      switch (operator) {
        case IN, NOT_IN -> sb.append('(').append(String.join(",", values)).append(')');
        case EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN -> sb.append(values.get(0));
        default -> {
          // exists / does not exist: the key says it all
        }
      }
    }

    /** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no blanks. */
    private static @Nullable Long parseLong(String s) {
      // Long.parseLong accepts any Unicode decimal digit; Go accepts ASCII digits only.
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if ((c < '0' || c > '9') && !(i == 0 && (c == '+' || c == '-'))) {
          return null;
        }
      }
      try {
        return Long.parseLong(s);
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }

  /**
   * Builds a selector requirement by requirement; every method validates its arguments at once.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {

    private final List<Requirement> requirements = new ArrayList<>();

    private Builder() {}

    /** Adds {@code key=value}. */
    public Builder equal(String key, String value) {
      return add(new Requirement(key, Operator.EQUALS, List.of(value)));
    }

    /** Adds {@code key!=value} (also matches objects without the key). */
    public Builder notEqual(String key, String value) {
      return add(new Requirement(key, Operator.NOT_EQUALS, List.of(value)));
    }

    /** Adds {@code key in (values)}; at least one value. */
    public Builder in(String key, String... values) {
      return add(new Requirement(key, Operator.IN, Arrays.asList(values)));
    }

    /** Adds {@code key in (values)}; at least one value. */
    public Builder in(String key, Collection<String> values) {
      return add(new Requirement(key, Operator.IN, List.copyOf(values)));
    }

    /** Adds {@code key notin (values)} (also matches objects without the key). */
    public Builder notIn(String key, String... values) {
      return add(new Requirement(key, Operator.NOT_IN, Arrays.asList(values)));
    }

    /** Adds {@code key notin (values)} (also matches objects without the key). */
    public Builder notIn(String key, Collection<String> values) {
      return add(new Requirement(key, Operator.NOT_IN, List.copyOf(values)));
    }

    /** Adds {@code key}: the label must be present. */
    public Builder exists(String key) {
      return add(new Requirement(key, Operator.EXISTS, List.of()));
    }

    /** Adds {@code !key}: the label must be absent. */
    public Builder doesNotExist(String key) {
      return add(new Requirement(key, Operator.DOES_NOT_EXIST, List.of()));
    }

    /**
     * Adds {@code key>bound}.
     *
     * @throws IllegalArgumentException if {@code bound} is negative: the value is a label value,
     *     which cannot start with '-'
     */
    public Builder greaterThan(String key, long bound) {
      return add(new Requirement(key, Operator.GREATER_THAN, List.of(Long.toString(bound))));
    }

    /**
     * Adds {@code key<bound}.
     *
     * @throws IllegalArgumentException if {@code bound} is negative (see {@link #greaterThan})
     */
    public Builder lessThan(String key, long bound) {
      return add(new Requirement(key, Operator.LESS_THAN, List.of(Long.toString(bound))));
    }

    /** Adds a requirement built elsewhere. */
    public Builder add(Requirement requirement) {
      requirements.add(Objects.requireNonNull(requirement, "requirement"));
      return this;
    }

    /** The selector with every requirement added so far. */
    public LabelSelector build() {
      return requirements.isEmpty() ? EVERYTHING : new LabelSelector(requirements);
    }
  }

  /** Label key and value syntax (apimachinery's content.IsLabelKey and IsLabelValue). */
  static final class LabelSyntax {

    private static final int NAME_MAX = 63;
    private static final int PREFIX_MAX = 253;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
        Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private LabelSyntax() {}

    /** Why {@code key} is not a valid label key, or null if it is. */
    static @Nullable String labelKeyError(String key) {
      int slash = key.indexOf('/');
      String name = key;
      if (slash >= 0) {
        if (key.indexOf('/', slash + 1) >= 0) {
          return "a label key is an optional DNS subdomain prefix and '/' followed by a name"
              + " (e.g. 'example.com/MyName'), but it has more than one '/'";
        }
        String prefix = key.substring(0, slash);
        name = key.substring(slash + 1);
        if (prefix.isEmpty()) {
          return "the prefix part must not be empty";
        }
        if (prefix.length() > PREFIX_MAX) {
          return "the prefix part must be no more than " + PREFIX_MAX + " characters";
        }
        if (!DNS_SUBDOMAIN.matcher(prefix).matches()) {
          return "the prefix part must be a lowercase RFC 1123 subdomain (lower case"
              + " alphanumeric characters, '-' or '.', starting and ending with an alphanumeric"
              + " character, e.g. 'example.com')";
        }
      }
      if (name.isEmpty()) {
        return "the name part must not be empty";
      }
      if (name.length() > NAME_MAX) {
        return "the name part must be no more than " + NAME_MAX + " characters";
      }
      if (!NAME.matcher(name).matches()) {
        return "the name part must consist of alphanumeric characters, '-', '_' or '.', and must"
            + " start and end with an alphanumeric character (e.g. 'MyName', 'my.name',"
            + " '123-abc')";
      }
      return null;
    }

    /** Why {@code value} is not a valid label value, or null if it is. */
    static @Nullable String labelValueError(String value) {
      if (value.length() > NAME_MAX) {
        return "must be no more than " + NAME_MAX + " characters";
      }
      if (!value.isEmpty() && !NAME.matcher(value).matches()) {
        return "a label value must be empty or consist of alphanumeric characters, '-', '_' or"
            + " '.', and must start and end with an alphanumeric character (e.g. 'MyValue',"
            + " 'my_value', '12345')";
      }
      return null;
    }
  }
}

package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.cache.LabelSelector.Operator;
import io.kinformer.cache.LabelSelector.Requirement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Cases ported from apimachinery's pkg/labels/selector_test.go, plus our error messages. */
class LabelSelectorTest {

  record ParseCase(String name, String input, String canonical) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ParseCase> validSelectors() {
    return Stream.of(
        new ParseCase("empty", "", ""),
        new ParseCase("only blanks", " \t\r\n", ""),
        new ParseCase("equalities sorted by key", "z=c,x=a,y=b", "x=a,y=b,z=c"),
        new ParseCase("not equals", "x!=a,y=b", "x!=a,y=b"),
        new ParseCase("double equals is equals", "x==a", "x=a"),
        new ParseCase("empty value", "x=", "x="),
        new ParseCase("empty value before blank", "x= ", "x="),
        new ParseCase("empty values before comma", "x=,z= ", "x=,z="),
        new ParseCase("not equals empty", "x!=", "x!="),
        new ParseCase("does not exist", "!x", "!x"),
        new ParseCase("exists", "x", "x"),
        new ParseCase("exists with trailing blank", "a ", "a"),
        new ParseCase("leading carriage return", "\rx", "x"),
        new ParseCase("greater than", "x>1", "x>1"),
        new ParseCase("greater and less than", "x>1,z<5", "x>1,z<5"),
        new ParseCase("prefixed key", "this-is-a-dns.domain.com/key-with-dash",
            "this-is-a-dns.domain.com/key-with-dash"),
        new ParseCase("prefixed key in",
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            "this-is-another-dns.domain.com/key-with-dash in (so,what)"),
        new ParseCase("numeric prefix", "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
        new ParseCase("tabs around in", "foo  in\t (abc)", "foo in (abc)"),
        new ParseCase("newline after notin", "x notin\n (abc)", "x notin (abc)"),
        new ParseCase("sets are sorted", "x in (def,abc)", "x in (abc,def)"),
        new ParseCase("trailing empty value", "x in (abc,)", "x in (,abc)"),
        new ParseCase("duplicates removed", "x in (abc,abc)", "x in (abc)"),
        new ParseCase("empty set is the empty value", "x in ()", "x in ()"),
        new ParseCase("blank set is the empty value", "x notin ( )", "x notin ()"),
        new ParseCase("many empty values", "x in (a,,a,,a,,a,,)", "x in (,a)"),
        new ParseCase("leading empty value", "x notin (, a)", "x notin (,a)"),
        new ParseCase("keywords as values", "a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
        new ParseCase("keywords as key and value", "notin=in", "notin=in"),
        new ParseCase("in as key", "in in (in)", "in in (in)"),
        new ParseCase("mixed", "x notin (abc,,def),bar,z in (),w",
            "bar,w,x notin (,abc,def),z in ()"),
        new ParseCase("same key twice", "z,z!=a", "z!=a,z"),
        new ParseCase("name of 63 chars", "a".repeat(63) + "=" + "b".repeat(63),
            "a".repeat(63) + "=" + "b".repeat(63)),
        new ParseCase("underscores and dots", "my_key.x=my.value_1", "my_key.x=my.value_1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validSelectors")
  void parse_whenValid_givesCanonicalFormThatParsesBack(ParseCase c) {
    LabelSelector selector = LabelSelector.parse(c.input());

    assertThat(selector.toString()).isEqualTo(c.canonical());
    LabelSelector again = LabelSelector.parse(selector.toString());
    assertThat(again).isEqualTo(selector).hasSameHashCodeAs(selector);
    assertThat(again.toString()).isEqualTo(c.canonical());
  }

  record ErrorCase(String name, String input, String... messageParts) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ErrorCase> invalidSelectors() {
    return Stream.of(
        new ErrorCase("or operator", "x=a||y=b", "position 0", "invalid value \"a||y\""),
        new ErrorCase("or operator with blanks", "x=a || y=b", "found '||' at position 4",
            "expected ',' or end of string"),
        new ErrorCase("two equals", "x==a==b", "found '==' at position 4"),
        new ErrorCase("value after does-not-exist", "!x=a", "found '=' at position 2",
            "expected ',' or end of string"),
        new ErrorCase("non-integer bound", "x<a", "position 0", "must be an integer"),
        new ErrorCase("empty bound", "x>", "must be an integer"),
        new ErrorCase("double comma", "x,,y", "found ',' at position 2",
            "'!' or a label key after ','"),
        new ErrorCase("leading comma", ",x,y", "found ',' at position 0"),
        new ErrorCase("trailing comma", "a in (xyz),", "found end of string at position 11"),
        new ErrorCase("misspelled operator", "x nott in (y)", "found 'nott' at position 2",
            "expected an operator"),
        new ErrorCase("missing comma", "a in (xyz)b notin ()", "found 'b' at position 10"),
        new ErrorCase("no comma in set", "a in (xyz abc)", "found 'abc' at position 10",
            "expected ',' or ')'"),
        new ErrorCase("unclosed set", "a notin(", "found end of string at position 8"),
        new ErrorCase("parenthesis as operator", "a (", "found '(' at position 2"),
        new ErrorCase("starts with parenthesis", "(", "found '(' at position 0"),
        new ErrorCase("set without parenthesis", "a in b", "found 'b' at position 5",
            "expected '('"),
        new ErrorCase("operator as value", "a=!", "found '!' at position 2",
            "expected a value"),
        new ErrorCase("bang alone", "!", "found end of string at position 1",
            "expected a label key"),
        new ErrorCase("bang twice", "!!x", "found '!' at position 1"),
        new ErrorCase("operator first", "=a", "found '=' at position 0"),
        new ErrorCase("key starts with dash", "-x=a", "invalid label key \"-x\"",
            "the name part must consist of"),
        new ErrorCase("key too long", "a".repeat(64), "no more than 63 characters"),
        new ErrorCase("prefix upper case", "Example.com/x", "prefix part"),
        new ErrorCase("empty prefix", "/x", "the prefix part must not be empty"),
        new ErrorCase("empty name", "example.com/", "the name part must not be empty"),
        new ErrorCase("two slashes", "a/b/c", "more than one '/'"),
        new ErrorCase("prefix too long", "a".repeat(254) + "/x",
            "no more than 253 characters"),
        new ErrorCase("value too long", "x=" + "a".repeat(64),
            "invalid value \"" + "a".repeat(64) + "\" for label key \"x\""),
        new ErrorCase("value with bad char", "x=a~b", "invalid value \"a~b\""),
        new ErrorCase("value ending in dash", "x in (a-)", "invalid value \"a-\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSelectors")
  void parse_whenInvalid_throwsNamingSelectorPositionAndExpectation(ErrorCase c) {
    assertThatThrownBy(() -> LabelSelector.parse(c.input()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid label selector \"" + c.input() + "\"")
        .hasMessageContainingAll(c.messageParts());
  }

  record MatchCase(String name, String selector, Map<String, String> labels, boolean matches) {
    @Override
    public String toString() {
      return name + " (" + (matches ? "matches" : "no match") + ")";
    }
  }

  static Stream<MatchCase> matchCases() {
    Map<String, String> fooBar = Map.of("foo", "bar", "baz", "blah");
    return Stream.of(
        new MatchCase("empty selector", "", Map.of("x", "y"), true),
        new MatchCase("empty selector, no labels", "", Map.of(), true),
        new MatchCase("equals", "x=y", Map.of("x", "y"), true),
        new MatchCase("two equals", "x=y,z=w", Map.of("x", "y", "z", "w"), true),
        new MatchCase("not equals", "x!=y,z!=w", Map.of("x", "z", "z", "a"), true),
        new MatchCase("keywords", "notin=in", Map.of("notin", "in"), true),
        new MatchCase("exists", "x", Map.of("x", "z"), true),
        new MatchCase("does not exist", "!x", Map.of("y", "z"), true),
        new MatchCase("greater", "x>1", Map.of("x", "2"), true),
        new MatchCase("less", "x<1", Map.of("x", "0"), true),
        new MatchCase("equals, key missing", "x=z", Map.of(), false),
        new MatchCase("equals, other value", "x=y", Map.of("x", "z"), false),
        new MatchCase("one equality fails", "x=y,z=w", Map.of("x", "w", "z", "w"), false),
        new MatchCase("one inequality fails", "x!=y,z!=w", Map.of("x", "z", "z", "w"), false),
        new MatchCase("exists, key missing", "x", Map.of("y", "z"), false),
        new MatchCase("does not exist, key present", "!x", Map.of("x", "z"), false),
        new MatchCase("greater, smaller value", "x>1", Map.of("x", "0"), false),
        new MatchCase("less, larger value", "x<1", Map.of("x", "2"), false),
        new MatchCase("greater, not a number", "z>1", Map.of("z", "v2"), false),
        new MatchCase("greater, key missing", "z>1", Map.of(), false),
        new MatchCase("not equals, key missing", "x!=y", Map.of("a", "b"), true),
        new MatchCase("notin, key missing", "x notin (a,b)", Map.of(), true),
        new MatchCase("notin, other value", "x notin (a,b)", Map.of("x", "c"), true),
        new MatchCase("notin, listed value", "x notin (a,b)", Map.of("x", "b"), false),
        new MatchCase("in, listed value", "x in (a,b)", Map.of("x", "b"), true),
        new MatchCase("in, key missing", "x in (a,b)", Map.of(), false),
        new MatchCase("in empty value, key missing", "x in ()", Map.of("y", "baz"), false),
        new MatchCase("in empty value, empty label", "x in ()", Map.of("x", ""), true),
        new MatchCase("notin empty, exists", "x notin (),y", Map.of("y", ""), true),
        new MatchCase("not x and y", "!x,y", Map.of("y", ""), true),
        new MatchCase("notin empty, y must not exist", "x notin (),!y", Map.of("y", ""), false),
        new MatchCase("in and notin", "x in (foo),y notin (alpha)",
            Map.of("x", "foo", "y", "baz"), true),
        new MatchCase("in and in", "x in (foo),y in (alpha)",
            Map.of("x", "foo", "y", "baz"), false),
        new MatchCase("empty value equals", "x=", Map.of("x", ""), true),
        new MatchCase("empty value equals, missing", "x=", Map.of(), false),
        new MatchCase("labelset foo", "foo=bar", fooBar, true),
        new MatchCase("labelset both", "foo=bar,baz=blah", fooBar, true),
        new MatchCase("labelset wrong value", "foo=blah", fooBar, false),
        new MatchCase("labelset extra key", "foo=bar,foobar=bar,baz=blah", fooBar, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("matchCases")
  void matches_followsKubernetesSemantics(MatchCase c) {
    assertThat(LabelSelector.parse(c.selector()).matches(c.labels())).isEqualTo(c.matches());
  }

  @Test
  void matches_whenLabelsNull_treatsAsNoLabels() {
    assertThat(LabelSelector.parse("x notin (a),!y,z!=b").matches(null)).isTrue();
    assertThat(LabelSelector.parse("x").matches(null)).isFalse();
    assertThat(LabelSelector.everything().matches(null)).isTrue();
  }

  @Test
  void everything_isEmptyAndMatchesAll() {
    assertThat(LabelSelector.everything().isEmpty()).isTrue();
    assertThat(LabelSelector.everything().matches(Map.of("x", "y"))).isTrue();
    assertThat(LabelSelector.everything().toString()).isEmpty();
    assertThat(LabelSelector.parse("")).isSameAs(LabelSelector.everything());
    assertThat(LabelSelector.parse("x").isEmpty()).isFalse();
  }

  @Test
  void parse_isDeterministic_regardlessOfRequirementOrder() {
    assertThat(LabelSelector.parse("x=a,a=x")).isEqualTo(LabelSelector.parse("a=x,x=a"));
    assertThat(LabelSelector.parse("x=a,a=x").toString()).isEqualTo("a=x,x=a");
    assertThat(LabelSelector.parse("x=a")).isNotEqualTo(LabelSelector.parse("x!=a"));
  }

  @Test
  void of_whenMapGiven_buildsSortedEqualitySelector() {
    Map<String, String> labels = new HashMap<>();
    labels.put("tier", "web");
    labels.put("app", "shop");

    LabelSelector selector = LabelSelector.of(labels);

    assertThat(selector.toString()).isEqualTo("app=shop,tier=web");
    assertThat(selector).isEqualTo(LabelSelector.parse("tier=web,app==shop"));
    assertThat(selector.matches(Map.of("app", "shop", "tier", "web", "x", "y"))).isTrue();
    assertThat(selector.matches(Map.of("app", "shop"))).isFalse();
    assertThat(LabelSelector.of(Map.of())).isSameAs(LabelSelector.everything());
  }

  @Test
  void of_whenKeyOrValueInvalid_throwsNamingIt() {
    assertThatThrownBy(() -> LabelSelector.of(Map.of("bad key", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"bad key\"");
    assertThatThrownBy(() -> LabelSelector.of(Map.of("k", "bad value")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"bad value\"");
  }

  @Test
  void builder_whenEveryOperatorUsed_equalsParsedSelector() {
    LabelSelector built =
        LabelSelector.builder()
            .equal("a", "1")
            .notEqual("b", "2")
            .in("c", "y", "x", "y")
            .notIn("d", List.of("z"))
            .exists("e")
            .doesNotExist("f")
            .greaterThan("g", 5)
            .lessThan("h", 3)
            .build();

    assertThat(built.toString()).isEqualTo("a=1,b!=2,c in (x,y),d notin (z),e,!f,g>5,h<3");
    assertThat(built.requirements()).hasSize(8);
    assertThat(built.requirements().get(2))
        .isEqualTo(new Requirement("c", Operator.IN, List.of("x", "y")));
    assertThat(LabelSelector.builder().build()).isSameAs(LabelSelector.everything());
  }

  @Test
  void builder_whenInHasNoValues_throws() {
    assertThatThrownBy(() -> LabelSelector.builder().in("c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"c\"")
        .hasMessageContaining("at least one value");
    assertThatThrownBy(() -> LabelSelector.builder().notIn("c", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void requirement_whenValueCountWrong_throws() {
    assertThatThrownBy(() -> new Requirement("x", Operator.EQUALS, List.of("a", "b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly one value");
    assertThatThrownBy(() -> new Requirement("x", Operator.EXISTS, List.of("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("take no values");
    assertThatThrownBy(() -> new Requirement("x", Operator.GREATER_THAN, List.of("bar")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be an integer");
  }

  @Test
  void requirements_areUnmodifiable() {
    LabelSelector selector = LabelSelector.parse("x in (a,b)");
    assertThatThrownBy(() -> selector.requirements().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> selector.requirements().get(0).values().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void from_whenFabric8SelectorGiven_combinesMatchLabelsAndExpressions() {
    var selector =
        new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
            .withMatchLabels(Map.of("app", "web"))
            .addNewMatchExpression().withKey("tier").withOperator("In")
            .withValues("front", "edge").endMatchExpression()
            .addNewMatchExpression().withKey("env").withOperator("NotIn")
            .withValues("dev").endMatchExpression()
            .addNewMatchExpression().withKey("canary").withOperator("DoesNotExist")
            .endMatchExpression()
            .addNewMatchExpression().withKey("team").withOperator("Exists").endMatchExpression()
            .build();

    LabelSelector converted = LabelSelector.from(selector);

    assertThat(converted)
        .isEqualTo(
            LabelSelector.parse("app=web,tier in (front,edge),env notin (dev),!canary,team"));
  }

  @Test
  void from_whenFabric8SelectorEmpty_selectsEverything() {
    assertThat(LabelSelector.from(new io.fabric8.kubernetes.api.model.LabelSelector()))
        .isSameAs(LabelSelector.everything());
  }

  @Test
  void from_whenFabric8SelectorAbsent_selectsNothing() {
    // apimachinery's LabelSelectorAsSelector(nil) is labels.Nothing()
    assertThat(LabelSelector.from(null)).isSameAs(LabelSelector.nothing());
  }

  static Stream<Map<String, String>> anyLabels() {
    return Stream.of(Map.of(), Map.of("app", "web"), Map.of("a", "", "b", "c"));
  }

  @ParameterizedTest
  @MethodSource("anyLabels")
  void nothing_matchesNoLabels_whereEverythingMatchesAll(Map<String, String> labels) {
    assertThat(LabelSelector.nothing().matches(labels)).isFalse();
    assertThat(LabelSelector.everything().matches(labels)).isTrue();
  }

  @Test
  void nothing_isNotEmptyHasNoRequirementsAndPrintsAsApimachinery() {
    LabelSelector nothing = LabelSelector.nothing();
    assertThat(nothing.matches(null)).isFalse();
    assertThat(nothing.isEmpty()).isFalse();
    assertThat(nothing.requirements()).isEmpty();
    // apimachinery's nothingSelector.String() is "", as everything's; parsing "" is everything.
    assertThat(nothing.toString()).isEmpty();
    assertThat(LabelSelector.parse(nothing.toString())).isSameAs(LabelSelector.everything());
  }

  @Test
  void nothing_isEqualOnlyToItself() {
    assertThat(LabelSelector.nothing()).isEqualTo(LabelSelector.nothing());
    assertThat(LabelSelector.nothing()).isNotEqualTo(LabelSelector.everything());
    assertThat(LabelSelector.everything()).isNotEqualTo(LabelSelector.nothing());
    assertThat(LabelSelector.nothing()).isNotEqualTo(LabelSelector.parse(""));
    assertThat(LabelSelector.nothing().hashCode())
        .isNotEqualTo(LabelSelector.everything().hashCode());
  }

  @Test
  void nothing_listsNoObjectFromALister() {
    List<io.fabric8.kubernetes.api.model.Pod> pods =
        List.of(TestPods.pod("ns", "a", Map.of("app", "web")), TestPods.pod("ns", "b"));
    assertThat(Lister.filter(pods, LabelSelector.nothing())).isEmpty();
    assertThat(Lister.filter(pods, LabelSelector.everything())).hasSize(2);
  }

  @Test
  void from_whenOperatorUnknownOrValuesWrong_throws() {
    var badOp =
        new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
            .addNewMatchExpression().withKey("k").withOperator("Equals").withValues("v")
            .endMatchExpression().build();
    var inWithoutValues =
        new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
            .addNewMatchExpression().withKey("k").withOperator("In").endMatchExpression().build();

    assertThatThrownBy(() -> LabelSelector.from(badOp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"Equals\" is not a valid label selector operator");
    assertThatThrownBy(() -> LabelSelector.from(inWithoutValues))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one value");
  }
}

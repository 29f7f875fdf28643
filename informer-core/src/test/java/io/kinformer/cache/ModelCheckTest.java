package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The property runner behind the model tests: it finds, shrinks and reproduces failures. */
class ModelCheckTest {

  // The runner reads system properties; restore what the build was started with.
  private final String savedTries = System.getProperty(ModelCheck.TRIES_PROPERTY);
  private final String savedSeed = System.getProperty(ModelCheck.SEED_PROPERTY);

  @AfterEach
  void restoreProperties() {
    restore(ModelCheck.TRIES_PROPERTY, savedTries);
    restore(ModelCheck.SEED_PROPERTY, savedSeed);
  }

  private static void restore(String name, String value) {
    if (value == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, value);
    }
  }

  private static List<Integer> numbers(SplittableRandom random) {
    int n = random.nextInt(40);
    List<Integer> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(random.nextInt(10));
    }
    return out;
  }

  /** Fails when a 7 comes somewhere after a 3. */
  private static void noSevenAfterThree(List<Integer> input) {
    int three = input.indexOf(3);
    assertThat(three >= 0 && input.subList(three, input.size()).contains(7))
        .as("a 7 after a 3 in %s", input)
        .isFalse();
  }

  @Test
  void check_whenPropertyFails_shrinksToMinimalInputAndGivesSeed() {
    System.clearProperty(ModelCheck.TRIES_PROPERTY);
    assertThatThrownBy(
            () ->
                ModelCheck.forAll("seven after three", 500, ModelCheckTest::numbers)
                    .check(ModelCheckTest::noSevenAfterThree))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("property 'seven after three' failed on try")
        .hasMessageContaining("-Dkinformer.fuzz.seed=")
        .hasMessageContaining("to 2 steps:")
        .hasMessageContaining("0: 3")
        .hasMessageContaining("1: 7")
        .cause()
        .hasMessageContaining("a 7 after a 3 in [3, 7]");
  }

  @Test
  void check_withSimplifier_shrinksStepsToTheirSimplestFailingForm() {
    System.clearProperty(ModelCheck.TRIES_PROPERTY);
    // Fails when the sum is at least 10; single steps simplify towards 1.
    assertThatThrownBy(
            () ->
                ModelCheck.forAll("big sum", 200, ModelCheckTest::numbers)
                    .simplifyWith(n -> n > 1 ? List.of(n - 1) : List.of())
                    .describeWith(List::toString)
                    .check(input -> assertThat(sum(input)).isLessThan(10)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("steps:%n[".formatted())
        .satisfies(e -> assertThat(sumOfShrunkInput(e.getMessage())).isEqualTo(10));
  }

  @Test
  void check_whenPropertyHolds_runsTheConfiguredNumberOfTries() {
    System.setProperty(ModelCheck.TRIES_PROPERTY, "37");
    int[] runs = new int[1];
    ModelCheck<Integer> check = ModelCheck.forAll("holds", 500, ModelCheckTest::numbers);

    check.check(input -> runs[0]++);

    assertThat(check.tries()).isEqualTo(37);
    assertThat(runs[0]).isEqualTo(37);
  }

  @Test
  void check_withTheReportedSeedAndOneTry_rerunsTheFailingInput() {
    System.clearProperty(ModelCheck.TRIES_PROPERTY);
    String message = "";
    try {
      ModelCheck.forAll("seven after three", 500, ModelCheckTest::numbers)
          .check(ModelCheckTest::noSevenAfterThree);
    } catch (AssertionError e) {
      message = e.getMessage();
    }
    assertThat(message).as("the property fails within 500 tries").isNotEmpty();
    String seed = message.replaceAll("(?s).*-Dkinformer\\.fuzz\\.seed=(-?\\d+).*", "$1");
    String failingTry = message.replaceAll("(?s).*failed on try (\\d+) .*", "$1");
    List<List<Integer>> rerun = new ArrayList<>();
    System.setProperty(ModelCheck.SEED_PROPERTY, seed);
    System.setProperty(ModelCheck.TRIES_PROPERTY, "1");

    assertThatThrownBy(
            () ->
                ModelCheck.forAll("seven after three", 500, ModelCheckTest::numbers)
                    .check(
                        input -> {
                          if (rerun.isEmpty()) {
                            rerun.add(input);
                          }
                          noSevenAfterThree(input);
                        }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("failed on try 0 (seed " + seed + ":");
    assertThat(rerun.get(0))
        .as("the input of try %s, regenerated from its seed", failingTry)
        .isEqualTo(numbers(new SplittableRandom(Long.parseLong(seed))));
  }

  @Test
  void tries_whenPropertyIsNotAPositiveInteger_throwsNamingIt() {
    System.setProperty(ModelCheck.TRIES_PROPERTY, "many");

    assertThatThrownBy(() -> ModelCheck.forAll("x", 1, ModelCheckTest::numbers).tries())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kinformer.fuzz.tries")
        .hasMessageContaining("\"many\"");
  }

  private static int sum(List<Integer> input) {
    return input.stream().mapToInt(i -> i).sum();
  }

  private static int sumOfShrunkInput(String message) {
    String list = message.replaceAll("(?s).*steps:\\R\\[([^\\]]*)\\].*", "$1");
    int sum = 0;
    for (String part : list.split(",")) {
      sum += Integer.parseInt(part.trim());
    }
    return sum;
  }
}

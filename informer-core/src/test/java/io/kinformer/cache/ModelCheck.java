package io.kinformer.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A small property runner for model-based tests and fuzzers: it generates random inputs (a list of
 * steps, or of characters) from seeds, runs a property on each, and when one fails shrinks it to a
 * small failing input before reporting it with the seed that reproduces it.
 *
 * <p>Shrinking is greedy: remove chunks of steps (halves, quarters, ... single steps) while the
 * property still fails with the same exception class, then try the simpler variants of each step
 * that {@link #simplifyWith} offers, and repeat until nothing helps, or {@value #MAX_SHRINK_RUNS}
 * runs or {@link #SHRINK_BUDGET} were spent. The report carries the shrunk failure as its cause
 * and the original failure as a suppressed exception.
 *
 * <p>System properties (read when {@link #check} runs):
 *
 * <ul>
 *   <li>{@value #TRIES_PROPERTY}: the number of tries of every property, replacing the default each
 *       test gives (which keeps the normal build to seconds). Example: {@code mvn -B -pl
 *       informer-core -am verify -Dkinformer.fuzz.tries=20000}.
 *   <li>{@value #SEED_PROPERTY}: the first try's seed (try {@code i} uses seed + i), or {@code
 *       random}. The default is a fixed seed, so that the build is reproducible; a failure report
 *       gives the seed that reruns exactly the failing try with {@code -Dkinformer.fuzz.tries=1}.
 * </ul>
 *
 * <p>Thread safety: confine to one thread. The property runs on the calling thread.
 *
 * @param <T> the type of one step of the generated input
 */
public final class ModelCheck<T> {

  /** The system property that sets the number of tries. */
  public static final String TRIES_PROPERTY = "kinformer.fuzz.tries";

  /** The system property that sets the first seed, or {@code random}. */
  public static final String SEED_PROPERTY = "kinformer.fuzz.seed";

  /** The budget of property runs spent on shrinking one failure. */
  public static final int MAX_SHRINK_RUNS = 20_000;

  /**
   * The wall-clock budget for shrinking one failure, so that a property whose failing runs are
   * slow (a call that never returns, detected by a bounded wait) still reports in reasonable time.
   */
  public static final Duration SHRINK_BUDGET = Duration.ofSeconds(60);

  private static final long DEFAULT_SEED = 0x6b696e666f726d65L; // "kinforme"

  private final String name;
  private final int defaultTries;
  private final Function<SplittableRandom, List<T>> generator;
  private Function<? super T, List<T>> simplifier = step -> List.of();
  private Function<List<T>, String> describer = ModelCheck::numbered;

  private ModelCheck(
      String name, int defaultTries, Function<SplittableRandom, List<T>> generator) {
    this.name = Objects.requireNonNull(name, "name");
    if (defaultTries <= 0) {
      throw new IllegalArgumentException("defaultTries must be positive: " + defaultTries);
    }
    this.defaultTries = defaultTries;
    this.generator = Objects.requireNonNull(generator, "generator");
  }

  /**
   * A check named {@code name} that runs {@code defaultTries} tries unless {@value
   * #TRIES_PROPERTY} says otherwise, each on an input made by {@code generator} from a random
   * source seeded for that try.
   */
  public static <T> ModelCheck<T> forAll(
      String name, int defaultTries, Function<SplittableRandom, List<T>> generator) {
    return new ModelCheck<>(name, defaultTries, generator);
  }

  /** Simpler variants of one step, tried in order while shrinking; none by default. */
  public ModelCheck<T> simplifyWith(Function<? super T, List<T>> simplifier) {
    this.simplifier = Objects.requireNonNull(simplifier, "simplifier");
    return this;
  }

  /** How an input is printed in a failure report; one numbered step per line by default. */
  public ModelCheck<T> describeWith(Function<List<T>, String> describer) {
    this.describer = Objects.requireNonNull(describer, "describer");
    return this;
  }

  /** The number of tries {@link #check} runs: {@value #TRIES_PROPERTY}, else the default. */
  public int tries() {
    String configured = System.getProperty(TRIES_PROPERTY);
    if (configured == null || configured.isBlank()) {
      return defaultTries;
    }
    try {
      int tries = Integer.parseInt(configured.trim());
      if (tries > 0) {
        return tries;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        TRIES_PROPERTY + " must be a positive integer, got \"" + configured + "\"");
  }

  /**
   * Runs the property on {@link #tries()} generated inputs; returns normally if it held for all.
   *
   * @param property throws (an {@link AssertionError} or any exception) when the property is
   *     broken; must build all the state it uses from the input, as it runs again while shrinking
   * @throws AssertionError describing the shrunk failing input, the seed and the failure
   */
  public void check(Property<T> property) {
    Objects.requireNonNull(property, "property");
    int tries = tries();
    long firstSeed = firstSeed();
    for (int i = 0; i < tries; i++) {
      long seed = firstSeed + i;
      List<T> input = List.copyOf(generator.apply(new SplittableRandom(seed)));
      Throwable failure = run(property, input);
      if (failure != null) {
        throw report(property, input, failure, seed, i);
      }
    }
  }

  private AssertionError report(
      Property<T> property, List<T> input, Throwable original, long seed, int tryIndex) {
    List<T> current = input;
    Throwable failure = original;
    int runs = 0;
    long deadline = System.nanoTime() + SHRINK_BUDGET.toNanos();
    boolean progress = true;
    while (progress && runs < MAX_SHRINK_RUNS && System.nanoTime() - deadline < 0) {
      progress = false;
      for (int chunk = Math.max(1, current.size() / 2); chunk >= 1; chunk /= 2) {
        int start = 0;
        while (start + chunk <= current.size()
            && runs < MAX_SHRINK_RUNS
            && System.nanoTime() - deadline < 0) {
          List<T> candidate = new ArrayList<>(current.subList(0, start));
          candidate.addAll(current.subList(start + chunk, current.size()));
          runs++;
          Throwable f = run(property, candidate);
          if (f != null && f.getClass() == original.getClass()) {
            current = List.copyOf(candidate);
            failure = f;
            progress = true;
          } else {
            start += chunk;
          }
        }
      }
      for (int i = 0;
          i < current.size() && runs < MAX_SHRINK_RUNS && System.nanoTime() - deadline < 0;
          i++) {
        for (T simpler : simplifier.apply(current.get(i))) {
          List<T> candidate = new ArrayList<>(current);
          candidate.set(i, simpler);
          runs++;
          Throwable f = run(property, candidate);
          if (f != null && f.getClass() == original.getClass()) {
            current = List.copyOf(candidate);
            failure = f;
            progress = true;
            break;
          }
        }
      }
    }
    String message =
        String.format(
            "property '%s' failed on try %d (seed %d: rerun it alone with -D%s=%d -D%s=1)%n"
                + "original input: %d steps; shrunk in %d runs%s to %d steps:%n%s%n"
                + "failure: %s",
            name,
            tryIndex,
            seed,
            SEED_PROPERTY,
            seed,
            TRIES_PROPERTY,
            input.size(),
            runs,
            System.nanoTime() - deadline < 0 ? "" : " (budget spent: maybe not minimal)",
            current.size(),
            describer.apply(current),
            failure);
    AssertionError error = new AssertionError(message, failure);
    if (failure != original) {
      error.addSuppressed(original);
    }
    return error;
  }

  private static <T> Throwable run(Property<T> property, List<T> input) {
    try {
      property.test(input);
      return null;
    } catch (VirtualMachineError e) {
      if (e instanceof StackOverflowError) {
        return e; // a finding: unbounded recursion on some input
      }
      throw e;
    } catch (Exception | AssertionError e) {
      return e;
    }
  }

  private static long firstSeed() {
    String configured = System.getProperty(SEED_PROPERTY);
    if (configured == null || configured.isBlank()) {
      return DEFAULT_SEED;
    }
    if (configured.trim().equalsIgnoreCase("random")) {
      return new SplittableRandom().nextLong();
    }
    try {
      return Long.parseLong(configured.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          SEED_PROPERTY + " must be a long or \"random\", got \"" + configured + "\"", e);
    }
  }

  private static <T> String numbered(List<T> steps) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < steps.size(); i++) {
      sb.append(String.format("  %3d: %s%n", i, steps.get(i)));
    }
    return sb.toString();
  }

  /**
   * A property of one generated input.
   *
   * @param <T> the type of one step of the input
   */
  @FunctionalInterface
  public interface Property<T> {

    /** Runs the system on {@code input}; throws if the property does not hold. */
    void test(List<T> input) throws Exception;
  }
}

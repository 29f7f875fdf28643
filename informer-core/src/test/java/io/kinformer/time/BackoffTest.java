package io.kinformer.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BackoffTest {

  private final FakeClock clock = new FakeClock();

  private Backoff backoff(double jitter, RandomGenerator random) {
    return Backoff.exponential(
        Duration.ofMillis(800),
        Duration.ofSeconds(30),
        2.0,
        jitter,
        Duration.ofMinutes(2),
        clock,
        random);
  }

  private static List<Duration> next(Backoff b, int n) {
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(b.next());
    }
    return out;
  }

  private static List<Duration> millis(long... ms) {
    List<Duration> out = new ArrayList<>();
    for (long m : ms) {
      out.add(Duration.ofMillis(m));
    }
    return out;
  }

  @Test
  void next_withoutJitter_doublesFromInitialAndStaysAtTheCap() {
    Backoff b = backoff(0.0, new Random(1));
    assertThat(next(b, 10))
        .containsExactlyElementsOf(
            millis(800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000));
  }

  @Test
  void next_withJitterOne_isWithinDAndTwiceD() {
    Backoff b = backoff(1.0, new Random(99));
    List<Duration> base = millis(800, 1600, 3200, 6400, 12800, 25600, 30000, 30000);
    for (int round = 0; round < 50; round++) {
      b.reset();
      List<Duration> got = next(b, base.size());
      for (int i = 0; i < base.size(); i++) {
        assertThat(got.get(i))
            .isGreaterThanOrEqualTo(base.get(i))
            .isLessThan(base.get(i).multipliedBy(2));
      }
    }
  }

  @Test
  void next_withJitter_usesTheGivenRandomness() {
    RandomGenerator lowest = () -> 0L; // nextDouble() == 0.0
    RandomGenerator highest = () -> -1L; // nextDouble() just below 1.0
    assertThat(backoff(1.0, lowest).next()).isEqualTo(Duration.ofMillis(800));
    assertThat(backoff(1.0, highest).next())
        .isLessThan(Duration.ofMillis(1600))
        .isGreaterThan(Duration.ofMillis(1599));
    assertThat(backoff(0.5, highest).next()).isLessThan(Duration.ofMillis(1200));
  }

  @Test
  void clientGoDefault_settlesBetween30And60Seconds() {
    Backoff b = Backoff.clientGoDefault(clock, new Random(4));
    List<Duration> got = next(b, 20);
    assertThat(got.get(0)).isBetween(Duration.ofMillis(800), Duration.ofMillis(1600));
    assertThat(got.subList(7, 20))
        .allSatisfy(
            d ->
                assertThat(d)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(30))
                    .isLessThan(Duration.ofSeconds(60)));
  }

  @Test
  void clientGoDefault_twoMinutesAfterItsLastRestart_restartsEvenWhileFailing() {
    Backoff b = Backoff.clientGoDefault(clock, new Random(4));
    List<Duration> got = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      got.add(b.next());
      clock.advance(Duration.ofSeconds(30)); // a failure every 30 s: never two quiet minutes
    }
    // t = 0, 30, 60, 90, 120 s: the fifth call is exactly 2 min after the start (not more)
    assertThat(got.get(4)).isGreaterThanOrEqualTo(Duration.ofMillis(12800));
    assertThat(b.next()).as("at 150 s, over 2 min since the start")
        .isBetween(Duration.ofMillis(800), Duration.ofMillis(1600));
  }

  @Test
  void next_manyTimes_neverOverflowsBackToTheStart() {
    Backoff b =
        Backoff.exponential(
            Duration.ofMillis(1),
            Duration.ofDays(3650),
            10.0,
            1.0,
            Duration.ofDays(36500),
            clock,
            new Random(3));
    Duration previous = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      Duration d = b.next();
      assertThat(d).isPositive();
      if (i > 20) {
        assertThat(d).isGreaterThanOrEqualTo(Duration.ofDays(3650));
      }
      previous = d;
    }
    assertThat(previous).isLessThan(Duration.ofDays(7300));
  }

  record ResetCase(String name, Duration quiet, Duration expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ResetCase> resetCases() {
    return Stream.of(
        new ResetCase(
            "quiet for 2 min is not yet healthy", Duration.ofMinutes(2), Duration.ofMillis(6400)),
        new ResetCase(
            "quiet for just over 2 min restarts",
            Duration.ofMinutes(2).plusNanos(1),
            Duration.ofMillis(800)),
        new ResetCase("quiet for an hour restarts", Duration.ofHours(1), Duration.ofMillis(800)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("resetCases")
  void next_afterAQuietPeriod_restartsOnlyWhenLongerThanResetAfter(ResetCase c) {
    Backoff b = backoff(0.0, new Random(1));
    next(b, 3); // 0.8, 1.6, 3.2
    clock.advance(c.quiet());
    assertThat(b.next()).isEqualTo(c.expected());
  }

  @Test
  void next_keptBusyForLongerThanResetAfter_doesNotRestart() {
    Backoff b = backoff(0.0, new Random(1));
    List<Duration> got = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Duration d = b.next();
      got.add(d);
      clock.advance(d); // failing again as soon as the wait is over
    }
    assertThat(got.get(11)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void reset_startsOver() {
    Backoff b = backoff(0.0, new Random(1));
    next(b, 5);
    b.reset();
    assertThat(next(b, 2)).containsExactlyElementsOf(millis(800, 1600));
  }

  @Test
  void exponential_rejectsBadArguments() {
    Duration s = Duration.ofSeconds(1);
    Random r = new Random();
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.exponential(Duration.ZERO, s, 2, 0, s, clock, r))
        .withMessageContaining("initial");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.exponential(s.multipliedBy(2), s, 2, 0, s, clock, r))
        .withMessageContaining("exceeds");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.exponential(s, s, 0.5, 0, s, clock, r))
        .withMessageContaining("0.5");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.exponential(s, s, 2, -1, s, clock, r))
        .withMessageContaining("-1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.exponential(s, s, 2, 0, Duration.ofSeconds(-1), clock, r))
        .withMessageContaining("resetAfter");
  }

  @Test
  void exponentialPolicy_checksItsSettingsAtOnce_andMakesIndependentBackoffs() {
    Duration s = Duration.ofSeconds(1);
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> Backoff.Policy.exponential(s.multipliedBy(2), s, 2, 0, s));
    Backoff.Policy policy =
        Backoff.Policy.exponential(Duration.ofMillis(100), s, 2, 0, Duration.ofMinutes(1));
    FakeClock clock = new FakeClock();
    Backoff a = policy.newBackoff(clock, new Random(1));
    Backoff b = policy.newBackoff(clock, new Random(1));
    assertThat(a.next()).isEqualTo(Duration.ofMillis(100));
    assertThat(a.next()).isEqualTo(Duration.ofMillis(200));
    assertThat(b.next()).as("its own sequence").isEqualTo(Duration.ofMillis(100));
  }
}

package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** client-go's default_rate_limiters_test.go, plus the token bucket and the PITFALLS cases. */
class RateLimitersTest {

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  private static <T> List<Duration> whenTimes(RateLimiter<T> limiter, T item, int n) {
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(limiter.when(item));
    }
    return out;
  }

  @Test
  void itemExponentialFailure_doublesPerFailure_perItem() {
    RateLimiter<String> limiter = RateLimiters.itemExponentialFailure(ms(1), Duration.ofSeconds(1));

    assertThat(whenTimes(limiter, "one", 5)).containsExactly(ms(1), ms(2), ms(4), ms(8), ms(16));
    assertThat(limiter.numRequeues("one")).isEqualTo(5);

    assertThat(whenTimes(limiter, "two", 2)).containsExactly(ms(1), ms(2));
    assertThat(limiter.numRequeues("two")).isEqualTo(2);

    limiter.forget("one");
    assertThat(limiter.numRequeues("one")).isZero();
    assertThat(limiter.when("one")).isEqualTo(ms(1));
    assertThat(limiter.numRequeues("two")).as("forget is per item").isEqualTo(2);
  }

  @Test
  void itemExponentialFailure_controllerDefaults_exactSequenceUpToTheCap() {
    RateLimiter<String> limiter =
        RateLimiters.itemExponentialFailure(ms(5), Duration.ofSeconds(1000));

    List<Duration> expected = new ArrayList<>();
    for (int n = 0; n <= 17; n++) {
      expected.add(ms(5L << n)); // 5 ms ... 655.36 s
    }
    expected.add(Duration.ofSeconds(1000)); // 1310.72 s capped
    expected.add(Duration.ofSeconds(1000));

    assertThat(whenTimes(limiter, "k", expected.size())).containsExactlyElementsOf(expected);
    assertThat(expected.subList(0, 4)).containsExactly(ms(5), ms(10), ms(20), ms(40));
  }

  record Overflow(String name, Duration base, Duration max, int failures) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Overflow> overflows() {
    return Stream.of(
        new Overflow("1ms..1000s after 64 failures", ms(1), Duration.ofSeconds(1000), 64),
        new Overflow("1ms..1000s after 100 failures", ms(1), Duration.ofSeconds(1000), 100),
        new Overflow("1ms..1000s after 1000 failures", ms(1), Duration.ofSeconds(1000), 1000),
        new Overflow(
            "1min..1000h after 1000 failures", Duration.ofMinutes(1), Duration.ofHours(1000), 1000),
        new Overflow("5ms..1000s after 2000 failures", ms(5), Duration.ofSeconds(1000), 2000),
        new Overflow(
            "1ns..max duration after 70 failures",
            Duration.ofNanos(1),
            Duration.ofSeconds(Long.MAX_VALUE),
            70));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("overflows")
  void itemExponentialFailure_manyFailures_staysAtTheCap(Overflow c) {
    RateLimiter<String> limiter = RateLimiters.itemExponentialFailure(c.base(), c.max());
    List<Duration> all = whenTimes(limiter, "k", c.failures() + 1);

    Duration last = all.get(all.size() - 1);
    assertThat(last).isEqualTo(c.max());
    // Never wraps back down: the sequence never decreases and is never negative.
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i)).isGreaterThanOrEqualTo(all.get(i - 1));
    }
    assertThat(all).allSatisfy(d -> assertThat(d.isNegative()).isFalse());
    assertThat(limiter.numRequeues("k")).isEqualTo(c.failures() + 1);
  }

  @Test
  void itemExponentialFailure_smallValuesBeforeTheCap_matchClientGo() {
    RateLimiter<String> limiter =
        RateLimiters.itemExponentialFailure(ms(1), Duration.ofSeconds(1000));
    whenTimes(limiter, "one", 5);
    assertThat(limiter.when("one")).isEqualTo(ms(32));

    RateLimiter<String> minutes =
        RateLimiters.itemExponentialFailure(Duration.ofMinutes(1), Duration.ofHours(1000));
    whenTimes(minutes, "two", 2);
    assertThat(minutes.when("two")).isEqualTo(Duration.ofMinutes(4));
  }

  @Test
  void itemFastSlow_switchesToSlowAfterMaxFastAttempts() {
    RateLimiter<String> limiter = RateLimiters.itemFastSlow(ms(5), Duration.ofSeconds(10), 3);

    assertThat(whenTimes(limiter, "one", 5))
        .containsExactly(ms(5), ms(5), ms(5), Duration.ofSeconds(10), Duration.ofSeconds(10));
    assertThat(limiter.numRequeues("one")).isEqualTo(5);

    assertThat(whenTimes(limiter, "two", 2)).containsExactly(ms(5), ms(5));
    assertThat(limiter.numRequeues("two")).isEqualTo(2);

    limiter.forget("one");
    assertThat(limiter.numRequeues("one")).isZero();
    assertThat(limiter.when("one")).isEqualTo(ms(5));
  }

  @Test
  void maxOf_returnsTheLargestDelay_andCombinesCounts() {
    RateLimiter<String> limiter =
        RateLimiters.maxOf(
            RateLimiters.itemFastSlow(ms(5), Duration.ofSeconds(3), 3),
            RateLimiters.itemExponentialFailure(ms(1), Duration.ofSeconds(1)));

    assertThat(whenTimes(limiter, "one", 5))
        .containsExactly(ms(5), ms(5), ms(5), Duration.ofSeconds(3), Duration.ofSeconds(3));
    assertThat(limiter.numRequeues("one")).isEqualTo(5);

    assertThat(whenTimes(limiter, "two", 2)).containsExactly(ms(5), ms(5));
    assertThat(limiter.numRequeues("two")).isEqualTo(2);

    limiter.forget("one");
    assertThat(limiter.numRequeues("one")).isZero();
    assertThat(limiter.when("one")).isEqualTo(ms(5));
  }

  @Test
  void maxOf_exponentialOvertakesFastSlow() {
    RateLimiter<String> limiter =
        RateLimiters.maxOf(
            RateLimiters.itemFastSlow(ms(5), ms(50), 1),
            RateLimiters.itemExponentialFailure(ms(10), Duration.ofSeconds(1)));
    assertThat(whenTimes(limiter, "k", 5)).containsExactly(ms(10), ms(50), ms(50), ms(80), ms(160));
  }

  @Test
  void withMaxWait_capsTheDelay() {
    RateLimiter<Integer> limiter =
        RateLimiters.withMaxWait(
            RateLimiters.itemFastSlow(ms(5), Duration.ofSeconds(1000), 100),
            Duration.ofSeconds(500));
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when(1)).isEqualTo(ms(5));
    }
    for (int i = 100; i < 200; i++) {
      assertThat(limiter.when(1)).isEqualTo(Duration.ofSeconds(500));
    }
    assertThat(limiter.numRequeues(1)).isEqualTo(200);
    limiter.forget(1);
    assertThat(limiter.numRequeues(1)).isZero();
  }

  @Test
  void bucket_burstThenRate() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.bucket(10, 100, clock);

    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).as("burst token %s", i).isZero();
    }
    // Each further reservation waits one more 1/10 s: 10 per second, not per minute (PITFALLS).
    assertThat(whenTimes(limiter, "x", 5))
        .containsExactly(ms(100), ms(200), ms(300), ms(400), ms(500));
    assertThat(limiter.numRequeues("x")).isZero();
  }

  @Test
  void bucket_refillsWithTime_upToBurst() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.bucket(10, 100, clock);
    whenTimes(limiter, "x", 102); // 2 tokens in debt

    clock.advance(Duration.ofSeconds(1)); // +10 tokens: 8 left
    assertThat(whenTimes(limiter, "x", 9))
        .containsExactly(
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO,
            ms(100));

    clock.advance(Duration.ofHours(1)); // refill is capped at the burst
    assertThat(whenTimes(limiter, "x", 101).subList(99, 101))
        .containsExactly(Duration.ZERO, ms(100));
  }

  @Test
  void bucket_fractionalRate_matchesGoArithmetic() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.bucket(3, 1, clock);
    assertThat(limiter.when("x")).isZero();
    // (1 / 3) s in float64, truncated to nanoseconds, as rate.Limit.durationFromTokens does.
    assertThat(limiter.when("x")).isEqualTo(Duration.ofNanos((long) ((1.0 / 3) * 1e9)));
    clock.advance(Duration.ofMillis(500));
    assertThat(limiter.when("x")).isEqualTo(Duration.ofNanos((long) ((0.5 / 3) * 1e9)));
  }

  @Test
  void bucket_infiniteRate_neverDelays() {
    RateLimiter<String> limiter = RateLimiters.bucket(Double.POSITIVE_INFINITY, 1, new FakeClock());
    assertThat(whenTimes(limiter, "x", 1000)).containsOnly(Duration.ZERO);
  }

  @Test
  void defaultControllerRateLimiter_isMaxOfExponentialAndBucket() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(clock);

    // First failures of 100 distinct items: the per-item 5 ms dominates the free burst.
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("item-" + i)).isEqualTo(ms(5));
    }
    // The bucket is empty: the next distinct items wait 100 ms, 200 ms, ...
    assertThat(limiter.when("item-100")).isEqualTo(ms(100));
    assertThat(limiter.when("item-101")).isEqualTo(ms(200));
    // An item that failed often is held back by its own backoff.
    List<Duration> retries = whenTimes(limiter, "item-0", 12);
    assertThat(retries.get(11)).isEqualTo(ms(5L << 12)); // 20.48 s, above the bucket's 1.4 s
    assertThat(limiter.numRequeues("item-0")).isEqualTo(13);

    limiter.forget("item-0");
    assertThat(limiter.numRequeues("item-0")).isZero();
  }

  record BadArgument(String name, Supplier<RateLimiter<String>> factory, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadArgument> badArguments() {
    FakeClock clock = new FakeClock();
    return Stream.of(
        new BadArgument("zero qps", () -> RateLimiters.bucket(0, 1, clock), "qps"),
        new BadArgument("NaN qps", () -> RateLimiters.bucket(Double.NaN, 1, clock), "qps"),
        new BadArgument("zero burst", () -> RateLimiters.bucket(10, 0, clock), "burst"),
        new BadArgument(
            "negative base", () -> RateLimiters.itemExponentialFailure(ms(-1), ms(1)), "base"),
        new BadArgument(
            "negative max", () -> RateLimiters.itemExponentialFailure(ms(1), ms(-1)), "max"),
        new BadArgument(
            "negative fast attempts",
            () -> RateLimiters.itemFastSlow(ms(1), ms(2), -1),
            "maxFastAttempts"),
        new BadArgument("no limiters", () -> RateLimiters.maxOf(List.of()), "at least one"),
        new BadArgument(
            "negative max wait",
            () -> RateLimiters.withMaxWait(RateLimiters.bucket(1, 1, clock), ms(-1)),
            "maxDelay"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badArguments")
  void factories_badArgument_throwIllegalArgumentNamingIt(BadArgument c) {
    assertThatThrownBy(c.factory()::get)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(c.message());
  }

  @Test
  void itemExponentialFailure_concurrentFailures_countsEveryOne() throws InterruptedException {
    RateLimiter<String> limiter = RateLimiters.itemExponentialFailure(ms(1), ms(10));
    List<Thread> threads =
        IntStream.range(0, 4)
            .mapToObj(
                i ->
                    new Thread(
                        () -> {
                          for (int j = 0; j < 1000; j++) {
                            limiter.when("shared");
                          }
                        }))
            .toList();
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(limiter.numRequeues("shared")).isEqualTo(4000);
  }
}

package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class MainTest {

  private final FakeClock clock = new FakeClock();

  @Test
  void deadline_ofZeroDuration_isNever() {
    assertThat(Main.deadline(clock, Duration.ZERO)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void waitOrEnd_afterTheDeadline_ends() throws InterruptedException {
    long deadline = Main.deadline(clock, Duration.ofSeconds(20));
    clock.advance(Duration.ofSeconds(20));

    assertThat(Main.waitOrEnd(new CountDownLatch(1), clock, deadline, Duration.ofDays(1)))
        .isTrue();
  }

  @Test
  void waitOrEnd_whenStopped_ends() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    stop.countDown();

    assertThat(Main.waitOrEnd(stop, clock, Long.MAX_VALUE, Duration.ofDays(1))).isTrue();
  }

  @Test
  void waitOrEnd_beforeTheDeadline_goesOnAfterItsStep() throws InterruptedException {
    long deadline = Main.deadline(clock, Duration.ofSeconds(20));

    assertThat(Main.waitOrEnd(new CountDownLatch(1), clock, deadline, Duration.ofMillis(1)))
        .isFalse();
  }
}

package io.kinformer.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FakeClockTest {

  private final FakeClock clock = new FakeClock();
  private final List<String> ran = new ArrayList<>();

  @Test
  void time_standsStillUntilAdvanced() {
    long t0 = clock.nanoTime();
    Instant w0 = clock.now();
    assertThat(clock.nanoTime()).isEqualTo(t0);
    clock.advance(Duration.ofSeconds(3));
    assertThat(clock.nanoTime() - t0).isEqualTo(Duration.ofSeconds(3).toNanos());
    assertThat(clock.now()).isEqualTo(w0.plusSeconds(3));
    assertThat(new FakeClock(Instant.EPOCH).now()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void advance_runsDueTasksInDeadlineOrderThenSchedulingOrder_eachAtItsDeadline() {
    List<Long> seenAt = new ArrayList<>();
    clock.schedule(() -> record("c", seenAt), Duration.ofSeconds(3));
    clock.schedule(() -> record("a", seenAt), Duration.ofSeconds(1));
    clock.schedule(() -> record("b1", seenAt), Duration.ofSeconds(2));
    clock.schedule(() -> record("b2", seenAt), Duration.ofSeconds(2));
    clock.schedule(() -> record("late", seenAt), Duration.ofSeconds(10));

    clock.advance(Duration.ofSeconds(3));

    assertThat(ran).containsExactly("a", "b1", "b2", "c");
    assertThat(seenAt).containsExactly(1L, 2L, 2L, 3L);
    assertThat(clock.pendingTaskCount()).isEqualTo(1);
    assertThat(clock.nextDelay()).contains(Duration.ofSeconds(7));
  }

  private void record(String name, List<Long> seenAt) {
    ran.add(name);
    seenAt.add(Duration.ofNanos(clock.nanoTime()).toSeconds());
  }

  @Test
  void advance_runsTasksScheduledByTasksIfDueWithinTheSameStep() {
    clock.schedule(
        () -> {
          ran.add("first");
          clock.schedule(() -> ran.add("chained"), Duration.ofSeconds(1));
          clock.schedule(() -> ran.add("too late"), Duration.ofSeconds(5));
        },
        Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(2));
    assertThat(ran).containsExactly("first", "chained");
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(4));
  }

  @Test
  void cancel_preventsTheTask() {
    Cancellable c = clock.schedule(() -> ran.add("cancelled"), Duration.ofSeconds(1));
    clock.schedule(() -> ran.add("kept"), Duration.ofSeconds(1));
    c.cancel();
    c.cancel(); // idempotent
    clock.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("kept");
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void zeroOrNegativeDelay_isDueNow_andRunsOnlyWhenAsked() {
    clock.schedule(() -> ran.add("zero"), Duration.ZERO);
    clock.schedule(() -> ran.add("negative"), Duration.ofSeconds(-5));
    assertThat(ran).isEmpty();
    assertThat(clock.nextDelay()).contains(Duration.ZERO);
    clock.runDueTasks();
    assertThat(ran).containsExactly("zero", "negative");
  }

  @Test
  void hugeDelaysAndSteps_saturateInsteadOfOverflowing() {
    clock.schedule(() -> ran.add("never"), Duration.ofSeconds(Long.MAX_VALUE));
    clock.advance(Duration.ofDays(365 * 100));
    assertThat(ran).isEmpty();
    clock.advance(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(clock.nanoTime()).isEqualTo(Long.MAX_VALUE);
    assertThat(ran).containsExactly("never");
  }

  @Test
  void advance_rejectsNegativeSteps() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> clock.advance(Duration.ofMillis(-1)))
        .withMessageContaining("-0.001");
  }

  @Test
  void pendingDelays_listEveryWaitingTaskEarliestFirst() {
    clock.schedule(() -> {}, Duration.ofSeconds(5));
    clock.schedule(() -> {}, Duration.ofSeconds(2));
    clock.advance(Duration.ofSeconds(1));
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(4));
    assertThat(clock.nextDelay()).contains(Duration.ofSeconds(1));
    assertThat(new FakeClock().nextDelay()).isEmpty();
  }
}

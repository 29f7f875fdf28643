package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A few candidates for one Lease on one fake clock, driven in small steps; after every step it
 * checks that no two candidates lead with a lease valid by their own clocks, which is the
 * guarantee leader election gives.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class Election implements AutoCloseable {

  /** How far time moves between two checks of the invariant. */
  static final Duration STEP = Duration.ofMillis(50);

  final FakeClock clock = new FakeClock();
  final List<Candidate> candidates = new ArrayList<>();
  private long leadershipChanges;
  private Optional<Candidate> lastLeader = Optional.empty();

  Election(EmbeddedApiServer server, String lease, int size, long seed) {
    for (int i = 1; i <= size; i++) {
      candidates.add(new Candidate(server, clock, lease, "c" + i, LeaderElectionConfig.defaults(),
          seed * 31 + i));
    }
  }

  Candidate get(int i) {
    return candidates.get(i);
  }

  /** Starts every candidate, in order, at the current time. */
  Election start() {
    candidates.forEach(c -> c.elector.start());
    step(Duration.ZERO);
    return this;
  }

  /** Moves time on by {@code d} in {@link #STEP}s, checking the invariant after each. */
  void run(Duration d) {
    long end = clock.nanoTime() + d.toNanos();
    while (clock.nanoTime() < end) {
      step(Duration.ofNanos(Math.min(STEP.toNanos(), end - clock.nanoTime())));
    }
  }

  /**
   * Moves time on in {@link #STEP}s until {@code condition} holds, at most {@code limit}.
   *
   * @return how long it took
   */
  Duration runUntil(BooleanSupplier condition, Duration limit) {
    long start = clock.nanoTime();
    while (!condition.getAsBoolean()) {
      assertThat(clock.nanoTime() - start)
          .as("condition within %s", limit).isLessThan(limit.toNanos());
      step(STEP);
    }
    return Duration.ofNanos(clock.nanoTime() - start);
  }

  private void step(Duration d) {
    clock.advance(d);
    candidates.forEach(Candidate::deliverCallbacks);
    List<String> leading = new ArrayList<>();
    Candidate leader = null;
    for (Candidate c : candidates) {
      if (c.isLeader()) {
        leading.add(c.identity);
        leader = c;
      }
    }
    assertThat(leading).as("candidates holding a valid lease at %s", clock.now())
        .hasSizeLessThanOrEqualTo(1);
    if (leader != null && !lastLeader.equals(Optional.of(leader))) {
      leadershipChanges++;
      lastLeader = Optional.of(leader);
    }
  }

  /** The candidate that leads now, if one does. */
  Optional<Candidate> leader() {
    return candidates.stream().filter(Candidate::isLeader).findFirst();
  }

  /** How often leadership went to a candidate other than the last leader seen. */
  long leadershipChanges() {
    return leadershipChanges;
  }

  @Override
  public void close() {
    candidates.forEach(Candidate::close);
  }
}

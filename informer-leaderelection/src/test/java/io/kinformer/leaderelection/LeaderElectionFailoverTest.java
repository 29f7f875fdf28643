package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three candidates against the embedded API server, on a fake clock, under faults: the leader
 * dies without releasing, the leader or a standby is cut off, the API server is unreachable, and
 * clocks jump. After every 50 ms step, {@link Election} checks that no two candidates hold a
 * valid lease at once.
 *
 * <p>{@link #killedLeader_isReplacedWithinOneLeaseDurationAndTwoRetryPeriods} also writes the
 * failover figures of docs/reliability.md to {@code target/leader-election-failover.txt}.
 */
class LeaderElectionFailoverTest {

  @RegisterExtension static final EmbeddedApiServerExtension apiServer =
      new EmbeddedApiServerExtension();

  private static final AtomicInteger leases = new AtomicInteger();
  private static final Duration LEASE = LeaderElectionConfig.DEFAULT_LEASE_DURATION;
  private static final Duration RETRY = LeaderElectionConfig.DEFAULT_RETRY_PERIOD;
  private static final Duration JITTERED_RETRY = Duration.ofMillis(
      (long) (RETRY.toMillis() * (1 + LeaderElectionConfig.JITTER_FACTOR)));

  private EmbeddedApiServer server;

  @BeforeEach
  void setUp() {
    server = apiServer.server();
    server.faults().reset();
  }

  private Election election(long seed) {
    return new Election(server, "failover-" + leases.incrementAndGet(), 3, seed).start();
  }

  @Test
  void killedLeader_isReplacedWithinOneLeaseDurationAndTwoRetryPeriods() throws IOException {
    List<Long> failoverMillis = new ArrayList<>();
    List<Long> unownedMillis = new ArrayList<>();
    for (long seed = 1; seed <= 20; seed++) {
      try (Election e = election(seed)) {
        e.run(Duration.ofSeconds(10));
        Candidate old = e.leader().orElseThrow();
        // Kill at a random moment of the renewal cycle.
        e.run(Election.STEP.multipliedBy(new SplittableRandom(seed).nextInt(40)));
        long killedAt = e.clock.nanoTime();
        long claimEnd = old.elector.claim().observedExpiryNanos();
        old.clock.kill();

        // The dead leader's claim runs out on its own; the invariant holds all along.
        Duration failover = e.runUntil(() -> e.leader().filter(c -> c != old).isPresent(),
            Duration.ofSeconds(30));

        Candidate next = e.leader().orElseThrow();
        assertThat(next).isNotSameAs(old);
        long unowned = e.clock.nanoTime() - claimEnd;
        assertThat(unowned).as("time between the old claim's end and the new leader")
            .isNotNegative();
        // A standby saw the last renewal at most one jittered retry period after it was made,
        // and tries again at most one jittered retry period after the lease expired.
        assertThat(failover).isLessThanOrEqualTo(LEASE.plus(JITTERED_RETRY).plus(JITTERED_RETRY));
        assertThat(next.events).endsWith("started");
        failoverMillis.add(failover.toMillis());
        unownedMillis.add(Duration.ofNanos(unowned).toMillis());
        e.run(JITTERED_RETRY); // every survivor reads the Lease again
        for (Candidate c : e.candidates) {
          if (c != old) {
            assertThat(c.events).as(c.identity + " told of each new leader in turn")
                .containsSubsequence("leader=" + old.identity, "leader=" + next.identity);
            assertThat(c.elector.leader()).contains(next.identity);
          }
        }
      }
    }
    writeFigures(failoverMillis, unownedMillis);
  }

  private static void writeFigures(List<Long> failover, List<Long> unowned) throws IOException {
    failover.sort(null);
    unowned.sort(null);
    String text = String.format(
        "killed leader, 3 candidates, default timings (15 s / 10 s / 2 s), %d seeds, 50 ms steps%n"
            + "failover (kill -> new leader): min %d ms, median %d ms, max %d ms%n"
            + "unowned (old claim end -> new leader): min %d ms, median %d ms, max %d ms%n",
        failover.size(), failover.get(0), failover.get(failover.size() / 2),
        failover.get(failover.size() - 1), unowned.get(0), unowned.get(unowned.size() / 2),
        unowned.get(unowned.size() - 1));
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "leader-election-failover.txt"), text);
  }

  @Test
  void partitionedLeader_stopsAtItsRenewDeadline_beforeAStandbyTakesOver() throws Exception {
    try (Election e = election(3)) {
      e.run(Duration.ofSeconds(10));
      Candidate old = e.leader().orElseThrow();
      long cutAt = e.clock.nanoTime();
      server.faults().partition(old.userAgent(), 503);

      String log = CapturedStderr.during(() -> {
        e.runUntil(() -> old.elector.state() == LeaderElector.State.STOPPED,
            Duration.ofSeconds(13));
        long stoppedAt = e.clock.nanoTime();
        assertThat(e.leader()).isEmpty();
        e.runUntil(() -> e.leader().isPresent(), Duration.ofSeconds(15));
        assertThat(e.clock.nanoTime()).isGreaterThan(stoppedAt);
      });

      assertThat(e.clock.nanoTime() - cutAt).isLessThanOrEqualTo(
          LEASE.plus(JITTERED_RETRY).plus(JITTERED_RETRY).toNanos());
      assertThat(old.events).containsExactly("leader=" + old.identity, "started", "stopped");
      assertThat(old.term.isActive()).isFalse();
      assertThat(log).contains("identity=" + old.identity + " cannot read the lease");
      server.faults().heal(old.userAgent());
      Candidate next = e.leader().orElseThrow();
      e.run(Duration.ofSeconds(30));
      assertThat(e.leader()).containsSame(next);
      assertThat(old.elector.state()).isEqualTo(LeaderElector.State.STOPPED);
      assertThat(old.elector.stopped()).isDone();
      assertThat(e.leadershipChanges()).isEqualTo(2);
    }
  }

  @Test
  void partitionedStandby_changesNothing() throws Exception {
    try (Election e = election(4)) {
      e.run(Duration.ofSeconds(5));
      Candidate leader = e.leader().orElseThrow();
      Candidate standby = e.candidates.stream().filter(c -> c != leader).findFirst()
          .orElseThrow();
      server.faults().partition(standby.userAgent(), 503);

      String log = CapturedStderr.during(() -> e.run(Duration.ofSeconds(60)));

      server.faults().heal(standby.userAgent());
      e.run(Duration.ofSeconds(10));
      assertThat(e.leader()).containsSame(leader);
      assertThat(e.leadershipChanges()).isEqualTo(1);
      assertThat(standby.elector.leader()).contains(leader.identity);
      assertThat(log).contains("identity=" + standby.identity + " cannot read the lease")
          .doesNotContain("identity=" + leader.identity);
    }
  }

  @Test
  void apiServerUnreachable_shorterThanTheRenewDeadline_keepsTheLeader() throws Exception {
    try (Election e = election(5)) {
      e.run(Duration.ofSeconds(5));
      Candidate leader = e.leader().orElseThrow();
      server.faults().partition("candidate/", 503);

      CapturedStderr.during(() -> e.run(Duration.ofSeconds(7)));

      server.faults().heal("candidate/");
      e.run(Duration.ofSeconds(30));
      assertThat(e.leader()).containsSame(leader);
      assertThat(e.leadershipChanges()).isEqualTo(1);
      assertThat(leader.events).containsExactly("leader=" + leader.identity, "started");
    }
  }

  @Test
  void apiServerUnreachable_longerThanTheRenewDeadline_endsTheTerm_andAStandbyTakesOver()
      throws Exception {
    try (Election e = election(6)) {
      e.run(Duration.ofSeconds(5));
      Candidate old = e.leader().orElseThrow();
      server.faults().partition("candidate/", 503);

      CapturedStderr.during(() -> e.run(Duration.ofSeconds(30)));
      assertThat(e.leader()).isEmpty();
      assertThat(old.elector.state()).isEqualTo(LeaderElector.State.STOPPED);
      server.faults().heal("candidate/");

      // A standby that read the leader's last renewal only now waits a full lease from now.
      e.runUntil(() -> e.leader().isPresent(),
          LEASE.plus(JITTERED_RETRY).plus(JITTERED_RETRY));
      assertThat(e.leader().orElseThrow()).isNotSameAs(old);
    }
  }

  @Test
  void apiServerRestart_withItsDataRestored_keepsTheLeader() throws Exception {
    EmbeddedApiServer first = EmbeddedApiServer.builder().start();
    int port = first.port();
    EmbeddedApiServer second = null;
    try (Election e = new Election(first, "restarted", 3, 9).start()) {
      e.run(Duration.ofSeconds(5));
      Candidate leader = e.leader().orElseThrow();
      Lease saved = leader.client.resources(Lease.class).inNamespace("default").get("restarted")
          .orElseThrow();
      first.close();

      CapturedStderr.during(() -> e.run(Duration.ofSeconds(3))); // nobody answers
      second = EmbeddedApiServer.builder().port(port).start();
      // The store comes back from a backup: the same Lease, with a new resourceVersion and uid.
      saved.getMetadata().setResourceVersion(null);
      saved.getMetadata().setUid(null);
      saved.getMetadata().setCreationTimestamp(null);
      saved.getMetadata().setManagedFields(null);
      leader.client.resources(Lease.class).inNamespace("default").create(saved);

      e.run(Duration.ofSeconds(30));

      assertThat(e.leader()).containsSame(leader);
      assertThat(e.leadershipChanges()).isEqualTo(1);
      assertThat(leader.events).containsExactly("leader=" + leader.identity, "started");
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  void wallClocksSetWrong_changeNothing() {
    try (Election e = election(7)) {
      e.run(Duration.ofSeconds(5));
      Candidate leader = e.leader().orElseThrow();
      int skew = 1;
      for (Candidate c : e.candidates) {
        c.clock.skewWallClock(Duration.ofHours(skew));
        skew = -skew * 2;
      }

      e.run(Duration.ofSeconds(120));

      assertThat(e.leader()).containsSame(leader);
      assertThat(e.leadershipChanges()).isEqualTo(1);
    }
  }

  @Test
  void leadersClockJumpingForward_keepsTheLeader() {
    try (Election e = election(8)) {
      e.run(Duration.ofSeconds(5));
      Candidate leader = e.leader().orElseThrow();

      leader.clock.jump(Duration.ofSeconds(20));

      // By its own clock its claim has run out, so it does not count as leading...
      assertThat(leader.isLeader()).isFalse();
      // ...until its next renewal, which reads the Lease, finds its own record and renews it.
      e.runUntil(leader::isLeader, RETRY);
      e.run(Duration.ofSeconds(60));
      assertThat(e.leader()).containsSame(leader);
      assertThat(leader.events).containsExactly("leader=" + leader.identity, "started");
    }
  }

  @Test
  void everyClockJumpingForwardTogether_leavesOneLeader_andEndsAnyOtherTerm() {
    for (long seed = 10; seed < 20; seed++) {
      try (Election e = election(seed)) {
        e.run(Duration.ofSeconds(5).plus(Election.STEP.multipliedBy(seed)));
        // As when the host running all three was suspended for a minute.
        e.candidates.forEach(c -> c.clock.jump(Duration.ofMinutes(1)));

        e.run(Duration.ofSeconds(30));

        Candidate leader = e.leader().orElseThrow();
        for (Candidate c : e.candidates) {
          if (c != leader) {
            assertThat(c.elector.state()).isNotEqualTo(LeaderElector.State.LEADING);
            assertThat(c.term == null || !c.term.isActive()).isTrue();
          }
        }
      }
    }
  }
}

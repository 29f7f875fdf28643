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
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three replicas sharing six shards over Leases of the embedded API server, on a fake clock,
 * under faults: a replica dies without releasing, one is cut off, the API server is unreachable
 * for all or restarts, clocks jump. After every 50 ms step, {@link ShardGroup} checks that no shard has two
 * owners (duplicate ownership zero at every step), and records how long shards went unowned.
 *
 * <p>{@link #killedReplica_itsShardsMoveWithinOneLeaseDurationAndTwoRetryPeriods} writes the
 * figures of docs/reliability.md to {@code target/sharding-failover.txt}.
 */
class ShardingFailoverTest {

  @RegisterExtension static final EmbeddedApiServerExtension apiServer =
      new EmbeddedApiServerExtension();

  private static final AtomicInteger groups = new AtomicInteger();
  private static final Duration LEASE = LeaderElectionConfig.DEFAULT_LEASE_DURATION;
  private static final Duration RENEW = LeaderElectionConfig.DEFAULT_RENEW_DEADLINE;
  private static final Duration RETRY = LeaderElectionConfig.DEFAULT_RETRY_PERIOD;
  private static final Duration JITTERED_RETRY = Duration.ofMillis(
      (long) (RETRY.toMillis() * (1 + LeaderElectionConfig.JITTER_FACTOR)));

  private EmbeddedApiServer server;

  @BeforeEach
  void setUp() {
    server = apiServer.server();
    server.faults().reset();
  }

  private ShardGroup converged(long seed) {
    ShardGroup g = new ShardGroup(server, "failover-" + groups.incrementAndGet(), 3, 6, seed)
        .start();
    g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
    g.run(Duration.ofSeconds(10));
    return g;
  }

  private static List<ShardReplica> others(ShardGroup g, ShardReplica r) {
    return g.replicas.stream().filter(x -> x != r).toList();
  }

  @Test
  void killedReplica_itsShardsMoveWithinOneLeaseDurationAndTwoRetryPeriods() throws IOException {
    List<Long> failoverMillis = new ArrayList<>();
    List<Long> unownedMillis = new ArrayList<>();
    for (long seed = 1; seed <= 20; seed++) {
      try (ShardGroup g = converged(seed)) {
        ShardReplica dead = g.get((int) (seed % 3));
        // Kill at a random moment of the renewal cycle, without releasing anything.
        g.run(ShardGroup.STEP.multipliedBy(new SplittableRandom(seed).nextInt(40)));
        Set<Integer> itsShards = dead.coordinator.ownedShards();
        assertThat(itsShards).hasSize(2);
        long killedAt = g.clock.nanoTime();
        dead.clock.kill();
        g.resetUnowned();

        List<ShardReplica> rest = others(g, dead);
        Duration failover = g.runUntil(() -> g.allOwnedBy(rest), Duration.ofSeconds(40));

        // The survivors saw the last renewal at most one jittered retry period after it was made,
        // and try again at most one jittered retry period after the Lease expired.
        assertThat(failover).isLessThanOrEqualTo(LEASE.plus(JITTERED_RETRY).plus(JITTERED_RETRY));
        assertThat(g.longestUnowned()).isLessThanOrEqualTo(failover);
        g.run(Duration.ofSeconds(10));
        assertThat(rest).allSatisfy(r -> assertThat(r.coordinator.ownedShards()).hasSize(3));
        assertThat(rest).allSatisfy(r -> assertThat(r.coordinator.members())
            .doesNotContain(dead.identity));
        failoverMillis.add(failover.toMillis());
        unownedMillis.add(g.longestUnowned().toMillis());
        assertThat(g.clock.nanoTime()).isGreaterThan(killedAt);
      }
    }
    writeFigures(failoverMillis, unownedMillis);
  }

  private static void writeFigures(List<Long> failover, List<Long> unowned) throws IOException {
    failover.sort(null);
    unowned.sort(null);
    String text = String.format(
        "killed replica, 3 replicas, 6 shards, default timings (15 s / 10 s / 2 s), %d seeds, "
            + "50 ms steps%n"
            + "failover (kill -> all its shards owned again): min %d ms, median %d ms, max %d ms%n"
            + "longest unowned shard (no owner by any clock): min %d ms, median %d ms, max %d ms%n"
            + "duplicate ownership: 0 at every step%n",
        failover.size(), failover.get(0), failover.get(failover.size() / 2),
        failover.get(failover.size() - 1), unowned.get(0), unowned.get(unowned.size() / 2),
        unowned.get(unowned.size() - 1));
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "sharding-failover.txt"), text);
  }

  @Test
  void partitionedReplica_stopsActingAtItsRenewDeadline_beforeAnotherTakesOver() throws Exception {
    try (ShardGroup g = converged(3)) {
      ShardReplica cut = g.get(0);
      Set<Integer> itsShards = cut.coordinator.ownedShards();
      long cutAt = g.clock.nanoTime();
      server.faults().partition(cut.userAgent(), 503);

      String log = CapturedStderr.during(() -> {
        g.runUntil(() -> cut.coordinator.ownedShards().isEmpty(), RENEW.plus(ShardGroup.STEP));
        long stoppedAt = g.clock.nanoTime();
        // Nobody else has its shards yet: they are still leased to it by the others' clocks.
        assertThat(itsShards).allSatisfy(i -> assertThat(g.owners(i)).isEmpty());
        g.runUntil(() -> g.allOwnedBy(others(g, cut)), LEASE.plus(JITTERED_RETRY.multipliedBy(2)));
        assertThat(g.clock.nanoTime() - cutAt).isGreaterThan(stoppedAt - cutAt);
        assertThat(cut.told).isEmpty();
      });
      assertThat(log).contains("cannot read the lease");

      server.faults().heal(cut.userAgent());
      g.runUntil(() -> cut.coordinator.ownedShards().size() == 2, Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(10));
      assertThat(g.replicas).allSatisfy(r -> assertThat(r.coordinator.ownedShards()).hasSize(2));
    }
  }

  @Test
  void apiServerUnreachableForAll_everyoneStops_thenTheyConvergeAgain() throws Exception {
    try (ShardGroup g = converged(4)) {
      server.faults().partition("replica/", 503);
      CapturedStderr.during(() -> {
        g.runUntil(() -> g.replicas.stream()
            .allMatch(r -> r.coordinator.ownedShards().isEmpty()), RENEW.plus(ShardGroup.STEP));
        g.run(Duration.ofSeconds(20));
      });
      server.faults().heal("replica/");
      g.runUntil(() -> g.allOwnedBy(g.replicas), LEASE.plus(JITTERED_RETRY.multipliedBy(3)));
      g.run(Duration.ofSeconds(20));
      assertThat(g.replicas).allSatisfy(r -> assertThat(r.coordinator.ownedShards()).hasSize(2));
    }
  }

  @Test
  void apiServerRestart_withItsDataRestored_keepsEveryShardWhereItWas() throws Exception {
    EmbeddedApiServer first = EmbeddedApiServer.builder().start();
    int port = first.port();
    EmbeddedApiServer second = null;
    try (ShardGroup g = new ShardGroup(first, "restarted", 3, 6, 9).start()) {
      g.runUntil(() -> g.replicas.stream()
          .allMatch(r -> r.coordinator.ownedShards().size() == 2), Duration.ofSeconds(30));
      List<Set<Integer>> before = g.replicas.stream().map(r -> r.coordinator.ownedShards())
          .toList();
      var leases = g.get(0).client.resources(Lease.class).inNamespace("default");
      List<Lease> saved = leases.list();
      g.resetUnowned();
      first.close();

      CapturedStderr.during(() -> g.run(Duration.ofSeconds(3))); // nobody answers
      second = EmbeddedApiServer.builder().port(port).start();
      // The store comes back from a backup: the same Leases, with new resourceVersions and uids.
      for (Lease l : saved) {
        l.getMetadata().setResourceVersion(null);
        l.getMetadata().setUid(null);
        l.getMetadata().setCreationTimestamp(null);
        l.getMetadata().setManagedFields(null);
        leases.create(l);
      }
      CapturedStderr.during(() -> g.run(Duration.ofSeconds(30)));

      assertThat(g.replicas.stream().map(r -> r.coordinator.ownedShards()).toList())
          .isEqualTo(before);
      assertThat(g.longestUnowned()).isZero();
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  void ownersClockJumpingForward_stopsItOwningAtOnce_untilItsNextRenewal() {
    try (ShardGroup g = converged(5)) {
      ShardReplica r = g.get(1);
      Set<Integer> before = r.coordinator.ownedShards();
      r.clock.jump(Duration.ofSeconds(20));
      assertThat(r.coordinator.ownedShards()).isEmpty();
      g.runUntil(() -> r.coordinator.ownedShards().equals(before), JITTERED_RETRY.plus(RETRY));
      g.run(Duration.ofSeconds(30));
      assertThat(g.allOwnedBy(g.replicas)).isTrue();
      assertThat(r.events).containsSubsequence("-" + before.iterator().next(),
          "+" + before.iterator().next());
    }
  }

  @Test
  void everyClockJumpingForwardTogether_keepsOneOwnerPerShard() {
    for (long seed = 10; seed < 15; seed++) {
      try (ShardGroup g = converged(seed)) {
        // As when the host running all three was suspended for a minute.
        g.replicas.forEach(r -> r.clock.jump(Duration.ofMinutes(1)));
        g.run(Duration.ofSeconds(30));
        g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
        g.run(Duration.ofSeconds(10));
      }
    }
  }
}

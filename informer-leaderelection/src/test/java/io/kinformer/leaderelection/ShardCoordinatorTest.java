package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.cache.ShardSelector;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replicas sharing shards over Leases of the embedded API server, on a fake clock, without
 * faults: they converge to each shard owned exactly once and to fair shares, a replica that joins
 * or leaves moves shards, and a shard never has two owners (checked after every 50 ms step).
 */
class ShardCoordinatorTest {

  @RegisterExtension static final EmbeddedApiServerExtension apiServer =
      new EmbeddedApiServerExtension();

  private static final AtomicInteger groups = new AtomicInteger();
  private static final Duration RETRY = LeaderElectionConfig.DEFAULT_RETRY_PERIOD;

  private EmbeddedApiServer server;

  @BeforeEach
  void setUp() {
    server = apiServer.server();
    server.faults().reset();
  }

  private ShardGroup group(int replicas, int shards, long seed) {
    return new ShardGroup(server, "shards-" + groups.incrementAndGet(), replicas, shards, seed);
  }

  @Test
  void threeReplicas_convergeToEachShardOwnedOnce_twoEach() {
    try (ShardGroup g = group(3, 6, 1).start()) {
      g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(30));
      for (int i = 0; i < 6; i++) {
        assertThat(g.owners(i)).as("owners of shard %d", i).hasSize(1);
      }
      for (ShardReplica r : g.replicas) {
        assertThat(r.coordinator.ownedShards()).hasSize(2);
        assertThat(r.told).as("what the callbacks said of %s", r.identity)
            .containsExactlyElementsOf(r.coordinator.ownedShards());
        assertThat(r.coordinator.members()).containsExactly("r1", "r2", "r3");
      }
    }
  }

  @Test
  void unevenShares_differByAtMostOne() {
    try (ShardGroup g = group(3, 7, 2).start()) {
      g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(30));
      assertThat(g.replicas.stream().map(r -> r.coordinator.ownedShards().size()))
          .containsExactlyInAnyOrder(3, 2, 2);
    }
  }

  @Test
  void aReplicaJoining_getsItsShare_fromTheOthers() {
    try (ShardGroup g = group(2, 6, 3).start()) {
      g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(10));
      ShardReplica third = g.add();
      third.coordinator.start();
      g.runUntil(() -> third.coordinator.ownedShards().size() == 2, Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(10));
      assertThat(g.replicas).allSatisfy(r -> assertThat(r.coordinator.ownedShards()).hasSize(2));
      assertThat(g.allOwnedBy(g.replicas)).isTrue();
    }
  }

  @Test
  void aReplicaClosing_releases_andTheOthersTakeOverWithinTwoRetryPeriods() {
    try (ShardGroup g = group(3, 6, 4).start()) {
      g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(10));
      ShardReplica leaving = g.get(1);
      List<Integer> itsShards = List.copyOf(leaving.coordinator.ownedShards());
      leaving.close();
      assertThat(leaving.coordinator.ownedShards()).isEmpty();
      assertThat(leaving.told).isEmpty();
      List<ShardReplica> rest = List.of(g.get(0), g.get(2));
      Duration handoff = g.runUntil(() -> g.allOwnedBy(rest),
          Duration.ofMillis((long) (RETRY.toMillis() * 2 * (1 + LeaderElectionConfig.JITTER_FACTOR))));
      assertThat(handoff).isPositive();
      assertThat(itsShards).allSatisfy(i -> assertThat(g.owner(i)).isPresent());
      g.run(Duration.ofSeconds(5));
      assertThat(rest).allSatisfy(r -> assertThat(r.coordinator.ownedShards()).hasSize(3));
    }
  }

  @Test
  void wallClocksSetWrong_changeNothing() {
    try (ShardGroup g = group(3, 6, 5).start()) {
      g.runUntil(() -> g.allOwnedBy(g.replicas), Duration.ofSeconds(30));
      g.run(Duration.ofSeconds(10));
      List<String> before = g.replicas.stream().map(r -> r.coordinator.ownedShards().toString())
          .toList();
      int skew = 1;
      for (ShardReplica r : g.replicas) {
        r.clock.skewWallClock(Duration.ofHours(skew));
        skew = -skew * 2;
      }
      g.run(Duration.ofSeconds(120));
      assertThat(g.replicas.stream().map(r -> r.coordinator.ownedShards().toString()).toList())
          .isEqualTo(before);
    }
  }

  @Test
  void shard_handsOutTheRangeOfItsIndex() {
    try (ShardGroup g = group(1, 4, 6)) {
      List<Shard> shards = g.get(0).coordinator.shards();
      assertThat(shards).extracting(Shard::index).containsExactly(0, 1, 2, 3);
      assertThat(shards.get(3).selector())
          .isEqualTo(ShardSelector.ofShard(ShardSelector.Field.UID, 3, 4));
    }
  }

  @Test
  void builder_refusesBadNamesAndCounts() {
    try (ShardGroup g = group(1, 1, 7)) {
      var client = g.get(0).client;
      ShardCallbacks none = new ShardCallbacks() {
        @Override
        public void onShardGained(Shard shard) {}

        @Override
        public void onShardLost(Shard shard) {}
      };
      assertThatThrownBy(() -> ShardCoordinator.builder(client, "default", "x", "Pod_1", 3, none))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("identity");
      assertThatThrownBy(() -> ShardCoordinator.builder(client, "default", "x", "p", 0, none))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shards");
    }
  }
}

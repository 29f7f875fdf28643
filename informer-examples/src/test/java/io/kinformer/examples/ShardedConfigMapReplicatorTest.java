package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.client.KubeConfig;
import io.kinformer.leaderelection.Shard;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ShardedConfigMapReplicator}'s three replicas against the embedded API server: the Lease
 * rounds run on a fake clock (informers and workers run for real), so the test decides when a
 * crashed replica's Leases expire.
 */
class ShardedConfigMapReplicatorTest {

  private final FakeClock clock = new FakeClock();
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final Console console =
      new Console(new PrintStream(output, true, StandardCharsets.UTF_8), clock, false);
  private final EmbeddedApiServer server = EmbeddedApiServer.builder().start();
  private final List<ShardedConfigMapReplicator.Replica> replicas = new ArrayList<>();

  @AfterEach
  void closeAll() {
    replicas.forEach(ShardedConfigMapReplicator.Replica::close);
    server.close();
  }

  private List<String> owners(int shard) {
    return replicas.stream().filter(r -> r.coordinator().owns(shard)).map(r -> r.identity)
        .toList();
  }

  /** Moves the fake clock in 100 ms steps until {@code done}, checking single ownership. */
  private void advanceUntil(java.util.function.BooleanSupplier done, Duration limit) {
    long start = clock.nanoTime();
    while (!done.getAsBoolean()) {
      assertThat(clock.nanoTime() - start).isLessThan(limit.toNanos());
      clock.advance(Duration.ofMillis(100));
      for (int i = 0; i < ShardedConfigMapReplicator.SHARDS; i++) {
        assertThat(owners(i)).as("owners of shard %d", i).hasSizeLessThanOrEqualTo(1);
      }
    }
  }

  private boolean allOwned(List<ShardedConfigMapReplicator.Replica> among) {
    for (int i = 0; i < ShardedConfigMapReplicator.SHARDS; i++) {
      int shard = i;
      if (among.stream().noneMatch(r -> r.coordinator().owns(shard))) {
        return false;
      }
    }
    return true;
  }

  private static String keyOf(String write) {
    return write.substring(write.indexOf(' ') + 1);
  }

  @Test
  void eachReplicaWritesOnlyItsShards_andACrashedReplicasShardsMoveToTheOthers() {
    ConfigMapReplicatorTest.seed(server);
    for (int i = 1; i <= 3; i++) {
      replicas.add(new ShardedConfigMapReplicator.Replica(
          KubeConfig.load(server.kubeConfig()), "replica-" + i, console, clock,
          b -> b.clock(clock).executor(Runnable::run).callbackExecutor(Runnable::run)));
    }
    replicas.forEach(ShardedConfigMapReplicator.Replica::startInformers);
    for (ShardedConfigMapReplicator.Replica r : replicas) {
      assertThat(r.awaitSynced(Duration.ofSeconds(30))).isTrue();
    }
    replicas.forEach(ShardedConfigMapReplicator.Replica::startWork);
    // The first to start takes every shard, then hands two back as the others show up.
    advanceUntil(() -> replicas.stream().allMatch(r -> r.coordinator().ownedShards().size() == 1),
        Duration.ofSeconds(15));

    ConfigMapReplicatorTest.awaitConverged(server);
    // With the shares settled (the fake clock stands still), each change is written by the owner
    // of its namespace's shard.
    List<Integer> before = replicas.stream().map(r -> r.writes()).toList();
    ConfigMapReplicatorTest.changeSources(server);
    ConfigMapReplicatorTest.awaitConverged(server);
    for (int k = 0; k < replicas.size(); k++) {
      ShardedConfigMapReplicator.Replica r = replicas.get(k);
      for (String write : r.written().subList(before.get(k), r.writes())) {
        Shard shard = r.coordinator().shardOf(keyOf(write));
        assertThat(r.coordinator().owns(shard.index())).as("%s: %s", r.identity, write).isTrue();
      }
    }

    ShardedConfigMapReplicator.Replica crashed = replicas.stream()
        .filter(r -> r.coordinator().owns(r.coordinator().shardOf("team-a/app-settings").index()))
        .findFirst().orElseThrow();
    int crashedWrites = crashed.writes();
    int shard = crashed.coordinator().shardOf("team-a/app-settings").index();
    crashed.crash();
    List<ShardedConfigMapReplicator.Replica> rest =
        replicas.stream().filter(r -> r != crashed).toList();
    advanceUntil(() -> allOwned(rest), Duration.ofSeconds(10));

    server.delete("v1", "ConfigMap", "team-a", "app-settings"); // someone deletes a copy
    ConfigMapReplicatorTest.awaitConverged(server);
    assertThat(crashed.writes()).isEqualTo(crashedWrites);
    ShardedConfigMapReplicator.Replica next = rest.stream()
        .filter(r -> r.coordinator().owns(shard)).findFirst().orElseThrow();
    assertThat(next.written()).contains("created team-a/app-settings");
    assertThat(output.toString(StandardCharsets.UTF_8)).contains("GAINED", "WRITE");
  }
}

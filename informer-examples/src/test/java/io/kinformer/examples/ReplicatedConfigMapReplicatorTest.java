package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicatedConfigMapReplicator}'s three replicas against the embedded API server: the
 * elections run on a fake clock (informers and workers run for real), so the test decides when the
 * Lease expires.
 */
class ReplicatedConfigMapReplicatorTest {

  private final FakeClock clock = new FakeClock();
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final Console console =
      new Console(new PrintStream(output, true, StandardCharsets.UTF_8), clock, false);
  private final EmbeddedApiServer server = EmbeddedApiServer.builder().start();
  private final List<ReplicatedConfigMapReplicator.Replica> replicas = new ArrayList<>();

  @AfterEach
  void closeAll() {
    replicas.forEach(ReplicatedConfigMapReplicator.Replica::close);
    server.close();
  }

  private List<ReplicatedConfigMapReplicator.Replica> leaders() {
    return replicas.stream().filter(ReplicatedConfigMapReplicator.Replica::isLeader).toList();
  }

  @Test
  void leaderCrash_anotherReplicaTakesOverFromItsWarmCache_andKeepsTheCopiesInLine() {
    ConfigMapReplicatorTest.seed(server);
    for (int i = 1; i <= 3; i++) {
      replicas.add(new ReplicatedConfigMapReplicator.Replica(
          KubeConfig.load(server.kubeConfig()), "replica-" + i, console,
          b -> b.clock(clock).scheduler(clock).executor(Runnable::run)));
    }
    replicas.forEach(ReplicatedConfigMapReplicator.Replica::startInformers);
    for (ReplicatedConfigMapReplicator.Replica r : replicas) {
      assertThat(r.awaitSynced(Duration.ofSeconds(30))).isTrue();
    }
    replicas.forEach(ReplicatedConfigMapReplicator.Replica::startElection);
    clock.runDueTasks();

    ReplicatedConfigMapReplicator.Replica first = replicas.get(0);
    assertThat(leaders()).containsExactly(first);
    ConfigMapReplicatorTest.awaitConverged(server);
    int firstWrites = first.writes();
    assertThat(firstWrites).isPositive();

    first.crash();
    long crashedAt = clock.nanoTime();
    while (leaders().stream().noneMatch(r -> r != first)) {
      assertThat(clock.nanoTime() - crashedAt).isLessThan(Duration.ofSeconds(10).toNanos());
      clock.advance(Duration.ofMillis(100));
      assertThat(leaders()).hasSizeLessThanOrEqualTo(1);
    }
    // The old claim ran out before anyone took over.
    assertThat(clock.nanoTime() - crashedAt)
        .isGreaterThanOrEqualTo(ReplicatedConfigMapReplicator.DEMO_TIMING.leaseDuration()
            .minus(ReplicatedConfigMapReplicator.DEMO_TIMING.retryPeriod()).toNanos());
    ReplicatedConfigMapReplicator.Replica next = leaders().get(0);

    ConfigMapReplicatorTest.changeSources(server);
    ConfigMapReplicatorTest.awaitConverged(server);

    assertThat(next.writes()).isPositive();
    assertThat(first.writes()).isEqualTo(firstWrites);
    assertThat(replicas).filteredOn(r -> r != first && r != next)
        .allSatisfy(r -> assertThat(r.writes()).isZero());
    assertThat(output.toString(StandardCharsets.UTF_8))
        .contains("LEADING", "replica-1", next.identity, "reconciles from its synced cache");
  }
}

package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.client.KubeConfig;
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
 * {@link ReplicatedConfigMapReplicator}'s three replicas against the embedded API server: the
 * elections run on a fake clock (informers and workers run for real), so the test decides when the
 * Lease expires.
 */
class ReplicatedConfigMapReplicatorTest {

  private final EmbeddedApiServer server = EmbeddedApiServer.builder().start();
  private final Failover failover = new Failover();

  @AfterEach
  void closeAll() {
    failover.close();
    server.close();
  }

  @Test
  void leaderCrash_anotherReplicaTakesOverFromItsWarmCache_andKeepsTheCopiesInLine() {
    failover.run(KubeConfig.load(server.kubeConfig()),
        () -> ConfigMapReplicatorTest.seed(server),
        () -> ConfigMapReplicatorTest.changeSources(server),
        () -> ConfigMapReplicatorTest.awaitConverged(server));
  }

  /**
   * Three replicas on one server, their elections on a fake clock: the first leads and
   * reconciles, crashes, and another takes over once the Lease has expired and reconciles the
   * changes made after the crash from its warm cache.
   */
  static final class Failover implements AutoCloseable {
    private final FakeClock clock = new FakeClock();
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final Console console =
        new Console(new PrintStream(output, true, StandardCharsets.UTF_8), clock, false);
    private final List<ReplicatedConfigMapReplicator.Replica> replicas = new ArrayList<>();

    private List<ReplicatedConfigMapReplicator.Replica> leaders() {
      return replicas.stream().filter(ReplicatedConfigMapReplicator.Replica::isLeader).toList();
    }

    /**
     * Runs the failover on the server of {@code config}: {@code seed} creates the sources and
     * namespaces, {@code changeSources} changes them, {@code awaitConverged} waits until the
     * copies match.
     */
    void run(KubeConfig config, Runnable seed, Runnable changeSources, Runnable awaitConverged) {
      seed.run();
      for (int i = 1; i <= 3; i++) {
        replicas.add(new ReplicatedConfigMapReplicator.Replica(
            config, "replica-" + i, console,
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
      awaitConverged.run();
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

      changeSources.run();
      awaitConverged.run();

      assertThat(next.writes()).isPositive();
      assertThat(first.writes()).isEqualTo(firstWrites);
      assertThat(replicas).filteredOn(r -> r != first && r != next)
          .allSatisfy(r -> assertThat(r.writes()).isZero());
      assertThat(output.toString(StandardCharsets.UTF_8))
          .contains("LEADING", "replica-1", next.identity, "reconciles from its synced cache");
    }

    @Override
    public void close() {
      replicas.forEach(ReplicatedConfigMapReplicator.Replica::close);
    }
  }
}

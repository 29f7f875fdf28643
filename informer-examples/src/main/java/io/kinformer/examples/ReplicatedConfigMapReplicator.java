package io.kinformer.examples;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.leaderelection.LeaderCallbacks;
import io.kinformer.leaderelection.LeaderElectionConfig;
import io.kinformer.leaderelection.LeaderElector;
import io.kinformer.leaderelection.LeaderTerm;
import io.kinformer.leaderelection.LeaseLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

/**
 * The {@link ConfigMapReplicator} run as three replicas with leader election, as a Deployment of
 * three pods would run it: every replica runs its informers from the start (a warm standby: its
 * caches are synced and its queue holds the keys to look at), and only the replica that holds
 * the Lease {@code configmap-replicator} in namespace {@code default} reconciles. Midway, the
 * leader crashes: it stops renewing without releasing the Lease, and another replica takes over
 * once the Lease expires, reconciling from its already-synced cache.
 *
 * <pre>
 * java -cp informer-examples/target/kinformer-demo.jar \
 *     io.kinformer.examples.ReplicatedConfigMapReplicator
 * </pre>
 *
 * <p>The demo uses a 4 s lease, 3 s renew deadline and 1 s retry period so that the failover
 * fits in its 20 seconds; the defaults (15 s, 10 s, 2 s) suit a real cluster better.
 *
 * <p>Threads: per replica, its client's, its factory's, two workers while it leads, and its
 * elector's two threads.
 *
 * <p>Thread safety: a program; {@link Replica} is thread-safe.
 */
public final class ReplicatedConfigMapReplicator {

  /** The Lease the replicas compete for, in namespace {@code default}. */
  static final String LEASE = "configmap-replicator";

  /** Short timings, so that the demo fails over within its run. */
  static final LeaderElectionConfig DEMO_TIMING = LeaderElectionConfig.builder()
      .leaseDuration(Duration.ofSeconds(4))
      .renewDeadline(Duration.ofSeconds(3))
      .retryPeriod(Duration.ofSeconds(1))
      .build();

  private ReplicatedConfigMapReplicator() {}

  /**
   * One replica: its own client (as its own pod would have), informers that run whether or not
   * it leads, a replicator whose workers run only while it leads, and its candidacy.
   */
  static final class Replica implements AutoCloseable {
    final String identity;
    private final KubeClient client;
    private final SharedInformerFactory factory;
    private final ConfigMapReplicator replicator;
    private final LeaderElector elector;

    /**
     * @param election adjusts the elector (tests give it a fake clock)
     */
    Replica(KubeConfig config, String identity, Console console,
        UnaryOperator<LeaderElector.Builder> election) {
      this.identity = Objects.requireNonNull(identity, "identity");
      this.client = KubeClient.create(config,
          ClientOptions.builder().userAgentSuffix("configmap-replicator/" + identity).build());
      this.factory = SharedInformerFactory.builder(client).build();
      this.replicator = new ConfigMapReplicator(client, factory, "source", 2,
          write -> console.row("WRITE", identity, write));
      // tag::leader-election[]
      LeaseLock lock = LeaseLock.create(client, "default", LEASE, identity);
      LeaderCallbacks callbacks = new LeaderCallbacks() {
        @Override
        public void onStartedLeading(LeaderTerm term) {
          console.row("LEADING", identity, "reconciles from its synced cache");
          replicator.start(); // the workers; the informers have been running all along
        }

        @Override
        public void onStoppedLeading() {
          replicator.close(); // a real controller would rather exit and be restarted
        }

        @Override
        public void onNewLeader(String leader) {
          console.row("SEES", identity, leader + " leading");
        }
      };
      this.elector = election.apply(
          LeaderElector.builder(lock, callbacks).config(DEMO_TIMING)).build();
      // end::leader-election[]
    }

    /** Starts the informers: every replica keeps its caches warm, leader or not. */
    void startInformers() {
      factory.start();
    }

    boolean awaitSynced(Duration timeout) {
      return factory.waitForCacheSync(timeout);
    }

    /** Starts competing for the Lease. */
    void startElection() {
      elector.start();
    }

    boolean isLeader() {
      return elector.isLeader();
    }

    int writes() {
      return replicator.writes();
    }

    /**
     * Stops as a killed pod does, as far as the others can tell: no more renewals and no release,
     * so they wait for the Lease to expire.
     */
    void crash() {
      close();
    }

    @Override
    public void close() {
      elector.close(); // no release: DEMO_TIMING leaves releaseOnCancel off
      replicator.close();
      factory.close();
      client.close();
    }
  }

  /** Runs three replicas; against the embedded server, the leader crashes midway. */
  public static void main(String[] args) {
    Main.run(
        "replicated-configmap-replicator",
        "Runs the ConfigMap replicator as three replicas with leader election over the Lease "
            + "default/" + LEASE + "; the leader crashes midway and another takes over.",
        args,
        ReplicatedConfigMapReplicator::runMain);
  }

  private static void runMain(
      Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
      throws InterruptedException {
    console.line("replicated-configmap-replicator: "
        + cluster.description().replace(", read-only", ""));
    KubeClient seedClient = cluster.client();
    if (cluster.writable()) {
      ConfigMapReplicator.Scenario.seed(seedClient);
    }
    List<Replica> replicas = new ArrayList<>();
    try {
      for (int i = 1; i <= 3; i++) {
        replicas.add(new Replica(seedClient.config(), "replica-" + i, console,
            UnaryOperator.identity()));
      }
      for (Replica r : replicas) {
        r.startInformers();
      }
      for (Replica r : replicas) {
        if (!r.awaitSynced(Duration.ofSeconds(60))) {
          throw new IllegalStateException(r.identity + ": caches did not sync within 60 s");
        }
      }
      console.line("every replica's caches synced; electing a leader");
      replicas.forEach(Replica::startElection);

      ConfigMapReplicator.Scenario.play(cluster, seedClient, console, commandLine, stop,
          () -> crashLeader(replicas, console));
      StringBuilder summary = new StringBuilder("done:");
      for (Replica r : replicas) {
        summary.append(' ').append(r.identity).append(' ').append(r.writes()).append(" writes");
      }
      console.line(summary.toString());
    } finally {
      replicas.forEach(Replica::close);
    }
  }

  private static void crashLeader(List<Replica> replicas, Console console) {
    Optional<Replica> leader = replicas.stream().filter(Replica::isLeader).findFirst();
    if (leader.isEmpty()) {
      console.line("no leader to crash yet");
      return;
    }
    console.row("CRASH", leader.get().identity, "stops renewing, does not release the Lease");
    leader.get().crash();
  }
}

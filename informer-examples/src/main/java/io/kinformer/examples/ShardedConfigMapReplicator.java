package io.kinformer.examples;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.leaderelection.LeaderElectionConfig;
import io.kinformer.leaderelection.Shard;
import io.kinformer.leaderelection.ShardCallbacks;
import io.kinformer.leaderelection.ShardCoordinator;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

/**
 * The {@link ConfigMapReplicator} run as three replicas that split the work: the keys of the
 * copies ("target-namespace/name") are hashed into {@value #SHARDS} shards, each guarded by a
 * Lease {@code configmap-replicator-shard-<i>} in namespace {@code default}, and a replica writes
 * a copy only while it owns the shard of its key ({@link ShardCoordinator#owns}, asked before each
 * reconcile). When it gains a shard it queues the shard's copies. Midway, the replica with the
 * most shards crashes without releasing its Leases, and the others take its shards over once the
 * Leases expire.
 *
 * <pre>
 * java -cp informer-examples/target/kinformer-demo.jar \
 *     io.kinformer.examples.ShardedConfigMapReplicator
 * </pre>
 *
 * <p>Every replica still caches all ConfigMaps and Namespaces, because the replicator reads the
 * sources of one namespace and the list of namespaces to decide what every copy should be; only
 * the work is split, so the shards hash the copy's key, which exists before the copy does. An
 * informer of a resource whose objects are independent is split too, one informer per owned
 * shard through {@code ResourceClient.withShardSelector(shard.selector())}, and then the shards
 * must hash what the API server hashes, the uid or the namespace (see docs/user-guide.md,
 * "Running more than one replica"). Hashing the namespace would not do here: the 64-bit FNV-1a
 * hashes of short names that differ in their last characters (team-a, team-b, scratch) share
 * their high bits, so all three would fall into one shard.
 *
 * <p>The demo uses the short timings of {@link ReplicatedConfigMapReplicator#DEMO_TIMING}.
 *
 * <p>Threads: per replica, its client's, its factory's, two workers, and the coordinator's two.
 *
 * <p>Thread safety: a program; {@link Replica} is thread-safe.
 */
public final class ShardedConfigMapReplicator {

  /** The coordination name: Leases {@code <GROUP>-shard-<i>} and {@code <GROUP>-member-<id>}. */
  static final String GROUP = "configmap-replicator";

  /** How many shards the namespaces are hashed into. */
  static final int SHARDS = 3;

  static final LeaderElectionConfig DEMO_TIMING = ReplicatedConfigMapReplicator.DEMO_TIMING;

  private ShardedConfigMapReplicator() {}

  /**
   * A scheduler that stops running anything once {@link #crash()} is called, as a process that
   * died: its coordinator renews no Lease after that, and releases none.
   *
   * <p>Thread safety: thread-safe.
   */
  static final class Crashable implements Scheduler {
    private final Scheduler delegate;
    private volatile boolean crashed;

    Crashable(Scheduler delegate) {
      this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
      return delegate.schedule(() -> {
        if (!crashed) {
          task.run();
        }
      }, delay);
    }

    void crash() {
      crashed = true;
    }
  }

  /**
   * One replica: its own client, informers, a replicator that writes only in the namespaces of
   * its shards, and its part in the coordination.
   */
  static final class Replica implements AutoCloseable {
    final String identity;
    private final KubeClient client;
    private final SharedInformerFactory factory;
    private final ConfigMapReplicator replicator;
    private final ShardCoordinator coordinator;
    private final Crashable scheduler;
    private final List<String> written = new CopyOnWriteArrayList<>();

    /**
     * @param scheduler what runs the coordinator's rounds (tests give it a fake clock)
     * @param coordination adjusts the coordinator (tests give it a fake clock and executors)
     */
    Replica(KubeConfig config, String identity, Console console, Scheduler scheduler,
        UnaryOperator<ShardCoordinator.Builder> coordination) {
      this.identity = Objects.requireNonNull(identity, "identity");
      this.scheduler = new Crashable(scheduler);
      this.client = KubeClient.create(config,
          ClientOptions.builder().userAgentSuffix("configmap-replicator/" + identity).build());
      this.factory = SharedInformerFactory.builder(client).build();
      // tag::sharding[]
      ShardCallbacks callbacks = new ShardCallbacks() {
        @Override
        public void onShardGained(Shard shard) {
          console.row("GAINED", identity, "shard " + shard.index());
          // Look at every copy of the shard: the last owner may have left work undone.
          replicator.requeue(key -> shard.selector().matchesValue(key));
        }

        @Override
        public void onShardLost(Shard shard) {
          console.row("LOST", identity, "shard " + shard.index());
        }
      };
      this.coordinator = coordination.apply(
          ShardCoordinator.builder(client, "default", GROUP, identity, SHARDS, callbacks)
              .config(DEMO_TIMING)
              .scheduler(this.scheduler)) // the demo crashes a replica through it
          .build();
      // Before each reconcile: is the copy's key in a shard this replica owns now?
      this.replicator = new ConfigMapReplicator(client, factory, "source", 2,
          write -> wrote(console, write),
          key -> this.coordinator.owns(this.coordinator.shardOf(key).index()));
      // end::sharding[]
    }

    private void wrote(Console console, String write) {
      written.add(write);
      console.row("WRITE", identity, write);
    }

    void startInformers() {
      factory.start();
    }

    boolean awaitSynced(Duration timeout) {
      return factory.waitForCacheSync(timeout);
    }

    /** Starts the workers (they skip other replicas' namespaces) and the coordination. */
    void startWork() {
      replicator.start();
      coordinator.start();
    }

    ShardCoordinator coordinator() {
      return coordinator;
    }

    int writes() {
      return written.size();
    }

    /** Every write made, as "created ns/name", "updated ns/name" or "deleted ns/name". */
    List<String> written() {
      return List.copyOf(written);
    }

    /** Stops as a killed pod does: no more renewals, no release, no writes. */
    void crash() {
      scheduler.crash();
      replicator.close();
    }

    @Override
    public void close() {
      coordinator.close(); // releases the shards it still owns
      replicator.close();
      factory.close();
      client.close();
    }
  }

  /** Runs three replicas; against the embedded server, one crashes midway. */
  public static void main(String[] args) {
    Main.run(
        "sharded-configmap-replicator",
        "Runs the ConfigMap replicator as three replicas that split the target namespaces into "
            + SHARDS + " shards over Leases in namespace default; one replica crashes midway "
            + "and the others take its shards over.",
        args,
        ShardedConfigMapReplicator::runMain);
  }

  private static void runMain(
      Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
      throws InterruptedException {
    console.line("sharded-configmap-replicator: "
        + cluster.description().replace(", read-only", ""));
    KubeClient seedClient = cluster.client();
    if (cluster.writable()) {
      ConfigMapReplicator.Scenario.seed(seedClient);
    }
    List<Replica> replicas = new ArrayList<>();
    try {
      for (int i = 1; i <= 3; i++) {
        replicas.add(new Replica(seedClient.config(), "replica-" + i, console, Scheduler.system(),
            UnaryOperator.identity()));
      }
      replicas.forEach(Replica::startInformers);
      for (Replica r : replicas) {
        if (!r.awaitSynced(Duration.ofSeconds(60))) {
          throw new IllegalStateException(r.identity + ": caches did not sync within 60 s");
        }
      }
      console.line("every replica's caches synced; sharing " + SHARDS + " shards");
      replicas.forEach(Replica::startWork);

      ConfigMapReplicator.Scenario.play(cluster, seedClient, console, commandLine, stop,
          () -> crashBusiest(replicas, console));
      StringBuilder summary = new StringBuilder("done:");
      for (Replica r : replicas) {
        summary.append(' ').append(r.identity).append(' ').append(r.writes()).append(" writes");
      }
      console.line(summary.toString());
    } finally {
      replicas.forEach(Replica::close);
    }
  }

  private static void crashBusiest(List<Replica> replicas, Console console) {
    Replica busiest = replicas.stream()
        .max(Comparator.comparingInt(r -> r.coordinator().ownedShards().size()))
        .orElseThrow();
    console.row("CRASH", busiest.identity, "owns shards " + busiest.coordinator().ownedShards()
        + "; stops renewing, does not release the Leases");
    busiest.crash();
  }
}

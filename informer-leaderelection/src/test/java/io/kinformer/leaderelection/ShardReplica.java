package io.kinformer.leaderelection;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * One replica in a sharding test: its own client (with a User-Agent naming it, for {@code
 * Faults.partition}), its own view of the shared fake clock, a coordinator whose rounds run inside
 * {@code FakeClock.advance} on the test thread, and callbacks that run when the test drains them.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class ShardReplica implements AutoCloseable {

  final String identity;
  final KubeClient client;
  final CandidateClock clock;
  final ManualExecutor callbackExecutor = new ManualExecutor();
  final ShardCoordinator coordinator;
  /** What the callbacks were told, in order: "+i" for a gain, "-i" for a loss. */
  final List<String> events = new ArrayList<>();
  /** The shards the callbacks say this replica has. */
  final TreeSet<Integer> told = new TreeSet<>();

  ShardReplica(EmbeddedApiServer server, FakeClock shared, String group, String identity,
      int shards, long seed) {
    this.identity = identity;
    this.client = KubeClient.create(KubeConfig.load(server.kubeConfig()),
        ClientOptions.builder().userAgentSuffix("replica/" + identity).build());
    this.clock = new CandidateClock(shared);
    this.coordinator = ShardCoordinator.builder(client, "default", group, identity, shards,
            new ShardCallbacks() {
              @Override
              public void onShardGained(Shard shard) {
                events.add("+" + shard.index());
                told.add(shard.index());
              }

              @Override
              public void onShardLost(Shard shard) {
                events.add("-" + shard.index());
                told.remove(shard.index());
              }
            })
        .clock(clock)
        .scheduler(clock)
        .executor(Runnable::run)
        .callbackExecutor(callbackExecutor)
        .random(new SplittableRandom(seed))
        .build();
  }

  String userAgent() {
    return "replica/" + identity;
  }

  void deliverCallbacks() {
    callbackExecutor.runAll();
  }

  @Override
  public void close() {
    coordinator.close();
    deliverCallbacks();
    client.close();
  }
}

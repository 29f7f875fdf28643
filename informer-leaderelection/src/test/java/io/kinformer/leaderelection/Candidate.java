package io.kinformer.leaderelection;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One replica in an election test: its own client (with a User-Agent naming it, so that {@code
 * Faults.partition} can cut it off), its own view of the shared fake clock, an elector whose steps
 * run inside {@code FakeClock.advance} on the test thread, and callbacks that run only when the
 * test drains them.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class Candidate implements AutoCloseable {

  final String identity;
  final KubeClient client;
  final CandidateClock clock;
  final ManualExecutor callbackExecutor = new ManualExecutor();
  final LeaderElector elector;
  /** What the callbacks were told, in order: "started", "stopped", "leader=ID". */
  final List<String> events = new ArrayList<>();
  LeaderTerm term;

  Candidate(EmbeddedApiServer server, FakeClock shared, String lease, String identity,
      LeaderElectionConfig config, long seed) {
    this.identity = identity;
    this.client = KubeClient.create(KubeConfig.load(server.kubeConfig()),
        ClientOptions.builder().userAgentSuffix("candidate/" + identity).build());
    this.clock = new CandidateClock(shared);
    this.elector = LeaderElector.builder(
            LeaseLock.create(client, "default", lease, identity),
            new LeaderCallbacks() {
              @Override
              public void onStartedLeading(LeaderTerm t) {
                term = t;
                events.add("started");
              }

              @Override
              public void onStoppedLeading() {
                events.add("stopped");
              }

              @Override
              public void onNewLeader(String id) {
                events.add("leader=" + id);
              }
            })
        .config(config)
        .clock(clock)
        .scheduler(clock)
        .executor(Runnable::run)
        .callbackExecutor(callbackExecutor)
        .random(new SplittableRandom(seed))
        .build();
  }

  /** The fault-injection fragment of this candidate's User-Agent. */
  String userAgent() {
    return "candidate/" + identity;
  }

  boolean isLeader() {
    return elector.isLeader();
  }

  void deliverCallbacks() {
    callbackExecutor.runAll();
  }

  @Override
  public void close() {
    elector.close();
    deliverCallbacks();
    client.close();
  }
}

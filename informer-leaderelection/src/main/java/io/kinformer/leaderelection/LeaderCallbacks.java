package io.kinformer.leaderelection;

/**
 * What a {@link LeaderElector} tells its owner, as client-go's {@code LeaderCallbacks}.
 *
 * <p>Threads and order: callbacks run one at a time, in the order of the events, on the elector's
 * callback executor (by default a thread of its own named {@code
 * kinformer-leader-election-<namespace>/<name>-callbacks}), never on the thread that talks to the
 * API server and never while the elector holds a lock. They must return promptly: start the work
 * that needs leadership elsewhere and stop it when the {@link LeaderTerm} ends; a callback that
 * blocks delays the ones after it, but never the election itself. A callback that throws is
 * logged at WARN and does not affect the election or later callbacks.
 *
 * <p>Thread safety: implementations are called from one thread at a time.
 */
public interface LeaderCallbacks {

  /**
   * This candidate became the leader. The {@code term} ends when it stops leading (it failed to
   * renew within the renew deadline, or the elector was closed); start leader-only work here and
   * stop it when {@link LeaderTerm#ended()} completes.
   */
  void onStartedLeading(LeaderTerm term);

  /**
   * The elector stopped: after leading (the term has ended, and a release on close has been
   * attempted), or without ever having led, when it is closed. Called once for an elector that
   * was started, as client-go calls {@code OnStoppedLeading} whenever {@code Run} returns.
   */
  void onStoppedLeading();

  /**
   * A leader other than the one last reported was observed, this candidate included; the first
   * leader observed is reported too. Never called with an empty identity (a released lease has no
   * holder; the next holder is reported when it takes the lease). Does nothing by default.
   */
  default void onNewLeader(String identity) {}
}

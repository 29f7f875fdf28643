package io.kinformer.leaderelection;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A liveness check for a process that leads through a {@link LeaderElector}: client-go's {@code
 * HealthzAdaptor}. It fails while this process holds the lease (by the last record it observed)
 * but has not renewed it for longer than the lease duration plus {@code timeout}, the state of a
 * leader whose renewals are stuck (a deadlock, a starved thread) or one that stopped leading and
 * went on running. Wire it to the liveness probe so that the kubelet restarts such a process.
 *
 * <pre>{@code
 * LeaderHealthCheck health = LeaderHealthCheck.create(Duration.ofSeconds(20));
 * httpServer.route("/healthz", () -> health.check().isEmpty() ? 200 : 500);   // yours
 * ...
 * health.setLeaderElector(elector);   // the endpoint may exist before the elector
 * }</pre>
 *
 * <p>A standby, and a check with no elector set, are healthy.
 *
 * <p>Thread safety: thread-safe.
 */
public final class LeaderHealthCheck {

  private final Duration timeout;
  private final AtomicReference<LeaderElector> elector = new AtomicReference<>();

  private LeaderHealthCheck(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * A check that tolerates {@code timeout} beyond the lease duration without a renewal.
   *
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  public static LeaderHealthCheck create(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative: " + timeout);
    }
    return new LeaderHealthCheck(timeout);
  }

  /** The check's name, as client-go's: {@code leaderElection}. */
  public String name() {
    return "leaderElection";
  }

  /** Ties the check to {@code elector}, replacing any earlier one. */
  public void setLeaderElector(LeaderElector elector) {
    this.elector.set(Objects.requireNonNull(elector, "elector"));
  }

  /**
   * Runs the check.
   *
   * @return empty if healthy, else why not
   */
  public Optional<String> check() {
    LeaderElector e = elector.get();
    return e == null ? Optional.empty() : e.check(timeout);
  }
}

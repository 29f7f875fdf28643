package io.kinformer.leaderelection;

import java.time.Duration;
import java.util.Objects;

/**
 * The timing of a leader election, as client-go's {@code LeaderElectionConfig}: how long a lease
 * is valid, how long the leader keeps trying to renew it before it gives up, and how often
 * candidates try.
 *
 * <p>The defaults are client-go's core components' (kube-controller-manager, kube-scheduler): a
 * 15 s lease, a 10 s renew deadline and a 2 s retry period. A standby retries every {@code
 * retryPeriod} plus a random fraction of up to {@value #JITTER_FACTOR} times it (client-go's
 * {@code JitterFactor}), so that candidates started together spread out; the leader renews every
 * {@code retryPeriod} without jitter.
 *
 * <p>Choosing values: {@code leaseDuration} bounds how long the replicas go without a leader when
 * the leader dies without releasing (they take over between one lease duration and one lease
 * duration plus one jittered retry period after its last renewal). The ratio {@code
 * leaseDuration / renewDeadline} is the clock rate difference between replicas the election
 * tolerates: a leader gives up after {@code renewDeadline} without a successful renewal, which on
 * its clock must pass before {@code leaseDuration} passes on any standby's.
 *
 * <p>Thread safety: immutable.
 *
 * @param leaseDuration how long a standby waits, from the moment it last saw the lease change,
 *     before it may take the lease over; also written into the Lease as {@code
 *     leaseDurationSeconds} (whole seconds, rounded down)
 * @param renewDeadline how long the leader retries a failing renewal before it stops leading
 * @param retryPeriod how long candidates wait between attempts
 * @param releaseOnCancel whether {@link LeaderElector#close()} releases a lease it holds (writes
 *     it with no holder and a one-second duration, so that a standby takes over at once instead
 *     of after {@code leaseDuration}); only safe if everything the lease guards has stopped
 *     before {@code close()} is called
 */
public record LeaderElectionConfig(
    Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
    boolean releaseOnCancel) {

  /** client-go's {@code leaderelection.JitterFactor}: standbys wait up to 2.2 retry periods. */
  public static final double JITTER_FACTOR = 1.2;

  /** The default lease duration, 15 s. */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);

  /** The default renew deadline, 10 s. */
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);

  /** The default retry period, 2 s. */
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

  /**
   * Validates the timing as client-go's {@code NewLeaderElector} does.
   *
   * @throws IllegalArgumentException if a duration is not positive, {@code leaseDuration} is not
   *     longer than {@code renewDeadline}, {@code renewDeadline} is not longer than {@code
   *     JITTER_FACTOR * retryPeriod}, or {@code leaseDuration} is shorter than one second (the
   *     Lease carries whole seconds)
   */
  public LeaderElectionConfig {
    requirePositive(leaseDuration, "leaseDuration");
    requirePositive(renewDeadline, "renewDeadline");
    requirePositive(retryPeriod, "retryPeriod");
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      throw new IllegalArgumentException("leaseDuration (" + leaseDuration
          + ") must be greater than renewDeadline (" + renewDeadline + ")");
    }
    long jitteredRetryNanos = (long) (JITTER_FACTOR * retryPeriod.toNanos());
    if (renewDeadline.toNanos() <= jitteredRetryNanos) {
      throw new IllegalArgumentException("renewDeadline (" + renewDeadline
          + ") must be greater than retryPeriod*" + JITTER_FACTOR + " ("
          + Duration.ofNanos(jitteredRetryNanos) + ")");
    }
    if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "leaseDuration must be at least one second (the Lease holds whole seconds): "
              + leaseDuration);
    }
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }

  /** The defaults: 15 s lease, 10 s renew deadline, 2 s retry period, no release on close. */
  public static LeaderElectionConfig defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return new Builder()
        .leaseDuration(leaseDuration)
        .renewDeadline(renewDeadline)
        .retryPeriod(retryPeriod)
        .releaseOnCancel(releaseOnCancel);
  }

  /** The lease duration as the Lease records it: whole seconds, rounded down. */
  int leaseDurationSeconds() {
    return (int) Math.min(Integer.MAX_VALUE, leaseDuration.getSeconds());
  }

  /**
   * Builds a {@link LeaderElectionConfig}; validation happens in {@link #build()}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private Duration leaseDuration = DEFAULT_LEASE_DURATION;
    private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
    private Duration retryPeriod = DEFAULT_RETRY_PERIOD;
    private boolean releaseOnCancel;

    private Builder() {}

    /** See {@link LeaderElectionConfig#leaseDuration()}. */
    public Builder leaseDuration(Duration d) {
      this.leaseDuration = Objects.requireNonNull(d, "leaseDuration");
      return this;
    }

    /** See {@link LeaderElectionConfig#renewDeadline()}. */
    public Builder renewDeadline(Duration d) {
      this.renewDeadline = Objects.requireNonNull(d, "renewDeadline");
      return this;
    }

    /** See {@link LeaderElectionConfig#retryPeriod()}. */
    public Builder retryPeriod(Duration d) {
      this.retryPeriod = Objects.requireNonNull(d, "retryPeriod");
      return this;
    }

    /** See {@link LeaderElectionConfig#releaseOnCancel()}. */
    public Builder releaseOnCancel(boolean release) {
      this.releaseOnCancel = release;
      return this;
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException as {@link LeaderElectionConfig#LeaderElectionConfig(
     *     Duration, Duration, Duration, boolean) the constructor}
     */
    public LeaderElectionConfig build() {
      return new LeaderElectionConfig(leaseDuration, renewDeadline, retryPeriod, releaseOnCancel);
    }
  }
}

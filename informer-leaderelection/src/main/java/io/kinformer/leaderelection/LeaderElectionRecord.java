package io.kinformer.leaderelection;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a Lease says about the election, as client-go's {@code resourcelock.LeaderElectionRecord}:
 * who holds it, for how long, since when, and how often it changed hands. Its timestamps are for
 * humans only: the election never compares them with a clock, it only notices that the record
 * changed.
 *
 * <p>Thread safety: immutable.
 *
 * @param holderIdentity the holder; empty when nobody holds the lease (never acquired, or
 *     released)
 * @param leaseDurationSeconds how long the holder claims the lease after each renewal
 * @param acquireTime when the holder acquired it, if known
 * @param renewTime when the holder last renewed it, if known
 * @param leaderTransitions how many times the lease changed hands
 */
record LeaderElectionRecord(
    String holderIdentity,
    int leaseDurationSeconds,
    @Nullable Instant acquireTime,
    @Nullable Instant renewTime,
    int leaderTransitions) {

  /** The record of a Lease that says nothing (an empty spec). */
  static final LeaderElectionRecord EMPTY = new LeaderElectionRecord("", 0, null, null, 0);

  LeaderElectionRecord {
    Objects.requireNonNull(holderIdentity, "holderIdentity");
    // The API server keeps MicroTime: microseconds. Truncating here makes the record we write
    // equal to the record we read back.
    acquireTime = acquireTime == null ? null : acquireTime.truncatedTo(ChronoUnit.MICROS);
    renewTime = renewTime == null ? null : renewTime.truncatedTo(ChronoUnit.MICROS);
  }

  boolean hasHolder() {
    return !holderIdentity.isEmpty();
  }

  /** client-go's {@code LeaseSpecToLeaderElectionRecord}: absent fields read as zero values. */
  static LeaderElectionRecord fromSpec(@Nullable LeaseSpec spec) {
    if (spec == null) {
      return EMPTY;
    }
    return new LeaderElectionRecord(
        spec.getHolderIdentity() == null ? "" : spec.getHolderIdentity(),
        spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds(),
        spec.getAcquireTime() == null ? null : spec.getAcquireTime().toInstant(),
        spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
        spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
  }

  /**
   * client-go's {@code LeaderElectionRecordToLeaseSpec}: every field set, the holder too (empty
   * after a release).
   */
  LeaseSpec toSpec() {
    LeaseSpec spec = new LeaseSpec();
    spec.setHolderIdentity(holderIdentity);
    spec.setLeaseDurationSeconds(leaseDurationSeconds);
    spec.setAcquireTime(utc(acquireTime));
    spec.setRenewTime(utc(renewTime));
    spec.setLeaseTransitions(leaderTransitions);
    return spec;
  }

  private static @Nullable ZonedDateTime utc(@Nullable Instant t) {
    return t == null ? null : t.atZone(ZoneOffset.UTC);
  }
}

package io.kinformer.leaderelection;

import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate's attempts on the Lease and what it has seen of it: client-go's {@code
 * tryAcquireOrRenew} and {@code release}, and the observed record and observed time they decide
 * by. {@link LeaderElector} runs the loops around it.
 *
 * <p>The rule that makes the election work: a record counts as valid for its {@code
 * leaseDurationSeconds} from the moment this candidate first saw it, by this candidate's
 * monotonic clock, whatever the timestamps inside it say.
 *
 * <p>Thread safety: the attempts ({@link #tryAcquireOrRenew()}, {@link #release()}) are made one
 * at a time (the elector's steps, then {@code close()}), each after the last has returned; the
 * observation is read from any thread. The lock guards the observed record and time only, is never
 * held during an API call, and is a leaf (the elector may take it while holding its own).
 */
final class LeaseClaim {

  private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

  private final LeaseLock leaseLock;
  private final LeaderElectionConfig config;
  private final Clock clock;
  private final String description;
  private final ReentrantLock lock = new ReentrantLock();

  // @GuardedBy("lock"): the record last read or written (client-go's observedRecord), and when,
  // on this candidate's monotonic clock, it was observed (observedTime).
  private LeaderElectionRecord observedRecord = LeaderElectionRecord.EMPTY;
  private long observedNanos;
  // Confined to the attempts: the record as last read from the server (client-go's
  // observedRawRecord), to notice that another holder renewed.
  private @Nullable LeaderElectionRecord observedRead;

  LeaseClaim(LeaseLock leaseLock, LeaderElectionConfig config, Clock clock) {
    this.leaseLock = Objects.requireNonNull(leaseLock, "leaseLock");
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.description = leaseLock.describe();
    this.observedNanos = clock.nanoTime();
  }

  /**
   * client-go's {@code tryAcquireOrRenew}: acquires the lease if it is free or expired, renews it
   * if this candidate holds it.
   *
   * @return whether this candidate holds the lease now
   */
  boolean tryAcquireOrRenew() {
    Instant wallNow = clock.now();
    long now = clock.nanoTime();
    LeaderElectionRecord desired = new LeaderElectionRecord(
        leaseLock.identity(), config.leaseDurationSeconds(), wallNow, wallNow, 0);

    // 1. The fast path: the leader renews assuming that the Lease is still the one it wrote.
    LeaderElectionRecord observed = observedRecord();
    if (holdsRecord() && leaseValid(now)) {
      LeaderElectionRecord renewal = withHistoryOf(desired, observed);
      try {
        leaseLock.update(renewal);
        setObserved(renewal);
        return true;
      } catch (InformerException | IllegalStateException e) {
        log.debug("lease={} optimistic renewal failed; reading the lease: {}", description,
            e.toString());
      }
    }

    // 2. Read the Lease, or create it.
    Optional<LeaderElectionRecord> read;
    try {
      read = leaseLock.get();
    } catch (InformerException e) {
      log.warn("lease={} identity={} cannot read the lease", description, leaseLock.identity(),
          e);
      return false;
    }
    if (read.isEmpty()) {
      try {
        leaseLock.create(desired);
      } catch (InformerException e) {
        logWriteFailure("create", e);
        return false;
      }
      setObserved(desired);
      return true;
    }

    // 3. Note a changed record: its lease runs from now, by our clock.
    LeaderElectionRecord current = read.get();
    if (!current.equals(observedRead)) {
      setObserved(current);
      observedRead = current;
    }
    if (current.hasHolder() && leaseValid(now) && !holdsRecord()) {
      log.debug("lease={} is held by {} and has not expired", description,
          current.holderIdentity());
      return false;
    }

    // 4. Take it over, or renew it (slow path).
    LeaderElectionRecord next = holdsRecord()
        ? withHistoryOf(desired, current)
        : new LeaderElectionRecord(desired.holderIdentity(), desired.leaseDurationSeconds(),
            desired.acquireTime(), desired.renewTime(), current.leaderTransitions() + 1);
    try {
      leaseLock.update(next);
    } catch (InformerException e) {
      logWriteFailure("update", e);
      return false;
    }
    setObserved(next);
    return true;
  }

  /** {@code desired} with the acquire time and transition count of {@code held}. */
  private static LeaderElectionRecord withHistoryOf(
      LeaderElectionRecord desired, LeaderElectionRecord held) {
    return new LeaderElectionRecord(desired.holderIdentity(), desired.leaseDurationSeconds(),
        held.acquireTime(), desired.renewTime(), held.leaderTransitions());
  }

  private void logWriteFailure(String verb, InformerException e) {
    if (e instanceof ApiException api && api.code() == ApiException.CONFLICT) {
      // Another candidate wrote first (or created the Lease first): the race the
      // resourceVersion exists for.
      log.debug("lease={} identity={} lost a race to {} the lease: {}", description,
          leaseLock.identity(), verb, e.getMessage());
    } else {
      log.warn("lease={} identity={} failed to {} the lease", description,
          leaseLock.identity(), verb, e);
    }
  }

  /**
   * client-go's {@code release}: writes the lease with no holder and a one-second duration, so
   * that a standby takes it at its next attempt.
   *
   * @return whether the lease is now released (or was not ours)
   */
  boolean release() {
    Optional<LeaderElectionRecord> read;
    try {
      read = leaseLock.get();
    } catch (InformerException e) {
      log.warn("lease={} identity={} cannot read the lease to release it", description,
          leaseLock.identity(), e);
      return false;
    }
    if (read.isEmpty()) {
      log.info("lease={} not found; nothing to release", description);
      return false;
    }
    // Decide by the Lease as read now, not by the last observation: another candidate may have
    // taken it over since, and writing "no holder" over its record would end its claim.
    if (!read.get().holderIdentity().equals(leaseLock.identity())) {
      return true;
    }
    Instant wallNow = clock.now();
    LeaderElectionRecord released =
        new LeaderElectionRecord("", 1, wallNow, wallNow, read.get().leaderTransitions());
    try {
      leaseLock.update(released);
    } catch (InformerException e) {
      log.warn("lease={} identity={} failed to release the lease", description,
          leaseLock.identity(), e);
      return false;
    }
    setObserved(released);
    log.info("lease={} identity={} released the lease", description, leaseLock.identity());
    return true;
  }

  /** client-go's {@code LeaderElector.Check}: see {@link LeaderElector#check(Duration)}. */
  Optional<String> check(Duration maxTolerableExpiredLease) {
    Objects.requireNonNull(maxTolerableExpiredLease, "maxTolerableExpiredLease");
    lock.lock();
    try {
      if (!holdsRecordLocked()) {
        return Optional.empty();
      }
      long since = clock.nanoTime() - observedNanos;
      Duration limit = config.leaseDuration().plus(maxTolerableExpiredLease);
      if (since > limit.toNanos()) {
        return Optional.of("failed election to renew leadership on lease " + description
            + ": last renewed " + Duration.ofNanos(since) + " ago, more than " + limit);
      }
      return Optional.empty();
    } finally {
      lock.unlock();
    }
  }

  /** client-go's {@code setObservedRecord}: the record, seen now by our clock. */
  void setObserved(LeaderElectionRecord record) {
    observe(record, clock.nanoTime());
  }

  /**
   * Test seam: as if {@code record} had been read from the server at {@code nanos} on our clock
   * (client-go's tests set observedRecord, observedRawRecord and observedTime so).
   */
  void setObserved(LeaderElectionRecord record, long nanos) {
    observedRead = record;
    observe(record, nanos);
  }

  private void observe(LeaderElectionRecord record, long nanos) {
    lock.lock();
    try {
      observedRecord = record;
      observedNanos = nanos;
    } finally {
      lock.unlock();
    }
  }

  /** Reads state under the lock; {@code read} must be short and call no user code. */
  private <T> T underLock(Supplier<T> read) {
    return Locked.read(lock, read);
  }

  LeaderElectionRecord observedRecord() {
    return underLock(() -> observedRecord);
  }

  /** client-go's {@code IsLeader}: whether the last record observed names this candidate. */
  boolean holdsRecord() {
    return underLock(this::holdsRecordLocked);
  }

  private boolean holdsRecordLocked() {
    assert lock.isHeldByCurrentThread();
    return observedRecord.holderIdentity().equals(leaseLock.identity());
  }

  /** client-go's {@code isLeaseValid}: observed less than its leaseDurationSeconds ago. */
  private boolean leaseValid(long nowNanos) {
    return underLock(() -> leaseValidLocked(nowNanos));
  }

  private boolean leaseValidLocked(long nowNanos) {
    assert lock.isHeldByCurrentThread();
    return nowNanos - observedNanos < observedValidityNanosLocked();
  }

  private long observedValidityNanosLocked() {
    return Duration.ofSeconds(observedRecord.leaseDurationSeconds()).toNanos();
  }

  /**
   * When, on this candidate's clock, the lease it observes stops being valid: for a leader, the
   * end of its claim; for a standby, the earliest moment it may take over.
   */
  long observedExpiryNanos() {
    return underLock(() -> observedNanos + observedValidityNanosLocked());
  }

  /** Whether this candidate holds the lease and it is valid now by its clock. */
  boolean holdsValidLease() {
    return underLock(() -> holdsRecordLocked() && leaseValidLocked(clock.nanoTime()));
  }

  /** The holder last observed, if the lease had one. */
  Optional<String> holder() {
    return underLock(() -> observedRecord.hasHolder()
        ? Optional.of(observedRecord.holderIdentity()) : Optional.<String>empty());
  }
}

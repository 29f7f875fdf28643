package io.kinformer.leaderelection;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ShardSelector;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import io.kinformer.internal.Randoms;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits one resource among the replicas of a controller: the 64-bit hash space of the objects'
 * uids (or namespaces) is cut into {@code shards} equal ranges, each guarded by a Lease, and every
 * replica holds a fair share of them. A replica watches only its shards (through the API server's
 * shard selector where it has the {@code ShardedListAndWatch} gate, otherwise filtering on the
 * client: see {@code ResourceClient.withShardSelector}).
 *
 * <pre>{@code
 * ShardCoordinator shards = ShardCoordinator.builder(client, "default", "replicator", podName, 6,
 *         new ShardCallbacks() {
 *           public void onShardGained(Shard s) { startInformer(s.selector()); }
 *           public void onShardLost(Shard s) { stopInformer(s.index()); }
 *         })
 *     .build();
 * shards.start();
 * // before each write for an object of shard i:  if (shards.owns(i)) { ... }
 * }</pre>
 *
 * <h2>Leases</h2>
 *
 * <p>One Lease per shard, {@code <name>-shard-<i>}, taken and renewed exactly as a {@link
 * LeaderElector} takes and renews its Lease (the same {@link LeaderElectionConfig} timing and
 * optimistic concurrency), plus one Lease per replica, {@code <name>-member-<identity>}, that only
 * its replica holds and that says it is alive. Per-shard Leases are what make ownership exclusive:
 * a shard changes hands only through a write to its own Lease, which the API server accepts from
 * one replica only. A deterministic assignment from the member list alone (one Lease per replica)
 * would be cheaper but is not safe: two replicas that see the member list differently, for a
 * retry period or during a partition, would both take the same shard. The member Leases serve
 * only to compute the fair share: replica {@code r} of {@code n} live members (sorted by
 * identity) aims at {@code shards / n} shards, one more if {@code r < shards % n}. A replica above
 * its share hands the surplus back (it stops acting, then releases the Lease); one below it takes
 * free or expired shards.
 *
 * <h2>The guarantee</h2>
 *
 * <p>{@link #owns(int)} is true only while this replica's last successful write of the shard's
 * Lease was sent less than {@code renewDeadline} ago by its own monotonic clock. Another replica
 * takes a Lease over only after having seen its last record unchanged for {@code leaseDuration}
 * by its own monotonic clock, and it can have seen that record only after the write was sent.
 * Since {@code renewDeadline < leaseDuration}, no two replicas own a shard at any instant, as
 * long as their monotonic clocks advance at the same rate to within {@code leaseDuration -
 * renewDeadline} per lease duration: a replica whose clock jumps forward loses its own shards at
 * once (safe), and the same jump on a replica waiting for a shard would let it take the shard
 * early, which is the assumption client-go's leader election makes too. Wall clocks do not matter.
 * A replica that dies or is cut off loses its shards to the others about one lease duration after
 * its last renewal, plus up to two jittered retry periods (docs/reliability.md has the figures).
 *
 * <h2>Threads</h2>
 *
 * <p>One round every retry period (jittered by {@link LeaderElectionConfig#JITTER_FACTOR}) on the
 * coordinator executor: renew the member Lease, list the namespace's Leases (one request), renew
 * the shards held, hand back surplus, take free or expired shards (a get and an update each). The
 * executor is by default a thread of the coordinator's own, {@code kinformer-shards-<namespace>/
 * <name>}; rounds never overlap. A timer per held shard, on the scheduler, ends its ownership at
 * its deadline even if a round is stuck on the API server. The client needs {@code list}, {@code
 * get}, {@code create} and {@code update} on {@code leases} in the namespace (RBAC).
 *
 * <p>Thread safety: thread-safe. The lock guards the held shards and the lifecycle only; it is
 * never held during an API call or a callback, and a {@link LeaseClaim}'s lock may be taken while
 * holding it, never the other way round.
 */
public final class ShardCoordinator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ShardCoordinator.class);
  private static final Pattern DNS_LABEL_CHARS = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  private enum State { NEW, RUNNING, CLOSED }

  /** A shard this replica owns: until when, on its clock, and the timer that ends it then. */
  private record Held(long untilNanos, Cancellable deadline) {}

  private final String namespace;
  private final String name;
  private final String identity;
  private final String description;
  private final ShardCallbacks callbacks;
  private final LeaderElectionConfig config;
  private final Clock clock;
  private final Scheduler scheduler;
  private final RandomGenerator random;
  private final @Nullable Executor givenExecutor;
  private final @Nullable Executor givenCallbackExecutor;
  private final ResourceClient<Lease> leases;
  private final List<Shard> shards;
  private final List<LeaseClaim> shardClaims;
  private final LeaseClaim memberClaim;

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a round ends; {@link #close()} waits on it. */
  private final Condition roundEnded = lock.newCondition();
  private final List<Thread> ownThreads = new CopyOnWriteArrayList<>();

  // @GuardedBy("lock")
  private State state = State.NEW;
  // @GuardedBy("lock"): the shards owned now; a key is present iff owns(key) may be true.
  private final Map<Integer, Held> held = new TreeMap<>();
  // @GuardedBy("lock")
  private @Nullable Cancellable pendingRound;
  // @GuardedBy("lock")
  private boolean roundRunning;
  // @GuardedBy("lock"): set by start()
  private @Nullable Executor executor;
  private @Nullable CallbackQueue callbackQueue;
  private @Nullable ExecutorService ownedExecutor;
  private @Nullable ExecutorService ownedCallbackExecutor;
  // @GuardedBy("lock"): the live members as of the last round, this replica included.
  private List<String> members = List.of();

  // Round-confined: member Lease name -> the record last seen and when, on our clock.
  private final Map<String, Seen> seenMembers = new HashMap<>();

  private record Seen(LeaderElectionRecord record, long nanos) {}

  private ShardCoordinator(Builder b) {
    this.namespace = b.namespace;
    this.name = b.name;
    this.identity = b.identity;
    this.description = namespace + "/" + name;
    this.callbacks = b.callbacks;
    this.config = b.config;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.random = Randoms.independent(b.random);
    this.givenExecutor = b.executor;
    this.givenCallbackExecutor = b.callbackExecutor;
    this.leases = b.client.resources(Lease.class).inNamespace(namespace)
        .withRequestTimeout(config.renewDeadline());
    List<Shard> s = new ArrayList<>();
    List<LeaseClaim> claims = new ArrayList<>();
    for (int i = 0; i < b.shards; i++) {
      s.add(Shard.of(b.field, i, b.shards));
      claims.add(new LeaseClaim(
          LeaseLock.create(b.client, namespace, shardLeaseName(i), identity)
              .withRequestTimeout(config.renewDeadline()), config, clock));
    }
    this.shards = List.copyOf(s);
    this.shardClaims = List.copyOf(claims);
    this.memberClaim = new LeaseClaim(
        LeaseLock.create(b.client, namespace, memberLeaseName(identity), identity)
            .withRequestTimeout(config.renewDeadline()), config, clock);
  }

  /**
   * A builder for the replica {@code identity} of the coordination {@code namespace/name}, which
   * splits the uid space into {@code shards} shards and tells {@code callbacks}.
   *
   * @param identity unique among the replicas (the pod name), a lowercase DNS name: it is part
   *     of a Lease name
   * @throws IllegalArgumentException if {@code shards < 1} or a name is not a lowercase DNS name
   */
  public static Builder builder(KubeClient client, String namespace, String name, String identity,
      int shards, ShardCallbacks callbacks) {
    return new Builder(client, namespace, name, identity, shards, callbacks);
  }

  String shardLeaseName(int index) {
    return name + "-shard-" + index;
  }

  private String memberLeaseName(String id) {
    return name + "-member-" + id;
  }

  /** The identity this replica writes into the Leases. */
  public String identity() {
    return identity;
  }

  /** The shards the space is split into, in index order. */
  public List<Shard> shards() {
    return shards;
  }

  /**
   * Whether this replica owns shard {@code index} now: it holds its Lease and the renew deadline
   * of its last successful write has not passed by its own clock. Check it before each action on
   * the shard's objects.
   */
  public boolean owns(int index) {
    long now = clock.nanoTime();
    return Locked.read(lock, () -> {
      Held h = held.get(index);
      return h != null && now < h.untilNanos();
    });
  }

  /** The shards this replica owns now (see {@link #owns(int)}), in index order. */
  public Set<Integer> ownedShards() {
    long now = clock.nanoTime();
    return Locked.read(lock, () -> {
      Set<Integer> out = new TreeSet<>();
      held.forEach((i, h) -> {
        if (now < h.untilNanos()) {
          out.add(i);
        }
      });
      return Collections.unmodifiableSet(out);
    });
  }

  /**
   * The shard whose range holds the hash of {@code fieldValue}: for an object, the value of the
   * field the shards hash (its uid or namespace, see {@link ShardSelector.Field}); for work split
   * without the API server's help, any stable string, such as a work-queue key.
   */
  public Shard shardOf(String fieldValue) {
    for (Shard s : shards) {
      if (s.selector().matchesValue(fieldValue)) {
        return s;
      }
    }
    throw new IllegalStateException("the shards do not cover the hash of " + fieldValue);
  }

  /** The live replicas as of the last round (this one included), sorted, for information. */
  public List<String> members() {
    return Locked.read(lock, () -> members);
  }

  /**
   * Starts taking part: the first round runs at once on the coordinator executor. Non-blocking
   * and idempotent.
   *
   * @throws IllegalStateException if the coordinator was closed
   */
  public void start() {
    lock.lock();
    try {
      if (state == State.CLOSED) {
        throw new IllegalStateException("shard coordinator " + description + " is closed");
      }
      if (state != State.NEW) {
        return;
      }
      state = State.RUNNING;
      if (givenExecutor != null) {
        executor = givenExecutor;
      } else {
        ownedExecutor = DaemonThreads.single("kinformer-shards-" + description, ownThreads);
        executor = ownedExecutor;
      }
      Executor cb = givenCallbackExecutor;
      if (cb == null) {
        ownedCallbackExecutor = DaemonThreads.single("kinformer-shards-" + description + "-callbacks", ownThreads);
        cb = ownedCallbackExecutor;
      }
      callbackQueue = new CallbackQueue(cb, description);
      scheduleRoundLocked(Duration.ZERO);
    } finally {
      lock.unlock();
    }
    log.info("shards={} identity={} count={} joining", description, identity, shards.size());
  }

  /**
   * Stops taking part: waits for a running round, stops owning every shard (onShardLost for each,
   * queued), releases their Leases and the member Lease so that the others take over at their
   * next round, and shuts down the coordinator's own threads after the queued callbacks ran.
   * Idempotent; a coordinator cannot be restarted. Must not be called from a callback.
   */
  @Override
  public void close() {
    List<Integer> lost;
    List<Integer> stillValid = new ArrayList<>();
    CallbackQueue queue;
    ExecutorService ownExec;
    ExecutorService ownCb;
    boolean wasRunning;
    lock.lock();
    try {
      if (state == State.CLOSED) {
        return;
      }
      wasRunning = state == State.RUNNING;
      state = State.CLOSED;
      if (pendingRound != null) {
        pendingRound.cancel();
        pendingRound = null;
      }
      boolean interrupted = false;
      while (roundRunning && !onRoundThread.get()) {
        try {
          roundEnded.await();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      lost = new ArrayList<>(held.keySet());
      long now = clock.nanoTime();
      for (Integer i : lost) {
        if (now < Objects.requireNonNull(held.get(i)).untilNanos()) {
          stillValid.add(i); // only these are certainly ours to release
        }
        removeLocked(i);
      }
      queue = callbackQueue;
      ownExec = ownedExecutor;
      ownCb = ownedCallbackExecutor;
    } finally {
      lock.unlock();
    }
    for (Integer i : lost) {
      Shard shard = shards.get(i);
      Objects.requireNonNull(queue).submit("onShardLost", () -> callbacks.onShardLost(shard));
    }
    if (wasRunning) {
      for (Integer i : stillValid) {
        shardClaims.get(i).release();
      }
      memberClaim.release();
      log.info("shards={} identity={} left; released {}", description, identity, lost);
    }
    if (ownExec != null) {
      ownExec.shutdown();
    }
    if (ownCb != null) {
      ownCb.shutdown();
      for (Thread t : ownThreads) {
        if (t != Thread.currentThread()) {
          DaemonThreads.joinQuietly(t);
        }
      }
    }
  }

  // ---- the round --------------------------------------------------------------------------------

  private final ThreadLocal<Boolean> onRoundThread = ThreadLocal.withInitial(() -> false);

  private void round() {
    // 1. Shards whose deadline passed by our clock (it may have jumped) are lost before anything.
    expireOverdue();

    // 2. Say we are alive, and look at every Lease of the namespace once.
    memberClaim.tryAcquireOrRenew();
    List<Lease> listed;
    try {
      listed = leases.list();
    } catch (InformerException e) {
      log.debug("shards={} cannot list the leases: {}", description, e.toString());
      listed = null;
    }
    List<String> live = listed == null ? members() : observe(listed);

    // 3. Renew what we hold.
    for (Integer i : heldIndexes()) {
      LeaseClaim claim = shardClaims.get(i);
      long sent = clock.nanoTime();
      if (claim.tryAcquireOrRenew()) {
        extend(i, sent);
      } else if (claim.holder().filter(h -> !h.equals(identity)).isPresent()) {
        lose(i, "held by " + claim.holder().orElse(""));
      }
    }
    if (listed == null) {
      return; // without a view of the others, neither hand back nor take
    }

    // 4. Even out: hand back the surplus, take up to the share.
    int n = live.size();
    int rank = Math.max(0, live.indexOf(identity));
    int share = shards.size() / n + (rank < shards.size() % n ? 1 : 0);
    List<Integer> mine = heldIndexes();
    for (int k = mine.size() - 1; k >= share; k--) {
      int i = mine.get(k);
      lose(i, "handing back to even out " + n + " members");
      shardClaims.get(i).release();
    }
    int count = heldIndexes().size();
    int offset = rank * shards.size() / n;
    long now = clock.nanoTime();
    for (int k = 0; k < shards.size() && count < share; k++) {
      int i = (offset + k) % shards.size();
      LeaseClaim claim = shardClaims.get(i);
      if (isHeld(i) || (claim.holder().isPresent() && now < claim.observedExpiryNanos())) {
        continue;
      }
      long sent = clock.nanoTime();
      if (claim.tryAcquireOrRenew()) {
        if (!gain(i, sent)) {
          claim.release(); // closed meanwhile: hand it straight back
          return;
        }
        count++;
      }
    }
  }

  /**
   * Notes the member and shard Leases listed: a changed record counts from now, by our clock.
   *
   * @return the live members, sorted, this replica included
   */
  private List<String> observe(List<Lease> listed) {
    long now = clock.nanoTime();
    Map<String, LeaderElectionRecord> byName = new HashMap<>();
    for (Lease l : listed) {
      byName.put(l.getMetadata().getName(), LeaderElectionRecord.fromSpec(l.getSpec()));
    }
    String memberPrefix = name + "-member-";
    seenMembers.keySet().removeIf(k -> !byName.containsKey(k));
    TreeSet<String> live = new TreeSet<>();
    live.add(identity);
    byName.forEach((leaseName, record) -> {
      if (!leaseName.startsWith(memberPrefix)) {
        return;
      }
      Seen seen = seenMembers.get(leaseName);
      if (seen == null || !seen.record().equals(record)) {
        seen = new Seen(record, now);
        seenMembers.put(leaseName, seen);
      }
      long valid = Duration.ofSeconds(record.leaseDurationSeconds()).toNanos();
      if (record.hasHolder() && now - seen.nanos() < valid) {
        live.add(record.holderIdentity());
      }
    });
    for (int i = 0; i < shards.size(); i++) {
      if (isHeld(i)) {
        continue;
      }
      LeaderElectionRecord record = byName.getOrDefault(shardLeaseName(i),
          LeaderElectionRecord.EMPTY);
      LeaseClaim claim = shardClaims.get(i);
      if (!record.equals(claim.observedRecord())) {
        claim.setObserved(record, now);
      }
    }
    List<String> sorted = List.copyOf(live);
    lock.lock();
    try {
      members = sorted;
    } finally {
      lock.unlock();
    }
    return sorted;
  }

  // ---- held shards ------------------------------------------------------------------------------

  private List<Integer> heldIndexes() {
    return Locked.read(lock, () -> List.copyOf(held.keySet()));
  }

  private boolean isHeld(int i) {
    return Locked.read(lock, () -> held.containsKey(i));
  }

  /** Owns shard {@code i} from now on, unless closed meanwhile; whether it does. */
  private boolean gain(int i, long sentNanos) {
    CallbackQueue queue;
    lock.lock();
    try {
      if (state != State.RUNNING) {
        return false;
      }
      held.put(i, new Held(sentNanos + config.renewDeadline().toNanos(),
          deadlineLocked(i, sentNanos)));
      queue = Objects.requireNonNull(callbackQueue);
    } finally {
      lock.unlock();
    }
    log.info("shards={} identity={} gained shard {}", description, identity, i);
    Shard shard = shards.get(i);
    queue.submit("onShardGained", () -> callbacks.onShardGained(shard));
    return true;
  }

  private void extend(int i, long sentNanos) {
    lock.lock();
    try {
      Held h = held.get(i);
      if (h == null) {
        return;
      }
      h.deadline().cancel();
      held.put(i, new Held(sentNanos + config.renewDeadline().toNanos(),
          deadlineLocked(i, sentNanos)));
    } finally {
      lock.unlock();
    }
  }

  private Cancellable deadlineLocked(int i, long sentNanos) {
    assert lock.isHeldByCurrentThread();
    long delay = sentNanos + config.renewDeadline().toNanos() - clock.nanoTime();
    return scheduler.schedule(() -> {
      long now = clock.nanoTime();
      boolean overdue = Locked.read(lock, () -> {
        Held h = held.get(i);
        return h != null && now >= h.untilNanos();
      });
      if (overdue) {
        lose(i, "not renewed within " + config.renewDeadline());
      }
    }, Duration.ofNanos(Math.max(0, delay)));
  }

  private void expireOverdue() {
    long now = clock.nanoTime();
    List<Integer> overdue = Locked.read(lock, () -> held.entrySet().stream()
        .filter(e -> now >= e.getValue().untilNanos()).map(Map.Entry::getKey).toList());
    for (Integer i : overdue) {
      lose(i, "not renewed within " + config.renewDeadline() + " by this replica's clock");
    }
  }

  /** Stops owning shard {@code i}, if it is held, and queues onShardLost after the lock. */
  private void lose(int i, String why) {
    boolean lost;
    CallbackQueue queue;
    lock.lock();
    try {
      lost = removeLocked(i);
      queue = callbackQueue;
    } finally {
      lock.unlock();
    }
    if (lost) {
      log.info("shards={} identity={} lost shard {}: {}", description, identity, i, why);
      Shard shard = shards.get(i);
      Objects.requireNonNull(queue).submit("onShardLost", () -> callbacks.onShardLost(shard));
    }
  }

  private boolean removeLocked(int i) {
    assert lock.isHeldByCurrentThread();
    Held h = held.remove(i);
    if (h == null) {
      return false;
    }
    h.deadline().cancel();
    return true;
  }

  // ---- scheduling -------------------------------------------------------------------------------


  private void scheduleRoundLocked(Duration delay) {
    assert lock.isHeldByCurrentThread();
    if (state != State.RUNNING) {
      return;
    }
    Executor ex = Objects.requireNonNull(executor);
    pendingRound = scheduler.schedule(() -> {
      try {
        ex.execute(this::runRound);
      } catch (RejectedExecutionException e) {
        if (Locked.read(lock, () -> state) == State.RUNNING) {
          log.warn("shards={} the coordinator executor refused a round; coordination stops",
              description, e);
        }
      }
    }, delay);
  }

  private void runRound() {
    lock.lock();
    try {
      if (state != State.RUNNING || roundRunning) {
        return;
      }
      pendingRound = null;
      roundRunning = true;
    } finally {
      lock.unlock();
    }
    onRoundThread.set(true);
    try {
      round();
    } catch (RuntimeException e) {
      log.warn("shards={} round failed; retrying after {}", description, config.retryPeriod(), e);
    } finally {
      onRoundThread.set(false);
      lock.lock();
      try {
        roundRunning = false;
        roundEnded.signalAll();
        scheduleRoundLocked(DaemonThreads.jittered(config.retryPeriod(), random));
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public String toString() {
    return "ShardCoordinator[" + description + " as " + identity + ", owns " + ownedShards() + "]";
  }

  /**
   * Builds a {@link ShardCoordinator}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private final KubeClient client;
    private final String namespace;
    private final String name;
    private final String identity;
    private final int shards;
    private final ShardCallbacks callbacks;
    private ShardSelector.Field field = ShardSelector.Field.UID;
    private LeaderElectionConfig config = LeaderElectionConfig.defaults();
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private @Nullable RandomGenerator random;
    private @Nullable Executor executor;
    private @Nullable Executor callbackExecutor;

    private Builder(KubeClient client, String namespace, String name, String identity, int shards,
        ShardCallbacks callbacks) {
      this.client = Objects.requireNonNull(client, "client");
      this.namespace = dnsName(namespace, "namespace");
      this.name = dnsName(name, "name");
      this.identity = dnsName(identity, "identity");
      if (shards < 1) {
        throw new IllegalArgumentException("shards must be at least 1: " + shards);
      }
      this.shards = shards;
      this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
    }

    private static String dnsName(String s, String what) {
      Objects.requireNonNull(s, what);
      if (!DNS_LABEL_CHARS.matcher(s).matches()) {
        throw new IllegalArgumentException(what + " must be a lowercase DNS name (it is part of a"
            + " Lease name): \"" + s + "\"");
      }
      return s;
    }

    /** The field hashed: {@link ShardSelector.Field#UID} unless set. */
    public Builder field(ShardSelector.Field field) {
      this.field = Objects.requireNonNull(field, "field");
      return this;
    }

    /** The Lease timing; {@link LeaderElectionConfig#defaults()} unless set. */
    public Builder config(LeaderElectionConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** The monotonic clock of the Lease rule, and the Leases' time stamps. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** What runs the rounds and the shard deadlines later; {@link Scheduler#system()} unless set. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Seeds the retry jitter: each coordinator built here gets a generator of its own, split from or
     * seeded by {@code random} at {@link #build()}. Default a new one for each.
     */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The executor of the rounds, which block on the API server; by default a thread of the
     * coordinator's own. Tests pass {@code Runnable::run} with a fake clock.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** The executor of the {@link ShardCallbacks}; by default a thread of the coordinator's own. */
    public Builder callbackExecutor(Executor executor) {
      this.callbackExecutor = Objects.requireNonNull(executor, "callbackExecutor");
      return this;
    }

    /**
     * The coordinator; it starts nothing until {@link ShardCoordinator#start()}.
     *
     * @throws IllegalArgumentException if a Lease name would be longer than 253 characters
     */
    public ShardCoordinator build() {
      String longest = name + "-member-" + identity;
      if (longest.length() > 253) {
        throw new IllegalArgumentException("Lease name " + longest + " is longer than 253");
      }
      return new ShardCoordinator(this);
    }
  }
}

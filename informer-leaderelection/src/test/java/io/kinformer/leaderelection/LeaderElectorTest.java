package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import io.kinformer.testing.Verb;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One candidate against the embedded API server over HTTP, on a fake clock: client-go's {@code
 * leaderelection_test.go} cases that apply to Leases, and the loops around them.
 */
class LeaderElectorTest {

  @RegisterExtension static final EmbeddedApiServerExtension apiServer =
      new EmbeddedApiServerExtension();

  private static final AtomicInteger leases = new AtomicInteger();
  private static final Duration HOURS_1000 = Duration.ofHours(1000);

  private final FakeClock clock = new FakeClock();
  private final List<Candidate> candidates = new ArrayList<>();
  private EmbeddedApiServer server;
  private KubeClient client;
  private String lease;

  @BeforeEach
  void setUp() {
    server = apiServer.server();
    server.faults().reset();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    lease = "lease-" + leases.incrementAndGet();
  }

  @AfterEach
  void tearDown() {
    candidates.forEach(Candidate::close);
    client.close();
  }

  private Candidate candidate(String identity) {
    return candidate(identity, LeaderElectionConfig.defaults());
  }

  private Candidate candidate(String identity, LeaderElectionConfig config) {
    Candidate c = new Candidate(server, clock, lease, identity, config, 7);
    candidates.add(c);
    return c;
  }

  private void createLease(@Nullable LeaseSpec spec) {
    Lease l = new Lease();
    l.setMetadata(new ObjectMetaBuilder().withNamespace("default").withName(lease).build());
    l.setSpec(spec);
    client.resources(Lease.class).inNamespace("default").create(l);
  }

  private LeaseSpec leaseSpec() {
    return client.resources(Lease.class).inNamespace("default").get(lease).orElseThrow()
        .getSpec();
  }

  private static LeaseSpec heldBy(String holder, @Nullable Integer seconds) {
    LeaseSpec s = new LeaseSpec();
    s.setHolderIdentity(holder);
    s.setLeaseDurationSeconds(seconds);
    return s;
  }

  private static LeaderElectionRecord record(String holder, int seconds) {
    return new LeaderElectionRecord(holder, seconds, null, null, 0);
  }

  // ---- tryAcquireOrRenew: client-go's testTryAcquireOrRenew table -----------------------------

  /**
   * A case of client-go's table. Where client-go's "acked" cases hold a lease without a
   * duration, these give it 10 s: client-go's pass because its real clock moves on between
   * reading the time and noting the observation, which a fake clock does not.
   *
   * @param lease what the server holds: null for no Lease, else its spec (a Lease without spec
   *     when {@code emptyLease})
   * @param observed what the candidate observed before, and how long ago (negative: in the
   *     future)
   * @param retryAfter if the first attempt fails, how much later a second one must succeed
   */
  record Case(String name, boolean noLease, @Nullable LeaseSpec lease,
      @Nullable LeaderElectionRecord observed, Duration observedAgo, Duration retryAfter,
      boolean expectSuccess, int expectTransitions, String outHolder, long gets, long creates,
      long updates) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> tryAcquireOrRenewCases() {
    return Stream.of(
        new Case("acquire from no object", true, null, null, Duration.ZERO, Duration.ZERO,
            true, 0, "baz", 1, 1, 0),
        new Case("acquire from object without spec", false, null, null, Duration.ZERO,
            Duration.ZERO, true, 1, "baz", 1, 0, 1),
        new Case("acquire from led object with the lease duration seconds", false,
            heldBy("bing", 3), null, Duration.ZERO, Duration.ofSeconds(3), true, 1, "baz", 2, 0,
            1),
        new Case("acquire from unled object", false, new LeaseSpec(), null, Duration.ZERO,
            Duration.ZERO, true, 1, "baz", 1, 0, 1),
        new Case("acquire from led, unacked object", false, heldBy("bing", null),
            record("bing", 0), HOURS_1000, Duration.ZERO, true, 1, "baz", 1, 0, 1),
        new Case("acquire from empty led, acked object", false, heldBy("", null), null,
            HOURS_1000.negated(), Duration.ZERO, true, 1, "baz", 1, 0, 1),
        new Case("don't acquire from led, acked object", false, heldBy("bing", 10), null,
            HOURS_1000.negated(), Duration.ZERO, false, 0, "bing", 1, 0, 0),
        new Case("renew already acquired object", false, heldBy("baz", 10), record("baz", 10),
            HOURS_1000.negated(), Duration.ZERO, true, 0, "baz", 1, 0, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tryAcquireOrRenewCases")
  void tryAcquireOrRenew_asClientGo(Case c) {
    if (!c.noLease()) {
      createLease(c.lease());
    }
    Candidate baz = candidate("baz");
    if (c.observed() != null || !c.observedAgo().isZero()) {
      baz.elector.claim().setObserved(c.observed() == null ? LeaderElectionRecord.EMPTY : c.observed(),
          clock.nanoTime() - c.observedAgo().toNanos());
    }
    server.faults().resetCounters();

    boolean succeeded = baz.elector.claim().tryAcquireOrRenew();
    if (succeeded != c.expectSuccess() && !c.retryAfter().isZero()) {
      clock.advance(c.retryAfter());
      succeeded = baz.elector.claim().tryAcquireOrRenew();
    }

    assertThat(succeeded).isEqualTo(c.expectSuccess());
    LeaderElectionRecord observed = baz.elector.claim().observedRecord();
    assertThat(observed.holderIdentity()).isEqualTo(c.outHolder());
    assertThat(observed.leaderTransitions()).isEqualTo(c.expectTransitions());
    assertThat(server.faults().requestCount(Verb.GET, "leases")).isEqualTo(c.gets());
    assertThat(server.faults().requestCount(Verb.CREATE, "leases")).isEqualTo(c.creates());
    assertThat(server.faults().requestCount(Verb.UPDATE, "leases")).isEqualTo(c.updates());
    LeaseSpec stored = leaseSpec();
    assertThat(stored.getHolderIdentity()).isEqualTo(c.outHolder());
    if (c.expectSuccess()) {
      assertThat(stored.getLeaseDurationSeconds()).isEqualTo(15);
      assertThat(stored.getLeaseTransitions()).isEqualTo(c.expectTransitions());
      assertThat(stored.getRenewTime().toInstant()).isEqualTo(clock.now());
    }
  }

  @Test
  void tryAcquireOrRenew_onAConflict_failsAndTheNextAttemptTakesTheLease() throws Exception {
    createLease(heldBy("bing", 15));
    Candidate baz = candidate("baz");
    baz.elector.claim().setObserved(record("bing", 15), clock.nanoTime() - HOURS_1000.toNanos());
    server.faults().failNext(Verb.UPDATE, "leases", 1, 409);

    assertThat(baz.elector.claim().tryAcquireOrRenew()).isFalse();
    assertThat(leaseSpec().getHolderIdentity()).isEqualTo("bing");
    // The record did not change (the conflict was injected), so it is still expired.
    assertThat(baz.elector.claim().tryAcquireOrRenew()).isTrue();
    assertThat(leaseSpec().getHolderIdentity()).isEqualTo("baz");
    assertThat(leaseSpec().getLeaseTransitions()).isEqualTo(1);
  }

  @Test
  void tryAcquireOrRenew_whenTheLeaseChangedUnderTheLeader_fallsBackToTheSlowPath() {
    Candidate baz = candidate("baz");
    assertThat(baz.elector.claim().tryAcquireOrRenew()).isTrue(); // created
    Lease stored = client.resources(Lease.class).inNamespace("default").get(lease).orElseThrow();
    stored.getMetadata().setLabels(Map.of("touched", "yes"));
    client.resources(Lease.class).inNamespace("default").update(stored); // RV moves on
    server.faults().resetCounters();
    clock.advance(Duration.ofSeconds(2));

    assertThat(baz.elector.claim().tryAcquireOrRenew()).isTrue();

    // Fast path: an update with the old RV (409); slow path: a get and an update.
    assertThat(server.faults().requestCount(Verb.UPDATE, "leases")).isEqualTo(2);
    assertThat(server.faults().requestCount(Verb.GET, "leases")).isEqualTo(1);
    assertThat(leaseSpec().getRenewTime().toInstant()).isEqualTo(clock.now());
  }

  // ---- release ------------------------------------------------------------------------------

  @Test
  void release_writesNoHolderAndAOneSecondLease_keepingTheTransitions() {
    createLease(heldBy("bing", 15));
    Candidate baz = candidate("baz");
    baz.elector.claim().setObserved(record("bing", 15), clock.nanoTime() - HOURS_1000.toNanos());
    assertThat(baz.elector.claim().tryAcquireOrRenew()).isTrue();

    assertThat(baz.elector.claim().release()).isTrue();

    LeaseSpec spec = leaseSpec();
    assertThat(spec.getHolderIdentity()).isEmpty();
    assertThat(spec.getLeaseDurationSeconds()).isEqualTo(1);
    assertThat(spec.getLeaseTransitions()).isEqualTo(1);
    assertThat(baz.elector.claim().observedRecord().hasHolder()).isFalse();
  }

  @Test
  void release_ofALeaseHeldByAnother_writesNothing() {
    createLease(heldBy("bing", 15));
    Candidate baz = candidate("baz");
    assertThat(baz.elector.claim().tryAcquireOrRenew()).isFalse();
    server.faults().resetCounters();

    assertThat(baz.elector.claim().release()).isTrue();

    assertThat(server.faults().requestCount(Verb.UPDATE, "leases")).isZero();
    assertThat(leaseSpec().getHolderIdentity()).isEqualTo("bing");
  }

  @Test
  void close_withReleaseOnCancel_letsAStandbyTakeOverAtItsNextAttempt() {
    LeaderElectionConfig release = LeaderElectionConfig.builder().releaseOnCancel(true).build();
    Candidate a = candidate("a", release);
    Candidate b = candidate("b", release);
    a.elector.start();
    clock.runDueTasks();
    b.elector.start();
    clock.runDueTasks();
    assertThat(a.isLeader()).isTrue();

    a.elector.close();
    a.deliverCallbacks();

    assertThat(leaseSpec().getHolderIdentity()).isEmpty();
    assertThat(a.events).containsExactly("leader=a", "started", "stopped");
    assertThat(a.term.isActive()).isFalse();
    // b's next attempt is at most 2.2 retry periods away, far less than the 15 s lease.
    clock.advance(LeaderElectionConfig.DEFAULT_RETRY_PERIOD.multipliedBy(22).dividedBy(10));
    assertThat(b.isLeader()).isTrue();
    assertThat(leaseSpec().getHolderIdentity()).isEqualTo("b");
    assertThat(leaseSpec().getLeaseTransitions()).isEqualTo(1);
  }

  // ---- the loops ----------------------------------------------------------------------------

  @Test
  void start_acquiresAtOnce_thenRenewsEveryRetryPeriod_andReportsOffTheElectionThread() {
    Candidate a = candidate("a");
    a.elector.start();
    clock.runDueTasks();

    assertThat(a.isLeader()).isTrue();
    assertThat(a.events).isEmpty(); // queued, not run by the election step
    a.deliverCallbacks();
    assertThat(a.events).containsExactly("leader=a", "started");
    assertThat(a.term.isActive()).isTrue();
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(2));

    Instant firstRenew = clock.now().plusSeconds(2);
    clock.advance(Duration.ofSeconds(2));
    assertThat(leaseSpec().getRenewTime().toInstant()).isEqualTo(firstRenew);
    assertThat(leaseSpec().getAcquireTime().toInstant()).isEqualTo(firstRenew.minusSeconds(2));
  }

  @Test
  void acquireLoop_retriesAfterTheRetryPeriodPlusJitter() {
    createLease(heldBy("bing", 15));
    Candidate a = new Candidate(server, clock, lease, "a", LeaderElectionConfig.defaults(), 1);
    candidates.add(a);
    a.elector.start();
    clock.runDueTasks();

    assertThat(a.isLeader()).isFalse();
    assertThat(clock.pendingDelays()).singleElement().satisfies(d -> assertThat(d)
        .isBetween(Duration.ofSeconds(2), Duration.ofMillis(4400)));
  }

  @Test
  void jittered_addsUpToJitterFactorTimesThePeriod() {
    Duration period = Duration.ofSeconds(2);
    assertThat(electorWithRandom(0.0).jittered(period)).isEqualTo(period);
    assertThat(electorWithRandom(0.5).jittered(period)).isEqualTo(Duration.ofMillis(3200));
    assertThat(electorWithRandom(Math.nextDown(1.0)).jittered(period))
        .isLessThan(Duration.ofMillis(4400)).isGreaterThan(Duration.ofMillis(4399));
  }

  @Test
  void electorsOfOneBuilder_jitterWithGeneratorsOfTheirOwn() {
    Duration period = Duration.ofSeconds(2);
    LeaderElector.Builder shared = quietBuilder().random(new Random(7));
    LeaderElector first = shared.build();
    LeaderElector second = shared.build();
    LeaderElector alone = quietBuilder().random(new Random(7)).build();

    for (int i = 0; i < 5; i++) {
      second.jittered(period);
    }
    List<Duration> firstJitters = new ArrayList<>();
    List<Duration> aloneJitters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      firstJitters.add(first.jittered(period));
      aloneJitters.add(alone.jittered(period));
    }

    assertThat(firstJitters).isEqualTo(aloneJitters).doesNotHaveDuplicates();
  }

  private LeaderElector.Builder quietBuilder() {
    return LeaderElector.builder(LeaseLock.create(client, "default", lease, "a"),
        new LeaderCallbacks() {
          @Override
          public void onStartedLeading(LeaderTerm term) {}

          @Override
          public void onStoppedLeading() {}
        });
  }

  /**
   * A splittable generator whose every split draws {@code value}: the elector jitters with a
   * split of the builder's generator, its own.
   */
  private record ConstantRandom(double value) implements RandomGenerator.SplittableGenerator {
    @Override
    public long nextLong() {
      throw new UnsupportedOperationException();
    }

    @Override
    public double nextDouble() {
      return value;
    }

    @Override
    public SplittableGenerator split() {
      return new ConstantRandom(value);
    }

    @Override
    public SplittableGenerator split(SplittableGenerator source) {
      return split();
    }

    @Override
    public Stream<SplittableGenerator> splits(long streamSize) {
      return splits().limit(streamSize);
    }

    @Override
    public Stream<SplittableGenerator> splits(SplittableGenerator source) {
      return splits();
    }

    @Override
    public Stream<SplittableGenerator> splits() {
      return Stream.generate(this::split);
    }

    @Override
    public Stream<SplittableGenerator> splits(
        long streamSize, SplittableGenerator source) {
      return splits(streamSize);
    }
  }

  private LeaderElector electorWithRandom(double value) {
    return quietBuilder().random(new ConstantRandom(value)).build();
  }

  @Test
  void renewLoop_whenRenewalsFail_givesUpAtTheRenewDeadline_andEndsTheTerm() throws Exception {
    Candidate a = candidate("a");
    a.elector.start();
    clock.runDueTasks();
    a.deliverCallbacks();
    server.faults().partition(a.userAgent(), 503);
    server.faults().resetCounters();
    long roundStart = clock.nanoTime() + Duration.ofSeconds(2).toNanos();

    String log = CapturedStderr.during(() -> {
      clock.advance(Duration.ofSeconds(2 + 9));
      assertThat(a.elector.state()).isEqualTo(LeaderElector.State.LEADING);
      clock.advance(Duration.ofSeconds(1));
    });

    assertThat(clock.nanoTime() - roundStart).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(a.elector.state()).isEqualTo(LeaderElector.State.STOPPED);
    assertThat(a.isLeader()).isFalse();
    assertThat(a.term.isActive()).isFalse(); // ended by the step, before the callbacks run
    a.deliverCallbacks();
    assertThat(a.events).containsExactly("leader=a", "started", "stopped");
    assertThat(a.elector.stopped()).isDone();
    assertThat(clock.hasPendingTasks()).isFalse();
    // Attempts at 0, 2, 4, 6 and 8 s of the round, each a failed update and a failed get.
    assertThat(server.faults().requestCount(Verb.GET, "leases")).isEqualTo(5);
    assertThat(log).contains("cannot read the lease");
  }

  @Test
  void check_failsOnlyOnceTheLeaderWentLeaseDurationPlusTimeoutWithoutRenewing()
      throws Exception {
    Candidate a = candidate("a");
    LeaderHealthCheck health = LeaderHealthCheck.create(Duration.ofSeconds(5));
    assertThat(health.check()).isEmpty();
    health.setLeaderElector(a.elector);
    a.elector.start();
    clock.runDueTasks();
    assertThat(health.check()).isEmpty();
    server.faults().partition(a.userAgent(), 503);

    CapturedStderr.during(() -> clock.advance(Duration.ofSeconds(20)));
    assertThat(a.elector.state()).isEqualTo(LeaderElector.State.STOPPED);
    assertThat(health.check()).isEmpty();
    CapturedStderr.during(() -> clock.advance(Duration.ofNanos(1)));

    assertThat(health.check()).hasValueSatisfying(
        why -> assertThat(why).contains("failed election to renew leadership on lease"));
    assertThat(health.name()).isEqualTo("leaderElection");
  }

  @Test
  void check_ofAStandby_isHealthy() {
    createLease(heldBy("bing", 15));
    Candidate a = candidate("a");
    a.elector.start();
    clock.runDueTasks();
    clock.advance(Duration.ofMinutes(5));
    assertThat(a.elector.check(Duration.ZERO)).isEmpty();
  }

  @Test
  void close_beforeStart_callsNoCallback_andStartThenFails() {
    Candidate a = candidate("a");
    a.elector.close();
    a.deliverCallbacks();
    assertThat(a.events).isEmpty();
    assertThatThrownBy(a.elector::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void close_ofAStandby_callsOnStoppedLeadingOnce_andLeavesNoTask() {
    createLease(heldBy("bing", 15));
    Candidate a = candidate("a");
    a.elector.start();
    clock.runDueTasks();
    a.elector.close();
    a.elector.close();
    a.deliverCallbacks();
    assertThat(a.events).containsExactly("leader=bing", "stopped");
    clock.advance(Duration.ofMinutes(1));
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void callbackThatThrows_isLogged_andLaterCallbacksStillRun() throws Exception {
    List<String> seen = new ArrayList<>();
    ManualExecutor callbacks = new ManualExecutor();
    LeaderElector e = LeaderElector.builder(LeaseLock.create(client, "default", lease, "a"),
        new LeaderCallbacks() {
          @Override
          public void onStartedLeading(LeaderTerm term) {
            throw new IllegalStateException("boom");
          }

          @Override
          public void onStoppedLeading() {
            seen.add("stopped");
          }
        })
        .clock(clock).scheduler(clock).executor(Runnable::run).callbackExecutor(callbacks)
        .build();
    e.start();
    clock.runDueTasks();
    e.close();

    String log = CapturedStderr.during(callbacks::runAll);

    assertThat(seen).containsExactly("stopped");
    assertThat(log).contains("callback onStartedLeading threw").contains("boom");
  }

  @Test
  void closeRacingTheFirstStep_stopsOnce_releases_andLeavesNoThread() {
    for (int i = 0; i < 25; i++) {
      List<String> seen = new CopyOnWriteArrayList<>();
      LeaderElector e = LeaderElector.builder(
          LeaseLock.create(client, "default", lease + "-race-" + i, "a"),
          new LeaderCallbacks() {
            @Override
            public void onStartedLeading(LeaderTerm term) {
              seen.add("started");
            }

            @Override
            public void onStoppedLeading() {
              seen.add("stopped");
            }
          }).config(LeaderElectionConfig.builder().releaseOnCancel(true).build()).build();
      e.start();
      e.close(); // while the first attempt may be in flight on the election thread

      assertThat(seen).as("callbacks of run %d", i).isIn(List.of("stopped"),
          List.of("started", "stopped"));
      assertThat(e.isLeader()).isFalse();
      assertThat(e.stopped()).isDone();
      // Acquired before or during close: released by it.
      assertThat(client.resources(Lease.class).inNamespace("default").get(lease + "-race-" + i)
          .map(l -> l.getSpec().getHolderIdentity())).isIn(Optional.empty(), Optional.of(""));
      String prefix = "kinformer-leader-election-default/" + lease + "-race-" + i;
      assertThat(Thread.getAllStackTraces().keySet())
          .noneMatch(t -> t.getName().equals(prefix) || t.getName().equals(prefix + "-callbacks"));
    }
  }

  @Test
  void defaultThreads_runTheElection_andEndWithClose() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    CompletableFuture<LeaderTerm> started = new CompletableFuture<>();
    LeaderElector e = LeaderElector.builder(LeaseLock.create(client, "default", lease, "a"),
        new LeaderCallbacks() {
          @Override
          public void onStartedLeading(LeaderTerm term) {
            seen.add(Thread.currentThread().getName());
            started.complete(term);
          }

          @Override
          public void onStoppedLeading() {
            seen.add("stopped");
          }
        }).build();
    e.start();
    LeaderTerm term = started.get(30, TimeUnit.SECONDS);

    e.close();

    assertThat(term.isActive()).isFalse();
    assertThat(seen).containsExactly(
        "kinformer-leader-election-default/" + lease + "-callbacks", "stopped");
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("kinformer-leader-election-default/" + lease)
            && t.isAlive());
  }
}

package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.time.testing.FakeClock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** client-go's delaying_queue_test.go scenarios, driven by a FakeClock. */
class DelayingQueueTest {

  private final FakeClock clock = new FakeClock();
  private final DefaultDelayingQueue<String> queue =
      new DefaultDelayingQueue<>(new DefaultWorkQueue<>(options()), options());

  private QueueOptions options() {
    return QueueOptions.builder().clockAndScheduler(clock).build();
  }

  @AfterEach
  void checkStructure() {
    queue.underlying().checkInvariants();
  }

  @Test
  void addAfter_beforeDelayPasses_isNotQueued() throws InterruptedException {
    queue.addAfter("foo", Duration.ofMillis(50));
    assertThat(queue.len()).isZero();
    assertThat(queue.waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofMillis(49));
    assertThat(queue.len()).isZero();

    clock.advance(Duration.ofMillis(11));
    assertThat(queue.len()).isEqualTo(1);
    String item = queue.get().orElseThrow();
    queue.done(item);

    // Past the next heartbeat: nothing comes back.
    clock.advance(Duration.ofSeconds(10));
    assertThat(queue.len()).isZero();
    assertThat(queue.waitingCount()).isZero();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void addAfter_whenAddingOneDueItemThrows_theOthersStillReachTheQueue() {
    // A metric must not throw, but one that does must not lose the items due with it.
    AtomicInteger adds = new AtomicInteger();
    MetricsProvider throwingOnce =
        new MetricsProvider() {
          @Override
          public CounterMetric newAddsMetric(String name) {
            return () -> {
              if (adds.incrementAndGet() == 1) {
                throw new IllegalStateException("a broken metric");
              }
            };
          }
        };
    QueueOptions opts =
        QueueOptions.builder().name("q").clockAndScheduler(clock)
            .metricsProvider(throwingOnce).build();
    DefaultDelayingQueue<String> q =
        new DefaultDelayingQueue<>(new DefaultWorkQueue<>(opts), opts);
    q.addAfter("a", Duration.ofSeconds(1));
    q.addAfter("b", Duration.ofSeconds(1));

    // The wake-up rethrows the failure once every due item is in (the system scheduler logs it;
    // the fake clock passes it on).
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(2)))
        .hasMessageContaining("a broken metric");

    assertThat(q.waitingCount()).isZero();
    assertThat(q.len()).as("b is queued even though adding a threw").isGreaterThanOrEqualTo(1);
    assertThat(adds.get()).isEqualTo(2);
  }

  @Test
  void addAfter_itemAlreadyWaitingLater_keepsTheEarlierTime() throws InterruptedException {
    queue.addAfter("foo", Duration.ofMillis(50));
    queue.addAfter("foo", Duration.ofMillis(70));
    assertThat(queue.waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofMillis(60));
    assertThat(queue.len()).isEqualTo(1);
    queue.done(queue.get().orElseThrow());

    clock.advance(Duration.ofMillis(20));
    assertThat(queue.len()).as("the later add was merged into the earlier one").isZero();
  }

  @Test
  void addAfter_itemAlreadyWaitingEarlierAdd_movesItForward() throws InterruptedException {
    queue.addAfter("foo", Duration.ofMillis(50));
    queue.addAfter("foo", Duration.ofMillis(30));
    assertThat(queue.waitingCount()).isEqualTo(1);

    clock.advance(Duration.ofMillis(40));
    assertThat(queue.len()).isEqualTo(1);
    queue.done(queue.get().orElseThrow());

    clock.advance(Duration.ofMillis(20));
    assertThat(queue.len()).isZero();
  }

  @Test
  void addAfter_laterItemAddedFirst_firesInReadyTimeOrder() throws InterruptedException {
    queue.addAfter("foo", Duration.ofSeconds(1));
    queue.addAfter("bar", Duration.ofMillis(50));

    clock.advance(Duration.ofMillis(60));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("bar");

    queue.addAfter("baz", Duration.ofSeconds(2));
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("foo");

    clock.advance(Duration.ofSeconds(2));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("baz");
  }

  @Test
  void advance_pastSeveralReadyTimes_queuesThemEarliestFirst() throws InterruptedException {
    queue.addAfter("foo", Duration.ofSeconds(1));
    queue.addAfter("bar", Duration.ofMillis(500));
    queue.addAfter("baz", Duration.ofMillis(250));

    clock.advance(Duration.ofSeconds(2));

    assertThat(queue.len()).isEqualTo(3);
    assertThat(List.of(get(), get(), get())).containsExactly("baz", "bar", "foo");
  }

  @Test
  void addAfter_sameReadyTime_keepsAddOrder() throws InterruptedException {
    for (String s : List.of("c", "a", "b")) {
      queue.addAfter(s, Duration.ofSeconds(1));
    }
    clock.advance(Duration.ofSeconds(1));
    assertThat(List.of(get(), get(), get())).containsExactly("c", "a", "b");
  }

  record NonPositive(String name, Duration delay) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<NonPositive> nonPositiveDelays() {
    return Stream.of(
        new NonPositive("zero", Duration.ZERO),
        new NonPositive("negative", Duration.ofSeconds(-5)),
        new NonPositive("most negative", Duration.ofSeconds(Long.MIN_VALUE)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nonPositiveDelays")
  void addAfter_nonPositiveDelay_addsImmediately(NonPositive c) {
    queue.addAfter("now", c.delay());
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.waitingCount()).isZero();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void addAfter_manyWaitingItems_noneIsDropped() throws InterruptedException {
    // A port once dropped delayed adds beyond 1000 waiting (PITFALLS.md).
    int n = 5_000;
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < n; i++) {
      queue.addAfter("item-" + i, Duration.ofMillis(1 + random.nextInt(600_000)));
    }
    assertThat(queue.waitingCount()).isEqualTo(n);
    assertThat(clock.pendingTaskCount()).as("one wake-up, however many wait").isEqualTo(1);

    clock.advance(Duration.ofMinutes(11));

    assertThat(queue.len()).isEqualTo(n);
    Set<String> got = new HashSet<>();
    for (int i = 0; i < n; i++) {
      got.add(get());
    }
    assertThat(got).hasSize(n);
  }

  @Test
  void addAfter_farFuture_wakesAtMostEveryMaxWait() {
    queue.addAfter("later", Duration.ofSeconds(1000));
    assertThat(clock.pendingDelays()).containsExactly(DefaultDelayingQueue.MAX_WAIT);

    clock.advance(Duration.ofSeconds(995));
    assertThat(queue.len()).isZero();
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(5));

    clock.advance(Duration.ofSeconds(5));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void addAfter_earlierItem_replacesTheScheduledWakeUp() {
    queue.addAfter("late", Duration.ofSeconds(5));
    queue.addAfter("early", Duration.ofSeconds(1));
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(1));

    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(4));
  }

  @Test
  void addAfter_itemAlreadyQueued_isNotQueuedTwice() {
    queue.add("foo");
    queue.addAfter("foo", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void shutDown_discardsWaitingItemsAndCancelsTheWakeUp() {
    queue.addAfter("foo", Duration.ofSeconds(1));
    queue.shutDown();

    assertThat(clock.hasPendingTasks()).isFalse();
    clock.advance(Duration.ofSeconds(2));
    assertThat(queue.len()).isZero();
    assertThat(queue.waitingCount()).isZero();
  }

  @Test
  void addAfter_afterShutDown_isIgnored() {
    queue.shutDown();
    queue.addAfter("foo", Duration.ofSeconds(1));
    queue.addAfter("bar", Duration.ZERO);

    assertThat(queue.waitingCount()).isZero();
    assertThat(queue.len()).isZero();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void shutDownWithDrain_discardsWaitingItems() throws InterruptedException {
    queue.addAfter("foo", Duration.ofSeconds(1));
    queue.shutDownWithDrain();
    assertThat(clock.hasPendingTasks()).isFalse();
    assertThat(queue.isShuttingDown()).isTrue();
  }

  @Test
  void addAfter_schedulerRejectsOnce_nextAddAfterStillSchedulesAWakeUp() {
    AtomicBoolean reject = new AtomicBoolean(true);
    Scheduler flaky =
        (task, delay) -> {
          if (reject.getAndSet(false)) {
            throw new RejectedExecutionException("scheduler is full");
          }
          return clock.schedule(task, delay);
        };
    QueueOptions opts = QueueOptions.builder().clock(clock).scheduler(flaky).build();
    DelayingQueue<String> q = DelayingQueue.create(opts);

    assertThatThrownBy(() -> q.addAfter("first", Duration.ofSeconds(1)))
        .isInstanceOf(RejectedExecutionException.class);
    q.addAfter("second", Duration.ofSeconds(2));

    clock.advance(Duration.ofSeconds(2));
    assertThat(q.len()).as("both come out: the waiting item was kept").isEqualTo(2);
  }

  @Test
  void create_withFakeClock_delaysUntilAdvanced() throws InterruptedException {
    DelayingQueue<Integer> q = DelayingQueue.create(options());
    q.addAfter(7, Duration.ofMillis(5));
    assertThat(q.len()).isZero();
    clock.advance(Duration.ofMillis(5));
    assertThat(q.get()).contains(7);
  }

  private String get() throws InterruptedException {
    String item = queue.get().orElseThrow();
    queue.done(item);
    return item;
  }
}

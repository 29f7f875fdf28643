package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SharedProcessorTest {

  private final FakeClock clock = new FakeClock();

  private static final long S = Duration.ofSeconds(1).toNanos();

  record PeriodCase(String name, Duration desired, Duration check, Duration expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<PeriodCase> periodCases() {
    Duration zero = Duration.ZERO;
    Duration s10 = Duration.ofSeconds(10);
    Duration s30 = Duration.ofSeconds(30);
    return Stream.of(
        new PeriodCase("no resync wanted", zero, s10, zero),
        new PeriodCase("informer does not check", s30, zero, zero),
        new PeriodCase("slower than the check: as asked", s30, s10, s30),
        new PeriodCase("faster than the check: raised to it", s10, s30, s30),
        new PeriodCase("equal", s10, s10, s10));
  }

  /** client-go {@code determineResyncPeriod}. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("periodCases")
  void determineResyncPeriod_followsClientGo(PeriodCase c) {
    assertThat(SharedProcessor.determineResyncPeriod(c.desired(), c.check()))
        .isEqualTo(c.expected());
  }

  private final List<String> calls = new CopyOnWriteArrayList<>();

  private ProcessorListener<Pod> listener(
      SharedProcessor<Pod> p, String name, Duration period, long nowNanos) {
    ResourceEventHandler<Pod> h =
        new ResourceEventHandler<>() {
          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            calls.add(name + " " + newObj.getMetadata().getName());
          }
        };
    ProcessorListener<Pod> l =
        new ProcessorListener<>(
            "pods", h, period, period, nowNanos, Runnable::run, clock, clock, () -> true, p);
    p.addListener(l);
    return l;
  }

  private static void distributeNow(SharedProcessor<Pod> p, Notification<Pod> n, boolean sync) {
    List<ProcessorListener<Pod>> toSubmit = new ArrayList<>();
    p.distribute(n, sync, toSubmit);
    SharedProcessor.submitAll(toSubmit);
  }

  @Test
  void distribute_queuesWithoutCallingTheExecutor_untilSubmitAll() {
    SharedProcessor<Pod> p = new SharedProcessor<>();
    List<Runnable> submitted = new ArrayList<>();
    ProcessorListener<Pod> l =
        new ProcessorListener<>(
            "pods",
            new ResourceEventHandler<Pod>() {},
            Duration.ZERO,
            Duration.ZERO,
            0,
            submitted::add,
            clock,
            clock,
            () -> true,
            p);
    p.addListener(l);
    Pod a = pod("ns", "a", "1");
    List<ProcessorListener<Pod>> toSubmit = new ArrayList<>();

    p.distribute(new Notification.Add<>(a, false), false, toSubmit);
    p.distribute(new Notification.Update<>(a, pod("ns", "a", "2")), false, toSubmit);

    assertThat(submitted).as("nothing reaches the executor under the caller's lock").isEmpty();
    assertThat(toSubmit).as("one drain owed, however many notifications").containsExactly(l);
    assertThat(l.pendingNotifications()).isEqualTo(2);
    SharedProcessor.submitAll(toSubmit);
    assertThat(submitted).hasSize(1);
    assertThat(toSubmit).isEmpty();
  }

  @Test
  void shouldResync_marksOnlyDueListeners_andSyncNotificationsGoOnlyToThem() {
    SharedProcessor<Pod> p = new SharedProcessor<>();
    listener(p, "never", Duration.ZERO, 0);
    listener(p, "every10", Duration.ofSeconds(10), 0);
    listener(p, "every20", Duration.ofSeconds(20), 0);
    Pod a = pod("ns", "a", "1");
    Notification<Pod> resync = new Notification.Update<>(a, a);

    assertThat(p.shouldResync(5 * S)).isFalse();
    assertThat(p.shouldResync(10 * S)).isTrue();
    distributeNow(p, resync, true);
    assertThat(calls).containsExactly("every10 a");

    calls.clear();
    assertThat(p.shouldResync(20 * S)).isTrue();
    distributeNow(p, resync, true);
    assertThat(calls).containsExactlyInAnyOrder("every10 a", "every20 a");

    calls.clear();
    distributeNow(p, new Notification.Update<>(a, pod("ns", "a", "2")), false);
    assertThat(calls).as("a real change goes to everyone").hasSize(3);
  }

  @Test
  void removeListener_stopsItAndLeavesTheOthers() {
    SharedProcessor<Pod> p = new SharedProcessor<>();
    ProcessorListener<Pod> gone = listener(p, "gone", Duration.ZERO, 0);
    listener(p, "kept", Duration.ZERO, 0);
    p.removeListener(gone);
    Pod a = pod("ns", "a", "1");
    distributeNow(p, new Notification.Update<>(a, a), false);
    assertThat(calls).containsExactly("kept a");
    assertThat(gone.isRemoved()).isTrue();
    assertThat(p.listeners()).hasSize(1);
  }

  @Test
  void resyncCheckPeriodChanged_rederivesEveryListenersPeriod() {
    SharedProcessor<Pod> p = new SharedProcessor<>();
    ProcessorListener<Pod> l = listener(p, "every5", Duration.ofSeconds(5), 0);
    p.resyncCheckPeriodChanged(Duration.ofSeconds(10), 0);
    assertThat(l.resyncPeriod).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.shouldResync(5 * S)).isFalse();
    assertThat(p.shouldResync(10 * S)).isTrue();
  }
}

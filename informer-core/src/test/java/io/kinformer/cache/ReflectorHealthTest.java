package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ReflectorState.Idle;
import io.kinformer.cache.ReflectorState.Stopped;
import io.kinformer.cache.ReflectorState.Watching;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The health a reflector records ({@link Reflector#health}), driven one transition at a time with
 * {@link Reflector#step()} on a {@link FakeClock}.
 */
class ReflectorHealthTest {

  private static final ApiException SERVER_ERROR =
      new ApiException(500, "InternalError", "etcd down", null, List.of(), false);

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final Reflector<Pod> reflector =
      Reflector.builder("pods", source, new RecordingStore<Pod>())
          .clock(clock)
          .scheduler(clock)
          .random(new Random(3))
          .streamingList(false)
          .build();

  @AfterEach
  void close() {
    reflector.close();
  }

  private InformerHealth health() {
    return reflector.health("pods", false, false);
  }

  @Test
  void health_beforeTheFirstCycle_isIdleWithoutHistory() {
    InformerHealth h = health();

    assertThat(h.state()).isEqualTo(new Idle(null));
    assertThat(h.lastEventTime()).isNull();
    assertThat(h.lastProgressTime()).isNull();
    assertThat(h.lastError()).isNull();
    assertThat(h.lastErrorTime()).isNull();
    assertThat(h.consecutiveFailures()).isZero();
    assertThat(h.terminal()).isFalse();
    assertThat(h.stuck(clock.now().plus(Duration.ofDays(1)), Duration.ofMinutes(1))).isFalse();
  }

  @Test
  void health_failedLists_areCountedUntilAListSucceeds() {
    source.failNextList(SERVER_ERROR);
    source.failNextList(SERVER_ERROR);
    Instant start = clock.now();
    reflector.step(); // the first cycle starts: listing
    reflector.step(); // the list fails

    InformerHealth first = health();
    assertThat(first.state()).isInstanceOf(Idle.class);
    assertThat(first.consecutiveFailures()).isEqualTo(1);
    assertThat(first.lastError()).contains("LIST", "etcd down");
    assertThat(first.lastErrorTime()).isEqualTo(start);
    assertThat(first.lastProgressTime()).isEqualTo(start);

    clock.advance(Duration.ofSeconds(10));
    reflector.step(); // backing off
    reflector.step(); // listing again
    reflector.step(); // the list fails again
    InformerHealth second = health();
    assertThat(second.consecutiveFailures()).isEqualTo(2);
    assertThat(second.lastErrorTime()).isEqualTo(start.plusSeconds(10));
    assertThat(second.lastProgressTime()).isEqualTo(start);
    assertThat(second.stuck(clock.now(), Duration.ofSeconds(5))).isTrue();
    assertThat(second.stuck(clock.now(), Duration.ofMinutes(1))).isFalse();

    clock.advance(Duration.ofSeconds(1));
    reflector.step(); // backing off
    reflector.step(); // listing
    reflector.step(); // the list succeeds: watching
    InformerHealth healed = health();
    assertThat(healed.state()).isInstanceOf(Watching.class);
    assertThat(healed.consecutiveFailures()).isZero();
    assertThat(healed.lastProgressTime()).isEqualTo(start.plusSeconds(11));
    assertThat(healed.lastError()).contains("etcd down"); // kept as history
    assertThat(healed.lastErrorTime()).isEqualTo(start.plusSeconds(10));
  }

  @Test
  void health_watchOpenAndEvents_recordProgressAndTheLastEventTime() {
    source.add(TestPods.pod("default", "a"));
    Instant start = clock.now();
    reflector.step(); // listing
    reflector.step(); // listed: watching
    clock.advance(Duration.ofSeconds(3));
    reflector.step(); // the watch opens
    assertThat(health().lastProgressTime()).isEqualTo(start.plusSeconds(3));
    assertThat(health().lastEventTime()).isNull();

    clock.advance(Duration.ofSeconds(4));
    source.bookmark();
    reflector.step(); // the bookmark arrives
    InformerHealth h = health();
    assertThat(h.lastEventTime()).isEqualTo(start.plusSeconds(7));
    assertThat(h.lastProgressTime()).isEqualTo(start.plusSeconds(7));
    assertThat(h.consecutiveFailures()).isZero();
  }

  @Test
  void health_quietSyncedInformer_isNotStuckHoweverOld() {
    reflector.step();
    reflector.step();
    reflector.step(); // listed and watching
    clock.advance(Duration.ofHours(5));

    InformerHealth h = reflector.health("pods", true, false);
    assertThat(h.stuck(clock.now(), Duration.ofMinutes(1))).isFalse();
    // Not synced, the same silence is stuck.
    assertThat(health().stuck(clock.now(), Duration.ofMinutes(1))).isTrue();
  }

  @Test
  void health_afterClose_isTerminalAndStopped() {
    reflector.step();
    reflector.close();

    InformerHealth h = health();
    assertThat(h.terminal()).isTrue();
    assertThat(h.state()).isEqualTo(new Stopped());
    assertThat(h.stuck(clock.now(), Duration.ofDays(1))).isTrue();
    assertThat(h.describe()).isEqualTo("pods: stopped");
  }
}

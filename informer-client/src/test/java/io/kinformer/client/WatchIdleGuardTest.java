package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.time.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watch inactivity limit on a fake clock: checks every quarter of the limit. */
class WatchIdleGuardTest {

  private static final Duration IDLE = Duration.ofSeconds(8);

  private final OkHttpClient http = new OkHttpClient();
  private final FakeClock clock = new FakeClock();
  private final AtomicLong bytes = new AtomicLong();

  @AfterEach
  void tearDown() {
    http.dispatcher().executorService().shutdown();
  }

  /** A call that is never executed: the guard only cancels it. */
  private Call call() {
    return http.newCall(new Request.Builder().url("http://127.0.0.1:9/api/v1/pods").build());
  }

  @Test
  void noByteForTheLimit_cancelsTheCallAndStopsChecking() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock);
    guard.watch(bytes::get);

    clock.advance(Duration.ofSeconds(7));
    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();

    clock.advance(Duration.ofSeconds(1)); // the check at 8 s: silent since the start
    assertThat(guard.fired()).isTrue();
    assertThat(call.isCanceled()).isTrue();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void noResponseYet_countsAsSilence() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock); // no watch(): headers

    clock.advance(IDLE);

    assertThat(guard.fired()).isTrue();
    assertThat(call.isCanceled()).isTrue();
  }

  @Test
  void bytesArrivingWithinTheLimit_keepTheCall_thenSilenceEndsIt() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock);
    guard.watch(bytes::get);

    // A byte every 6 s for a minute: never 8 s without one.
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(6));
      bytes.addAndGet(100);
    }
    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();

    // Then silence: cancelled after at least the limit and at most 1.5 times it.
    clock.advance(Duration.ofSeconds(7));
    assertThat(guard.fired()).isFalse();
    clock.advance(Duration.ofSeconds(5));
    assertThat(guard.fired()).isTrue();
    assertThat(call.isCanceled()).isTrue();
  }

  @Test
  void stop_endsTheChecksAndLeavesTheCallAlone() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock);
    guard.watch(bytes::get);

    guard.stop();
    guard.stop(); // idempotent
    clock.advance(Duration.ofMinutes(10));

    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void aLimitThatIsNotPositive_isRefused() {
    assertThatThrownBy(() -> WatchIdleGuard.start(call(), Duration.ZERO, clock, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be positive");
  }
}

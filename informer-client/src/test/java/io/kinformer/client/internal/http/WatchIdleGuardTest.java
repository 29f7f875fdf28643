package io.kinformer.client.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watch inactivity limit on a fake clock: checks every quarter of the limit (2 s here). */
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

  /** A guard past the headers, its reader waiting for data. */
  private WatchIdleGuard reading(Call call) {
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock);
    guard.watch(bytes::get);
    guard.enterRead();
    return guard;
  }

  /** Not fired after {@code before}, fired (and the call cancelled) {@code then} later. */
  private void assertFiresBetween(
      WatchIdleGuard guard, Call call, Duration before, Duration then) {
    clock.advance(before);
    assertThat(guard.fired()).as("fired after %s", before).isFalse();
    assertThat(call.isCanceled()).isFalse();
    clock.advance(then);
    assertThat(guard.fired()).as("fired %s later", then).isTrue();
    assertThat(call.isCanceled()).isTrue();
  }

  @Test
  void readerWaitingTheLimitWithoutAByte_cancelsTheCallAndStopsChecking() {
    Call call = call();
    WatchIdleGuard guard = reading(call);

    // The headers arrived at 0 s; the check at 2 s sees that progress, and the one at 10 s, after
    // 8 s without more, fires.
    assertFiresBetween(guard, call, Duration.ofSeconds(9), Duration.ofSeconds(1));
    assertThat(clock.hasPendingTasks()).isFalse();

    guard.stop();
    assertThat(guard.fired()).as("fired stays set").isTrue();
  }

  @Test
  void noResponseHeadersYet_countsAsSilence() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock); // no watch(): headers

    assertFiresBetween(guard, call, Duration.ofSeconds(7), Duration.ofSeconds(1));
  }

  @Test
  void bytesWithinTheLimit_keepTheCall_thenSilenceEndsItWithinAQuarterMore() {
    Call call = call();
    WatchIdleGuard guard = reading(call);

    // A byte every 6 s for a minute: never 8 s without one.
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(6));
      bytes.addAndGet(100);
    }
    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();

    // The last bytes came at 60 s, just after a check: the check at 62 s sees them, and the one at
    // 70 s (8 s later) fires: 10 s of silence at most, 1.25 times the limit.
    assertFiresBetween(guard, call, Duration.ofSeconds(9), Duration.ofSeconds(1));
  }

  @Test
  void timeBetweenReads_isNotSilence() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, IDLE, clock, clock);
    guard.watch(bytes::get);

    // The consumer is busy with an event for a minute: not the connection's fault.
    clock.advance(Duration.ofMinutes(1));
    assertThat(guard.fired()).isFalse();

    // Then it waits for the next event and none comes: silence from the last check before.
    guard.enterRead();
    assertFiresBetween(guard, call, Duration.ofSeconds(7), Duration.ofSeconds(1));
  }

  @Test
  void aReadThatEnds_stopsTheSilenceCount() {
    Call call = call();
    WatchIdleGuard guard = reading(call);

    clock.advance(Duration.ofSeconds(6));
    bytes.addAndGet(10);
    guard.exitRead();
    clock.advance(Duration.ofMinutes(5));

    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();
  }

  @Test
  void stop_endsTheChecksAndLeavesTheCallAlone() {
    Call call = call();
    WatchIdleGuard guard = reading(call);

    clock.advance(Duration.ofSeconds(3)); // one check has run
    guard.stop();
    guard.stop(); // idempotent
    clock.advance(Duration.ofMinutes(10));

    assertThat(guard.fired()).isFalse();
    assertThat(call.isCanceled()).isFalse();
    assertThat(clock.hasPendingTasks()).isFalse();
  }

  @Test
  void aLimitThatIsNotPositive_isOneMillisecond() {
    Call call = call();
    WatchIdleGuard guard = WatchIdleGuard.start(call, Duration.ZERO, clock, clock);

    clock.advance(Duration.ofNanos(999_999));
    assertThat(guard.fired()).isFalse();
    clock.advance(Duration.ofNanos(1));

    assertThat(guard.fired()).isTrue();
    assertThat(call.isCanceled()).isTrue();
  }
}

package io.kinformer.client.internal.http;

import io.kinformer.client.ClientOptions;
import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * The inactivity limit of one watch call (or list response): cancels the call when its reader has
 * waited {@code idle} for data without getting a byte, so a dead connection fails the watch and the
 * reflector opens a new one. A list's decoding counts as one long read.
 *
 * <p>Why not OkHttp's read timeout: okio enforces it around every read of the socket, registering
 * the read with its shared watchdog thread and waking that thread whenever the read becomes the
 * earliest deadline, which on a lone watch is every read. On a busy watch that is a thread wake-up
 * per socket read, for a limit measured in minutes. Here the bytes read so far are sampled on the
 * shared scheduler every quarter of the limit instead; the reading thread counts bytes (one
 * volatile write per read call) and marks when it is inside a read.
 *
 * <p>What counts as silence, as with a read timeout: only time the reader spends waiting for data.
 * Time between reads (the consumer busy with the previous event) is not silence. The wait for the
 * response headers counts, and their arrival is progress.
 *
 * <p>Precision: a watch is cancelled after at least {@code idle} of silence and at most about 1.25
 * × {@code idle} plus the scheduler's delay (a byte is seen by the first check after it arrived,
 * and the silence is measured from that check). Limits below 1 ms are treated as 1 ms.
 *
 * <p>On HTTP/2 the cancel resets the stream, not the connection: a dead HTTP/2 connection is found
 * by the client's pings ({@link ClientOptions#pingInterval()}), as OkHttp's read timeout, which
 * watches do not use, would find it too.
 *
 * <p>Thread safety: thread-safe. Checks run on the scheduler's thread one after another (each
 * schedules the next); the other methods may be called from any thread. A check that has decided
 * to fire may still cancel the call just after {@link #stop} returns; {@link #fired} is final once
 * {@code stop} has returned.
 */
final class WatchIdleGuard {

  private static final long MIN_IDLE_NANOS = 1_000_000;

  private final Call call;
  private final long idleNanos;
  private final Duration period;
  private final Clock clock;
  private final Scheduler scheduler;

  /** Progress so far: 0 while waiting for headers, then 1 + the bytes of the body read. */
  private volatile LongSupplier progress = () -> 0;

  /** Whether the reader is waiting for data: true while waiting for the response headers. */
  private volatile boolean inRead = true;

  /** Set when the guard cancelled the call. */
  private volatile boolean fired;

  // @GuardedBy("this")
  private boolean stopped;

  // @GuardedBy("this"): the pending check, null once stopped or fired
  private @Nullable Cancellable next;

  // Written by start() before the first check is scheduled, then only by the checks, which never
  // overlap.
  private long lastSeen;
  private long lastProgressNanos;

  private WatchIdleGuard(Call call, Duration idle, Clock clock, Scheduler scheduler) {
    this.call = Objects.requireNonNull(call, "call");
    long nanos;
    try {
      nanos = idle.toNanos();
    } catch (ArithmeticException overflow) {
      nanos = idle.isNegative() ? 0 : Long.MAX_VALUE;
    }
    this.idleNanos = Math.max(MIN_IDLE_NANOS, nanos);
    // Rounded up, so that four periods cover the limit.
    this.period = Duration.ofNanos(idleNanos / 4 + (idleNanos % 4 == 0 ? 0 : 1));
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
  }

  /** Starts guarding {@code call} (before it is executed, so the wait for headers counts). */
  static WatchIdleGuard start(Call call, Duration idle, Clock clock, Scheduler scheduler) {
    WatchIdleGuard guard = new WatchIdleGuard(call, idle, clock, scheduler);
    guard.lastProgressNanos = clock.nanoTime();
    synchronized (guard) {
      guard.next = scheduler.schedule(guard::check, guard.period);
    }
    return guard;
  }

  /**
   * The headers arrived: measures progress with {@code bytesRead} (the body's count of bytes read)
   * from now on, and counts silence only between {@link #enterRead} and {@link #exitRead}.
   */
  void watch(LongSupplier bytesRead) {
    Objects.requireNonNull(bytesRead, "bytesRead");
    progress = () -> 1 + bytesRead.getAsLong(); // the headers were progress
    inRead = false;
  }

  /** The reader starts waiting for data (an event). */
  void enterRead() {
    inRead = true;
  }

  /** The reader has its event (or failed): time until the next read is not silence. */
  void exitRead() {
    inRead = false;
  }

  /** Whether the guard cancelled the call for inactivity. */
  boolean fired() {
    return fired;
  }

  /** Stops guarding; no check starts after this returns. Idempotent. */
  void stop() {
    Cancellable pending;
    synchronized (this) {
      stopped = true;
      pending = next;
      next = null;
    }
    if (pending != null) {
      pending.cancel();
    }
  }

  private void check() {
    long now = clock.nanoTime();
    long seen = progress.getAsLong();
    if (seen != lastSeen || !inRead) {
      lastSeen = seen;
      lastProgressNanos = now;
    } else if (now - lastProgressNanos >= idleNanos) {
      synchronized (this) {
        if (stopped) {
          return;
        }
        next = null;
        fired = true; // before the cancel, so that the failing read can tell why
      }
      call.cancel();
      return;
    }
    synchronized (this) {
      if (!stopped) {
        next = scheduler.schedule(this::check, period);
      }
    }
  }

  /** The limit in force (at least 1 ms), for messages. */
  Duration idle() {
    return Duration.ofNanos(idleNanos);
  }
}

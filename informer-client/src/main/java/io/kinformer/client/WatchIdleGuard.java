package io.kinformer.client;

import io.kinformer.time.Cancellable;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * The inactivity limit of one watch call: cancels the call when no byte of it has arrived for
 * {@code idle}, so a dead connection fails the watch and the reflector opens a new one.
 *
 * <p>Why not OkHttp's read timeout: okio enforces it around every read of the socket, registering
 * the read with its shared watchdog thread and waking that thread whenever the read becomes the
 * earliest deadline, which on a lone watch is every read. On a busy watch that is a thread wake-up
 * per socket read, for a limit measured in minutes. Here the bytes read so far are sampled on the
 * shared scheduler every quarter of the limit instead; the reading thread only counts bytes, as it
 * does anyway.
 *
 * <p>Precision: a watch is cancelled after at least {@code idle} without a new byte and at most
 * about 1.5 × {@code idle} (the silence is measured from the first check that saw no progress). The
 * limit covers the wait for the response headers too: until {@link #watch} is called, the progress
 * is zero.
 *
 * <p>Thread safety: thread-safe. Checks run on the scheduler's thread one after another (each
 * schedules the next); {@link #watch}, {@link #stop} and {@link #fired} may be called from any
 * thread.
 */
final class WatchIdleGuard {

  private final Call call;
  private final long idleNanos;
  private final Duration period;
  private final Clock clock;
  private final Scheduler scheduler;

  /** The bytes read so far; zero until the body is being read. */
  private volatile LongSupplier progress = () -> 0;

  /** Set when the guard cancelled the call. */
  private volatile boolean fired;

  // @GuardedBy("this")
  private boolean stopped;

  // @GuardedBy("this"): the pending check, null once stopped or fired
  private @Nullable Cancellable next;

  // Touched only by the checks, which never overlap.
  private long lastSeen;
  private long lastProgressNanos;

  private WatchIdleGuard(Call call, Duration idle, Clock clock, Scheduler scheduler) {
    if (idle.isNegative() || idle.isZero()) {
      throw new IllegalArgumentException("the watch idle limit must be positive: " + idle);
    }
    this.call = Objects.requireNonNull(call, "call");
    this.idleNanos = idle.toNanos();
    this.period = Duration.ofNanos(Math.max(1_000_000, idleNanos / 4));
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

  /** Measures progress with {@code bytesRead} from now on (the body's count of bytes read). */
  void watch(LongSupplier bytesRead) {
    progress = Objects.requireNonNull(bytesRead, "bytesRead");
  }

  /** Whether the guard cancelled the call for inactivity. */
  boolean fired() {
    return fired;
  }

  /** Stops guarding; the call is left alone. Idempotent. */
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
    if (seen != lastSeen) {
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

  /** The limit as given, for messages. */
  Duration idle() {
    return Duration.ofNanos(idleNanos);
  }
}

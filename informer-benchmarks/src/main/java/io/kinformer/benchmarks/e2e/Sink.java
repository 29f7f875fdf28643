package io.kinformer.benchmarks.e2e;

import io.kinformer.benchmarks.Pods;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What every driver's handlers report to: counts of adds and updates and, while latency is being
 * measured, the delay from the server's send timestamp to the handler call. Handlers do nothing
 * else, so the cost measured is the library's.
 *
 * <p>Thread safety: thread-safe (handlers of any library on any thread).
 */
final class Sink {

  private static final String ZERO = "0".repeat(Pods.SENT_DIGITS);

  final Tally adds = new Tally();
  final Tally updates = new Tally();
  private final long[] latencies;
  private final long[] sentStamps;
  private final AtomicInteger latencyCount = new AtomicInteger();

  Sink(int maxLatencies) {
    this.latencies = new long[maxLatencies];
    this.sentStamps = new long[maxLatencies];
  }

  void added() {
    adds.increment();
  }

  /** An update whose object carried these annotations. */
  void updated(@Nullable Map<String, String> annotations) {
    long now = System.nanoTime();
    if (annotations != null) {
      String sent = annotations.get(Pods.SENT_ANNOTATION);
      if (sent != null && !sent.equals(ZERO)) {
        int i = latencyCount.getAndIncrement();
        if (i < latencies.length) {
          long stamp = Long.parseLong(sent);
          sentStamps[i] = stamp;
          latencies[i] = now - stamp;
        }
      }
    }
    updates.increment();
  }

  /** Forgets the latencies recorded so far (call when no update is in flight). */
  void clearLatencies() {
    latencyCount.set(0);
  }

  /** The recorded latencies in nanoseconds, sorted. */
  long[] latencies() {
    return Arrays.stream(latencies, 0, Math.min(latencyCount.get(), latencies.length))
        .sorted().toArray();
  }

  /**
   * Each recorded event's server send stamp and latency in nanoseconds, one "stamp latency" line
   * per event in arrival order (to line slow events up with a profile's GC and JIT events).
   */
  String latencyLines() {
    StringBuilder sb = new StringBuilder();
    int count = Math.min(latencyCount.get(), latencies.length);
    for (int i = 0; i < count; i++) {
      sb.append(sentStamps[i]).append(' ').append(latencies[i]).append('\n');
    }
    return sb.toString();
  }

  /**
   * Waits (polling every millisecond) until {@code condition} holds; false on timeout. For
   * conditions outside the timed phases: what is timed waits on a {@link Tally}.
   */
  static boolean await(BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(1_000_000);
    }
    return true;
  }

  /**
   * A count of handler calls that wakes the one waiting thread when it reaches that thread's
   * target. The timed phases wait on it instead of polling: a waiter polling every 100 µs woke
   * 10,000 times a second and took about a tenth of a core from whichever library was measured, on
   * a machine of two.
   *
   * <p>Thread safety: {@link #increment()} from any thread; {@link #await} from one thread at a
   * time.
   */
  static final class Tally {
    private final AtomicLong count = new AtomicLong();
    private volatile long target = Long.MAX_VALUE;
    private volatile @Nullable Thread waiter;

    void increment() {
      if (count.incrementAndGet() == target) {
        Thread w = waiter;
        if (w != null) {
          LockSupport.unpark(w);
        }
      }
    }

    long get() {
      return count.get();
    }

    /**
     * Waits until the count reaches {@code target} and then until {@code also} holds (checked
     * every 100 µs from then on); false on timeout. Woken by the increment that reaches the
     * target; until then it re-checks only every 10 ms, in case that wake-up was missed.
     */
    boolean await(long target, BooleanSupplier also, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      waiter = Thread.currentThread();
      this.target = target;
      try {
        while (true) {
          boolean reached = count.get() >= target;
          if (reached && also.getAsBoolean()) {
            return true;
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          LockSupport.parkNanos(Math.min(left, reached ? 100_000 : 10_000_000));
        }
      } finally {
        this.target = Long.MAX_VALUE;
        waiter = null;
      }
    }

    /** As {@link #await(long, BooleanSupplier, Duration)} with nothing else to wait for. */
    boolean await(long target, Duration timeout) {
      return await(target, () -> true, timeout);
    }
  }
}

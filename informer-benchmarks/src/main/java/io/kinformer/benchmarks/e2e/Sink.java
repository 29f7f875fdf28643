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

  final AtomicLong adds = new AtomicLong();
  final AtomicLong updates = new AtomicLong();
  private final long[] latencies;
  private final long[] sentStamps;
  private final AtomicInteger latencyCount = new AtomicInteger();

  Sink(int maxLatencies) {
    this.latencies = new long[maxLatencies];
    this.sentStamps = new long[maxLatencies];
  }

  void added() {
    adds.incrementAndGet();
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
    updates.incrementAndGet();
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

  /** Waits (polling every 100 µs) until {@code condition} holds; false on timeout. */
  static boolean await(BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(100_000);
    }
    return true;
  }
}

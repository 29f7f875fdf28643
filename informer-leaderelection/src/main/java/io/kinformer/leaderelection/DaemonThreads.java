package io.kinformer.leaderelection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * What the elector and the shard coordinator share about running their steps: their own threads
 * and client-go's retry jitter.
 *
 * <p>Thread safety: stateless.
 */
final class DaemonThreads {

  private DaemonThreads() {}

  /** One daemon thread, started with its first task, recorded in {@code created}. */
  static ExecutorService single(String name, List<Thread> created) {
    return new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      created.add(t);
      return t;
    });
  }

  /** Waits for {@code t} to end; an interrupt is kept for the caller, and the wait goes on. */
  static void joinQuietly(Thread t) {
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** client-go's {@code wait.Jitter(d, JitterFactor)}: d plus a random [0, 1.2) of it. */
  static Duration jittered(Duration d, RandomGenerator random) {
    long extra = (long) (d.toNanos() * LeaderElectionConfig.JITTER_FACTOR * random.nextDouble());
    return d.plusNanos(extra);
  }
}

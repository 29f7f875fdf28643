package io.kinformer.cache;

import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waiting for caches to sync (client-go's {@code cache.WaitForCacheSync}).
 *
 * <p>Thread safety: stateless; all methods are thread-safe.
 */
public final class Informers {

  /**
   * How often {@link #waitForCacheSync(Duration, BooleanSupplier...)} polls (client-go: 100 ms).
   */
  static final Duration POLL_PERIOD = Duration.ofMillis(100);

  private Informers() {}

  /**
   * An executor for {@link SharedIndexInformer.Builder#deliveryExecutor}, to share among
   * informers: a daemon thread {@code <threadNamePrefix>N} per handler that is delivering right
   * now, created on demand and gone after 30 s idle, so idle handlers cost no thread and a slow
   * handler never waits behind another. The caller owns it and shuts it down after closing the
   * informers that use it.
   */
  public static ExecutorService newDeliveryExecutor(String threadNamePrefix) {
    return DefaultSharedIndexInformer.newDeliveryExecutor(
        threadNamePrefix, ConcurrentHashMap.newKeySet());
  }

  /**
   * Waits until every informer has synced.
   *
   * @return true if all synced within {@code timeout}; false on timeout, if one was closed first,
   *     or if the thread was interrupted (the interrupt flag is then set again)
   */
  public static boolean waitForCacheSync(Duration timeout, SharedIndexInformer<?>... informers) {
    CompletableFuture<?>[] futures = new CompletableFuture<?>[informers.length];
    for (int i = 0; i < informers.length; i++) {
      futures[i] = informers[i].synced();
    }
    return await(CompletableFuture.allOf(futures), timeout);
  }

  /**
   * Waits until every condition is true (for example registrations' {@code hasSynced}), checking
   * every 100 ms on the system scheduler.
   *
   * @return true if all became true within {@code timeout}; false on timeout or interrupt (the
   *     interrupt flag is then set again)
   */
  public static boolean waitForCacheSync(Duration timeout, BooleanSupplier... hasSynced) {
    return waitForCacheSync(timeout, Scheduler.system(), hasSynced);
  }

  /** As {@link #waitForCacheSync(Duration, BooleanSupplier...)}, polling on {@code scheduler}. */
  static boolean waitForCacheSync(
      Duration timeout, Scheduler scheduler, BooleanSupplier... hasSynced) {
    Objects.requireNonNull(scheduler, "scheduler");
    CompletableFuture<Void> done = new CompletableFuture<>();
    Runnable check =
        new Runnable() {
          @Override
          public void run() {
            if (done.isDone()) {
              return;
            }
            for (BooleanSupplier s : hasSynced) {
              if (!s.getAsBoolean()) {
                scheduler.schedule(this, POLL_PERIOD);
                return;
              }
            }
            done.complete(null);
          }
        };
    check.run();
    try {
      return await(done, timeout);
    } finally {
      done.cancel(false); // stops the polling
    }
  }

  private static boolean await(CompletableFuture<?> f, Duration timeout) {
    try {
      f.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

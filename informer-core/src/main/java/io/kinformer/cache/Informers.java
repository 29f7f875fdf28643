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
 * Waiting for caches to sync (client-go's {@code cache.WaitForCacheSync}), and the bounded pool
 * that informers can share for handler delivery.
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
   * A bounded pool for {@link SharedIndexInformer.Builder#deliveryExecutor}, to share among
   * informers, with one worker less than the processors (at least 1; the other processor is left
   * to the watch readers, which decode): see {@link #newDeliveryExecutor(String, int)}.
   */
  public static ExecutorService newDeliveryExecutor(String threadNamePrefix) {
    return newDeliveryExecutor(threadNamePrefix, DeliveryPool.defaultSize());
  }

  /**
   * A bounded pool for {@link SharedIndexInformer.Builder#deliveryExecutor}, to share among
   * informers (a {@code SharedInformerFactory} makes one for all its informers): its thread count
   * depends on neither the number of handlers nor the number of informers.
   *
   * <ul>
   *   <li>Up to {@code threads} daemon workers named {@code <threadNamePrefix>N}, started on demand
   *       and ended after 30 s without work, so an idle pool holds no thread.
   *   <li>Tasks run in submission order from one queue. Each handler's deliveries are one serial
   *       task at a time that yields after 64 calls or 5 ms and queues again at the tail, so busy
   *       handlers take turns and a large backlog does not starve other handlers.
   *   <li>Stall compensation: when every worker has been inside a single handler call for over 1 s
   *       and other tasks wait, the pool starts one extra worker per second (at most 64 at a time,
   *       each ending after 30 s idle) and logs a WARN naming the handlers that hold the workers.
   *       So blocked handlers delay the others by one to two seconds rather than until they
   *       return (unless more than 64 extra workers would be needed); but a handler that blocks
   *       still costs a thread. Handlers should return quickly: put a key on a {@code WorkQueue}
   *       and do slow work on its workers.
   *   <li>The stall and idle timers run on the system clock and {@link Scheduler#system()}.
   * </ul>
   *
   * <p>The caller owns the pool: shut it down after closing the informers that use it; {@link
   * ExecutorService#awaitTermination} returns true once its threads have ended. It rejects tasks
   * after {@code shutdown()}.
   *
   * <p>Thread safety: the returned executor is thread-safe.
   *
   * @param threads how many workers run tasks when none is stuck
   * @throws IllegalArgumentException if {@code threads} is less than 1
   */
  public static ExecutorService newDeliveryExecutor(String threadNamePrefix, int threads) {
    Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
    return DeliveryPool.withDefaults(threadNamePrefix, threads, ConcurrentHashMap.newKeySet());
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

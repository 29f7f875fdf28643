package io.kinformer.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The callers of {@link SharedIndexInformer#resourceVersionSeen} waiting for the cache to reach a
 * resourceVersion. {@link #check} runs after every change the informer applies (on its processing
 * path, holding none of the informer's locks) and completes the futures whose version the cache
 * has reached, after this object's lock is released.
 *
 * <p>Thread safety: thread-safe.
 */
final class ResourceVersionWaiters {

  /** Whether the cache has reached {@code resourceVersion} (for the object at {@code key}). */
  @FunctionalInterface
  interface Reach {
    boolean reached(@Nullable String key, String resourceVersion);
  }

  private record Waiter(@Nullable String key, String resourceVersion, CompletableFuture<Void> seen) {}

  private final Reach reach;
  private final Object lock = new Object();
  // @GuardedBy("lock")
  private final List<Waiter> waiters = new ArrayList<>();
  // @GuardedBy("lock"): set by close()
  private @Nullable String closedBecause;

  ResourceVersionWaiters(Reach reach) {
    this.reach = reach;
  }

  /** A future completed once the cache has reached the version (at once if it has). */
  CompletableFuture<Void> add(@Nullable String key, String resourceVersion) {
    CompletableFuture<Void> seen = new CompletableFuture<>();
    String refused;
    synchronized (lock) {
      refused = closedBecause;
      if (refused == null) {
        waiters.add(new Waiter(key, resourceVersion, seen));
      }
    }
    if (refused != null) {
      seen.completeExceptionally(new IllegalStateException(refused));
      return seen;
    }
    // A change applied between the caller's read and add() has run its check already.
    check();
    return seen;
  }

  /** Completes the waiters the cache has reached, and forgets cancelled ones. */
  void check() {
    List<Waiter> pending;
    synchronized (lock) {
      if (waiters.isEmpty()) {
        return;
      }
      pending = List.copyOf(waiters);
    }
    List<Waiter> done = new ArrayList<>();
    for (Waiter w : pending) {
      if (w.seen().isDone() || reach.reached(w.key(), w.resourceVersion())) {
        done.add(w);
      }
    }
    if (done.isEmpty()) {
      return;
    }
    synchronized (lock) {
      waiters.removeAll(done);
    }
    for (Waiter w : done) {
      w.seen().complete(null);
    }
  }

  /** Fails every waiter, and every later one, with {@code reason}. */
  void close(String reason) {
    List<Waiter> failed;
    synchronized (lock) {
      closedBecause = reason;
      failed = List.copyOf(waiters);
      waiters.clear();
    }
    for (Waiter w : failed) {
      w.seen().completeExceptionally(new IllegalStateException(reason));
    }
  }

  /** How many wait (for tests). */
  int size() {
    synchronized (lock) {
      return waiters.size();
    }
  }
}

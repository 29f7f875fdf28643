package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.testing.FakeListerWatcher;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FakeListerWatcher} whose reader is held in lockstep with the test, for informers whose
 * reflector runs on a thread of its own (a {@link SimpleInformer} takes no reflector executor):
 * a watch's {@code next()} parks the reflector's thread until the fake has something for it to
 * read, and {@link #settle()} waits until the reflector is parked with nothing to read, then runs
 * the processing tasks queued on {@link #tasks} on the test thread, and repeats until none is left.
 * So the informer's handlers run on the test thread, one change at a time, and the test looks at
 * the informer only when the reflector has read everything the source has sent: no polling, no
 * sleeps. A generous deadline turns a reflector that never parks again into a failure, not a hang.
 *
 * <p>Changes the test makes go to {@link #fake} directly; {@link #settle()} wakes the reflector.
 * At most one watch is open at a time (as a reflector has).
 *
 * <p>Thread safety: thread-safe.
 *
 * @param <T> the object type
 */
final class LockstepListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  final FakeListerWatcher<T> fake;
  /** An executor for the informer's processing: tasks wait until {@link #settle()} runs them. */
  final Executor tasks;

  private final boolean streaming;
  private final ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // @GuardedBy("lock"): readers parked in next() with nothing to read
  private int parked;

  /**
   * @param streaming whether the source answers streaming lists (false: the reflector lists, as
   *     with client-go's {@code toListWatcherWithUnSupportedWatchListSemantics})
   */
  LockstepListerWatcher(FakeListerWatcher<T> fake, boolean streaming) {
    this.fake = Objects.requireNonNull(fake, "fake");
    this.streaming = streaming;
    this.tasks = task -> {
      queued.add(task);
      wake();
    };
  }

  @Override
  public ListResult<T> list(ListOptions options, Cancellation cancellation) {
    return fake.list(options, cancellation);
  }

  @Override
  public Watch<T> watch(ListOptions options, Cancellation cancellation) {
    return new LockstepWatch(fake.watch(options, cancellation));
  }

  @Override
  public boolean supportsWatchList() {
    return streaming;
  }

  private void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the reflector is parked on its watch with nothing to read, runs the queued
   * processing tasks on this thread, and repeats until no task is left (a handler may change the
   * source, giving the reflector more to read).
   *
   * @throws AssertionError if the reflector does not park within the deadline
   */
  void settle() {
    while (true) {
      awaitParked();
      Runnable r = queued.poll();
      if (r == null) {
        return;
      }
      for (; r != null; r = queued.poll()) {
        r.run();
      }
    }
  }

  private void awaitParked() {
    long nanos = DEADLINE.toNanos();
    lock.lock();
    try {
      changed.signalAll(); // the test may have changed the fake since the reader parked
      while (!(parked == 1 && fake.readableOnOpenWatches() == 0)) {
        if (nanos <= 0) {
          throw new AssertionError(
              "the reflector did not park on its watch within " + DEADLINE + " (parked=" + parked
                  + ", readable=" + fake.readableOnOpenWatches() + ")");
        }
        nanos = changed.awaitNanos(nanos);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while settling", e);
    } finally {
      lock.unlock();
    }
  }

  /** A watch whose reader parks until the fake has something for it. */
  private final class LockstepWatch implements Watch<T> {
    private final Watch<T> delegate;
    // @GuardedBy("lock")
    private boolean closed;

    LockstepWatch(Watch<T> delegate) {
      this.delegate = delegate;
    }

    @Override
    public @Nullable WatchEvent<T> next() {
      lock.lock();
      try {
        parked++;
        changed.signalAll();
        try {
          while (!closed && fake.readableOnOpenWatches() == 0) {
            changed.await();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        } finally {
          parked--;
        }
      } finally {
        lock.unlock();
      }
      return delegate.next();
    }

    @Override
    public void close() {
      lock.lock();
      try {
        closed = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      delegate.close();
    }
  }
}

package io.kinformer.leaderelection;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * An executor that only queues: the test runs the tasks when it chooses ({@link #runAll()}), so a
 * callback visibly runs apart from the election step that queued it.
 *
 * <p>Thread safety: thread-safe; tasks run on the thread calling {@link #runAll()}.
 */
final class ManualExecutor implements Executor {

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(task);
  }

  /** Runs queued tasks, and those they queue, until none is left. */
  void runAll() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
      }
      if (next == null) {
        return;
      }
      next.run();
    }
  }

  synchronized int queued() {
    return tasks.size();
  }
}

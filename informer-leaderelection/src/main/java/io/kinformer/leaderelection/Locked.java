package io.kinformer.leaderelection;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/** Short reads of lock-guarded state. Thread safety: stateless. */
final class Locked {

  private Locked() {}

  /** {@code read} under {@code lock}; it must be short and call no user code. */
  static <T> T read(ReentrantLock lock, Supplier<T> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }
}

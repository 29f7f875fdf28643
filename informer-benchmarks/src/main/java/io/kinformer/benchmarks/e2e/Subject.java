package io.kinformer.benchmarks.e2e;

/**
 * One library under test, inside a driver process: it starts {@code informers} informers of all
 * pods, each with {@code handlers} handlers reporting to the {@link Sink}.
 *
 * <p>Thread safety: confine to the driver's main thread.
 */
interface Subject extends AutoCloseable {

  /** Creates the client (not timed). */
  void connect(String serverUrl) throws Exception;

  /** Creates and starts the informers; returns without waiting for their sync. */
  void start(Sink sink, int informers, int handlers) throws Exception;

  /** Whether every informer reports itself synced. */
  boolean synced();

  @Override
  void close() throws Exception;
}

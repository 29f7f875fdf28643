package io.kinformer.testing;

/**
 * The store's view of an open watch: what it selects and where its items go.
 *
 * <p>Thread safety: {@link #deliver} is called under the store's lock and must only enqueue.
 */
interface WatchSink {

  Filter filter();

  /** Enqueues an item; never blocks, never calls out. */
  void deliver(WatchItem item);
}

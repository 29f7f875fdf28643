package io.kinformer.leaderelection;

/**
 * What a {@link ShardCoordinator} tells its owner: a shard was gained (start its informer, its
 * workers) or lost (stop them).
 *
 * <p>Threads and order: callbacks run one at a time, in the order of the events, on the
 * coordinator's callback executor (by default a thread of its own named {@code
 * kinformer-shards-<namespace>/<name>-callbacks}), never on the thread that talks to the API
 * server and never while the coordinator holds a lock. For one shard, gains and losses alternate,
 * starting with a gain. They must return promptly; one that throws is logged at WARN and changes
 * nothing else.
 *
 * <p>Callbacks are told of changes after the fact. The authority for acting on a shard is {@link
 * ShardCoordinator#owns(int)}, checked before each action (a write, a reconcile): a callback
 * queued behind a slow one may run late, and a replica whose clock jumped stops owning at once.
 *
 * <p>Thread safety: implementations are called from one thread at a time.
 */
public interface ShardCallbacks {

  /** This replica acquired the Lease of {@code shard} and owns it from now on. */
  void onShardGained(Shard shard);

  /**
   * This replica stopped owning {@code shard}: its Lease was not renewed within the renew
   * deadline, another replica holds it, it was handed back to even out the shares, or the
   * coordinator was closed. {@link ShardCoordinator#owns(int)} was already false when this was
   * queued.
   */
  void onShardLost(Shard shard);
}

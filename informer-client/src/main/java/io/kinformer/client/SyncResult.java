package io.kinformer.client;

import io.kinformer.cache.InformerHealth;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The outcome of {@link SharedInformerFactory#waitForCacheSyncResult}: every started informer's
 * health when the wait ended. {@link #notSynced()} names each informer that did not sync, with its
 * last error; {@link #toString()} says so in one line per informer, ready for an exception message
 * or a log line.
 *
 * <p>Thread safety: immutable.
 *
 * @param informers each started informer's health, in start order
 */
public record SyncResult(List<InformerHealth> informers) {

  public SyncResult {
    informers = List.copyOf(informers);
  }

  /** Whether every started informer synced. */
  public boolean synced() {
    return informers.stream().allMatch(InformerHealth::synced);
  }

  /** The informers that did not sync, each with its state and last error. */
  public List<InformerHealth> notSynced() {
    return informers.stream().filter(h -> !h.synced()).toList();
  }

  /**
   * "all N informers synced", or a line naming how many did not sync followed by one line per such
   * informer ({@link InformerHealth#describe()}).
   */
  @Override
  public String toString() {
    List<InformerHealth> failed = notSynced();
    if (failed.isEmpty()) {
      return "all " + informers.size() + " informers synced";
    }
    return failed.size() + " of " + informers.size() + " informers did not sync:\n"
        + failed.stream().map(h -> "  " + h.describe()).collect(Collectors.joining("\n"));
  }
}

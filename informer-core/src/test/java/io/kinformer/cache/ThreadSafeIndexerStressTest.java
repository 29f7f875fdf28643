package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The reader/writer consistency check at a larger scale; run with {@code -Dgroups=stress}. */
@Tag("stress")
class ThreadSafeIndexerStressTest {

  @Test
  void reads_whileWriterUpdatesHeavily_alwaysSeeConsistentState() throws Exception {
    ThreadSafeIndexer<Pod> store =
        new ThreadSafeIndexer<>(
            Keys.metaNamespaceKeyFunc(),
            Map.of(TestObjects.BY_NODE, TestObjects::nodeOf,
                Indexers.NAMESPACE, Indexers.namespaceIndexFunc()));

    ThreadSafeIndexerTest.ConcurrentReadWrite.run(
        store, /* pods= */ 2_000, /* writes= */ 500_000, /* readers= */ 6);

    store.checkInvariants();
  }
}

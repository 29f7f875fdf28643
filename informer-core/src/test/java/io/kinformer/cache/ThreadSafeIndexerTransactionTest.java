package io.kinformer.cache;

import static io.kinformer.cache.TestObjects.BY_NODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.TransactionStore.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The indexer's client-go 1.36 additions: transactions, the tracked resourceVersion, bookmarks,
 * sorted index keys, and the prepare/commit split the informer uses to run index functions outside
 * its locks.
 */
class ThreadSafeIndexerTransactionTest {

  private final List<ThreadSafeIndexer<Pod>> created = new ArrayList<>();

  @AfterEach
  void validateInternalStructure() {
    created.forEach(ThreadSafeIndexer::checkInvariants);
  }

  private ThreadSafeIndexer<Pod> indexer() {
    ThreadSafeIndexer<Pod> i =
        new ThreadSafeIndexer<>(
            Keys.metaNamespaceKeyFunc(),
            Map.of(
                BY_NODE,
                TestObjects::nodeOf,
                "poisonable",
                p -> {
                  if ("poison".equals(p.getMetadata().getName())) {
                    throw new IllegalStateException("poisoned");
                  }
                  return List.of();
                }));
    created.add(i);
    return i;
  }

  private static Pod pod(String name, String node, String rv) {
    Pod p = TestObjects.pod("ns", name, node);
    p.getMetadata().setResourceVersion(rv);
    return p;
  }

  private static Transaction<Pod> upsert(Pod p) {
    return new Transaction<>(Transaction.Type.UPDATE, p);
  }

  private static Transaction<Pod> delete(Pod p) {
    return new Transaction<>(Transaction.Type.DELETE, p);
  }

  @Test
  void lastStoreSyncResourceVersion_followsEveryKindOfWrite() {
    ThreadSafeIndexer<Pod> store = indexer();
    assertThat(store.lastStoreSyncResourceVersion()).isEmpty();

    store.add(pod("a", "n1", "5"));
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("5");
    store.update(pod("a", "n1", "6"));
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("6");
    store.delete(pod("a", "n1", "7"));
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("7");
    store.bookmark("9");
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("9");
    store.replace(List.of(pod("b", "n1", "3")), "10");
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("10");
    store.transaction(List.of(upsert(pod("c", "n2", "11")), upsert(pod("d", "n2", "12"))));
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("12");
  }

  @Test
  void transaction_appliesEveryWriteInOrder_andKeepsIndicesExact() {
    ThreadSafeIndexer<Pod> store = indexer();
    store.add(pod("a", "n1", "1"));

    store.transaction(
        List.of(
            upsert(pod("a", "n2", "2")),
            upsert(pod("b", "n1", "3")),
            delete(pod("a", "n2", "4")),
            upsert(pod("a", "n3", "5"))));

    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
    assertThat(store.indexKeys(BY_NODE, "n3")).containsExactly("ns/a");
    assertThat(store.indexKeys(BY_NODE, "n2")).isEmpty();
    assertThat(store.getByKey("ns/a").orElseThrow().getMetadata().getResourceVersion())
        .isEqualTo("5");
  }

  @Test
  void transaction_whenOneWriteFails_appliesTheOthers_andNamesTheFailedOne() {
    ThreadSafeIndexer<Pod> store = indexer();

    assertThatThrownBy(
            () ->
                store.transaction(
                    List.of(
                        upsert(pod("a", "n1", "1")),
                        upsert(pod("poison", "n1", "2")),
                        upsert(pod("b", "n1", "3")))))
        .isInstanceOfSatisfying(
            TransactionStore.TransactionException.class,
            e -> {
              assertThat(e.successfulIndices()).containsExactly(0, 2);
              assertThat(e.total()).isEqualTo(3);
              assertThat(e).hasMessageContaining("1 of 3").hasMessageContaining("poisonable");
            });
    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
  }

  @Test
  void applyBatch_reportsWhatEachWriteReplacedOrDeleted() {
    ThreadSafeIndexer<Pod> store = indexer();
    Pod a1 = pod("a", "n1", "1");
    Pod b1 = pod("b", "n1", "2");
    store.add(a1);
    store.add(b1);
    Object[] previous = new Object[3];
    RuntimeException[] errors = new RuntimeException[3];

    store.applyBatch(
        List.of(upsert(pod("a", "n1", "3")), delete(b1), upsert(pod("c", "n1", "4"))),
        previous,
        errors);

    assertThat(previous[0]).isSameAs(a1);
    assertThat(previous[1]).isSameAs(b1);
    assertThat(previous[2]).isNull();
    assertThat(errors).containsOnlyNulls();
  }

  @Test
  void commit_whenAnotherWriteCameBetween_usesTheStoredStateNotThePreparedOne() {
    ThreadSafeIndexer<Pod> store = indexer();
    store.add(pod("a", "n1", "1"));
    ThreadSafeIndexer.Prepared<Pod> prepared = store.prepare(List.of(upsert(pod("a", "n3", "3"))));
    Pod between = pod("a", "n2", "2");
    store.update(between);
    Object[] previous = new Object[1];

    store.commit(prepared, previous, new RuntimeException[1]);

    assertThat(previous[0]).isSameAs(between);
    assertThat(store.indexKeys(BY_NODE, "n2")).as("the key left n2, where it was").isEmpty();
    assertThat(store.indexKeys(BY_NODE, "n3")).containsExactly("ns/a");
  }

  @Test
  void commit_whenAnIndexWasAddedMeanwhile_indexesTheBatchWithIt() {
    ThreadSafeIndexer<Pod> store = indexer();
    ThreadSafeIndexer.Prepared<Pod> prepared = store.prepare(List.of(upsert(pod("a", "n1", "1"))));
    store.addIndexers(Map.of("byName", p -> List.of(TestObjects.nameOf(p))));

    store.commit(prepared, new Object[1], new RuntimeException[1]);

    assertThat(store.indexKeys("byName", "a")).containsExactly("ns/a");
  }

  @Test
  void replaceReturningPrevious_givesTheOldContentAndTheKeysInListOrder() {
    ThreadSafeIndexer<Pod> store = indexer();
    Pod a = pod("a", "n1", "1");
    store.add(a);
    store.add(pod("gone", "n1", "2"));

    ThreadSafeIndexer.Replacement<Pod> r =
        store.replaceReturningPrevious(List.of(pod("b", "n1", "3"), pod("a", "n1", "4")), "5");

    assertThat(r.keys()).containsExactly("ns/b", "ns/a");
    assertThat(r.previous()).containsOnlyKeys("ns/a", "ns/gone");
    assertThat(r.previous().get("ns/a")).isSameAs(a);
    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
  }

  @Test
  void commitReplace_whenAnIndexWasAddedMeanwhile_rebuildsTheIndices() {
    ThreadSafeIndexer<Pod> store = indexer();
    ThreadSafeIndexer.PreparedReplace<Pod> prepared =
        store.prepareReplace(List.of(pod("a", "n1", "1")));
    store.addIndexers(Map.of("byName", p -> List.of(TestObjects.nameOf(p))));

    store.commitReplace(prepared, "2");

    assertThat(store.indexKeys("byName", "a")).containsExactly("ns/a");
  }

  @Test
  void indexKeys_areSorted_asClientGosIndexKeys() {
    ThreadSafeIndexer<Pod> store = indexer();
    for (String name : List.of("m", "c", "x", "a", "q")) {
      store.add(pod(name, "n1", "1"));
    }
    assertThat(store.indexKeys(BY_NODE, "n1")).containsExactly("ns/a", "ns/c", "ns/m", "ns/q", "ns/x");
  }

  @Test
  void listIndexFuncValues_ofAnUnknownIndex_isEmpty() {
    assertThat(indexer().listIndexFuncValues("nope")).isEmpty();
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.TestObjects.BY_APP;
import static io.kinformer.cache.TestObjects.BY_NODE;
import static io.kinformer.cache.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ports the scenarios of client-go's store_test.go, thread_safe_store_test.go and index_test.go,
 * plus our own failure-atomicity and concurrency contracts. Every test ends by validating the
 * internal structure of the indexer it used.
 */
class ThreadSafeIndexerTest {

  private final List<ThreadSafeIndexer<?>> created = new ArrayList<>();

  private ThreadSafeIndexer<Pod> podIndexer(Map<String, IndexFunc<Pod>> indexers) {
    ThreadSafeIndexer<Pod> indexer = new ThreadSafeIndexer<>(Keys.metaNamespaceKeyFunc(), indexers);
    created.add(indexer);
    return indexer;
  }

  private ThreadSafeIndexer<Pod> nodeAndNamespaceIndexer() {
    return podIndexer(
        Map.of(
            BY_NODE, TestObjects::nodeOf, Indexers.NAMESPACE, Indexers.namespaceIndexFunc()));
  }

  @AfterEach
  void validateInternalStructure() {
    for (ThreadSafeIndexer<?> indexer : created) {
      indexer.checkInvariants();
    }
  }

  // --- Store (store_test.go doTestStore) ---------------------------------------------------------

  @Test
  void addUpdateDelete_whenKeyed_getsLatestStateAndForgetsDeleted() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();

    store.add(pod("ns", "foo", "bar"));
    assertThat(store.get(pod("ns", "foo", null))).map(p -> p.getSpec().getNodeName())
        .hasValue("bar");

    store.update(pod("ns", "foo", "baz"));
    assertThat(store.getByKey("ns/foo")).map(p -> p.getSpec().getNodeName()).hasValue("baz");

    store.delete(pod("ns", "foo", null));
    assertThat(store.get(pod("ns", "foo", null))).isEmpty();
    assertThat(store.list()).isEmpty();
  }

  @Test
  void list_whenSeveralAdded_returnsEveryObjectAndKey() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "b"));
    store.add(pod("ns", "c", "d"));
    store.add(pod("other", "e", "e"));

    assertThat(store.list()).extracting(TestObjects::nameOf).containsExactlyInAnyOrder("a", "c",
        "e");
    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/c", "other/e");
  }

  @Test
  void replace_whenObjectsGiven_dropsEverythingElseAndRebuildsIndices() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));
    store.add(pod("ns", "c", "node-2"));

    store.replace(List.of(pod("ns", "foo", "node-2"), pod("x", "bar", "node-3")), "7");

    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/foo", "x/bar");
    assertThat(store.indexContents(BY_NODE))
        .isEqualTo(Map.of("node-2", Set.of("ns/foo"), "node-3", Set.of("x/bar")));
    assertThat(store.indexContents(Indexers.NAMESPACE))
        .isEqualTo(Map.of("ns", Set.of("ns/foo"), "x", Set.of("x/bar")));
  }

  @Test
  void replace_whenKeyRepeated_keepsLastObject() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();

    store.replace(List.of(pod("ns", "a", "node-1"), pod("ns", "a", "node-2")), "1");

    assertThat(store.getByKey("ns/a")).map(p -> p.getSpec().getNodeName()).hasValue("node-2");
    assertThat(store.indexContents(BY_NODE)).isEqualTo(Map.of("node-2", Set.of("ns/a")));
  }

  @Test
  void replace_whenEmpty_clearsStoreAndIndices() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    store.replace(List.of(), "2");

    assertThat(store.list()).isEmpty();
    assertThat(store.listIndexFuncValues(BY_NODE)).isEmpty();
    assertThat(store.listIndexFuncValues(Indexers.NAMESPACE)).isEmpty();
  }

  @Test
  void list_returnsUnmodifiableSnapshot() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    List<Pod> before = store.list();
    List<String> keysBefore = store.listKeys();
    List<Pod> onNode = store.byIndex(BY_NODE, "node-1");
    store.add(pod("ns", "b", "node-1"));

    assertThat(before).hasSize(1);
    assertThat(keysBefore).hasSize(1);
    assertThat(onNode).hasSize(1);
    assertThatThrownBy(() -> before.add(pod("ns", "c", null)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> onNode.clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> store.indexKeys(BY_NODE, "node-1").clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void get_returnsTheSameInstanceThatWasAdded() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    Pod p = pod("ns", "a", "node-1");
    store.add(p);

    assertThat(store.getByKey("ns/a")).containsSame(p);
    assertThat(store.byIndex(BY_NODE, "node-1").get(0)).isSameAs(p);
  }

  @Test
  void delete_whenKeyUnknown_doesNothing() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    store.delete(pod("ns", "zzz", "node-1"));

    assertThat(store.listKeys()).containsExactly("ns/a");
  }

  @Test
  void resync_changesNothing() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    store.resync();

    assertThat(store.listKeys()).containsExactly("ns/a");
  }

  // --- Index maintenance (thread_safe_store_test.go) ---------------------------------------------

  @Test
  void delete_whenLastKeyOfValue_removesValueFromIndex() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));
    assertThat(store.indexContents(BY_NODE)).isEqualTo(Map.of("node-1", Set.of("ns/a")));

    store.delete(pod("ns", "a", "node-1"));

    assertThat(store.indexContents(BY_NODE)).isEmpty();
    assertThat(store.indexContents(Indexers.NAMESPACE)).isEmpty();
  }

  @Test
  void delete_whenOtherKeysShareValue_keepsValueWithRemainingKey() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "retain", "node-1"));
    store.add(pod("ns", "delete", "node-1"));
    assertThat(store.indexKeys(BY_NODE, "node-1")).containsExactlyInAnyOrder("ns/retain",
        "ns/delete");

    store.delete(pod("ns", "delete", "node-1"));

    assertThat(store.indexContents(BY_NODE)).isEqualTo(Map.of("node-1", Set.of("ns/retain")));
  }

  @Test
  void delete_whenArgumentIsStale_unindexesTheStoredState() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));
    store.update(pod("ns", "a", "node-2"));

    store.delete(pod("ns", "a", "node-1")); // an older state of the same object

    assertThat(store.indexContents(BY_NODE)).isEmpty();
  }

  @Test
  void update_whenNodeChanges_movesKeyAndRemovesStaleValue() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    store.update(pod("ns", "a", "node-2"));

    assertThat(store.byIndex(BY_NODE, "node-1")).isEmpty();
    assertThat(store.byIndex(BY_NODE, "node-2")).extracting(TestObjects::nameOf)
        .containsExactly("a");
    assertThat(store.listIndexFuncValues(BY_NODE)).containsExactly("node-2");
  }

  @Test
  void upsert_returnsWhatItReplacedAndReindexes() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    Pod first = pod("ns", "a", "node-1");
    Pod second = pod("ns", "a", "node-2");

    assertThat(store.upsert(first)).isNull();
    assertThat(store.upsert(second)).isSameAs(first);

    assertThat(store.getByKey("ns/a")).containsSame(second);
    assertThat(store.byIndex(BY_NODE, "node-1")).isEmpty();
    assertThat(store.byIndex(BY_NODE, "node-2")).containsExactly(second);
    assertThat(store.upsert(pod("other", "a", "node-2"))).isNull();
    assertThat(store.byIndex(BY_NODE, "node-2")).hasSize(2);
  }

  @Test
  void update_whenLabelRemoved_leavesIndex() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of(BY_APP, TestObjects::appOf));
    store.add(pod("ns", "a", null, Map.of("app", "web")));
    store.add(pod("ns", "b", null, Map.of("app", "web")));

    store.update(pod("ns", "a", null, Map.of("tier", "x")));

    assertThat(store.indexContents(BY_APP)).isEqualTo(Map.of("web", Set.of("ns/b")));
    store.update(pod("ns", "b", null, Map.of("app", "db")));
    assertThat(store.indexContents(BY_APP)).isEqualTo(Map.of("db", Set.of("ns/b")));
  }

  /** thread_safe_store_test.go TestThreadSafeStoreIndexingFunctionsWithMultipleValues. */
  @Test
  void update_whenIndexFunctionGivesSeveralValues_keepsEveryValueExact() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of("byUser", ThreadSafeIndexerTest::usersOf));
    Consumer<Map<String, Set<String>>> expect =
        expected -> assertThat(store.indexContents("byUser")).isEqualTo(expected);

    store.add(withUsers("key1", "foo"));
    store.add(withUsers("key2", "bar"));
    expect.accept(Map.of("foo", Set.of("ns/key1"), "bar", Set.of("ns/key2")));

    store.update(withUsers("key2", "foo,bar"));
    expect.accept(Map.of("foo", Set.of("ns/key1", "ns/key2"), "bar", Set.of("ns/key2")));

    store.update(withUsers("key1", "foo,bar"));
    expect.accept(Map.of("foo", Set.of("ns/key1", "ns/key2"), "bar",
        Set.of("ns/key1", "ns/key2")));

    store.add(withUsers("key3", "foo,bar,baz"));
    expect.accept(Map.of("foo", Set.of("ns/key1", "ns/key2", "ns/key3"),
        "bar", Set.of("ns/key1", "ns/key2", "ns/key3"), "baz", Set.of("ns/key3")));

    store.update(withUsers("key1", "foo"));
    expect.accept(Map.of("foo", Set.of("ns/key1", "ns/key2", "ns/key3"),
        "bar", Set.of("ns/key2", "ns/key3"), "baz", Set.of("ns/key3")));

    store.update(withUsers("key2", "bar"));
    expect.accept(Map.of("foo", Set.of("ns/key1", "ns/key3"),
        "bar", Set.of("ns/key2", "ns/key3"), "baz", Set.of("ns/key3")));

    store.delete(withUsers("key1", ""));
    expect.accept(Map.of("foo", Set.of("ns/key3"), "bar", Set.of("ns/key2", "ns/key3"),
        "baz", Set.of("ns/key3")));

    store.delete(withUsers("key3", ""));
    expect.accept(Map.of("bar", Set.of("ns/key2")));
  }

  @Test
  void add_whenIndexFunctionRepeatsValue_filesKeyOnce() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of("byUser", ThreadSafeIndexerTest::usersOf));

    store.add(withUsers("a", "x,x"));
    store.add(withUsers("b", "x,y,x"));
    store.update(withUsers("a", "y"));

    assertThat(store.indexContents("byUser"))
        .isEqualTo(Map.of("x", Set.of("ns/b"), "y", Set.of("ns/a", "ns/b")));
  }

  // --- Index queries (index_test.go) -------------------------------------------------------------

  @Test
  void listIndexFuncValues_whenSeveralObjectsShareValue_listsEachValueOnce() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of(BY_APP, TestObjects::appOf));
    store.add(pod("ns", "one", null, Map.of("app", "bar")));
    store.add(pod("ns", "two", null, Map.of("app", "bar")));
    store.add(pod("ns", "tre", null, Map.of("app", "biz")));

    assertThat(store.listIndexFuncValues(BY_APP)).containsExactlyInAnyOrder("bar", "biz");
  }

  /** index_test.go TestMultiIndexKeys. */
  @Test
  void byIndex_whenMultiValuedIndex_followsAddsDeletesAndUpdates() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of("byUser", ThreadSafeIndexerTest::usersOf));
    Pod one = withUsers("one", "ernie,bert");
    Pod two = withUsers("two", "bert,oscar");
    Pod tre = withUsers("tre", "ernie,elmo");
    store.add(one);
    store.add(two);
    store.add(tre);

    assertThat(names(store.byIndex("byUser", "ernie"))).containsExactlyInAnyOrder("one", "tre");
    assertThat(names(store.byIndex("byUser", "bert"))).containsExactlyInAnyOrder("one", "two");
    assertThat(names(store.byIndex("byUser", "elmo"))).containsExactly("tre");
    assertThat(names(store.byIndex("byUser", "oscar"))).containsExactly("two");
    assertThat(store.byIndex("byUser", "elmo1")).isEmpty();

    store.delete(tre);
    assertThat(names(store.byIndex("byUser", "ernie"))).containsExactly("one");
    assertThat(store.byIndex("byUser", "elmo")).isEmpty();

    store.update(withUsers("two", "oscar"));
    assertThat(names(store.byIndex("byUser", "bert"))).containsExactly("one");
  }

  /** store_test.go doTestIndex. */
  @Test
  void index_returnsObjectsSharingAnyValueWithTheGivenObject() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of("byUser", ThreadSafeIndexerTest::usersOf));
    store.add(withUsers("a", "b"));
    store.add(withUsers("c", "b"));
    store.add(withUsers("e", "f"));
    store.add(withUsers("g", "h"));

    assertThat(names(store.index("byUser", withUsers("probe", "b"))))
        .containsExactlyInAnyOrder("a", "c");
    assertThat(names(store.index("byUser", withUsers("probe", "b,f,zz"))))
        .containsExactlyInAnyOrder("a", "c", "e");
    assertThat(names(store.index("byUser", withUsers("probe", "b,b")))).hasSize(2);
    assertThat(store.index("byUser", withUsers("probe", "nobody"))).isEmpty();
  }

  @Test
  void indexKeys_whenValueUnknown_isEmpty() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    assertThat(store.indexKeys(BY_NODE, "node-1")).containsExactly("ns/a");
    assertThat(store.indexKeys(BY_NODE, "node-9")).isEmpty();
    assertThat(store.indexKeys(Indexers.NAMESPACE, "ns")).containsExactly("ns/a");
  }

  record UnknownIndexCase(String name, Consumer<Indexer<Pod>> call) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<UnknownIndexCase> unknownIndexCalls() {
    return Stream.of(
        new UnknownIndexCase("index", i -> i.index("nope", pod("ns", "a", null))),
        new UnknownIndexCase("indexKeys", i -> i.indexKeys("nope", "v")),
        new UnknownIndexCase("byIndex", i -> i.byIndex("nope", "v")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unknownIndexCalls")
  void query_whenIndexUnknown_throwsNamingIndexAndKnownOnes(UnknownIndexCase c) {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();

    assertThatThrownBy(() -> c.call().accept(store))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"nope\"")
        .hasMessageContaining(BY_NODE)
        .hasMessageContaining(Indexers.NAMESPACE);
  }

  // --- addIndexers -------------------------------------------------------------------------------

  @Test
  void addIndexers_whenObjectsExist_indexesThemAtOnce() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of());
    store.add(pod("ns", "a", "node-1"));
    store.add(pod("ns", "b", "node-1"));
    store.add(pod("ns", "c", null));

    store.addIndexers(Map.of(BY_NODE, TestObjects::nodeOf));

    assertThat(store.getIndexers()).containsOnlyKeys(BY_NODE);
    assertThat(store.indexKeys(BY_NODE, "node-1")).containsExactlyInAnyOrder("ns/a", "ns/b");
    store.update(pod("ns", "c", "node-2"));
    assertThat(store.indexKeys(BY_NODE, "node-2")).containsExactly("ns/c");
  }

  @Test
  void addIndexers_whenNameInUse_throwsAndKeepsIndexers() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    store.add(pod("ns", "a", "node-1"));

    assertThatThrownBy(
            () -> store.addIndexers(Map.of(BY_NODE, TestObjects::appOf, "fresh",
                TestObjects::appOf)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[" + BY_NODE + "]");
    assertThat(store.getIndexers()).containsOnlyKeys(BY_NODE, Indexers.NAMESPACE);
  }

  @Test
  void getIndexers_isUnmodifiable() {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();

    assertThatThrownBy(() -> store.getIndexers().put("x", TestObjects::appOf))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void constructor_whenIndexersMapMutatedLater_isNotAffected() {
    Map<String, IndexFunc<Pod>> indexers = new HashMap<>();
    indexers.put(BY_NODE, TestObjects::nodeOf);
    ThreadSafeIndexer<Pod> store = podIndexer(indexers);

    indexers.put(BY_APP, TestObjects::appOf);

    assertThat(store.getIndexers()).containsOnlyKeys(BY_NODE);
  }

  // --- Failing index functions leave the store unchanged -----------------------------------------

  /** Files pods under their "app" label, but throws for pods labelled poison=true. */
  private static List<String> poisonable(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels != null && "true".equals(labels.get("poison"))) {
      throw new IllegalStateException("poisoned " + pod.getMetadata().getName());
    }
    return TestObjects.appOf(pod);
  }

  private ThreadSafeIndexer<Pod> poisonableIndexer() {
    return podIndexer(Map.of(BY_NODE, TestObjects::nodeOf, "picky",
        ThreadSafeIndexerTest::poisonable));
  }

  @Test
  void update_whenIndexFunctionThrows_failsNamingIndexAndKeyAndKeepsOldState() {
    ThreadSafeIndexer<Pod> store = poisonableIndexer();
    Pod good = pod("ns", "a", "node-1", Map.of("app", "web"));
    store.add(good);

    assertThatThrownBy(() -> store.update(pod("ns", "a", "node-2", Map.of("poison", "true"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"picky\"")
        .hasMessageContaining("\"ns/a\"")
        .hasRootCauseInstanceOf(IllegalStateException.class);

    assertThat(store.getByKey("ns/a")).containsSame(good);
    assertThat(store.indexContents(BY_NODE)).isEqualTo(Map.of("node-1", Set.of("ns/a")));
    assertThat(store.indexContents("picky")).isEqualTo(Map.of("web", Set.of("ns/a")));
  }

  @Test
  void add_whenIndexFunctionThrows_storesNothing() {
    ThreadSafeIndexer<Pod> store = poisonableIndexer();

    assertThatThrownBy(() -> store.add(pod("ns", "a", "node-1", Map.of("poison", "true"))))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(store.list()).isEmpty();
    assertThat(store.indexContents(BY_NODE)).isEmpty();
  }

  @Test
  void replace_whenIndexFunctionThrows_keepsPreviousContent() {
    ThreadSafeIndexer<Pod> store = poisonableIndexer();
    store.add(pod("ns", "a", "node-1", Map.of("app", "web")));

    assertThatThrownBy(
            () -> store.replace(List.of(pod("ns", "b", "node-2"),
                pod("ns", "c", "node-2", Map.of("poison", "true"))), "5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"ns/c\"");

    assertThat(store.listKeys()).containsExactly("ns/a");
    assertThat(store.indexContents(BY_NODE)).isEqualTo(Map.of("node-1", Set.of("ns/a")));
  }

  @Test
  void addIndexers_whenNewFunctionThrows_addsNoIndex() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of(BY_NODE, TestObjects::nodeOf));
    store.add(pod("ns", "a", "node-1", Map.of("poison", "true")));

    assertThatThrownBy(() -> store.addIndexers(Map.of("picky",
        ThreadSafeIndexerTest::poisonable)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"picky\"")
        .hasMessageContaining("\"ns/a\"");

    assertThat(store.getIndexers()).containsOnlyKeys(BY_NODE);
  }

  @Test
  void add_whenIndexFunctionReturnsNull_failsAndStoresNothing() {
    ThreadSafeIndexer<Pod> store = podIndexer(Map.of("broken", p -> null));

    assertThatThrownBy(() -> store.add(pod("ns", "a", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"broken\" returned null for key \"ns/a\"");
    assertThat(store.list()).isEmpty();
  }

  @Test
  void add_whenKeyFunctionThrows_storesNothing() {
    KeyFunc<Pod> namedOnly =
        p -> {
          if (p.getMetadata().getName() == null) {
            throw new IllegalArgumentException("no metadata.name");
          }
          return Keys.metaNamespaceKey(p);
        };
    ThreadSafeIndexer<Pod> store =
        new ThreadSafeIndexer<>(namedOnly, Map.of(BY_NODE, TestObjects::nodeOf));
    created.add(store);

    assertThatThrownBy(() -> store.add(new PodBuilder().withNewMetadata().withNamespace("ns")
        .endMetadata().build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no metadata.name");
    assertThat(store.list()).isEmpty();
  }

  // --- Concurrency -------------------------------------------------------------------------------

  /**
   * One writer moves pods between nodes while readers query: every read must see each object
   * filed under exactly the values of its stored state (object and index are updated together).
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void reads_whileWriterUpdates_alwaysSeeConsistentState() throws Exception {
    ThreadSafeIndexer<Pod> store = nodeAndNamespaceIndexer();
    ConcurrentReadWrite.run(store, /* pods= */ 50, /* writes= */ 5_000, /* readers= */ 3);
  }

  /** The reader/writer workload, shared with the stress test. */
  static final class ConcurrentReadWrite {

    private ConcurrentReadWrite() {}

    static void run(ThreadSafeIndexer<Pod> store, int pods, int writes, int readers)
        throws Exception {
      int nodes = 5;
      for (int i = 0; i < pods; i++) {
        store.add(pod("ns-" + (i % 3), "p" + i, "node-" + (i % nodes)));
      }
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger threadIds = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool =
          Executors.newFixedThreadPool(
              readers + 1,
              r -> {
                Thread t = new Thread(r, "kinformer-test-rw-" + threadIds.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      try {
        List<Future<Integer>> readerResults = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
          readerResults.add(pool.submit(() -> read(store, pods, nodes, done, start)));
        }
        Future<?> writer =
            pool.submit(
                () -> {
                  start.await();
                  for (int w = 0; w < writes; w++) {
                    int i = w % pods;
                    Pod p = pod("ns-" + (i % 3), "p" + i, "node-" + ((w * 7 + i) % nodes));
                    if (w % 10 == 9) {
                      store.delete(p);
                      store.add(p);
                    } else {
                      store.update(p);
                    }
                  }
                  done.set(true);
                  return null;
                });
        start.countDown();
        writer.get();
        for (Future<Integer> f : readerResults) {
          assertThat(f.get()).isPositive();
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(store.list()).hasSize(pods);
    }

    private static int read(
        ThreadSafeIndexer<Pod> store, int pods, int nodes, AtomicBoolean done,
        CountDownLatch start) throws InterruptedException {
      start.await();
      int rounds = 0;
      while (!done.get() || rounds < 100) {
        rounds++;
        for (int n = 0; n < nodes; n++) {
          String node = "node-" + n;
          // A pod may move between two calls; within one call the view must be exact.
          for (Pod p : store.byIndex(BY_NODE, node)) {
            assertThat(p.getSpec().getNodeName()).isEqualTo(node);
          }
        }
        for (String ns : store.listIndexFuncValues(Indexers.NAMESPACE)) {
          for (Pod p : store.byIndex(Indexers.NAMESPACE, ns)) {
            assertThat(p.getMetadata().getNamespace()).isEqualTo(ns);
          }
        }
        List<Pod> all = store.list();
        assertThat(all.size()).isBetween(pods - 1, pods); // delete+add leaves a one-pod gap
      }
      return rounds;
    }
  }

  // --- helpers -----------------------------------------------------------------------------------

  private static Pod withUsers(String name, String users) {
    return new PodBuilder(pod("ns", name, null)).editMetadata()
        .withAnnotations(Map.of("users", users)).endMetadata().build();
  }

  private static List<String> usersOf(Pod pod) {
    String users = pod.getMetadata().getAnnotations().get("users");
    return users.isEmpty() ? List.of() : Arrays.asList(users.split(","));
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(TestObjects::nameOf).toList();
  }
}

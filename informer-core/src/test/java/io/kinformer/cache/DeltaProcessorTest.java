package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link DeltaProcessor} on the test thread, with cases of client-go v0.36's {@code
 * controller_test.go}: {@code TestReplaceEvents}, {@code TestProcessDeltasInBatch} and {@code
 * TestStoreResourceVersion}.
 */
class DeltaProcessorTest {

  /** One notification as client-go's eventRecorder writes it: with the store's RV at that time. */
  record Event(String action, String key, String eventRv, String storeRv) {}

  private static final class Recorder implements DeltaProcessor.Sink<Pod> {
    final List<Event> events = new ArrayList<>();
    final ThreadSafeIndexer<Pod> store;
    int afterUnlock;

    Recorder(ThreadSafeIndexer<Pod> store) {
      this.store = store;
    }

    @Override
    public void underLock(List<Notification<Pod>> notifications) {
      for (Notification<Pod> n : notifications) {
        Pod p = n.subject();
        String action =
            n instanceof Notification.Add<?> ? "add"
                : n instanceof Notification.Update<?> ? "update" : "delete";
        String key = Keys.metaNamespaceKey(p);
        String storeRv =
            store.getByKey(key).map(s -> s.getMetadata().getResourceVersion()).orElse("");
        events.add(new Event(action, key, p.getMetadata().getResourceVersion(), storeRv));
      }
    }

    @Override
    public void afterUnlock() {
      afterUnlock++;
    }
  }

  private static Pod pod(String name, String rv) {
    return TestPods.pod("default", name, rv);
  }

  private static ThreadSafeIndexer<Pod> indexer(Map<String, IndexFunc<Pod>> indexers) {
    return new ThreadSafeIndexer<>(Keys::metaNamespaceKey, indexers);
  }

  record ReplaceCase(
      String name, List<Pod> initial, List<Pod> replaced, String rv, List<Event> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ReplaceCase> replaceCases() {
    return Stream.of(
        new ReplaceCase(
            "create with no initial objects",
            List.of(),
            List.of(pod("pod-1", "1")),
            "1",
            List.of(new Event("add", "default/pod-1", "1", "1"))),
        new ReplaceCase(
            "delete all objects",
            List.of(pod("pod-1", "1"), pod("pod-3", "2")),
            List.of(),
            "2",
            List.of(
                new Event("delete", "default/pod-1", "1", ""),
                new Event("delete", "default/pod-3", "2", ""))),
        new ReplaceCase(
            "create, update, delete",
            List.of(pod("pod-1", "1"), pod("pod-2", "2"), pod("pod-3", "3")),
            List.of(pod("pod-1", "4"), pod("pod-2", "5"), pod("pod-4", "6")),
            "6",
            List.of(
                new Event("delete", "default/pod-3", "3", ""),
                new Event("update", "default/pod-1", "4", "4"),
                new Event("update", "default/pod-2", "5", "5"),
                new Event("add", "default/pod-4", "6", "6"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("replaceCases")
  void replacedAll_replacesTheStoreFirst_thenDeletes_thenAddsAndUpdatesInListOrder(ReplaceCase c) {
    ThreadSafeIndexer<Pod> store = indexer(Map.of());
    c.initial().forEach(store::add);
    Recorder r = new Recorder(store);
    DeltaProcessor<Pod> p = new DeltaProcessor<>("pods", store, null, r);

    p.process(Delta.replacedAll(c.replaced(), c.rv()), false);

    List<Event> deletes = r.events.stream().filter(e -> e.action().equals("delete")).toList();
    List<Event> expectedDeletes =
        c.expected().stream().filter(e -> e.action().equals("delete")).toList();
    // Deletions come first; among themselves in the store's order, which client-go does not fix.
    assertThat(deletes).containsExactlyInAnyOrderElementsOf(expectedDeletes);
    assertThat(r.events.subList(0, deletes.size())).isEqualTo(deletes);
    assertThat(r.events.subList(deletes.size(), r.events.size()))
        .isEqualTo(c.expected().subList(expectedDeletes.size(), c.expected().size()));
    assertThat(store.list()).containsExactlyInAnyOrderElementsOf(c.replaced());
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo(c.rv());
    assertThat(r.afterUnlock).isEqualTo(1);
  }

  @Test
  void batch_whenOneObjectFails_appliesAndNotifiesTheOthersInOrder() {
    // client-go's TestProcessDeltasInBatch "partial transaction failing ... #2".
    ThreadSafeIndexer<Pod> store =
        indexer(
            Map.of(
                "picky",
                o -> {
                  if (o.getMetadata().getName().equals("testname2")) {
                    throw new IllegalStateException("test error");
                  }
                  return List.of();
                }));
    Recorder r = new Recorder(store);
    DeltaProcessor<Pod> p = new DeltaProcessor<>("pods", store, null, r);
    List<Delta<Pod>> batch =
        List.of(
            new Delta<>(DeltaType.ADDED, pod("testname1", "1")),
            new Delta<>(DeltaType.ADDED, pod("testname2", "2")),
            new Delta<>(DeltaType.ADDED, pod("testname3", "3")));

    String logged = capture(() -> p.processBatch(batch, true));

    assertThat(r.events)
        .containsExactly(
            new Event("add", "default/testname1", "1", "1"),
            new Event("add", "default/testname3", "3", "3"));
    assertThat(store.listKeys()).containsExactlyInAnyOrder("default/testname1", "default/testname3");
    assertThat(logged).contains("default/testname2").contains("test error");
  }

  @Test
  void storeResourceVersion_followsEventsAndBookmarks() {
    // client-go's TestStoreResourceVersion.
    ThreadSafeIndexer<Pod> store = indexer(Map.of());
    Recorder r = new Recorder(store);
    DeltaProcessor<Pod> p = new DeltaProcessor<>("pods", store, null, r);

    p.process(Delta.replacedAll(List.of(pod("a", "10")), "11"), true);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("11");
    p.processBatch(
        List.of(
            new Delta<>(DeltaType.UPDATED, pod("a", "12")),
            new Delta<>(DeltaType.ADDED, pod("b", "13"))),
        false);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("13");
    p.process(Delta.bookmark("20"), false);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("20");
    p.process(new Delta<>(DeltaType.DELETED, pod("a", "21")), false);
    assertThat(store.lastStoreSyncResourceVersion()).isEqualTo("21");
    assertThat(r.events)
        .extracting(Event::action)
        .containsExactly("add", "update", "add", "delete");
  }

  @Test
  void syncAll_isAnUpdateOfEveryCachedObjectToItself() {
    ThreadSafeIndexer<Pod> store = indexer(Map.of());
    store.add(pod("a", "1"));
    store.add(pod("b", "2"));
    Recorder r = new Recorder(store);

    new DeltaProcessor<>("pods", store, null, r).process(Delta.syncAll(), false);

    assertThat(r.events)
        .containsExactlyInAnyOrder(
            new Event("update", "default/a", "1", "1"), new Event("update", "default/b", "2", "2"));
  }

  private static String capture(Runnable r) {
    try {
      return LogCapture.stderrOf(r::run);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void replacedAll_whenOneListedObjectFails_cachesAndDeliversTheOthers() {
    ThreadSafeIndexer<Pod> store =
        indexer(
            Map.of(
                "picky",
                o -> {
                  if (o.getMetadata().getName().equals("bad")) {
                    throw new IllegalStateException("test error");
                  }
                  return List.of();
                }));
    store.add(pod("gone", "1"));
    Recorder r = new Recorder(store);
    DeltaProcessor<Pod> p = new DeltaProcessor<>("pods", store, null, r);

    String logged =
        capture(
            () ->
                p.process(
                    Delta.replacedAll(List.of(pod("a", "2"), pod("bad", "3"), pod("b", "4")), "5"),
                    true));

    assertThat(store.listKeys()).containsExactlyInAnyOrder("default/a", "default/b");
    assertThat(r.events)
        .containsExactly(
            new Event("delete", "default/gone", "1", ""),
            new Event("add", "default/a", "2", "2"),
            new Event("add", "default/b", "4", "4"));
    assertThat(logged).contains("leaving it out").contains("test error");
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * The behaviour every {@link Store} shares, whatever else it does (client-go's {@code doTestStore}
 * in store_test.go, which it runs on its cache, FIFO and UndeltaStore).
 */
final class StoreContract {

  private StoreContract() {}

  /** Adds, updates, deletes, lists and replaces pods in {@code store}, an empty store. */
  static void check(Store<Pod> store) {
    store.add(pod("foo", 1));
    assertThat(store.get(pod("foo", 0))).contains(pod("foo", 1));
    store.update(pod("foo", 2));
    assertThat(store.get(pod("foo", 0))).contains(pod("foo", 2));
    store.delete(pod("foo", 0));
    assertThat(store.get(pod("foo", 0))).isEmpty();

    store.add(pod("a", 1));
    store.add(pod("c", 2));
    store.add(pod("e", 3));
    assertThat(store.list()).containsExactlyInAnyOrder(pod("a", 1), pod("c", 2), pod("e", 3));
    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns/a", "ns/c", "ns/e");

    store.replace(List.of(pod("foo", 4), pod("bar", 5)), "5");
    assertThat(store.list()).containsExactlyInAnyOrder(pod("foo", 4), pod("bar", 5));
    assertThat(store.getByKey("ns/bar")).contains(pod("bar", 5));
    assertThat(store.getByKey("ns/a")).isEmpty();
  }
}

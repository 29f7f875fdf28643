package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static io.kinformer.cache.DeltaFifoTestPods.transforms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The store that pushes its whole content (client-go's undelta_store_test.go, store_test.go). */
class UndeltaStoreTest {

  /** Every content pushed, in order. */
  private final List<List<Pod>> pushes = new ArrayList<>();

  private UndeltaStore<Pod> store() {
    return UndeltaStore.create(Keys::metaNamespaceKey, pushes::add);
  }

  /** A write and the content it must push, starting from a store holding ns/a at rv 1. */
  record WriteCase(String name, Consumer<UndeltaStore<Pod>> write, List<Pod> pushed) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<WriteCase> writes() {
    return Stream.of(
        // TestUpdateCallsPush
        new WriteCase("add", s -> s.add(pod("b", 2)), List.of(pod("a", 1), pod("b", 2))),
        new WriteCase("update", s -> s.update(pod("a", 2)), List.of(pod("a", 2))),
        // TestDeleteCallsPush
        new WriteCase("delete", s -> s.delete(pod("a", 0)), List.of()),
        new WriteCase("delete of an absent key", s -> s.delete(pod("x", 0)), List.of(pod("a", 1))),
        // TestReplaceCallsPush
        new WriteCase("replace", s -> s.replace(List.of(pod("c", 3)), "3"), List.of(pod("c", 3))),
        new WriteCase(
            "replaceTransformed",
            s -> s.replaceTransformed(List.of(pod("c", 3)), "3"),
            List.of(pod("c", 3))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writes")
  void write_pushesTheWholeContentOnce(WriteCase c) {
    UndeltaStore<Pod> s = store();
    s.add(pod("a", 1));
    pushes.clear();

    c.write().accept(s);

    assertThat(pushes).hasSize(1);
    assertThat(pushes.get(0)).containsExactlyInAnyOrderElementsOf(c.pushed());
    assertThat(s.list()).containsExactlyInAnyOrderElementsOf(c.pushed());
  }

  @Test
  void reads_resyncAndBookmarks_pushNothing() {
    // TestReadsDoNotCallPush
    UndeltaStore<Pod> s = store();
    s.list();
    s.listKeys();
    s.get(pod("a", 0));
    s.getByKey("ns/a");
    s.resync();
    s.bookmark("7");
    s.lastStoreSyncResourceVersion();
    assertThat(pushes).isEmpty();
  }

  @Test
  void store_behavesAsAStore() {
    // TestUndeltaStore
    StoreContract.check(store());
    assertThat(pushes).hasSize(7);
  }

  @Test
  void transform_appliesOnceToAddedUpdatedAndReplacedObjects() {
    // TestCacheWithTransformer, and what WithTransformer does in store.go
    UndeltaStore<Pod> s =
        UndeltaStore.<Pod>builder(Keys::metaNamespaceKey, pushes::add)
            .transform(DeltaFifoTestPods::countTransforms)
            .build();

    s.add(pod("a", 1));
    s.update(pod("b", 2));
    assertThat(s.list()).allSatisfy(p -> assertThat(transforms(p)).isEqualTo(1));
    s.replace(List.of(pod("c", 3), pod("d", 4)), "4");
    assertThat(s.list()).hasSize(2).allSatisfy(p -> assertThat(transforms(p)).isEqualTo(1));
    assertThat(pushes.get(pushes.size() - 1))
        .allSatisfy(p -> assertThat(transforms(p)).isEqualTo(1));
    s.delete(pod("c", 0)); // not transformed: only its key matters
    assertThat(s.listKeys()).containsExactly("ns/d");
  }

  @Test
  void transform_withStoreContract_isCalled() {
    AtomicInteger calls = new AtomicInteger();
    UndeltaStore<Pod> s =
        UndeltaStore.<Pod>builder(Keys::metaNamespaceKey, pushes::add)
            .transform(
                p -> {
                  calls.incrementAndGet();
                  return p;
                })
            .build();
    StoreContract.check(s);
    // add foo, update foo, add a, c, e, replace foo and bar
    assertThat(calls).hasValue(7);
  }

  @Test
  void replaceTransformed_keepsObjectsAsGiven() {
    UnaryOperator<Pod> transform = DeltaFifoTestPods::countTransforms;
    UndeltaStore<Pod> s =
        UndeltaStore.<Pod>builder(Keys::metaNamespaceKey, pushes::add).transform(transform).build();
    TransformingStore<Pod> asTransforming = s;
    assertThat(asTransforming.transformer()).isSameAs(transform);

    Pod streamed = transform.apply(pod("a", 1));
    s.replaceTransformed(List.of(streamed), "1");

    assertThat(s.list()).singleElement().isSameAs(streamed);
    assertThat(transforms(streamed)).isEqualTo(1);
  }

  @Test
  void transformer_withoutTransform_isNull() {
    assertThat(store().transformer()).isNull();
  }

  @Test
  void write_whenKeyFunctionThrows_throwsKeyExceptionChangesNothingAndPushesNothing() {
    IllegalArgumentException refusal = new IllegalArgumentException("refused");
    UndeltaStore<Pod> s =
        UndeltaStore.create(
            p -> {
              if (p.getMetadata().getName().equals("bad")) {
                throw refusal;
              }
              return Keys.metaNamespaceKey(p);
            },
            pushes::add);
    s.add(pod("a", 1));
    pushes.clear();
    Pod bad = pod("bad", 1);

    List<Runnable> writes =
        List.of(
            () -> s.add(bad),
            () -> s.update(bad),
            () -> s.delete(bad),
            () -> s.replace(List.of(pod("b", 2), bad), "2"),
            () -> s.replaceTransformed(List.of(pod("b", 2), bad), "2"),
            () -> s.get(bad));
    for (Runnable write : writes) {
      assertThatThrownBy(write::run)
          .isInstanceOfSatisfying(
              KeyException.class,
              e -> {
                assertThat(e.obj()).isSameAs(bad);
                assertThat(e.getCause()).isSameAs(refusal);
              });
    }
    assertThat(pushes).isEmpty();
    assertThat(s.list()).containsExactly(pod("a", 1));
  }

  @Test
  void replace_whenTransformThrows_changesNothingAndPushesNothing() {
    UndeltaStore<Pod> s =
        UndeltaStore.<Pod>builder(Keys::metaNamespaceKey, pushes::add)
            .transform(
                p -> {
                  if (p.getMetadata().getName().equals("bad")) {
                    throw new IllegalStateException("cannot transform");
                  }
                  return p;
                })
            .build();
    s.add(pod("a", 1));
    pushes.clear();

    assertThatThrownBy(() -> s.replace(List.of(pod("b", 2), pod("bad", 3)), "3"))
        .hasMessage("cannot transform");
    assertThatThrownBy(
            () ->
                UndeltaStore.<Pod>builder(Keys::metaNamespaceKey, pushes::add)
                    .transform(p -> null)
                    .build()
                    .add(pod("a", 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the transform returned null");

    assertThat(pushes).isEmpty();
    assertThat(s.list()).containsExactly(pod("a", 1));
  }

  @Test
  void write_whenPushThrows_propagatesAfterTheChange() {
    IllegalStateException broken = new IllegalStateException("push failed");
    UndeltaStore<Pod> s =
        UndeltaStore.create(
            Keys::metaNamespaceKey,
            content -> {
              throw broken;
            });

    assertThatThrownBy(() -> s.add(pod("a", 1))).isSameAs(broken);
    assertThat(s.list()).containsExactly(pod("a", 1));
  }
}

package io.kinformer.cache;

import static io.kinformer.cache.TestObjects.BY_NODE;
import static io.kinformer.cache.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Runs every case against an indexer with the namespace index and one without (full scan). */
class NamespaceListerTest {

  record Setup(String name, Indexer<Pod> indexer) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Setup> setups() {
    return Stream.of(
        new Setup("with namespace index", Indexers.newIndexer(Keys.metaNamespaceKeyFunc(),
            Map.of(Indexers.NAMESPACE, Indexers.namespaceIndexFunc(), BY_NODE,
                TestObjects::nodeOf))),
        new Setup("without namespace index", Indexers.newIndexer(Keys.metaNamespaceKeyFunc(),
            Map.of(BY_NODE, TestObjects::nodeOf))));
  }

  private static Lister<Pod> filled(Setup s) {
    Indexer<Pod> indexer = s.indexer();
    indexer.add(pod("a", "web-0", "n1", Map.of("app", "web")));
    indexer.add(pod("a", "db-0", "n2", Map.of("app", "db")));
    indexer.add(pod("b", "web-0", "n1", Map.of("app", "web")));
    indexer.add(pod("b", "other", "n1"));
    return new Lister<>(indexer);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void get_findsByNameWithinNamespaceOnly(Setup s) {
    Lister<Pod> lister = filled(s);

    assertThat(lister.namespace("a").get("db-0")).map(p -> p.getMetadata().getNamespace())
        .hasValue("a");
    assertThat(lister.namespace("b").get("db-0")).isEmpty();
    assertThat(lister.namespace("b").get("web-0")).map(p -> p.getMetadata().getNamespace())
        .hasValue("b");
    assertThat(lister.namespace("c").get("web-0")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void list_returnsOnlyThatNamespace(Setup s) {
    Lister<Pod> lister = filled(s);

    assertThat(lister.namespace("a").list()).extracting(TestObjects::nameOf)
        .containsExactlyInAnyOrder("web-0", "db-0");
    assertThat(lister.namespace("b").list(LabelSelector.parse("app=web")))
        .extracting(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
        .containsExactly("b/web-0");
    assertThat(lister.namespace("b").list(LabelSelector.parse("app!=web")))
        .extracting(TestObjects::nameOf).containsExactly("other");
    assertThat(lister.namespace("none").list()).isEmpty();
    assertThatThrownBy(() -> lister.namespace("a").list().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void byIndex_filtersToNamespace(Setup s) {
    Lister<Pod> lister = filled(s);

    assertThat(lister.namespace("b").byIndex(BY_NODE, "n1")).extracting(TestObjects::nameOf)
        .containsExactlyInAnyOrder("web-0", "other");
    assertThat(lister.namespace("a").byIndex(BY_NODE, "n1")).extracting(TestObjects::nameOf)
        .containsExactly("web-0");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void allNamespaces_listsEverythingButCannotGet(Setup s) {
    Lister<Pod> lister = filled(s);
    NamespaceLister<Pod> all = lister.namespace("");

    assertThat(all.namespace()).isEmpty();
    assertThat(all.list()).hasSize(4);
    assertThat(all.list(LabelSelector.parse("app=web"))).hasSize(2);
    assertThat(all.byIndex(BY_NODE, "n1")).hasSize(3);
    assertThatThrownBy(() -> all.get("web-0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("\"web-0\"");
  }
}

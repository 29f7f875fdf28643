package io.kinformer.cache;

import static io.kinformer.cache.TestObjects.BY_NODE;
import static io.kinformer.cache.TestObjects.node;
import static io.kinformer.cache.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** client-go listers_test.go (ListAll by selector) plus the typed lister surface. */
class ListerTest {

  private final Indexer<Pod> indexer =
      Indexers.newIndexer(
          Keys.metaNamespaceKeyFunc(),
          Map.of(Indexers.NAMESPACE, Indexers.namespaceIndexFunc(), BY_NODE,
              TestObjects::nodeOf));
  private final Lister<Pod> lister = new Lister<>(indexer);

  record SelectorCase(String name, int objects, int matching, Map<String, String> labels,
      LabelSelector selector, int expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<SelectorCase> selectorCases() {
    Map<String, String> match = Map.of("match", "true");
    return Stream.of(
        new SelectorCase("subset match", 1000, 100, match, LabelSelector.of(match), 100),
        new SelectorCase("all match", 1000, 0, Map.of(), LabelSelector.everything(), 1000),
        new SelectorCase("no match", 1000, 0, Map.of("nomatch", "true"),
            LabelSelector.of(match), 0),
        new SelectorCase("notin matches unlabelled", 1000, 100, match,
            LabelSelector.parse("match notin (true)"), 900));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("selectorCases")
  void list_whenSelectorGiven_returnsMatchingObjects(SelectorCase c) {
    for (int i = 0; i < c.objects(); i++) {
      indexer.add(pod("ns", "obj-" + i, null, i < c.matching() ? c.labels() : Map.of()));
    }

    assertThat(lister.list(c.selector())).hasSize(c.expected());
  }

  @Test
  void list_returnsEverythingUnmodifiable() {
    indexer.add(pod("a", "p1", null));
    indexer.add(pod("b", "p2", null));

    List<Pod> all = lister.list();

    assertThat(all).extracting(TestObjects::nameOf).containsExactlyInAnyOrder("p1", "p2");
    assertThatThrownBy(all::clear).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> lister.list(LabelSelector.parse("x")).clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void get_whenClusterScoped_findsByName() {
    Indexer<Node> nodes = Indexers.newNamespaceIndexer();
    nodes.add(node("n1", Map.of("zone", "a")));
    Lister<Node> nodeLister = new Lister<>(nodes);

    assertThat(nodeLister.get("n1")).map(n -> n.getMetadata().getName()).hasValue("n1");
    assertThat(nodeLister.get("n2")).isEmpty();
    assertThat(nodeLister.list(LabelSelector.parse("zone=a"))).hasSize(1);
    assertThat(nodeLister.list(LabelSelector.parse("zone=b"))).isEmpty();
  }

  @Test
  void get_whenNameHasSlashOrIsEmpty_throws() {
    assertThatThrownBy(() -> lister.get("ns/p"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"ns/p\"");
    assertThatThrownBy(() -> lister.get("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void byIndex_returnsIndexedObjects() {
    indexer.add(pod("a", "p1", "n1"));
    indexer.add(pod("b", "p2", "n1"));
    indexer.add(pod("b", "p3", "n2"));

    assertThat(lister.byIndex(BY_NODE, "n1")).extracting(TestObjects::nameOf)
        .containsExactlyInAnyOrder("p1", "p2");
    assertThatThrownBy(() -> lister.byIndex("nope", "n1"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void list_seesCacheChangesOnNextCall() {
    indexer.add(pod("a", "p1", null, Map.of("app", "web")));
    LabelSelector web = LabelSelector.parse("app=web");
    assertThat(lister.list(web)).hasSize(1);

    indexer.update(pod("a", "p1", null, Map.of("app", "db")));

    assertThat(lister.list(web)).isEmpty();
  }

  @Test
  void lister_acceptsAnyHasMetadataIndexer() {
    Indexer<HasMetadata> mixed = Indexers.newNamespaceIndexer();
    mixed.add(pod("a", "p1", null));
    mixed.add(node("n1", Map.of()));

    Lister<HasMetadata> any = new Lister<>(mixed);

    assertThat(any.list()).hasSize(2);
    assertThat(any.namespace("a").list()).hasSize(1);
    assertThat(any.get("n1")).isPresent();
  }
}

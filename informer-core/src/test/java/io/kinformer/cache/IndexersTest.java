package io.kinformer.cache;

import static io.kinformer.cache.TestObjects.configMap;
import static io.kinformer.cache.TestObjects.node;
import static io.kinformer.cache.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IndexersTest {

  @Test
  void namespaceIndexFunc_whenNamespaced_givesNamespace() {
    assertThat(Indexers.<Pod>namespaceIndexFunc().values(pod("team-a", "p", null)))
        .containsExactly("team-a");
  }

  /** client-go's MetaNamespaceIndexFunc always returns one value, "" for cluster scope. */
  @Test
  void namespaceIndexFunc_whenClusterScoped_givesEmptyString() {
    assertThat(Indexers.<HasMetadata>namespaceIndexFunc().values(node("n1", Map.of())))
        .containsExactly("");
    Pod noNamespace = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
    assertThat(Indexers.<Pod>namespaceIndexFunc().values(noNamespace)).containsExactly("");
  }

  @Test
  void namespaceIndexFunc_whenNoMetadata_throws() {
    assertThatThrownBy(() -> Indexers.<Pod>namespaceIndexFunc().values(new Pod()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no metadata");
  }

  @Test
  void newStore_keepsObjectsByKeyWithoutIndices() {
    Store<ConfigMap> store = Indexers.newStore(Keys.metaNamespaceKeyFunc());

    store.add(configMap("ns", "a", Map.of()));
    store.add(configMap("ns", "b", Map.of()));
    store.delete(configMap("ns", "a", Map.of()));

    assertThat(store.listKeys()).containsExactly("ns/b");
    assertThat(store).isInstanceOf(Indexer.class);
    assertThat(((Indexer<ConfigMap>) store).getIndexers()).isEmpty();
  }

  @Test
  void newIndexer_whenIndexersGiven_maintainsThem() {
    Indexer<Pod> indexer =
        Indexers.newIndexer(
            Keys.metaNamespaceKeyFunc(),
            Map.of(Indexers.NAMESPACE, Indexers.namespaceIndexFunc(),
                TestObjects.BY_NODE, TestObjects::nodeOf));

    indexer.add(pod("a", "p1", "n1"));
    indexer.add(pod("b", "p2", "n1"));

    assertThat(indexer.indexKeys(Indexers.NAMESPACE, "a")).containsExactly("a/p1");
    assertThat(indexer.indexKeys(TestObjects.BY_NODE, "n1")).containsExactlyInAnyOrder("a/p1",
        "b/p2");
  }

  @Test
  void newNamespaceIndexer_usesMetaNamespaceKeysAndNamespaceIndex() {
    Indexer<HasMetadata> indexer = Indexers.newNamespaceIndexer();

    indexer.add(pod("a", "p1", null));
    indexer.add(node("n1", Map.of()));

    assertThat(indexer.listKeys()).containsExactlyInAnyOrder("a/p1", "n1");
    assertThat(indexer.getIndexers()).containsOnlyKeys(Indexers.NAMESPACE);
    assertThat(indexer.indexKeys(Indexers.NAMESPACE, "")).containsExactly("n1");
    assertThat(indexer.listIndexFuncValues(Indexers.NAMESPACE)).containsExactlyInAnyOrder("a",
        "");
    assertThat(indexer.byIndex(Indexers.NAMESPACE, "a")).isEqualTo(List.of(pod("a", "p1", null)));
  }
}

package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.Lister;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.EmbeddedApiServerExtension;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Warm standby: every replica runs its informers from the start, leader or not, so the replica
 * that takes over starts leading with a synced, current cache and lists nothing.
 */
class WarmStandbyTest {

  @RegisterExtension static final EmbeddedApiServerExtension apiServer =
      new EmbeddedApiServerExtension();

  private final EmbeddedApiServer server = apiServer.server();
  private final Map<Candidate, SharedInformerFactory> factories = new HashMap<>();
  private final Map<Candidate, SharedIndexInformer<ConfigMap>> informers = new HashMap<>();

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withNamespace("default").withName(name)
        .endMetadata().addToData("k", "v").build();
  }

  private long listsOfConfigMaps() {
    return server.faults().requestCount(Verb.LIST, "configmaps")
        + server.faults().streamingListCount("configmaps");
  }

  @Test
  void standbyTakingOver_leadsWithACacheSyncedBeforeLeadership_andListsNothing() {
    for (int i = 0; i < 5; i++) {
      server.create(configMap("cm-" + i));
    }
    try (Election e = new Election(server, "warm-standby", 3, 1)) {
      try {
        failOverWithWarmCaches(e);
      } finally {
        factories.values().forEach(SharedInformerFactory::close); // before the clients close
      }
    }
  }

  private void failOverWithWarmCaches(Election e) {
    for (Candidate c : e.candidates) {
      SharedInformerFactory f = SharedInformerFactory.builder(c.client).build();
      factories.put(c, f);
      informers.put(c, f.informerFor(ConfigMap.class));
      f.start();
    }
    for (SharedInformerFactory f : factories.values()) {
      assertThat(f.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    }
    e.start();
    e.run(Duration.ofSeconds(5));
    Candidate old = e.leader().orElseThrow();

    // A change while the others stand by reaches their caches through the watch.
    server.create(configMap("made-while-standing-by"));
    for (Candidate c : e.candidates) {
      Lister<ConfigMap> lister = new Lister<>(informers.get(c).getIndexer());
      await().atMost(Duration.ofSeconds(30)).until(
          () -> lister.namespace("default").get("made-while-standing-by").isPresent());
    }
    long lists = listsOfConfigMaps();

    old.clock.kill();
    factories.remove(old).close();
    e.runUntil(() -> e.leader().filter(c -> c != old).isPresent(), Duration.ofSeconds(30));

    Candidate next = e.leader().orElseThrow();
    SharedIndexInformer<ConfigMap> cache = informers.get(next);
    assertThat(next.term.isActive()).isTrue();
    assertThat(cache.hasSynced()).isTrue();
    assertThat(cache.getIndexer().listKeys())
        .contains("default/cm-0", "default/cm-4", "default/made-while-standing-by");
    assertThat(listsOfConfigMaps()).as("lists since the standbys synced").isEqualTo(lists);
  }
}

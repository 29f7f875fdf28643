package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.Conditions;
import io.kinformer.cache.Keys;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.WrittenVersions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.ResourceClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read-your-writes and conditions snippets of docs/user-guide.md, run against the embedded
 * API server over HTTP; {@link DocSnippetsTest} checks that the page shows this exact code.
 */
class ReadYourWritesExampleTest {

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;
  private SharedIndexInformer<ConfigMap> configMaps;
  private ResourceClient<ConfigMap> api;

  @BeforeEach
  void startSynced() {
    server = EmbeddedApiServer.start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    factory = SharedInformerFactory.builder(client).build();
    configMaps = factory.informerFor(ConfigMap.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    api = client.resources(ConfigMap.class).inNamespace("default");
  }

  @AfterEach
  void stop() {
    factory.close();
    client.close();
    server.close();
  }

  @Test
  void aWriter_waitsForItsOwnWrite_thenReadsItFromTheCache() throws Exception {
    // tag::read-your-writes[]
    ConfigMap written =
        api.create(
            new ConfigMapBuilder()
                .withNewMetadata().withNamespace("default").withName("settings").endMetadata()
                .withData(Map.of("mode", "fast"))
                .build());
    String key = Keys.metaNamespaceKey(written);
    boolean seen =
        configMaps.awaitResourceVersion(
            key, written.getMetadata().getResourceVersion(), Duration.ofSeconds(5));
    // seen: the cache holds this write or a later one
    Optional<ConfigMap> cached = configMaps.lister().namespace("default").get("settings");
    // end::read-your-writes[]

    assertThat(seen).isTrue();
    assertThat(cached)
        .hasValueSatisfying(c -> assertThat(c.getData()).containsEntry("mode", "fast"));
  }

  @Test
  void writtenVersions_holdAReconcileBackUntilTheCacheHasCaughtUp() throws Exception {
    ConfigMap desired =
        new ConfigMapBuilder()
            .withNewMetadata().withNamespace("default").withName("settings").endMetadata()
            .build();
    String key = "default/settings";

    // tag::written-versions[]
    WrittenVersions written = new WrittenVersions(configMaps.getIndexer());
    // in the reconciler of `key`:
    if (written.isCacheCurrent(key)) {
      ConfigMap result = api.create(desired);
      written.record(key, result.getMetadata().getResourceVersion());
    } // else: requeue the key; the cache has not seen our last write yet
    // end::written-versions[]

    assertThat(configMaps.resourceVersionSeen(key, api.get("settings").orElseThrow()
            .getMetadata().getResourceVersion()))
        .succeedsWithin(Duration.ofSeconds(10));
    assertThat(written.isCacheCurrent(key)).isTrue();
    assertThat(written.size()).isZero();
  }

  @Test
  void conditions_waitThroughTheInformerForAStateAndADeletion() throws Exception {
    api.create(
        new ConfigMapBuilder()
            .withNewMetadata().withNamespace("default").withName("settings").endMetadata()
            .withData(Map.of("mode", "slow"))
            .build());
    api.update(
        new ConfigMapBuilder()
            .withNewMetadata().withNamespace("default").withName("settings").endMetadata()
            .withData(Map.of("mode", "fast"))
            .build());

    // tag::conditions[]
    ConfigMap fast =
        Conditions.awaitCondition(
                configMaps, "default/settings", cm -> "fast".equals(cm.getData().get("mode")))
            .get(10, TimeUnit.SECONDS);
    CompletableFuture<Void> gone = Conditions.awaitDeleted(configMaps, "default/settings");
    api.delete("settings");
    gone.get(10, TimeUnit.SECONDS);
    // end::conditions[]

    assertThat(fast.getData()).containsEntry("mode", "fast");
    assertThat(configMaps.lister().namespace("default").get("settings")).isEmpty();
  }
}

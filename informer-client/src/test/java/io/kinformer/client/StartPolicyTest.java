package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.kinformer.cache.InformerHealth;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.SharedInformerFactory.InformerOptions;
import io.kinformer.client.SharedInformerFactory.StartPolicy;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import io.kinformer.testing.Verb;
import io.kinformer.time.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an informer does when its list is refused: retry (client-go's default), stop at once
 * before it synced ({@code FAIL_FAST}), or stop when its resource disappears after it synced.
 */
class StartPolicyTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  private static final Backoff.Policy SHORT =
      Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(100), 2, 0,
          Duration.ofMinutes(1));

  private EmbeddedApiServer server;
  private KubeClient client;
  private final List<ReflectorException> errors = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.builder()
        .resource(ServedResource.namespaced("example.com", "v1", "Widget", "widgets"))
        .start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private SharedInformerFactory.Builder factory() {
    return SharedInformerFactory.builder(client).backoff(SHORT).watchErrorHandler(errors::add);
  }

  private void refuse(String resource, int status) {
    server.faults().failNext(Verb.LIST, resource, 1000, status);
    server.faults().failNext(Verb.WATCH, resource, 1000, status);
  }

  @Test
  void failFast_forbiddenFirstList_stopsThatInformerAndSyncReturnsNamingIt() {
    refuse("configmaps", 403);
    try (SharedInformerFactory factory = factory().startPolicy(StartPolicy.FAIL_FAST).build()) {
      SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
      SharedIndexInformer<Secret> secrets = factory.informerFor(Secret.class);
      factory.start();

      // Does not wait out the timeout: the refused informer has stopped.
      SyncResult result = factory.waitForCacheSyncResult(Duration.ofMinutes(10));

      assertThat(result.notSynced()).extracting(InformerHealth::name)
          .containsExactly("v1/configmaps");
      assertThat(result.toString()).contains("403");
      assertThat(configMaps.isStopped()).isTrue();
      assertThat(configMaps.health().terminal()).isTrue();
      assertThat(secrets.hasSynced()).isTrue();
      assertThat(factory.waitForCacheSync(Duration.ofMinutes(10))).isFalse();
      assertThat(log.text()).contains("v1/configmaps: stopped: its first list was refused");
    }
  }

  @Test
  void retry_forbiddenFirstList_isRetriedUntilAllowed() {
    refuse("configmaps", 403);
    try (SharedInformerFactory factory = factory().build()) {
      SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
      factory.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> errors.size() >= 3);
      assertThat(configMaps.isStopped()).isFalse();

      server.faults().clearFailures();

      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    }
  }

  @Test
  void stopWhenResourceRemoved_aNotFoundAfterSync_stopsOnlyThatInformer() {
    try (SharedInformerFactory factory = factory().stopWhenResourceRemoved(true).build()) {
      SharedIndexInformer<GenericKubernetesResource> widgets = factory.informerFor(
          ResourceType.dynamic(new Gvr("example.com", "v1", "widgets"),
              "Widget", true), InformerOptions.all());
      SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();

      refuse("widgets", 404); // the CustomResourceDefinition is gone
      server.faults().closeAllWatches();

      await().atMost(Duration.ofSeconds(30)).until(widgets::isStopped);
      assertThat(widgets.health().terminal()).isTrue();
      assertThat(configMaps.isStopped()).isFalse();
      assertThat(log.text()).contains("example.com/v1/widgets(dynamic): stopped: its resource is"
          + " no longer served");
    }
  }
}

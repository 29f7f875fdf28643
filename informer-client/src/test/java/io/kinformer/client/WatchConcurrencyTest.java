package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.SharedInformerFactory.InformerOptions;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many watches of one client run at once, none waiting for another: the client's calls are
 * synchronous, which OkHttp's dispatcher does not limit (its default of five calls per host would
 * otherwise queue the sixth watch without a word). Over HTTP/1.1 each watch has a connection of
 * its own; over HTTP/2 they share one.
 */
class WatchConcurrencyTest {

  private static final int INFORMERS = 24;

  @ParameterizedTest(name = "tls={0}")
  @ValueSource(booleans = {false, true})
  void manyInformersOfOneClient_allSyncAndAllSeeTheirNextEvent(boolean tls) {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().tls(tls).start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      List<SharedIndexInformer<ConfigMap>> informers = new ArrayList<>();
      for (int i = 0; i < INFORMERS; i++) {
        server.create(new NamespaceBuilder().withNewMetadata().withName("ns-" + i).endMetadata()
            .build());
        informers.add(factory.informerFor(ConfigMap.class, InformerOptions.inNamespace("ns-" + i)));
      }
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(60))).isTrue();

      // Written after every informer synced: each arrives through that informer's open watch.
      for (int i = 0; i < INFORMERS; i++) {
        server.create(new ConfigMapBuilder().withNewMetadata().withNamespace("ns-" + i)
            .withName("cm").endMetadata().build());
      }

      await().atMost(Duration.ofSeconds(60)).until(
          () -> informers.stream().allMatch(inf -> inf.getIndexer().list().size() == 1));
      for (int i = 0; i < INFORMERS; i++) {
        assertThat(informers.get(i).getIndexer().getByKey("ns-" + i + "/cm")).isPresent();
      }
    }
  }
}

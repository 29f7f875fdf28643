package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.SharedInformerFactory.InformerOptions;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import io.kinformer.time.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An informer started before its CustomResourceDefinition exists retries its 404s with backoff,
 * as client-go's, telling its watch error handler each time, and syncs once the resource is served,
 * without a restart.
 */
class LateCustomResourceTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  @Test
  void informerStartedBeforeItsResourceExists_syncsOnceItIsServed() {
    Gvr widgets = new Gvr("example.com", "v1", "widgets");
    List<ReflectorException> errors = new CopyOnWriteArrayList<>();
    try (EmbeddedApiServer server = EmbeddedApiServer.start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client)
            .backoff(Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(100), 2,
                0, Duration.ofMinutes(1)))
            .watchErrorHandler(errors::add)
            .build()) {
      // Typed and known up front (no discovery), as an informer for a CustomResource class is.
      SharedIndexInformer<GenericKubernetesResource> informer = factory.informerFor(
          ResourceType.dynamic(widgets, "Widget", true), InformerOptions.all());
      factory.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> errors.size() >= 3);
      assertThat(informer.hasSynced()).isFalse();
      assertThat(errors.get(0).apiError().map(ApiException::code)).hasValue(404);

      server.register(ServedResource.namespaced("example.com", "v1", "Widget", "widgets"));
      server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
          + "\"metadata\":{\"name\":\"w1\",\"namespace\":\"default\"}}");

      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
      assertThat(informer.getIndexer().listKeys()).containsExactly("default/w1");
    }
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerMetricsProvider;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Over real HTTP: an object the server holds that does not bind to the informer's model class is
 * left out of the cache, logged with its key and counted in the informer's metrics, while every
 * other object is cached and the informer keeps watching, without relisting because of it.
 */
class UndecodableObjectInformerTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;
  private final AtomicInteger skipped = new AtomicInteger();

  /** Counts the undecodable objects; the other metrics record nothing. */
  private final InformerMetricsProvider metrics = new InformerMetricsProvider() {
    @Override
    public GaugeMetric newQueuedItemMetric(InformerId id) {
      return NO_GAUGE;
    }

    @Override
    public HistogramMetric newProcessingLatencyMetric(InformerId id) {
      return NO_HISTOGRAM;
    }

    @Override
    public GaugeMetric newStoreResourceVersionMetric(InformerId id) {
      return NO_GAUGE;
    }

    @Override
    public CounterMetric newUndecodableObjectsMetric(InformerId id) {
      return skipped::incrementAndGet;
    }
  };

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    factory = SharedInformerFactory.builder(client).metrics(metrics).build();
  }

  @AfterEach
  void stop() {
    factory.close();
    client.close();
    server.close();
  }

  private static String pod(String name, String port) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\","
        + "\"ports\":[{\"containerPort\":" + port + "}]}]}}";
  }

  private String resourceVersionOf(String json) {
    return json.replaceAll("(?s).*\"resourceVersion\"\\s*:\\s*\"(\\d+)\".*", "$1");
  }

  @Test
  void badObjectIsSkipped_othersAreCached_andTheWatchGoesOn() throws Exception {
    server.create(pod("good", "80"));
    server.create(pod("bad", "\"http\""));
    List<String> seen = new CopyOnWriteArrayList<>();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    pods.addEventHandler(new ResourceEventHandler<Pod>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        seen.add("add " + obj.getMetadata().getName());
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        seen.add("update " + newObj.getMetadata().getName());
      }

      @Override
      public void onDelete(Pod obj, boolean finalStateUnknown) {
        seen.add("delete " + obj.getMetadata().getName());
      }
    });
    factory.start();

    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    assertThat(pods.getIndexer().listKeys()).containsExactly("default/good");
    assertThat(skipped).hasValue(1);
    assertThat(log.text()).contains("v1/pods: skipped Pod default/bad")
        .contains("spec.containers[0].ports[0].containerPort");

    // The informer still watches: a bad update is skipped, a good one is cached after it.
    server.update(pod("good", "\"still-bad\"").replace("\"namespace\"",
        "\"resourceVersion\":\"" + resourceVersionOf(server.get("v1", "Pod", "default", "good")
            .orElseThrow()) + "\",\"namespace\""));
    String fixed = server.create(pod("later", "81"));
    await().atMost(Duration.ofSeconds(30))
        .until(() -> pods.getIndexer().getByKey("default/later").isPresent());
    assertThat(pods.lastSyncResourceVersion()).isEqualTo(resourceVersionOf(fixed));
    assertThat(pods.getIndexer().getByKey("default/good").orElseThrow().getSpec().getContainers().get(0)
        .getPorts().get(0).getContainerPort()).isEqualTo(80);
    assertThat(skipped).hasValue(2);

    // A deletion of an object that does not bind still deletes it.
    server.delete("v1", "Pod", "default", "good");
    await().atMost(Duration.ofSeconds(30))
        .until(() -> pods.getIndexer().getByKey("default/good").isEmpty());
    assertThat(seen).containsExactly("add good", "add later", "delete good");
    // The server marks a pod for deletion (a MODIFIED event, skipped) before it deletes it.
    List<String> reported = log.text().lines()
        .filter(l -> l.contains("skipped Pod") || l.contains("deleted Pod")).toList();
    assertThat(reported.stream().filter(l -> l.contains("deleted Pod default/good"))).hasSize(1);
    assertThat(skipped).as(log.text()).hasValue(reported.size());
  }
}

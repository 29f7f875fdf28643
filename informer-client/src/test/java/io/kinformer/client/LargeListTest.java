package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.Informers;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lists large enough to be decoded in many batches on the client's decode threads ({@link
 * ParallelListCodec}), over real HTTP against the embedded API server, compared with the same
 * lists decoded on the listing thread alone.
 */
class LargeListTest {

  private static final int COUNT = 3_000;

  /** resourceVersion=0 is served from the (watch) cache, which ignores limit: one response. */
  private static final ListOptions UNPAGED = ListOptions.builder().resourceVersion("0").build();

  private EmbeddedApiServer server;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    for (int n = 0; n < 5; n++) {
      server.create("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns-"
          + n + "\"}}");
    }
    for (int i = 0; i < COUNT; i++) {
      server.create(new ConfigMapBuilder()
          .withNewMetadata().withNamespace("ns-" + (i % 5)).withName("cm-" + i)
          .addToLabels("i", Integer.toString(i)).endMetadata()
          .addToData("payload", "value-" + i + "-" + "x".repeat(100))
          .build());
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private KubeClient client(int decodeThreads) {
    return KubeClient.create(KubeConfig.load(server.kubeConfig()),
        ClientOptions.builder().decodeThreads(decodeThreads).build());
  }

  @Test
  void unpagedList_decodedInParallel_equalsTheSequentialDecode() {
    List<ConfigMap> parallel;
    List<ConfigMap> sequential;
    try (KubeClient client = client(2)) {
      // One response of ~600 KB, several batches.
      parallel = client.resources(ConfigMap.class).inAnyNamespace().list(UNPAGED).items();
    }
    try (KubeClient client = client(0)) {
      sequential = client.resources(ConfigMap.class).inAnyNamespace().list(UNPAGED).items();
    }

    assertThat(parallel).hasSize(COUNT);
    assertThat(parallel).isEqualTo(sequential);
    // close() stopped the decode threads.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(Thread.getAllStackTraces().keySet())
            .noneMatch(t -> t.getName().startsWith("kinformer-decode-")));
  }

  @Test
  void informer_syncsALargeCollectionThroughTheDecodeThreads() {
    try (KubeClient client = client(2);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      SharedIndexInformer<ConfigMap> informer = factory.informerFor(ConfigMap.class);
      factory.start();

      assertThat(Informers.waitForCacheSync(Duration.ofSeconds(60), informer)).isTrue();
      List<ConfigMap> cached = informer.getIndexer().list();
      Map<String, String> byName = cached.stream().collect(Collectors.toMap(
          c -> c.getMetadata().getName(), c -> c.getData().get("payload"), (a, b) -> a));
      assertThat(byName).hasSize(COUNT);
      assertThat(byName.get("cm-1234")).startsWith("value-1234-");
      assertThat(cached).allSatisfy(c -> assertThat(c.getKind()).isEqualTo("ConfigMap"));
    }
  }
}

package io.kinformer.client.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.TestBackoffs;
import io.kinformer.client.internal.codec.WatchCodec;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A watch event over {@link WatchCodec#MAX_EVENT_BYTES} (the real 64 MiB default), written into an
 * informer's open watch by the embedded API server: the watch is refused with an error naming the
 * limit and the resource, the cache keeps what it had, and the informer re-watches and goes on
 * receiving events.
 */
class HttpWatchOversizeEventTest {

  private static String configMap(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\"},\"data\":{\"k\":\"v\"}}";
  }

  /**
   * An ADDED event a little over 64 MiB, made of millions of small values (no long string, so the
   * string cap does not catch it) in a field of the event that the codec skips.
   */
  private static byte[] oversizeEvent() {
    byte[] head = ("{\"type\":\"ADDED\",\"object\":" + configMap("huge") + ",\"padding\":[")
        .getBytes(StandardCharsets.UTF_8);
    int values = (int) (WatchCodec.MAX_EVENT_BYTES / 2) + 1024;
    byte[] event = new byte[head.length + 2 * values + 2];
    System.arraycopy(head, 0, event, 0, head.length);
    for (int i = head.length; i < head.length + 2 * values; i += 2) {
      event[i] = '0';
      event[i + 1] = ',';
    }
    event[event.length - 3] = '0';
    event[event.length - 2] = ']';
    event[event.length - 1] = '}';
    return event;
  }

  @Test
  void informer_whenAWatchEventExceedsTheLimit_refusesItKeepsItsCacheAndRecovers()
      throws InterruptedException {
    List<ReflectorException> errors = new CopyOnWriteArrayList<>();
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
      server.create(configMap("before"));
      SharedIndexInformer<ConfigMap> informer =
          SharedIndexInformer.builder(
                  "configmaps", client.resources(ConfigMap.class).listerWatcher())
              .backoff(TestBackoffs.fast(1))
              .build();
      informer.setWatchErrorHandler(errors::add);
      informer.start();
      assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();
      await().until(() -> server.faults().openWatches("configmaps") == 1);
      long watchesBefore = server.faults().requestCount(Verb.WATCH, "configmaps");
      long relistsBefore = server.faults().streamingListCount("configmaps");

      server.faults().writeToWatches("configmaps", oversizeEvent());

      String limit = "exceeds the limit of 67108864 bytes (64 MiB) per event";
      await().atMost(Duration.ofSeconds(60))
          .until(() -> errors.stream().anyMatch(e -> messages(e).contains(limit)));
      ReflectorException refused =
          errors.stream().filter(e -> messages(e).contains(limit)).findFirst().orElseThrow();
      assertThat(messages(refused)).contains("watch event of v1/configmaps (GET http");
      assertThat(refused.phase()).isEqualTo(ReflectorException.Phase.WATCH_STREAM);

      server.create(configMap("after"));
      await().atMost(Duration.ofSeconds(30))
          .until(() -> informer.getIndexer().getByKey("default/after").isPresent());
      assertThat(informer.getIndexer().listKeys())
          .contains("default/before", "default/after")
          .doesNotContain("default/huge");
      assertThat(server.faults().requestCount(Verb.WATCH, "configmaps"))
          .isGreaterThan(watchesBefore);
      // Bad data from the server: a relist, not a re-watch that would replay the same event.
      assertThat(server.faults().streamingListCount("configmaps")).isGreaterThan(relistsBefore);
      assertThat(informer.getIndexer().list())
          .allSatisfy(cm -> assertThat(Keys.metaNamespaceKey(cm)).isNotEqualTo("default/huge"));
      informer.close();
    }
  }

  /** The messages of an exception and its causes, joined. */
  private static String messages(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append(" | ");
    }
    return sb.toString();
  }
}

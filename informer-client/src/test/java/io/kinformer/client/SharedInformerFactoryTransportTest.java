package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.ReflectorException;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/** Transport-level behaviour of the factory's informers against the embedded server. */
class SharedInformerFactoryTransportTest {

  @Test
  void overTlsWithAToken_allWatchesShareOneHttp2Connection() throws Exception {
    try (EmbeddedApiServer server =
            EmbeddedApiServer.builder().tls(true).bearerToken("s3cret-token").start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      factory.informerFor(Pod.class);
      factory.informerFor(ConfigMap.class);
      factory.informerFor(Secret.class);
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
      await().until(() -> server.faults().openWatches(null) == 3);

      assertThat(client.httpClient().connectionPool().connectionCount()).isEqualTo(1);
      try (Response r =
          client.httpClient()
              .newCall(new Request.Builder().url(client.baseUrl().resolve("/version")).build())
              .execute()) {
        assertThat(r.protocol()).isEqualTo(Protocol.HTTP_2);
      }
    }
  }

  @Test
  void withoutTheToken_theServerRefusesAndTheInformerReportsIt() {
    try (EmbeddedApiServer server =
            EmbeddedApiServer.builder().tls(true).bearerToken("s3cret-token").start();
        KubeClient client =
            KubeClient.create(
                KubeConfig.load(server.kubeConfig()).toBuilder().token("wrong-token").build())) {
      FakeClock clock = new FakeClock();
      List<ReflectorException> errors = new CopyOnWriteArrayList<>();
      try (SharedInformerFactory factory =
          SharedInformerFactory.builder(client)
              .clock(clock)
              .scheduler(clock)
              .watchErrorHandler(errors::add)
              .build()) {
        factory.informerFor(Pod.class);
        factory.start();
        await().until(() -> !errors.isEmpty());
        assertThat(errors.get(0).apiError()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(401));
        assertThat(errors.get(0)).hasMessageNotContaining("wrong-token").hasMessageNotContaining("s3cret");
      }
    }
  }

  @Test
  void tooManyRequests_backsOffForAtLeastRetryAfter() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
      // A 429 on the streaming list: backed off and streamed again, not a fallback to a list.
      server.faults().failNextWithRetryAfter(Verb.WATCH, "pods", 1, 429, Duration.ofSeconds(20));
      FakeClock clock = new FakeClock();
      List<ReflectorException> errors = new CopyOnWriteArrayList<>();
      try (SharedInformerFactory factory =
          SharedInformerFactory.builder(client)
              .clock(clock)
              .scheduler(clock)
              .watchErrorHandler(errors::add)
              .build()) {
        var informer = factory.informerFor(Pod.class);
        factory.start();
        await().until(() -> !errors.isEmpty() && clock.hasPendingTasks());
        ApiException e = errors.get(0).apiError().orElseThrow();
        assertThat(e.code()).isEqualTo(429);
        assertThat(e.retryAfter()).hasValue(Duration.ofSeconds(20));
        assertThat(clock.nextDelay().orElseThrow()).isGreaterThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(informer.hasSynced()).isFalse();

        clock.advance(clock.nextDelay().orElseThrow());
        await().until(informer::hasSynced);
        // the refused streaming list and the one after the wait; no fallback to a list
        assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isEqualTo(2);
        assertThat(server.faults().streamingListCount("pods")).isEqualTo(1);
        assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();
      }
    }
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.http.HttpTimeouts;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.TcpProxy;
import io.kinformer.testing.TcpProxy.Direction;
import io.kinformer.time.Backoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A watch whose connection goes silent without being closed (the server's bytes stop arriving, or
 * nothing gets through either way, and no FIN or RST ever comes) is noticed and replaced, and the
 * events written meanwhile reach the cache. Over HTTP/2 the client's pings notice it (within two
 * ping intervals); over HTTP/1.1 the watch's inactivity limit does (its {@code timeoutSeconds}
 * plus a grace, 30 s by default). Each test gives the informer a watch timeout the silence far
 * outlasts, so only the mechanism under test can notice it in time.
 */
class WatchLivenessTest {

  @RegisterExtension final LogCapture log = new LogCapture();
  @TempDir Path dir;

  private static final Backoff.Policy SHORT =
      Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(100), 2, 0,
          Duration.ofMinutes(1));

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withNamespace("default").withName(name)
        .endMetadata().addToData("k", name).build();
  }

  /** Writes a burst while the watch is silent, then waits until the cache holds all of it. */
  private static void writeWhileSilentAndAwait(EmbeddedApiServer server, TcpProxy proxy,
      SharedIndexInformer<ConfigMap> informer, Direction direction) {
    long connectionsBefore = proxy.connectionsAccepted();
    assertThat(proxy.blackHole(direction)).isPositive();
    for (int i = 0; i < 20; i++) {
      server.create(configMap("during-" + i));
    }
    server.delete("v1", "ConfigMap", "default", "before");

    await().atMost(Duration.ofSeconds(60)).until(() -> informer.getIndexer().listKeys().size() == 20
        && informer.getIndexer().getByKey("default/before").isEmpty());
    assertThat(informer.getIndexer().listKeys()).allMatch(k -> k.startsWith("default/during-"));
    assertThat(proxy.connectionsAccepted()).isGreaterThan(connectionsBefore);
    assertThat(informer.lastSyncResourceVersion())
        .isEqualTo(String.valueOf(server.resourceVersion()));
  }

  @ParameterizedTest(name = "HTTP/2, silent {0}")
  @EnumSource(value = Direction.class, names = {"TO_CLIENT", "BOTH"})
  void http2_silentConnection_isNoticedByPings(Direction direction) throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().tls(true).start();
        TcpProxy proxy = TcpProxy.start(server.url());
        KubeClient client = KubeClient.create(
            KubeConfig.load(Files.writeString(dir.resolve("config"), proxy.kubeConfigYaml(server))),
            ClientOptions.builder().pingInterval(Duration.ofMillis(300)).build());
        SharedInformerFactory factory =
            SharedInformerFactory.builder(client).backoff(SHORT).build()) {
      server.create(configMap("before"));
      SharedIndexInformer<ConfigMap> informer = factory.informerFor(ConfigMap.class);
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
      assertThat(proxy.connectionsAccepted()).isEqualTo(1); // every call on one HTTP/2 connection

      // The factory's watches ask for 5 to 10 minutes: only the pings can notice this in time.
      writeWhileSilentAndAwait(server, proxy, informer, direction);
    }
  }

  @ParameterizedTest(name = "HTTP/1.1, silent {0}")
  @EnumSource(value = Direction.class, names = {"TO_CLIENT", "BOTH"})
  void http1_silentConnection_isNoticedByTheWatchInactivityLimit(Direction direction)
      throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start();
        TcpProxy proxy = TcpProxy.start(server.url());
        KubeClient client = KubeClient.create(
            KubeConfig.load(Files.writeString(dir.resolve("config"), proxy.kubeConfigYaml(server))),
            ClientOptions.builder().pingInterval(Duration.ZERO).build())) {
      // The reflector asks for at least 5 minutes, as client-go; a tweak asks for 1 s, and with a
      // 0.5 s grace the limit is 1.5 s of silence.
      HttpTimeouts timeouts = new HttpTimeouts(Duration.ofSeconds(30), Duration.ofMinutes(5),
          Duration.ofMillis(500), Duration.ofMinutes(5));
      ResourceClient<ConfigMap> configMaps = ResourceClient.create(client.httpClient(),
          HttpUrl.get(proxy.via(server.url()).toString()), ResourceType.of(ConfigMap.class),
          Codecs.newCacheMapper(), timeouts);
      server.create(configMap("before"));
      try (SharedIndexInformer<ConfigMap> informer =
          SharedIndexInformer.builder("configmaps",
                  configMaps.listerWatcher(o -> o.timeoutSeconds() == null ? o
                      : o.toBuilder().timeoutSeconds(1L).build()))
              .backoff(SHORT)
              .build()) {
        informer.start();
        assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();

        writeWhileSilentAndAwait(server, proxy, informer, direction);
      }
    }
  }
}

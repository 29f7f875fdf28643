package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.ResourceClient;
import io.kinformer.time.Backoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An informer whose server went away while objects were written, the server restarted and
 * etcd's history was compacted: when it reaches the server again, its watch from the last
 * resourceVersion it saw is refused with 410 Gone (the new server's watch cache starts after
 * it), and it relists and ends with the server's state.
 *
 * <p>"Went away" is modelled from the informer's side: it talks to the server through a
 * {@link LoopbackProxy}, which the test cuts (open connections close, new ones are refused, as
 * with a server that is down). While it is cut, the test writes through its own direct
 * connection, restarts the API server (so that its watch cache is rebuilt from etcd, starting
 * after those writes), writes again and compacts etcd; then the proxy listens again. The server
 * the informer meets afterwards is therefore the one that restarted while it was gone, on the
 * same etcd, with history it can no longer serve.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerOutageTest {

  @ParameterizedTest(name = "streamingList={0}")
  @ValueSource(booleans = {true, false})
  void informer_afterOutageWithWritesRestartAndCompaction_relistsOn410AndConverges(
      boolean streaming, ApiServer server) throws Exception {
    ResourceClient<ConfigMap> direct = Cluster.configMapsInNewNamespace(server.client(),
        streaming ? "outage-stream" : "outage-list");
    String ns = direct.namespace().orElseThrow();
    Cluster.burst(direct, ns, 61, 60, 40);

    try (LoopbackProxy proxy = LoopbackProxy.start(server.url().getPort());
        KubeClient viaProxy = KubeClient.create(throughProxy(server, proxy))) {
      RequestKinds.Recording<ConfigMap> recording = new RequestKinds.Recording<>(
          viaProxy.resources(ConfigMap.class).inNamespace(ns).listerWatcher());
      List<ReflectorException> errors = new CopyOnWriteArrayList<>();
      try (SharedIndexInformer<ConfigMap> informer =
          SharedIndexInformer.builder("configmaps", recording)
              .streamingList(streaming)
              .backoff(Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(500),
                  2.0, 1.0, Duration.ofSeconds(2)))
              .build()) {
        informer.setWatchErrorHandler(errors::add);
        informer.start();
        assertThat(informer.awaitSynced(Duration.ofSeconds(60))).isTrue();
        Cluster.burst(direct, ns, 62, 60, 40);
        Cluster.awaitCacheEqualsServer(informer, ns, direct);

        proxy.cut(); // the server is gone, for the informer
        Cluster.burst(direct, ns, 63, 60, 40); // writes it does not see
        server.restart(); // its watch cache now starts after them
        Cluster.burst(direct, ns, 64, 60, 40);
        server.compact();
        int callsBeforeResume = recording.kinds.size();
        proxy.resume(); // the server is back

        Cluster.awaitCacheEqualsServer(informer, ns, direct);
        assertThat(errors).as("the reflector's errors").anySatisfy(e ->
            assertThat(e.apiError()).hasValueSatisfying(api -> {
              assertThat(api.code()).isEqualTo(ApiException.GONE);
              assertThat(api.isResourceExpired()).isTrue();
            }));
        // After the 410 of its watch the reflector relists, as client-go's does: not older than
        // the last resourceVersion it saw, which the new watch cache can serve.
        assertThat(recording.kinds.subList(callsBeforeResume, recording.kinds.size()))
            .contains(streaming ? "watch sendInitialEvents match=NotOlderThan bookmarks rv=N"
                : "list rv=N");
      }
    }
  }

  /** The server's kubeconfig with the proxy's address in place of the server's. */
  private static KubeConfig throughProxy(ApiServer server, LoopbackProxy proxy) throws Exception {
    String config = Files.readString(server.kubeconfig())
        .replace(server.url().toString(), "https://127.0.0.1:" + proxy.port());
    Path file = server.workDir().resolve("kubeconfig-proxy-" + proxy.port());
    Files.writeString(file, config);
    return KubeConfig.load(file);
  }
}

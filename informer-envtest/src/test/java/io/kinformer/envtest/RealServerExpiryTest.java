package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * resourceVersion expiry: 410 Gone for a continue token after etcd compaction, an ERROR event for
 * a watch from before a restart, and 504 for a resourceVersion from the future. Lists are not
 * served from watch-cache snapshots here (ListFromCacheSnapshot=false), so a continue token
 * reaches etcd, as it does on servers before 1.34.
 */
@Tag("real-apiserver")
class RealServerExpiryTest {

  @RegisterExtension
  static final ApiServerExtension extension =
      ApiServerExtension.withArgs("--feature-gates=ListFromCacheSnapshot=false");

  @Test
  void continueToken_afterEtcdCompaction_isGoneExpired(ApiServer server) {
    KubeClient client = server.client();
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "expired-continue");
    String ns = cms.namespace().orElseThrow();
    for (int i = 0; i < 30; i++) {
      cms.create(Cluster.configMap(ns, "cm-" + i, "v"));
    }
    ListResult<ConfigMap> first =
        cms.listerWatcher().list(ListOptions.builder().limit(10L).build(), Cancellation.none());
    assertThat(first.hasMore()).isTrue();
    cms.create(Cluster.configMap(ns, "after-first-page", "v"));

    server.compact();

    assertThatThrownBy(() -> cms.listerWatcher().list(ListOptions.builder()
            .limit(10L).continueToken(first.continueToken()).build(), Cancellation.none()))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(ApiException.GONE);
          assertThat(e.isResourceExpired()).isTrue();
        });
  }

  @Test
  void informer_withPagedListAcrossCompaction_relistsAndConverges(ApiServer server)
      throws InterruptedException {
    KubeClient client = server.client();
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "expired-informer");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 21, 120, 100);

    try (SharedIndexInformer<ConfigMap> informer =
        SharedIndexInformer.builder("configmaps", cms.listerWatcher()).pageSize(10).build()) {
      informer.start();
      server.compact();
      Cluster.burst(cms, ns, 22, 60, 100);

      assertThat(informer.awaitSynced(Duration.ofSeconds(60))).isTrue();
      Cluster.awaitCacheEqualsServer(informer, ns, cms);
    }
  }

  @Test
  void watch_fromResourceVersionBeforeRestart_endsWithExpiredErrorEvent(ApiServer server) {
    KubeClient client = server.client();
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(client, "expired-watch");
    String ns = cms.namespace().orElseThrow();
    String before = cms.create(Cluster.configMap(ns, "a", "1")).getMetadata().getResourceVersion();
    cms.create(Cluster.configMap(ns, "b", "1"));

    server.restart();
    for (int i = 0; i < 5; i++) {
      cms.create(Cluster.configMap(ns, "after-" + i, "1"));
    }

    WatchEvent<ConfigMap> event;
    try (Watch<ConfigMap> w = cms.watch(ListOptions.builder()
        .resourceVersion(before).timeoutSeconds(30L).build())) {
      event = w.next();
    }
    assertThat(event).isNotNull();
    assertThat(event.type()).isEqualTo(WatchEventType.ERROR);
    assertThat(event.error().code()).isEqualTo(ApiException.GONE);
    assertThat(event.error().isResourceExpired()).isTrue();
  }

  @Test
  void list_atFutureResourceVersion_isTooLargeTimeout(ApiServer server) {
    ResourceClient<ConfigMap> cms = server.client().resources(ConfigMap.class).inNamespace("default");
    String future = Long.toString(server.etcdRevision() + 1_000_000);

    assertThatThrownBy(() -> cms.list(ListOptions.builder()
            .resourceVersion(future).resourceVersionMatch(ListOptions.NOT_OLDER_THAN).build()))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(ApiException.GATEWAY_TIMEOUT);
          assertThat(e.isTooLargeResourceVersion()).isTrue();
        });
  }

}

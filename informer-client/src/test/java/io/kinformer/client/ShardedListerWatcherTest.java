package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.ShardSelector;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.testing.EmbeddedApiServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shard selector on {@link ResourceClient#withShardSelector}: sent to the server, and applied on
 * the client where the server did not (no echo), against the embedded server with and without
 * its {@code ShardedListAndWatch} behaviour.
 */
class ShardedListerWatcherTest {

  private static final ShardSelector LOWER = ShardSelector.ofShard(ShardSelector.Field.UID, 0, 2);

  private EmbeddedApiServer server;
  private KubeClient client;
  private ResourceClient<ConfigMap> configMaps;
  private List<String> lowerUids;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.builder().start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    configMaps = client.resources(ConfigMap.class).inNamespace("default");
    for (int i = 0; i < 16; i++) {
      configMaps.create(new ConfigMapBuilder().withNewMetadata().withName("cm" + i).endMetadata()
          .build());
    }
    lowerUids = configMaps.list().stream().map(c -> c.getMetadata().getUid())
        .filter(LOWER::matchesValue).toList();
    assertThat(lowerUids).isNotEmpty().hasSizeLessThan(16);
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private static List<String> uids(ListResult<ConfigMap> r) {
    return r.items().stream().map(c -> c.getMetadata().getUid()).toList();
  }

  @Test
  void list_serverApplies_returnsTheShard_withTheEcho() {
    ListerWatcher<ConfigMap> lw = configMaps.withShardSelector(LOWER).listerWatcher();
    ListResult<ConfigMap> r = lw.list(ListOptions.none(), Cancellation.none());
    assertThat(uids(r)).containsExactlyInAnyOrderElementsOf(lowerUids);
    assertThat(r.shardSelector()).isEqualTo(LOWER.toString());
  }

  @Test
  void list_serverIgnores_isFilteredOnTheClient_andSaysSoOnce() throws Exception {
    server.faults().ignoreShardSelectors(true);
    ListerWatcher<ConfigMap> lw = configMaps.withShardSelector(LOWER).listerWatcher();
    List<ListResult<ConfigMap>> results = new ArrayList<>();
    String log = LogCapture.stderrOf(() -> {
      results.add(lw.list(ListOptions.none(), Cancellation.none()));
      results.add(lw.list(ListOptions.none(), Cancellation.none()));
    });
    assertThat(results).allSatisfy(r -> {
      assertThat(uids(r)).containsExactlyInAnyOrderElementsOf(lowerUids);
      assertThat(r.shardSelector()).isNull();
    });
    assertThat(log).containsOnlyOnce("did not apply the shard selector");
  }

  @Test
  void watch_serverIgnores_passesOnlyTheShardsEvents_andBookmarks() {
    server.faults().ignoreShardSelectors(true);
    ListerWatcher<ConfigMap> lw = configMaps.withShardSelector(LOWER).listerWatcher();
    ListOptions streaming = ListOptions.builder().sendInitialEvents(true)
        .resourceVersionMatch(ListOptions.NOT_OLDER_THAN).allowWatchBookmarks(true).build();
    try (Watch<ConfigMap> w = lw.watch(streaming, Cancellation.none())) {
      List<String> added = new ArrayList<>();
      WatchEvent<ConfigMap> e;
      while ((e = w.next()).type() != WatchEventType.BOOKMARK) {
        assertThat(e.type()).isEqualTo(WatchEventType.ADDED);
        added.add(e.object().getMetadata().getUid());
      }
      assertThat(added).containsExactlyInAnyOrderElementsOf(lowerUids);
    }
  }

  @Test
  void optionsOfTheCall_takePrecedence_overTheClientsSelector() {
    ShardSelector upper = ShardSelector.ofShard(ShardSelector.Field.UID, 1, 2);
    ListerWatcher<ConfigMap> lw = configMaps.withShardSelector(LOWER).listerWatcher();
    ListResult<ConfigMap> r =
        lw.list(ListOptions.builder().shardSelector(upper.toString()).build(), Cancellation.none());
    assertThat(uids(r)).allMatch(upper::matchesValue).doesNotContainAnyElementsOf(lowerUids);
  }
}

package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.ResourceClient;
import io.kinformer.leaderelection.Shard;
import io.kinformer.leaderelection.ShardCallbacks;
import io.kinformer.leaderelection.ShardCoordinator;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The user guide's sharded informers: each replica runs one informer per shard it owns, through
 * the API server's shard selector, and its caches hold only its shards' objects, whether the
 * server applies the selector or the client filters. The Lease rounds run on a fake clock.
 */
class ShardedInformersExampleTest {

  private final FakeClock clock = new FakeClock();
  private final EmbeddedApiServer server = EmbeddedApiServer.builder().start();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    server.close();
  }

  /** One replica: its coordinator and the informers of the shards it owns. */
  private final class Replica {
    final Map<Integer, SharedIndexInformer<ConfigMap>> informers = new ConcurrentHashMap<>();
    final ShardCoordinator shards;

    Replica(String podName) {
      KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()),
          ClientOptions.builder().userAgentSuffix(podName).build());
      closing.add(client);
      // tag::sharded-informers[]
      ResourceClient<ConfigMap> configMaps = client.resources(ConfigMap.class);
      ShardCallbacks callbacks = new ShardCallbacks() {
        @Override
        public void onShardGained(Shard shard) {
          SharedIndexInformer<ConfigMap> informer = SharedIndexInformer.builder(
                  "configmaps-shard-" + shard.index(),
                  configMaps.withShardSelector(shard.selector()).listerWatcher())
              .build();
          informers.put(shard.index(), informer); // add handlers before start()
          informer.start();
        }

        @Override
        public void onShardLost(Shard shard) {
          SharedIndexInformer<ConfigMap> informer = informers.remove(shard.index());
          if (informer != null) {
            informer.close();
          }
        }
      };
      ShardCoordinator shards =
          ShardCoordinator.builder(client, "default", "configmap-cache", podName, 4, callbacks)
              .clock(clock).scheduler(clock) // in tests: a fake clock, steps on the test thread
              .executor(Runnable::run).callbackExecutor(Runnable::run)
              .build();
      shards.start();
      // end::sharded-informers[]
      this.shards = shards;
      closing.add(() -> {
        shards.close();
        informers.values().forEach(SharedIndexInformer::close);
      });
    }

    Set<String> cachedUids() throws InterruptedException {
      Set<String> out = new HashSet<>();
      for (SharedIndexInformer<ConfigMap> i : informers.values()) {
        assertThat(i.awaitSynced(Duration.ofSeconds(30))).isTrue();
        i.getStore().list().forEach(cm -> out.add(cm.getMetadata().getUid()));
      }
      return out;
    }
  }

  @ParameterizedTest(name = "server ignores shard selectors: {0}")
  @ValueSource(booleans = {false, true})
  void twoReplicas_cacheDisjointHalves_thatTogetherHoldEveryObject(boolean ignored)
      throws Exception {
    server.faults().ignoreShardSelectors(ignored);
    var seed = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    closing.add(seed);
    for (int i = 0; i < 24; i++) {
      seed.resources(ConfigMap.class).inNamespace("default").create(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).endMetadata().build());
    }
    List<Replica> replicas = List.of(new Replica("pod-a"), new Replica("pod-b"));
    long start = clock.nanoTime();
    while (!replicas.stream().allMatch(r -> r.shards.ownedShards().size() == 2)) {
      assertThat(clock.nanoTime() - start).isLessThan(Duration.ofSeconds(20).toNanos());
      clock.advance(Duration.ofMillis(100));
    }
    assertThat(replicas).allSatisfy(r -> assertThat(r.informers.keySet())
        .isEqualTo(r.shards.ownedShards()));

    Set<String> a = replicas.get(0).cachedUids();
    Set<String> b = replicas.get(1).cachedUids();
    Set<String> all = new HashSet<>();
    seed.resources(ConfigMap.class).inNamespace("default").list()
        .forEach(cm -> all.add(cm.getMetadata().getUid()));
    assertThat(a).doesNotContainAnyElementsOf(b);
    Set<String> union = new HashSet<>(a);
    union.addAll(b);
    assertThat(union).isEqualTo(all);
    for (Replica r : replicas) {
      for (var e : r.informers.entrySet()) {
        Shard shard = r.shards.shards().get(e.getKey());
        assertThat(e.getValue().getStore().list()).allMatch(shard.selector()::matches);
      }
    }
  }
}

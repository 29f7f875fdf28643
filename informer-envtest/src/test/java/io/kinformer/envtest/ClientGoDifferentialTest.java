package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.ResourceClient;
import io.kinformer.time.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kinformer and client-go 0.36.4 side by side: one informer of each on the same namespace of the
 * same server, through the same schedule of write bursts (with deletes), a server crash and an
 * etcd compaction. Each step ends when both handler views equal the server. Then both caches
 * must equal the server's state and each other, and for every object both handlers must have
 * seen the same resourceVersions in the same order. What the semantics allow to differ is
 * normalised away: a relist repeats an object's current resourceVersion as an update (client-go
 * and kinformer may relist at different moments), so consecutive repeats count once.
 *
 * <p>Requests are compared by kind ({@link RequestKinds}): the first must be the same, and a kind
 * only one side sent must be a relist. Whether a client relists after the crash depends on the
 * moment its new watch meets the restarting server: both re-watch after "connection refused"
 * (and 429) and relist after other failures to start a watch, such as "connection reset", so
 * kinformer's shorter backoff here can meet a reset where client-go's meets a running server.
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class ClientGoDifferentialTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);

  /** What our handler saw, in the ClientGoInformer's vocabulary. */
  static final class Recorder implements ResourceEventHandler<ConfigMap> {
    final List<ClientGoInformer.Event> events = new CopyOnWriteArrayList<>();

    private void record(String kind, ConfigMap cm, boolean initial, boolean tombstone) {
      events.add(new ClientGoInformer.Event(kind, cm.getMetadata().getName(),
          cm.getMetadata().getResourceVersion(), initial, tombstone));
    }

    @Override
    public void onAdd(ConfigMap obj, boolean isInInitialList) {
      record("add", obj, isInInitialList, false);
    }

    @Override
    public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
      record("update", newObj, false, false);
    }

    @Override
    public void onDelete(ConfigMap obj, boolean finalStateUnknown) {
      record("delete", obj, false, finalStateUnknown);
    }
  }

  /** The cache a handler's events imply: name → resourceVersion. */
  static Map<String, String> view(List<ClientGoInformer.Event> events) {
    Map<String, String> view = new TreeMap<>();
    for (ClientGoInformer.Event e : events) {
      if (e.kind().equals("delete")) {
        view.remove(e.name());
      } else {
        view.put(e.name(), e.rv());
      }
    }
    return view;
  }

  /** Per object, the resourceVersions delivered, consecutive repeats once; deletes marked. */
  static Map<String, List<String>> sequences(List<ClientGoInformer.Event> events) {
    Map<String, List<String>> out = new TreeMap<>();
    for (ClientGoInformer.Event e : events) {
      List<String> seq = out.computeIfAbsent(e.name(), k -> new ArrayList<>());
      String token = (e.kind().equals("delete") ? "deleted@" : "") + e.rv();
      if (seq.isEmpty() || !seq.get(seq.size() - 1).equals(token)) {
        seq.add(token);
      }
    }
    return out;
  }

  @ParameterizedTest(name = "streamingList={0}")
  @ValueSource(booleans = {true, false})
  void kinformerAndClientGo_underTheSameFaults_deliverTheSameResourceVersions(boolean streaming,
      ApiServer server) throws Exception {
    Path binary = ClientGoInformer.binary(server).orElse(null);
    assumeTrue(binary != null, "kinformer-clientgo-informer is not beside the server binary "
        + "(informer-testing/apiserver/build.sh builds it)");
    ResourceClient<ConfigMap> cms = Cluster.configMapsInNewNamespace(server.client(),
        streaming ? "differential-stream" : "differential-list");
    String ns = cms.namespace().orElseThrow();
    Cluster.burst(cms, ns, 41, 60, 40);
    Recorder ours = new Recorder();
    RequestKinds.Recording<ConfigMap> recording = new RequestKinds.Recording<>(cms.listerWatcher());

    try (ClientGoInformer clientGo = ClientGoInformer.start(binary, server, ns, streaming);
        SharedIndexInformer<ConfigMap> informer =
            SharedIndexInformer.builder("configmaps", recording)
                .streamingList(streaming)
                .backoff(Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(500),
                    2.0, 1.0, Duration.ofSeconds(2)))
                .build()) {
      informer.addEventHandler(ours);
      informer.start();
      assertThat(informer.awaitSynced(SETTLE)).isTrue();
      await().atMost(SETTLE).until(clientGo::synced);

      Cluster.burst(cms, ns, 43, 120, 40);
      awaitBothCurrent(cms, ours, clientGo);
      server.restart();
      cms.create(Cluster.configMap(ns, "after-restart", "1")); // both must be watching again
      awaitBothCurrent(cms, ours, clientGo);
      Cluster.burst(cms, ns, 44, 120, 40);
      awaitBothCurrent(cms, ours, clientGo);
      server.compact();
      Cluster.burst(cms, ns, 45, 60, 40);
      awaitBothCurrent(cms, ours, clientGo);

      Map<String, String> server0 = Cluster.serverState(cms);
      assertThat(clientGo.stopAndReadCache()).isEqualTo(server0);
      assertThat(Cluster.cacheState(informer, ns)).isEqualTo(server0);
      assertThat(sequences(ours.events)).isEqualTo(sequences(clientGo.events()));
      assertThat(ours.events).noneMatch(ClientGoInformer.Event::tombstone);
      // client-go's requests as recorded from kube-apiserver 1.36, and a
      // new watch after the crash.
      assertThat(clientGo.requests().get(0)).contains(streaming
          ? "sendInitialEvents=true" : "limit=500&resourceVersion=0");
      assertThat(clientGo.requests()).filteredOn(r -> r.contains("watch=true")).hasSizeGreaterThan(1);
      // The same kinds of requests: the same first one, and any kind only one side used is a
      // relist (see the class comment).
      List<String> clientGoKinds = clientGo.requests().stream()
          .map(r -> RequestKinds.ofQuery(r.substring(r.indexOf('?') + 1))).distinct().toList();
      List<String> ourKinds = recording.kinds.stream().distinct().toList();
      assertThat(ourKinds.get(0)).isEqualTo(clientGoKinds.get(0));
      Predicate<String> relist =
          k -> streaming ? k.startsWith("watch sendInitialEvents") : k.startsWith("list ");
      assertThat(ourKinds).filteredOn(k -> !clientGoKinds.contains(k)).allMatch(relist);
      assertThat(clientGoKinds).filteredOn(k -> !ourKinds.contains(k)).allMatch(relist);
    }
  }

  private static void awaitBothCurrent(ResourceClient<ConfigMap> cms, Recorder ours,
      ClientGoInformer clientGo) {
    await().atMost(SETTLE).untilAsserted(() -> {
      Map<String, String> expected = Cluster.serverState(cms);
      assertThat(view(ours.events)).as("kinformer").isEqualTo(expected);
      assertThat(view(clientGo.events())).as("client-go").isEqualTo(expected);
    });
  }
}

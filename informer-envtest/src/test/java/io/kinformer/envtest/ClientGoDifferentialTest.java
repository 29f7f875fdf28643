package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
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
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kinformer and client-go 0.36.4 side by side: one informer of each on the same namespace of the
 * same server, through the same schedule of write bursts (with deletes), a server crash and an
 * etcd compaction; for configmaps, for pods (with status writes, and deletes that first set a
 * deletionTimestamp) and for a custom resource with a status subresource (client-go's dynamic
 * informer beside ours), each with and without a streaming initial list. Each step ends when both handler views equal the server. Then both caches
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
 * With a streaming list, a relist is a streaming list again, or a plain list where the streaming
 * one failed in a way that is not retried (both fall back to a list then, as client-go's
 * reflector does).
 */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class ClientGoDifferentialTest {
  private static final Duration SETTLE = Duration.ofSeconds(60);

  /** What our handler saw, in the ClientGoInformer's vocabulary. */
  static final class Recorder<T extends HasMetadata> implements ResourceEventHandler<T> {
    final List<ClientGoInformer.Event> events = new CopyOnWriteArrayList<>();

    private void record(String kind, T obj, boolean initial, boolean tombstone) {
      events.add(new ClientGoInformer.Event(kind, obj.getMetadata().getName(),
          obj.getMetadata().getResourceVersion(), initial, tombstone));
    }

    @Override
    public void onAdd(T obj, boolean isInInitialList) {
      record("add", obj, isInInitialList, false);
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      record("update", newObj, false, false);
    }

    @Override
    public void onDelete(T obj, boolean finalStateUnknown) {
      record("delete", obj, false, finalStateUnknown);
    }
  }

  /**
   * What both informers watch: objects of one kind in one namespace, how to write them, and
   * client-go's name for the resource ({@link ClientGoInformer#start}).
   */
  record Subject<T extends HasMetadata>(String resource, ResourceClient<T> objects,
      Cluster.Writes<T> writes) {}

  static Stream<Arguments> subjects() {
    return Stream.of("configmaps", "pods", "widgets")
        .flatMap(kind -> Stream.of(Arguments.of(kind, true), Arguments.of(kind, false)));
  }

  private static Subject<?> subject(String kind, KubeClient client, String ns) {
    return switch (kind) {
      case "configmaps" -> new Subject<>("configmaps",
          client.resources(ConfigMap.class).inNamespace(ns), new Cluster.Writes<ConfigMap>() {
            @Override
            public ConfigMap create(String name) {
              return Cluster.configMap(ns, name, "v0");
            }

            @Override
            public ConfigMap change(ConfigMap current, int step) {
              return new ConfigMapBuilder(current).addToData("value", "v" + step).build();
            }

            @Override
            public @Nullable ConfigMap changeStatus(ConfigMap current, int step) {
              return null;
            }
          });
      case "pods" -> new Subject<>("pods", client.resources(Pod.class).inNamespace(ns),
          new Cluster.Writes<Pod>() {
            @Override
            public Pod create(String name) {
              return new PodBuilder()
                  .withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                  .withNewSpec().addNewContainer().withName("c").withImage("registry.example/c:1")
                  .endContainer().endSpec()
                  .build();
            }

            @Override
            public Pod change(Pod current, int step) {
              return new PodBuilder(current).editMetadata().addToLabels("step", "s" + step)
                  .endMetadata().build();
            }

            @Override
            public Pod changeStatus(Pod current, int step) {
              return new PodBuilder(current).editOrNewStatus()
                  .withPhase(step % 2 == 0 ? "Running" : "Pending")
                  .withMessage("step " + step)
                  .endStatus().build();
            }
          });
      case "widgets" -> {
        String group = ns + ".example.com";
        ResourceClient<GenericKubernetesResource> widgets =
            Cluster.createWithCrd(client, group, true, ns, "first");
        yield new Subject<>(group + "/v1/widgets", widgets,
            new Cluster.Writes<GenericKubernetesResource>() {
              @Override
              public GenericKubernetesResource create(String name) {
                return Cluster.widget(group, ns, name);
              }

              @Override
              public GenericKubernetesResource change(GenericKubernetesResource current,
                  int step) {
                current.setAdditionalProperty("spec", Map.of("size", step));
                return current;
              }

              @Override
              public GenericKubernetesResource changeStatus(GenericKubernetesResource current,
                  int step) {
                current.setAdditionalProperty("status", Map.of("observed", step));
                return current;
              }
            });
      }
      default -> throw new IllegalArgumentException("no subject " + kind);
    };
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

  @ParameterizedTest(name = "{0}, streamingList={1}")
  @MethodSource("subjects")
  void kinformerAndClientGo_underTheSameFaults_deliverTheSameResourceVersions(String kind,
      boolean streaming, ApiServer server) throws Exception {
    Path binary = ClientGoInformer.binary(server).orElse(null);
    assumeTrue(binary != null, "kinformer-clientgo-informer is not beside the server binary "
        + "(informer-testing/apiserver/build.sh builds it)");
    String ns = Cluster.newNamespace(server.client(),
        "differential-" + kind + (streaming ? "-stream" : "-list"));
    differential(subject(kind, server.client(), ns), ns, streaming, server);
  }

  private static <T extends HasMetadata> void differential(Subject<T> subject, String ns,
      boolean streaming, ApiServer server) throws Exception {
    ResourceClient<T> objects = subject.objects();
    Cluster.burst(objects, 41, 60, 40, subject.writes());
    Recorder<T> ours = new Recorder<>();
    RequestKinds.Recording<T> recording = new RequestKinds.Recording<>(objects.listerWatcher());

    try (ClientGoInformer clientGo =
            ClientGoInformer.start(ClientGoInformer.binary(server).orElseThrow(), server, ns,
                subject.resource(), streaming);
        SharedIndexInformer<T> informer =
            SharedIndexInformer.builder(subject.resource(), recording)
                .streamingList(streaming)
                .backoff(Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(500),
                    2.0, 1.0, Duration.ofSeconds(2)))
                .build()) {
      informer.addEventHandler(ours);
      informer.start();
      assertThat(informer.awaitSynced(SETTLE)).isTrue();
      await().atMost(SETTLE).until(clientGo::synced);

      Cluster.burst(objects, 43, 120, 40, subject.writes());
      awaitBothCurrent(objects, ours, clientGo);
      server.restart();
      objects.create(subject.writes().create("after-restart")); // both must be watching again
      awaitBothCurrent(objects, ours, clientGo);
      Cluster.burst(objects, 44, 120, 40, subject.writes());
      awaitBothCurrent(objects, ours, clientGo);
      server.compact();
      Cluster.burst(objects, 45, 60, 40, subject.writes());
      awaitBothCurrent(objects, ours, clientGo);

      Map<String, String> server0 = Cluster.serverState(objects);
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
      Predicate<String> relist = k -> k.startsWith("list ")
          || (streaming && k.startsWith("watch sendInitialEvents"));
      assertThat(ourKinds).as("ours %s, client-go's %s", recording.kinds, clientGo.requests())
          .filteredOn(k -> !clientGoKinds.contains(k)).allMatch(relist);
      assertThat(clientGoKinds).as("ours %s, client-go's %s", recording.kinds, clientGo.requests())
          .filteredOn(k -> !ourKinds.contains(k)).allMatch(relist);
    }
  }

  private static <T extends HasMetadata> void awaitBothCurrent(ResourceClient<T> objects,
      Recorder<T> ours, ClientGoInformer clientGo) {
    await().atMost(SETTLE).untilAsserted(() -> {
      Map<String, String> expected = Cluster.serverState(objects);
      assertThat(view(ours.events)).as("kinformer").isEqualTo(expected);
      assertThat(view(clientGo.events())).as("client-go").isEqualTo(expected);
    });
  }
}

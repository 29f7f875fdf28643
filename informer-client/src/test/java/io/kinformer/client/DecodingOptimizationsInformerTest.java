package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.SharedInformerFactory.InformerOptions;
import io.kinformer.client.internal.codec.CodecTranscripts;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import io.kinformer.time.Backoff;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Over real HTTP: two clients on one server, one with its decoding optimizations on and one with
 * them off ({@link ClientOptions#decodingOptimizations()}), each with informers for pods, config
 * maps and a custom resource, see the same writes (creates, updates, status updates, deletes, and
 * changes they only learn of by relisting after the server compacted its history) as equal event
 * sequences and end with equal caches; with streaming lists and with lists.
 */
class DecodingOptimizationsInformerTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  private static final Gvr WIDGETS = new Gvr("example.com", "v1", "widgets");

  private EmbeddedApiServer server;
  private Mode optimized;
  private Mode plain;

  /** What one event handler saw: the event's kind and its objects. */
  record Event(String type, @Nullable HasMetadata old, HasMetadata object) {}

  /** An informer and the events its handler saw, in order. */
  record Watched<T extends HasMetadata>(SharedIndexInformer<T> informer, List<Event> events) {

    static <T extends HasMetadata> Watched<T> of(SharedIndexInformer<T> informer) {
      List<Event> events = new CopyOnWriteArrayList<>();
      informer.addEventHandler(new ResourceEventHandler<T>() {
        @Override
        public void onAdd(T obj, boolean isInInitialList) {
          events.add(new Event("ADD", null, obj));
        }

        @Override
        public void onUpdate(T oldObj, T newObj) {
          events.add(new Event("UPDATE", oldObj, newObj));
        }

        @Override
        public void onDelete(T obj, boolean finalStateUnknown) {
          events.add(new Event("DELETE", null, obj));
        }
      });
      return new Watched<>(informer, events);
    }

    /** The cached objects, by key. */
    List<T> cache() {
      return informer.getStore().list().stream()
          .sorted(Comparator.comparing(o -> o.getMetadata().getNamespace() + "/"
              + o.getMetadata().getName()))
          .toList();
    }

    boolean lastEventAdds(String name) {
      return !events.isEmpty() && events.get(events.size() - 1).type().equals("ADD")
          && events.get(events.size() - 1).object().getMetadata().getName().equals(name);
    }
  }

  /** One client and factory, with its informers. */
  record Mode(KubeClient client, SharedInformerFactory factory, Watched<Pod> pods,
      Watched<ConfigMap> configMaps, Watched<GenericKubernetesResource> widgets) {

    static Mode start(EmbeddedApiServer server, boolean optimizations, boolean streamingList) {
      KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()),
          ClientOptions.builder().userAgentSuffix(agent(optimizations))
              .decodingOptimizations(optimizations).build());
      SharedInformerFactory factory = SharedInformerFactory.builder(client)
          .streamingList(streamingList)
          .backoff(Backoff.Policy.exponential(Duration.ofMillis(20), Duration.ofMillis(100), 2, 0,
              Duration.ofMinutes(1)))
          .build();
      Mode mode = new Mode(client, factory, Watched.of(factory.informerFor(Pod.class)),
          Watched.of(factory.informerFor(ConfigMap.class)),
          Watched.of(factory.informerFor(ResourceType.dynamic(WIDGETS, "Widget", true),
              InformerOptions.all())));
      factory.start();
      return mode;
    }

    static String agent(boolean optimizations) {
      return "decoding-" + (optimizations ? "on" : "off");
    }

    List<Watched<?>> all() {
      return List.of(pods, configMaps, widgets);
    }

    void close() {
      factory.close();
      client.close();
    }
  }

  @BeforeEach
  void startServer() {
    server = EmbeddedApiServer.start();
    server.register(
        ServedResource.namespaced("example.com", "v1", "Widget", "widgets").withStatusSubresource());
  }

  @AfterEach
  void stop() {
    if (plain != null) {
      plain.close();
    }
    if (optimized != null) {
      optimized.close();
    }
    server.close();
  }

  @ParameterizedTest(name = "streamingList={0}")
  @ValueSource(booleans = {true, false})
  void bothModes_seeEqualEventsAndEndWithEqualCaches(boolean streamingList) throws Exception {
    List<Pod> pods = realisticPods();
    server.create(pods.get(0));
    server.create(pods.get(1));
    server.create(configMap("settings", "1"));
    server.create(widget("w1", 3));

    optimized = Mode.start(server, true, streamingList);
    plain = Mode.start(server, false, streamingList);
    assertThat(optimized.factory().waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    assertThat(plain.factory().waitForCacheSync(Duration.ofSeconds(30))).isTrue();

    // Watched changes: creates, updates, status updates, deletes (a pod on a node is only marked
    // for deletion, as by a real server, until its kubelet confirms it).
    server.create(pods.get(2));
    Pod first = server.get(Pod.class, "default", name(pods.get(0))).orElseThrow();
    server.update(new PodBuilder(first).editMetadata().addToLabels("stage", "canary")
        .addToAnnotations("note", "edited").endMetadata().build());
    first = server.get(Pod.class, "default", name(pods.get(0))).orElseThrow();
    server.updateStatus(JSON.writeValueAsString(new PodBuilder(first).editStatus()
        .addNewCondition().withType("Checked").withStatus("True").endCondition()
        .endStatus().build()));
    ConfigMap settings = server.get(ConfigMap.class, "default", "settings").orElseThrow();
    server.update(new ConfigMapBuilder(settings).addToData("extra", "x")
        .addToBinaryData("blob", base64("changed bytes")).build());
    GenericKubernetesResource w1 = JSON.readValue(
        server.get("example.com/v1", "Widget", "default", "w1").orElseThrow(),
        GenericKubernetesResource.class);
    w1.getAdditionalProperties().put("status", Map.of("ready", true, "observed", 7));
    server.updateStatus(JSON.writeValueAsString(w1));
    server.create(widget("w2", 5));
    server.delete("v1", "Pod", "default", name(pods.get(1)));
    awaitEveryInformerHas("mark-1");

    // Changes made while both clients are cut off, with the history compacted after them: the
    // informers learn of them only by relisting.
    server.faults().partition(Mode.agent(true), 503);
    server.faults().partition(Mode.agent(false), 503);
    server.faults().resetAllWatches();
    Pod third = server.get(Pod.class, "default", name(pods.get(2))).orElseThrow();
    server.update(new PodBuilder(third).editSpec().withActiveDeadlineSeconds(600L).endSpec()
        .build());
    server.delete("v1", "ConfigMap", "default", "mark-1");
    server.delete("v1", "Pod", "default", "mark-1");
    server.create(configMap("late", "2"));
    server.delete("example.com/v1", "Widget", "default", "w2");
    long relistedAt = server.resourceVersion();
    server.faults().compactHistory();
    server.faults().heal(Mode.agent(true));
    server.faults().heal(Mode.agent(false));
    await().atMost(Duration.ofSeconds(30)).until(() -> informers().allMatch(
        w -> Long.parseLong(w.informer().lastSyncResourceVersion()) >= relistedAt));

    // Watched again after the relist.
    server.delete("v1", "Pod", "default", name(pods.get(0)));
    awaitEveryInformerHas("mark-2");

    for (int i = 0; i < 3; i++) {
      Watched<?> a = optimized.all().get(i);
      Watched<?> b = plain.all().get(i);
      assertThat(b.events()).as(a.informer().name()).hasSameSizeAs(a.events())
          .isEqualTo(a.events());
      assertThat(b.cache()).as(a.informer().name()).isNotEmpty().isEqualTo(a.cache());
    }
    assertThat(optimized.pods().cache()).extracting(DecodingOptimizationsInformerTest::name)
        .containsExactlyInAnyOrder(name(pods.get(0)), name(pods.get(1)), name(pods.get(2)),
            "mark-2");
    assertThat(optimized.configMaps().cache()).extracting(DecodingOptimizationsInformerTest::name)
        .containsExactly("late", "mark-2", "settings");
    assertThat(optimized.widgets().cache()).extracting(DecodingOptimizationsInformerTest::name)
        .containsExactly("mark-1", "mark-2", "w1");
    // Every kind of event was seen, the relisted changes included.
    assertThat(plain.all()).allSatisfy(w -> assertThat(w.events()).extracting(Event::type)
        .contains("ADD", "UPDATE", "DELETE"));
    assertThat(plain.pods().events()).filteredOn(e -> e.type().equals("UPDATE"))
        .extracting(e -> ((Pod) e.object()).getSpec().getActiveDeadlineSeconds())
        .contains(600L);
  }

  @Test
  void clientWithoutOptimizations_sharesNoStringsBetweenCachedObjects() {
    List<Pod> pods = realisticPods();
    server.create(pods.get(0));
    server.create(pods.get(1));
    optimized = Mode.start(server, true, true);
    plain = Mode.start(server, false, true);
    assertThat(optimized.factory().waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    assertThat(plain.factory().waitForCacheSync(Duration.ofSeconds(30))).isTrue();

    List<String> shared = appLabelsOf(optimized);
    assertThat(shared).hasSize(2);
    assertThat(shared.get(0)).isEqualTo(shared.get(1)).isSameAs(shared.get(1));
    List<String> separate = appLabelsOf(plain);
    assertThat(separate).hasSize(2);
    assertThat(separate.get(0)).isEqualTo(separate.get(1)).isNotSameAs(separate.get(1));
    assertThat(ClientOptions.defaults().decodingOptimizations()).isTrue();
    assertThat(plain.client().options().toBuilder().build().decodingOptimizations()).isFalse();
  }

  /** The {@code app} label of each cached pod, in key order. */
  private static List<String> appLabelsOf(Mode mode) {
    return mode.pods().cache().stream().map(p -> p.getMetadata().getLabels().get("app")).toList();
  }

  private void awaitEveryInformerHas(String marker) {
    server.create(new PodBuilder().withNewMetadata().withName(marker).withNamespace("default")
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("i").endContainer()
        .endSpec().build());
    server.create(configMap(marker, "0"));
    server.create(widget(marker, 0));
    await().atMost(Duration.ofSeconds(30))
        .until(() -> informers().allMatch(w -> w.lastEventAdds(marker)));
  }

  /** The informers of both modes. */
  private Stream<Watched<?>> informers() {
    return Stream.concat(optimized.all().stream(), plain.all().stream());
  }

  /** Pods with many fields (managed fields, probes, resources, status), in namespace default. */
  private static List<Pod> realisticPods() {
    PodList list = JSON.readValue(
        CodecTranscripts.read("list-generated-realistic-pods.json"), PodList.class);
    return list.getItems().stream()
        .map(p -> new PodBuilder(p).editMetadata().withNamespace("default").withUid(null)
            .withResourceVersion(null).endMetadata().build())
        .toList();
  }

  private static ConfigMap configMap(String name, String value) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace("default")
        .addToLabels("app", "web").endMetadata()
        .addToData("value", value)
        .addToBinaryData("bytes", base64("\u0000\u0001 binary " + value))
        .build();
  }

  private static GenericKubernetesResource widget(String name, int size) {
    return new GenericKubernetesResourceBuilder().withApiVersion("example.com/v1")
        .withKind("Widget").withNewMetadata().withName(name).withNamespace("default")
        .addToLabels("app", "web").endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", size, "tags", List.of("a", "b"),
            "template", Map.of("image", "registry.example.com/shop/web:1.0", "ports",
                List.of(Map.of("port", 80)))))
        .build();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String name(HasMetadata o) {
    return Objects.requireNonNull(o.getMetadata().getName());
  }
}

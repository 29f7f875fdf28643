package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.InformerMetricsProvider;
import io.kinformer.cache.InformerMetricsProvider.InformerId;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The factory and its informers over real HTTP against the embedded API server. */
class SharedInformerFactoryTest {

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server =
        EmbeddedApiServer.builder()
            .resource(ServedResource.namespaced("example.com", "v1", "Widget", "widgets"))
            .start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
  }

  @AfterEach
  void stop() {
    if (factory != null) {
      factory.close();
    }
    client.close();
    server.close();
  }

  private static Pod pod(String ns, String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  /** Replays a handler's calls into a map of key → resourceVersion. */
  static final class View<T extends io.fabric8.kubernetes.api.model.HasMetadata>
      implements ResourceEventHandler<T> {
    final Map<String, String> objects = new ConcurrentHashMap<>();
    final List<String> deletions = new CopyOnWriteArrayList<>();

    @Override
    public void onAdd(T obj, boolean isInInitialList) {
      objects.put(Keys.metaNamespaceKey(obj), obj.getMetadata().getResourceVersion());
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      objects.put(Keys.metaNamespaceKey(newObj), newObj.getMetadata().getResourceVersion());
    }

    @Override
    public void onDelete(T obj, boolean finalStateUnknown) {
      objects.remove(Keys.metaNamespaceKey(obj));
      deletions.add(Keys.metaNamespaceKey(obj) + (finalStateUnknown ? " unknown" : ""));
    }
  }

  /** The server's pods, read in-process (not over HTTP, so that request counters stay ours). */
  private Map<String, String> serverPods() {
    Map<String, String> m = new TreeMap<>();
    for (String json : server.list("v1", "Pod", null)) {
      JsonNode meta = JSON.readTree(json).path("metadata");
      m.put(
          meta.path("namespace").asString() + "/" + meta.path("name").asString(),
          meta.path("resourceVersion").asString());
    }
    return m;
  }

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void informerFor_sameKey_returnsOneInformerWithOneWatch() {
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> a = factory.informerFor(Pod.class);
    SharedIndexInformer<Pod> b = factory.informerFor(Pod.class);
    SharedIndexInformer<Pod> other =
        factory.informerFor(Pod.class, SharedInformerFactory.InformerOptions.inNamespace("default"));
    assertThat(a).isSameAs(b).isNotSameAs(other);

    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(() -> server.faults().openWatches("pods") == 2);
    // One streaming list each, whose watch goes on: no list, no second watch.
    assertThat(server.faults().streamingListCount("pods")).isEqualTo(2);
    assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isEqualTo(2);
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();
  }

  @Test
  void metrics_eachInformerPublishesUnderItsNameAndResource() {
    List<String> published = new CopyOnWriteArrayList<>();
    InformerMetricsProvider recording =
        new InformerMetricsProvider() {
          private GaugeMetric record(String metric, InformerId id) {
            published.add(metric + " " + id);
            return v -> {};
          }

          @Override
          public GaugeMetric newQueuedItemMetric(InformerId id) {
            return record("queued", id);
          }

          @Override
          public HistogramMetric newProcessingLatencyMetric(InformerId id) {
            record("latency", id);
            return v -> {};
          }

          @Override
          public GaugeMetric newStoreResourceVersionMetric(InformerId id) {
            return record("rv", id);
          }
        };
    factory = SharedInformerFactory.builder(client).metrics(recording).build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    SharedIndexInformer<GenericKubernetesResource> widgets =
        factory.informerFor(Gvr.of("example.com", "v1", "widgets"));

    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    InformerId podsId = new InformerId(pods.name(), "", "v1", "pods");
    InformerId widgetsId = new InformerId(widgets.name(), "example.com", "v1", "widgets");
    assertThat(published)
        .containsExactlyInAnyOrder(
            "rv " + podsId, "queued " + podsId, "latency " + podsId,
            "rv " + widgetsId, "queued " + widgetsId, "latency " + widgetsId);
  }

  @Test
  void typedAndDynamicInformersOfOneResource_areEachReportedBySyncAndListedByName() {
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> typed = factory.informerFor(Pod.class);
    SharedIndexInformer<GenericKubernetesResource> dynamic =
        factory.informerFor(Gvr.of("", "v1", "pods"));
    assertThat(typed).isNotSameAs(dynamic);
    assertThat(typed.name()).isNotEqualTo(dynamic.name());

    factory.start();
    // client-go keys WaitForCacheSync's result by type: one entry per informer. Keyed by a shared
    // name, one informer's result overwrote the other's (an unsynced cache could read as synced).
    assertThat(factory.waitForCacheSyncByInformer(Duration.ofSeconds(20)))
        .hasSize(2)
        .containsOnlyKeys(typed.name(), dynamic.name())
        .doesNotContainValue(false);
    assertThat(factory.informers()).hasSize(2).containsValues(typed, dynamic);
  }

  @Test
  void emptyNamespaceAndSelectors_meanAll_asClientGosNamespaceAll_andShareOneInformer() {
    client.resources(Pod.class).inNamespace("default").create(pod("default", "a", Map.of()));
    // A controller passing its --namespace flag through, empty for "all namespaces".
    factory = SharedInformerFactory.builder(client).namespace("").build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    assertThat(factory.informerFor(Pod.class, new SharedInformerFactory.InformerOptions("", "", "")))
        .isSameAs(pods)
        .isSameAs(factory.informerFor(Pod.class, SharedInformerFactory.InformerOptions.all()));

    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(pods.getIndexer().listKeys()).contains("default/a");
  }

  @Test
  void transform_changesCollectionsInPlace_andTheCachedObjectIsReadOnly() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    Pod twoContainers = pod("default", "a", Map.of("app", "web"));
    twoContainers.getSpec().getContainers().add(
        new io.fabric8.kubernetes.api.model.ContainerBuilder()
            .withName("sidecar").withImage("busybox").build());
    pods.create(twoContainers);
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    informer.setTransform(p -> {
      p.getMetadata().getLabels().put("seen", "yes"); // a small map
      p.getMetadata().getAnnotations().put("note", "n"); // an empty map
      p.getSpec().getContainers().removeIf(c -> c.getName().equals("sidecar"));
      p.getSpec().getContainers().get(0).getEnv().add( // an empty list
          new io.fabric8.kubernetes.api.model.EnvVar("E", "v", null));
      return p;
    });
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    Pod cached = informer.getIndexer().getByKey("default/a").orElseThrow();
    assertThat(cached.getMetadata().getLabels()).containsEntry("app", "web")
        .containsEntry("seen", "yes");
    assertThat(cached.getMetadata().getAnnotations()).containsEntry("note", "n");
    assertThat(cached.getSpec().getContainers()).extracting(c -> c.getName()).containsExactly("c");
    assertThat(cached.getSpec().getContainers().get(0).getEnv()).hasSize(1);
    List<Runnable> changes = List.of(
        () -> cached.getMetadata().getLabels().put("x", "y"),
        () -> cached.getMetadata().getFinalizers().add("f"),
        () -> cached.getMetadata().getFinalizers().clear(),
        () -> cached.getSpec().getContainers().remove(0),
        () -> cached.getSpec().getContainers().get(0).getEnv().clear(),
        () -> cached.getSpec().getTolerations().clear());
    for (Runnable change : changes) {
      org.assertj.core.api.Assertions.assertThatThrownBy(change::run)
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void typedInformer_syncsAndFollowsCreatesUpdatesDeletes() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    pods.create(pod("default", "before", Map.of("app", "web")));
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSyncByInformer(Duration.ofSeconds(20))).containsValue(true);

    pods.create(pod("default", "a", Map.of("app", "web")));
    Pod a = pods.get("a").orElseThrow();
    a.getMetadata().setLabels(Map.of("app", "db"));
    pods.update(a);
    pods.delete("before");

    await().until(() -> view.objects.equals(serverPods()));
    assertThat(informer.getIndexer().getByKey("default/a").orElseThrow().getMetadata().getLabels())
        .containsEntry("app", "db");
    assertThat(view.deletions).containsExactly("default/before");
    assertThat(informer.getIndexer().getByKey("default/a").orElseThrow().getKind()).isEqualTo("Pod");
  }

  @Test
  void dynamicInformer_forACustomResource() {
    ResourceClient<GenericKubernetesResource> widgets =
        client.resources(Gvr.of("example.com", "v1", "widgets")).inNamespace("default");
    widgets.create(
        new GenericKubernetesResourceBuilder()
            .withApiVersion("example.com/v1")
            .withKind("Widget")
            .withNewMetadata()
            .withName("w1")
            .withNamespace("default")
            .endMetadata()
            .addToAdditionalProperties("spec", Map.of("size", 3))
            .build());
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<GenericKubernetesResource> informer =
        factory.informerFor(Gvr.of("example.com", "v1", "widgets"));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    GenericKubernetesResource w = informer.getIndexer().getByKey("default/w1").orElseThrow();
    assertThat(w.getKind()).isEqualTo("Widget");
    assertThat(w.getAdditionalProperties().get("spec")).isEqualTo(Map.of("size", 3));
  }

  @Test
  void dynamicInformer_forAResourceAddedLaterToAGroupVersionAlreadyDiscovered() {
    factory = SharedInformerFactory.builder(client).build();
    factory.informerFor(Gvr.of("example.com", "v1", "widgets"));
    // A second CRD of the same group-version, installed after the first discovery.
    server.register(ServedResource.namespaced("example.com", "v1", "Gadget", "gadgets"));
    client.resources(ResourceType.dynamic(
            Gvr.of("example.com", "v1", "gadgets"), "Gadget", true))
        .inNamespace("default")
        .create(new GenericKubernetesResourceBuilder()
            .withApiVersion("example.com/v1").withKind("Gadget")
            .withNewMetadata().withName("g1").withNamespace("default").endMetadata()
            .build());

    SharedIndexInformer<GenericKubernetesResource> gadgets =
        factory.informerFor(Gvr.of("example.com", "v1", "gadgets"));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(gadgets.getIndexer().listKeys()).containsExactly("default/g1");
  }

  @Test
  void metadataInformer_cachesOnlyMetadata() {
    client
        .resources(ConfigMap.class)
        .inNamespace("default")
        .create(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("cm")
                .withNamespace("default")
                .withLabels(Map.of("k", "v"))
                .endMetadata()
                .withData(Map.of("big", "x".repeat(1000)))
                .build());
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<PartialObjectMetadata> informer =
        factory.metadataInformerFor(Gvr.of("", "v1", "configmaps"));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    PartialObjectMetadata cm = informer.getIndexer().getByKey("default/cm").orElseThrow();
    assertThat(cm.getMetadata().getLabels()).containsEntry("k", "v");
    assertThat(cm.getKind()).isEqualTo("PartialObjectMetadata");

    View<PartialObjectMetadata> view = new View<>();
    informer.addEventHandler(view);
    ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class).inNamespace("default");
    ConfigMap changed = cms.get("cm").orElseThrow();
    changed.getMetadata().setLabels(Map.of("k", "w"));
    cms.update(changed);
    await().until(
        () -> "w".equals(
            informer.getIndexer().getByKey("default/cm").orElseThrow().getMetadata().getLabels().get("k")));
    cms.delete("cm");
    await().until(() -> view.deletions.contains("default/cm"));
    assertThat(informer.getIndexer().listKeys()).doesNotContain("default/cm");
  }

  @Test
  void labelSelector_limitsTheCacheAndTransitionsAreDelivered() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    pods.create(pod("default", "web", Map.of("app", "web")));
    pods.create(pod("default", "db", Map.of("app", "db")));
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer =
        factory.informerFor(Pod.class, SharedInformerFactory.InformerOptions.all().withLabelSelector("app=web"));
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(informer.getIndexer().listKeys()).containsExactly("default/web");

    Pod db = pods.get("db").orElseThrow();
    db.getMetadata().setLabels(Map.of("app", "web"));
    pods.update(db);
    await().until(() -> view.objects.containsKey("default/db"));
    Pod web = pods.get("web").orElseThrow();
    web.getMetadata().setLabels(Map.of("app", "other"));
    pods.update(web);
    await().until(() -> !view.objects.containsKey("default/web"));
  }

  @Test
  void streamingListRefused_asByAServerWithoutWatchList_fallsBackToAListEachCycle() {
    server.faults().refuseStreamingLists(true);
    client.resources(Pod.class).inNamespace("default").create(pod("default", "a", Map.of()));
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    factory.start();

    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(informer.getIndexer().listKeys()).containsExactly("default/a");
    assertThat(server.faults().streamingListCount("pods")).isEqualTo(1);
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isEqualTo(1);
  }

  @Test
  void brokenWatch_resumesFromLastRvWithoutRelisting() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    pods.create(pod("default", "a", Map.of()));
    await().until(() -> view.objects.containsKey("default/a"));

    server.faults().resetAllWatches();
    pods.create(pod("default", "b", Map.of()));
    // The new watch has brought b: ended now, it is not a very short watch (which would relist).
    await().until(() -> view.objects.containsKey("default/b"));
    server.faults().closeAllWatches();
    pods.create(pod("default", "c", Map.of()));

    await().atMost(Duration.ofSeconds(30)).until(() -> view.objects.equals(serverPods()));
    assertThat(server.faults().streamingListCount("pods")).isEqualTo(1);
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();
    assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isGreaterThanOrEqualTo(3);
  }

  @Test
  void compaction_relistsAndReportsMissedDeletionsAsFinalStateUnknown() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    pods.create(pod("default", "stays", Map.of()));
    pods.create(pod("default", "goes", Map.of()));
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    // Keep the informer away while the deletion happens and history is compacted: every watch
    // fails until then, however slowly this test's steps run (one failure was not enough on a
    // loaded machine: the informer's retry could arrive before the compaction).
    server.faults().failNext(Verb.WATCH, "pods", Integer.MAX_VALUE, 500);
    // The reset is asynchronous, and a watch request already past the failure check when it was
    // armed (the informer's first watch starts right after the sync) registers only after a
    // reset went through the open watches: reset until none is open, so that no old watch can
    // carry the deletion.
    await().until(() -> {
      server.faults().resetAllWatches();
      return server.faults().openWatches("pods") == 0;
    });
    pods.delete("goes");
    pods.create(pod("default", "new", Map.of()));
    server.faults().compactHistory();
    server.faults().clearFailures();

    await().atMost(Duration.ofSeconds(60)).until(() -> view.objects.equals(serverPods()));
    assertThat(view.deletions).containsExactly("default/goes unknown");
    // Each failed watch ends a cycle; the next streams the full state, or lists it when the
    // streaming list is refused too.
    assertThat(server.faults().streamingListCount("pods")
        + server.faults().requestCount(Verb.LIST, "pods")).isGreaterThanOrEqualTo(2);
  }

  @Test
  void malformedWatchBytes_endThatWatchAndTheInformerRelists() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    pods.create(pod("default", "a", Map.of()));
    await().until(() -> view.objects.containsKey("default/a"));

    server.faults().writeToWatches("pods", "{\"type\":\"ADDED\",\"object\":{oops\n");
    pods.create(pod("default", "b", Map.of()));
    await().atMost(Duration.ofSeconds(30)).until(() -> view.objects.equals(serverPods()));
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("default/a", "default/b");
    // As client-go: a stream it cannot decode is followed by a relist (a second streaming list),
    // not by a re-watch from the same resourceVersion (which would replay the bad event).
    assertThat(server.faults().streamingListCount("pods")).isEqualTo(2);
  }

  @Test
  void transform_stripManagedFields_appliesToEveryInformer() {
    Pod p = pod("default", "a", Map.of());
    p.getMetadata().setManagedFields(List.of(new ManagedFieldsEntryBuilder().withManager("me").withOperation("Update").build()));
    client.resources(Pod.class).inNamespace("default").create(p);
    factory = SharedInformerFactory.builder(client).transform(Transforms.stripManagedFields()).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(informer.getIndexer().getByKey("default/a").orElseThrow().getMetadata().getManagedFields())
        .isNullOrEmpty();
  }

  @Test
  void startAgain_startsInformersRequestedLater_andCloseStopsAll() {
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    factory.start();
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    assertThat(cms.isStarted()).isFalse();
    factory.start();
    assertThat(cms.isStarted()).isTrue();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    factory.close();
    assertThat(pods.isStopped()).isTrue();
    assertThat(cms.isStopped()).isTrue();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .filteredOn(n -> n.startsWith("kinformer-v1/") || n.startsWith("kinformer-delivery"))
        .isEmpty();
    assertThatIllegalStateException().isThrownBy(() -> factory.informerFor(Pod.class));
  }

  @Test
  void dynamicAndMetadataInformerFor_afterClose_isIllegalState_withoutAskingTheServer() {
    factory = SharedInformerFactory.builder(client).build();
    factory.close();
    server.close(); // discovery would now fail with an I/O error rather than the closed state

    Gvr widgets = Gvr.of("example.com", "v1", "widgets");
    assertThatIllegalStateException().isThrownBy(() -> factory.informerFor(widgets));
    assertThatIllegalStateException().isThrownBy(() -> factory.metadataInformerFor(widgets));
  }

  @Test
  void resyncPerResource_overridesTheDefaultForThatResourceOnly() {
    client.resources(Pod.class).inNamespace("default").create(pod("default", "p", Map.of()));
    client.resources(ConfigMap.class).inNamespace("default")
        .create(new ConfigMapBuilder().withNewMetadata().withName("c").endMetadata().build());
    io.kinformer.time.testing.FakeClock clock = new io.kinformer.time.testing.FakeClock();
    factory = SharedInformerFactory.builder(client)
        .clock(clock)
        .scheduler(clock)
        .defaultResync(Duration.ofHours(1))
        .resync(Gvr.of("", "v1", "pods"), Duration.ofMinutes(1))
        .build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    AtomicInteger podResyncs = new AtomicInteger();
    AtomicInteger cmResyncs = new AtomicInteger();
    pods.addEventHandler(new ResourceEventHandler<Pod>() {
      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        if (oldObj == newObj) {
          podResyncs.incrementAndGet();
        }
      }
    });
    cms.addEventHandler(new ResourceEventHandler<ConfigMap>() {
      @Override
      public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
        if (oldObj == newObj) {
          cmResyncs.incrementAndGet();
        }
      }
    });
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    clock.advance(Duration.ofMinutes(1));
    await().until(() -> podResyncs.get() > 0);
    assertThat(cmResyncs).hasValue(0);
    clock.advance(Duration.ofMinutes(59));
    await().until(() -> cmResyncs.get() > 0);
  }

  @Test
  void watchErrorHandler_sharedByTheInformers_isCalledOneAtATime() throws Exception {
    // The streaming lists fail, which each reflector reports before listing instead.
    server.faults().failNext(Verb.WATCH, "pods", 1, 500);
    server.faults().failNext(Verb.WATCH, "configmaps", 1, 500);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Map<String, Thread> callers = new ConcurrentHashMap<>();
    factory = SharedInformerFactory.builder(client)
        .watchErrorHandler(error -> {
          maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
          callers.putIfAbsent("first", Thread.currentThread());
          if (callers.get("first") == Thread.currentThread()) {
            try {
              release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          inside.decrementAndGet();
        })
        .build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    factory.start();

    // Until the second reflector is either inside the handler (two at once) or waiting for its turn.
    await().until(() -> maxInside.get() == 2 || Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(e -> e.getKey() != callers.get("first")
            && e.getKey().getName().endsWith("-reflector")
            && java.util.Arrays.stream(e.getValue())
                .anyMatch(f -> f.getClassName().startsWith(SharedInformerFactory.class.getName()))));
    release.countDown();

    assertThat(maxInside).as("calls to WatchErrorHandler overlapped").hasValue(1);
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(pods.hasSynced() && cms.hasSynced()).isTrue();
  }

  @Test
  void close_fromTheWatchErrorHandler_whileAnotherReflectorWaitsItsTurn_doesNotWaitForIt()
      throws Exception {
    server.faults().failNext(Verb.WATCH, "pods", 1, 500);
    server.faults().failNext(Verb.WATCH, "configmaps", 1, 500);
    CompletableFuture<Void> closedInHandler = new CompletableFuture<>();
    Map<String, Thread> callers = new ConcurrentHashMap<>();
    factory = SharedInformerFactory.builder(client)
        .watchErrorHandler(error -> {
          Thread me = Thread.currentThread();
          if (callers.putIfAbsent("first", me) != null) {
            return;
          }
          await().atMost(Duration.ofSeconds(20)).until(() -> Thread.getAllStackTraces().entrySet()
              .stream()
              .anyMatch(e -> e.getKey() != me
                  && e.getKey().getName().endsWith("-reflector")
                  && java.util.Arrays.stream(e.getValue()).anyMatch(
                      f -> f.getClassName().startsWith(SharedInformerFactory.class.getName()))));
          factory.close(); // joins the other reflector, which waits for this call to end
          closedInHandler.complete(null);
        })
        .build();
    factory.informerFor(Pod.class);
    factory.informerFor(ConfigMap.class);
    factory.start();

    closedInHandler.get(20, TimeUnit.SECONDS); // the join would otherwise last its 30 s limit
    await().untilAsserted(
        () -> assertThat(Thread.getAllStackTraces().keySet())
            .extracting(Thread::getName)
            .filteredOn(n -> n.startsWith("kinformer-v1/") || n.startsWith("kinformer-delivery"))
            .isEmpty());
  }

  @Test
  void start_afterAnInformerWasClosedOnItsOwn_startsTheOthersAndLeavesThatOneClosed() {
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    factory.start();
    await().until(pods::hasSynced);
    pods.close();

    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    factory.start(); // as client-go's factory: a stopped informer is not run again, nor an error
    assertThat(cms.isStarted()).isTrue();
    await().until(cms::hasSynced);
    assertThat(pods.isStopped()).isTrue();
  }

  @Test
  void close_fromAHandler_returnsOnceTheOtherThreadsAreGone() throws Exception {
    client.resources(ConfigMap.class).inNamespace("default")
        .create(new ConfigMapBuilder().withNewMetadata().withName("trigger").endMetadata().build());
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    CompletableFuture<Void> closedInHandler = new CompletableFuture<>();
    cms.addEventHandler(
        new ResourceEventHandler<ConfigMap>() {
          @Override
          public void onAdd(ConfigMap obj, boolean isInInitialList) {
            factory.close(); // must not wait for this very thread (that would stall for 30 s)
            closedInHandler.complete(null);
          }
        });
    factory.start();

    closedInHandler.get(10, TimeUnit.SECONDS);
    assertThat(cms.isStopped()).isTrue();
    await().untilAsserted(
        () -> assertThat(Thread.getAllStackTraces().keySet())
            .extracting(Thread::getName)
            .filteredOn(n -> n.startsWith("kinformer-v1/") || n.startsWith("kinformer-delivery"))
            .isEmpty());
  }

  @Test
  void close_calledTwiceConcurrently_secondCallReturnsOnlyOnceEverythingStopped() throws Exception {
    client.resources(ConfigMap.class).inNamespace("default")
        .create(new ConfigMapBuilder().withNewMetadata().withName("slow").endMetadata().build());
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    java.util.concurrent.CountDownLatch inHandler = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean handlerReturned =
        new java.util.concurrent.atomic.AtomicBoolean();
    cms.addEventHandler(
        new ResourceEventHandler<ConfigMap>() {
          @Override
          public void onAdd(ConfigMap obj, boolean isInInitialList) {
            inHandler.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            handlerReturned.set(true);
          }
        });
    factory.start();
    assertThat(inHandler.await(20, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Void> first = CompletableFuture.runAsync(factory::close);
    await().until(cms::isStopped); // the first close() is waiting for the handler
    CompletableFuture<Boolean> second = new CompletableFuture<>();
    Thread secondCaller = new Thread(() -> {
      factory.close();
      second.complete(handlerReturned.get());
    }, "second-close");
    secondCaller.start();
    await().until(() -> second.isDone()
        || secondCaller.getState() == Thread.State.WAITING
        || secondCaller.getState() == Thread.State.TIMED_WAITING);
    release.countDown();

    // client-go: "Shutdown may be called multiple times, even concurrently. All such calls will
    // block until all goroutines have terminated."
    assertThat(second.get(30, TimeUnit.SECONDS))
        .as("the second close() returned while a handler of the factory was still running")
        .isTrue();
    first.get(30, TimeUnit.SECONDS);
  }

  @Test
  void informers_deliverOnOneSharedPool_withFewerThreadsThanHandlers() {
    for (int i = 0; i < 5; i++) {
      client.resources(Pod.class).inNamespace("default").create(pod("default", "p" + i, Map.of()));
      client
          .resources(ConfigMap.class)
          .inNamespace("default")
          .create(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withNamespace("default")
                  .withName("c" + i)
                  .endMetadata()
                  .build());
    }
    factory = SharedInformerFactory.builder(client).build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
    int handlersEach = 20;
    Map<String, Boolean> threads = new ConcurrentHashMap<>();
    AtomicInteger adds = new AtomicInteger();
    for (int h = 0; h < handlersEach; h++) {
      pods.addEventHandler(
          new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod obj, boolean isInInitialList) {
              threads.put(Thread.currentThread().getName(), true);
              adds.incrementAndGet();
            }
          });
      configMaps.addEventHandler(
          new ResourceEventHandler<ConfigMap>() {
            @Override
            public void onAdd(ConfigMap obj, boolean isInInitialList) {
              threads.put(Thread.currentThread().getName(), true);
              adds.incrementAndGet();
            }
          });
    }
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    // At least the 5 of each we created (the server may hold a few objects of its own).
    await().until(() -> adds.get() >= 2 * handlersEach * 5);

    // The exact bound (one per processor) is DeliveryPoolTest's, on a fake clock; here the pool
    // runs on real time, so only what no stall compensation could change is asserted.
    assertThat(threads.keySet())
        .as("one pool shared by both informers, not one each")
        .allMatch(n -> n.matches("kinformer-delivery-\\d+"))
        .hasSizeLessThan(2 * handlersEach);
  }

  @Test
  void streamingList_syncsFromTheWatchAloneAndFollowsChanges() {
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");
    pods.create(pod("default", "a", Map.of()));
    pods.create(pod("default", "b", Map.of()));
    factory = SharedInformerFactory.builder(client).streamingList(true).build();
    SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    informer.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("default/a", "default/b");
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();

    pods.create(pod("default", "c", Map.of()));
    await().until(() -> view.objects.equals(serverPods()));
    assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isEqualTo(1);
  }
}

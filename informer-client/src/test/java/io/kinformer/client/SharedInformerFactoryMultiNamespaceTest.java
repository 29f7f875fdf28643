package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.IndexFunc;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.Keys;
import io.kinformer.cache.Lister;
import io.kinformer.cache.MultiNamespaceInformer;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.ResourceEventHandlerRegistration;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-namespace informers from the factory ({@link CacheOptions#namespaces()}), over real HTTP
 * against the embedded API server: five namespaces with two pods each, three of them watched.
 */
class SharedInformerFactoryMultiNamespaceTest {

  private static final List<String> NAMESPACES = List.of("n1", "n2", "n3", "n4", "n5");

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    for (String ns : NAMESPACES) {
      server.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
      server.create(pod(ns, "p0", "web"));
      server.create(pod(ns, "p1", "db"));
    }
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

  private static Pod pod(String ns, String name, String app) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withLabels(Map.of("app", app))
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  private SharedInformerFactory factoryOver(String... namespaces) {
    return SharedInformerFactory.builder(client)
        .defaultCacheOptions(CacheOptions.builder().namespaces(namespaces).build())
        .backoff(TestBackoffs.fast(1))
        .build();
  }

  /** The server's pods of these namespaces, key → resourceVersion, read in-process. */
  private Map<String, String> serverPods(Set<String> namespaces) {
    Map<String, String> m = new TreeMap<>();
    for (Pod p : server.list(Pod.class, null)) {
      if (namespaces.contains(p.getMetadata().getNamespace())) {
        m.put(Keys.metaNamespaceKey(p), p.getMetadata().getResourceVersion());
      }
    }
    return m;
  }

  private static List<String> threadNames() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
  }

  /** Replays a handler's calls into key → resourceVersion, and checks they never overlap. */
  static final class View<T extends HasMetadata> implements ResourceEventHandler<T> {
    final Map<String, String> objects = new ConcurrentHashMap<>();
    final List<String> deletions = new CopyOnWriteArrayList<>();
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();

    private void enter() {
      if (inside.incrementAndGet() > 1) {
        overlaps.incrementAndGet();
      }
      Thread.yield(); // widens the window in which an overlapping call would show
    }

    @Override
    public void onAdd(T obj, boolean isInInitialList) {
      enter();
      objects.put(Keys.metaNamespaceKey(obj), obj.getMetadata().getResourceVersion());
      inside.decrementAndGet();
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      enter();
      objects.put(Keys.metaNamespaceKey(newObj), newObj.getMetadata().getResourceVersion());
      inside.decrementAndGet();
    }

    @Override
    public void onDelete(T obj, boolean finalStateUnknown) {
      enter();
      objects.remove(Keys.metaNamespaceKey(obj));
      deletions.add(Keys.metaNamespaceKey(obj) + (finalStateUnknown ? " unknown" : ""));
      inside.decrementAndGet();
    }
  }

  @Test
  void threeOfFiveNamespaces_cacheOnlyTheirObjects_withOneWatchEachAndMergedReads() {
    factory = factoryOver("n3", "n1", "n2");
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    assertThat(pods).isInstanceOf(MultiNamespaceInformer.class);
    assertThat(factory.multiNamespaceInformerFor(Pod.class)).isSameAs(pods);
    MultiNamespaceInformer<Pod> multi = factory.multiNamespaceInformerFor(Pod.class);
    IndexFunc<Pod> byApp = p -> List.of(p.getMetadata().getLabels().get("app"));
    pods.addIndexer("byApp", byApp);

    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    assertThat(pods.name()).isEqualTo("v1/pods@{n1,n2,n3}");
    assertThat(factory.informers()).containsOnlyKeys("v1/pods@{n1,n2,n3}");
    assertThat(multi.namespaces()).containsExactly("n1", "n2", "n3");
    assertThat(multi.informerFor("n2").orElseThrow().name()).isEqualTo("v1/pods@n2");
    await().until(() -> server.faults().openWatches("pods") == 3);
    assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isEqualTo(3);
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();

    assertThat(pods.getIndexer().listKeys())
        .containsExactlyInAnyOrder("n1/p0", "n1/p1", "n2/p0", "n2/p1", "n3/p0", "n3/p1");
    assertThat(pods.getStore().getByKey("n2/p1")).isPresent();
    assertThat(pods.getStore().getByKey("n4/p1")).isEmpty();
    Lister<Pod> lister = pods.lister();
    assertThat(lister.namespace("n3").list()).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("p0", "p1");
    assertThat(lister.namespace("n4").list()).isEmpty();
    assertThat(lister.namespace("n1").get("p0")).isPresent();
    assertThat(pods.getIndexer().byIndex(Indexers.NAMESPACE, "n2")).hasSize(2);
    assertThat(pods.getIndexer().byIndex("byApp", "web")).extracting(Keys::metaNamespaceKey)
        .containsExactlyInAnyOrder("n1/p0", "n2/p0", "n3/p0");
    assertThat(pods.getIndexer().indexKeys("byApp", "db"))
        .containsExactly("n1/p1", "n2/p1", "n3/p1");
    assertThat(pods.getIndexer().listIndexFuncValues("byApp"))
        .containsExactlyInAnyOrder("web", "db");
    assertThat(pods.getIndexer().getIndexers()).containsKeys(Indexers.NAMESPACE, "byApp");
    assertThatIllegalArgumentException().isThrownBy(() -> pods.getIndexer().byIndex("nope", "x"));
  }

  @Test
  void handler_seesAddsUpdatesAndDeletesOfEveryWatchedNamespace_oneCallAtATime() {
    factory = factoryOver("n1", "n2", "n3");
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    View<Pod> view = new View<>();
    ResourceEventHandlerRegistration reg = pods.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(reg::hasSynced);
    assertThat(view.objects).isEqualTo(serverPods(Set.of("n1", "n2", "n3")));

    ResourceClient<Pod> n2 = client.resources(Pod.class).inNamespace("n2");
    n2.create(pod("n2", "new", "web"));
    Pod changed = client.resources(Pod.class).inNamespace("n3").get("p0").orElseThrow();
    changed.getMetadata().getLabels().put("tier", "front");
    client.resources(Pod.class).inNamespace("n3").update(changed);
    client.resources(Pod.class).inNamespace("n1").delete("p1");
    client.resources(Pod.class).inNamespace("n4").create(pod("n4", "unwatched", "web"));

    await().untilAsserted(
        () -> assertThat(view.objects).isEqualTo(serverPods(Set.of("n1", "n2", "n3"))));
    assertThat(view.deletions).containsExactly("n1/p1");
    assertThat(view.objects).doesNotContainKey("n4/unwatched");
    assertThat(pods.getIndexer().getByKey("n4/unwatched")).isEmpty();
    assertThat(view.overlaps).hasValue(0);
  }

  @Test
  void addAndRemoveNamespace_atRunTime_leaveTheOtherWatchesAlone() throws Exception {
    factory = factoryOver("n1", "n2", "n3");
    MultiNamespaceInformer<Pod> pods = factory.multiNamespaceInformerFor(Pod.class);
    View<Pod> view = new View<>();
    pods.addEventHandler(view);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(() -> server.faults().openWatches("pods") == 3);
    await().until(() -> view.objects.size() == 6);
    SharedIndexInformer<Pod> n1 = pods.informerFor("n1").orElseThrow();
    SharedIndexInformer<Pod> n2 = pods.informerFor("n2").orElseThrow();
    SharedIndexInformer<Pod> n3 = pods.informerFor("n3").orElseThrow();
    server.faults().resetCounters();

    assertThat(pods.addNamespace("n4")).isTrue();
    assertThat(pods.addNamespace("n4")).isFalse();
    await().untilAsserted(
        () -> assertThat(view.objects).isEqualTo(serverPods(Set.of("n1", "n2", "n3", "n4"))));
    assertThat(pods.hasSynced()).isTrue();
    assertThat(pods.getIndexer().getByKey("n4/p0")).isPresent();

    pods.removeNamespace("n1").get(20, TimeUnit.SECONDS);
    // The cache and the handler lost n1's objects, told as deletions of unknown final state.
    assertThat(pods.namespaces()).containsExactly("n2", "n3", "n4");
    assertThat(pods.getIndexer().listKeys()).noneMatch(k -> k.startsWith("n1/"));
    assertThat(view.objects).isEqualTo(serverPods(Set.of("n2", "n3", "n4")));
    assertThat(view.deletions).containsExactlyInAnyOrder("n1/p0 unknown", "n1/p1 unknown");
    assertThat(pods.removeNamespace("n1")).isCompleted();

    // n1's informer and its reflector thread ended; n4's informer made the only new watch
    // request, and n2's and n3's informers are the same ones, still running their first watch.
    assertThat(n1.isStopped()).isTrue();
    assertThat(threadNames()).noneMatch(n -> n.startsWith("kinformer-v1/pods@n1-"));
    assertThat(threadNames()).contains("kinformer-v1/pods@n2-reflector", "kinformer-v1/pods@n4-reflector");
    assertThat(server.faults().openWatches("pods")).isGreaterThanOrEqualTo(3);
    assertThat(server.faults().requestCount(Verb.WATCH, "pods")).isEqualTo(1);
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isZero();
    assertThat(pods.informerFor("n2")).containsSame(n2);
    assertThat(pods.informerFor("n3")).containsSame(n3);
    assertThat(n2.isStopped()).isFalse();

    // Live changes still arrive from the namespaces kept and the one added.
    client.resources(Pod.class).inNamespace("n4").create(pod("n4", "later", "web"));
    client.resources(Pod.class).inNamespace("n2").delete("p0");
    await().untilAsserted(
        () -> assertThat(view.objects).isEqualTo(serverPods(Set.of("n2", "n3", "n4"))));
    assertThat(view.overlaps).hasValue(0);
  }

  @Test
  void removeNamespace_thenAddItAgain_deliversTheDeletionsBeforeTheNewAdditions()
      throws Exception {
    factory = factoryOver("n1", "n2");
    MultiNamespaceInformer<Pod> pods = factory.multiNamespaceInformerFor(Pod.class);
    List<String> calls = new CopyOnWriteArrayList<>();
    pods.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj, boolean isInInitialList) {
            calls.add("add " + Keys.metaNamespaceKey(obj));
          }

          @Override
          public void onDelete(Pod obj, boolean finalStateUnknown) {
            calls.add("delete " + Keys.metaNamespaceKey(obj));
          }
        });
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(() -> calls.size() == 4);

    calls.clear();
    var removed = pods.removeNamespace("n1");
    pods.addNamespace("n1");
    removed.get(20, TimeUnit.SECONDS);
    await().until(() -> calls.size() == 4);

    assertThat(calls.subList(0, 2)).containsExactlyInAnyOrder("delete n1/p0", "delete n1/p1");
    assertThat(calls.subList(2, 4)).containsExactlyInAnyOrder("add n1/p0", "add n1/p1");
    await().until(pods::hasSynced);
  }

  @Test
  void close_stopsEveryNamespacesInformerAndItsThreads() {
    factory = factoryOver("n1", "n2", "n3");
    MultiNamespaceInformer<Pod> pods = factory.multiNamespaceInformerFor(Pod.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    pods.addNamespace("n5");
    await().until(pods::hasSynced);
    List<SharedIndexInformer<Pod>> parts =
        pods.namespaces().stream().map(ns -> pods.informerFor(ns).orElseThrow()).toList();

    factory.close();

    assertThat(pods.isStopped()).isTrue();
    assertThat(parts).hasSize(4).allSatisfy(p -> assertThat(p.isStopped()).isTrue());
    assertThat(threadNames())
        .filteredOn(n -> n.startsWith("kinformer-v1/") || n.startsWith("kinformer-delivery"))
        .isEmpty();
    assertThat(pods.synced()).isCompleted();
  }

  @Test
  void oneNamespace_isAPlainInformerUnlessAskedForAMultiNamespaceOne() {
    factory = factoryOver("n2");
    SharedIndexInformer<Pod> plain = factory.informerFor(Pod.class);
    MultiNamespaceInformer<Pod> multi = factory.multiNamespaceInformerFor(Pod.class);

    assertThat(plain).isNotInstanceOf(MultiNamespaceInformer.class);
    assertThat(plain.name()).isEqualTo("v1/pods@n2");
    assertThat(multi.name()).isEqualTo("v1/pods@{n2}");
    assertThat(multi.informerFor("n2").orElseThrow().name()).isEqualTo("v1/pods@n2#2");
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    assertThat(multi.getIndexer().listKeys()).containsExactlyInAnyOrder("n2/p0", "n2/p1");
  }

  @Test
  void multiNamespaceInformerFor_withoutNamespacesOrForAClusterScopedResource_isRefused() {
    factory = SharedInformerFactory.builder(client).build();
    assertThatIllegalArgumentException()
        .isThrownBy(() -> factory.multiNamespaceInformerFor(Pod.class))
        .withMessageContaining("no namespaces configured for v1/pods");

    factory.close();
    factory = factoryOver("n1", "n2");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> factory.multiNamespaceInformerFor(Namespace.class))
        .withMessageContaining("cluster-scoped");
    // Cluster-scoped resources ignore the namespaces: one informer over all of them.
    SharedIndexInformer<Namespace> all = factory.informerFor(Namespace.class);
    assertThat(all).isNotInstanceOf(MultiNamespaceInformer.class);
    assertThat(all.name()).isEqualTo("v1/namespaces");
  }

  @Test
  void resourceVersionSeen_waitsOnTheKeysNamespace_andRefusesKeysItCannotRoute() {
    factory = factoryOver("n1", "n2");
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    Pod created = client.resources(Pod.class).inNamespace("n2").create(pod("n2", "rv", "web"));
    pods.resourceVersionSeen("n2/rv", created.getMetadata().getResourceVersion())
        .orTimeout(20, TimeUnit.SECONDS)
        .join();
    assertThat(pods.getIndexer().getByKey("n2/rv")).isPresent();

    assertThatIllegalArgumentException()
        .isThrownBy(() -> pods.resourceVersionSeen(null, "5"))
        .withMessageContaining("namespace/name key");
    assertThat(pods.resourceVersionSeen("n4/x", "5"))
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withMessageContaining("does not watch the namespace of key n4/x");
  }
}

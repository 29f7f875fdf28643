package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.EventFilter;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.cache.IndexFunc;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.Informers;
import io.kinformer.cache.Keys;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.Lister;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.ResourceEventHandlerRegistration;
import io.kinformer.cache.ResourceEventHandlers;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.WorkQueue;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The core snippets of docs/user-guide.md, compiled and run against an in-memory {@link
 * FakeListerWatcher}; {@link DocSnippetsTest} checks that the page shows this exact code.
 */
class UserGuideExamplesTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final FakeListerWatcher<Pod> source =
      new FakeListerWatcher<>(
          rv -> new PodBuilder().withNewMetadata().withResourceVersion(rv).endMetadata().build());
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  // ---- the snippets --------------------------------------------------------------------------

  static SharedIndexInformer<Pod> standaloneInformer(ListerWatcher<Pod> listerWatcher) {
    // tag::standalone-informer[]
    IndexFunc<Pod> byNode =
        pod -> {
          String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
          return node == null ? List.of() : List.of(node);
        };
    SharedIndexInformer<Pod> pods =
        SharedIndexInformer.builder("pods", listerWatcher) // any ListerWatcher<Pod>
            .defaultResync(Duration.ZERO) // no periodic resync unless a handler asks
            .index("byNode", byNode)
            .build();
    // end::standalone-informer[]
    return pods;
  }

  static ResourceEventHandlerRegistration addHandler(
      SharedIndexInformer<Pod> pods, WorkQueue<String> queue) {
    // tag::handler[]
    ResourceEventHandlerRegistration registration =
        pods.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod pod, boolean isInInitialList) {
                queue.add(Keys.metaNamespaceKey(pod));
              }

              @Override
              public void onUpdate(Pod oldPod, Pod newPod) {
                queue.add(Keys.metaNamespaceKey(newPod));
              }

              @Override
              public void onDelete(Pod pod, boolean finalStateUnknown) {
                // finalStateUnknown: the watch missed the deletion and a relist found the
                // object gone; pod is the last state the cache knew.
                queue.add(Keys.metaNamespaceKey(pod));
              }
            });
    // end::handler[]
    return registration;
  }

  static boolean startAndSync(SharedIndexInformer<Pod> pods) throws InterruptedException {
    // tag::start-and-sync[]
    pods.start(); // returns at once; thread kinformer-pods-reflector, processing on the pool
    if (!pods.awaitSynced(Duration.ofSeconds(30))) {
      throw new IllegalStateException("pods did not sync in 30 s: see docs/troubleshooting.md");
    }
    // end::start-and-sync[]
    return pods.hasSynced();
  }

  static ResourceEventHandlerRegistration lateHandler(
      SharedIndexInformer<Pod> pods, List<String> running) {
    // tag::late-handler[]
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod, boolean isInInitialList) {
            running.add(Keys.metaNamespaceKey(pod));
          }
        };
    ResourceEventHandlerRegistration registration =
        pods.addEventHandler(
            ResourceEventHandlers.filtering(
                pod -> pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase()),
                handler));
    // The informer may be running already: the handler is first told about every cached
    // object (onAdd(pod, true)), then about live changes; wait until it has caught up.
    Informers.waitForCacheSync(Duration.ofSeconds(30), registration::hasSynced);
    // ... and later, to stop receiving events:
    registration.close();
    // end::late-handler[]
    return registration;
  }

  static ResourceEventHandlerRegistration filteredHandler(
      SharedIndexInformer<Pod> pods, ResourceEventHandler<Pod> handler) {
    // tag::handler-predicates[]
    // Web pods whose spec or labels changed: no status-only updates, no resyncs.
    EventFilter<Pod> specOrLabels =
        EventFilter.and(
            EventFilter.labelsMatching(LabelSelector.parse("app=web")),
            EventFilter.or(EventFilter.generationChanged(), EventFilter.labelsChanged()));
    ResourceEventHandlerRegistration registration =
        pods.addEventHandler(ResourceEventHandlers.filtered(specOrLabels, handler));
    // end::handler-predicates[]
    return registration;
  }

  record ListerResults(
      Optional<Pod> web0, List<Pod> frontends, List<Pod> shopBackends, List<Pod> onNode1) {}

  static ListerResults listerQueries(SharedIndexInformer<Pod> pods) {
    // tag::lister[]
    Lister<Pod> lister = new Lister<>(pods.getIndexer());
    Optional<Pod> web0 = lister.namespace("shop").get("web-0");
    List<Pod> frontends = lister.list(LabelSelector.parse("tier=frontend,env in (prod,staging)"));
    List<Pod> shopBackends =
        lister.namespace("shop").list(LabelSelector.builder().equal("tier", "backend").build());
    List<Pod> onNode1 = lister.byIndex("byNode", "node-1");
    // end::lister[]
    return new ListerResults(web0, frontends, shopBackends, onNode1);
  }

  static List<String> addIndexLater(SharedIndexInformer<Pod> pods) {
    // tag::add-index[]
    pods.addIndexers(
        Map.of(
            "byOwner",
            pod ->
                pod.getMetadata().getOwnerReferences().stream()
                    .map(owner -> owner.getKind() + "/" + owner.getName())
                    .toList()));
    List<String> owners = pods.getIndexer().listIndexFuncValues("byOwner");
    List<Pod> ownedByWeb = pods.getIndexer().byIndex("byOwner", "ReplicaSet/web-5d9c");
    // end::add-index[]
    return ownedByWeb.stream().map(Keys::metaNamespaceKey).toList();
  }

  static void resyncHandler(
      SharedIndexInformer<Pod> pods, WorkQueue<String> queue, AtomicInteger resyncs) {
    // tag::resync[]
    pods.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            String oldVersion = oldPod.getMetadata().getResourceVersion();
            if (oldVersion.equals(newPod.getMetadata().getResourceVersion())) {
              // A resync: the cached object again, unchanged. The chance to re-check state
              // outside the cluster; a handler that cares only about changes returns here.
              resyncs.incrementAndGet();
            }
            queue.add(Keys.metaNamespaceKey(newPod));
          }
        },
        Duration.ofMinutes(10)); // this handler's own period; others keep theirs
    // end::resync[]
  }

  static void transforms(SharedIndexInformer<Pod> pods) {
    // tag::transform[]
    // Before start(): runs once per object, before it is cached and before handlers see it.
    var stripManagedFields = Transforms.<Pod>stripManagedFields();
    pods.setTransform(
        pod -> {
          stripManagedFields.apply(pod);
          Map<String, String> annotations = pod.getMetadata().getAnnotations();
          if (annotations != null) {
            annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
          }
          return pod;
        });
    // end::transform[]
  }

  static void watchErrors(SharedIndexInformer<Pod> pods, Map<Integer, AtomicInteger> errors) {
    // tag::watch-errors[]
    // Before start(): told about every failed list or watch; the informer retries by itself.
    pods.setWatchErrorHandler(
        error -> {
          int code = error.apiError().map(ApiException::code).orElse(0); // 0: not an HTTP error
          errors.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
          if (code == 401 || code == 403) {
            System.err.println(error.reflectorName() + " is not allowed to list/watch: " + error);
          }
        });
    // end::watch-errors[]
  }

  static boolean healthCheck(
      SharedIndexInformer<Pod> pods, ResourceEventHandlerRegistration registration) {
    // tag::health-check[]
    boolean healthy =
        pods.hasSynced()
            && !pods.isStopped()
            && registration.hasSynced()
            && registration.pendingNotifications() < 10_000; // a handler that keeps up
    // end::health-check[]
    return healthy;
  }

  // ---- the tests -----------------------------------------------------------------------------

  private static Pod pod(String ns, String name, String node, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .endStatus()
        .build();
  }

  private SharedIndexInformer<Pod> informer() {
    SharedIndexInformer<Pod> pods = standaloneInformer(source);
    toClose.add(pods);
    return pods;
  }

  private void seedShop() {
    source.add(pod("shop", "web-0", "node-1", Map.of("tier", "frontend", "env", "prod")));
    source.add(pod("shop", "web-1", "node-2", Map.of("tier", "frontend", "env", "dev")));
    source.add(pod("shop", "db-0", "node-1", Map.of("tier", "backend")));
    source.add(pod("blog", "web-0", "node-3", Map.of("tier", "frontend", "env", "staging")));
  }

  @Test
  void handler_seesAddsUpdatesAndDeletes() throws Exception {
    seedShop();
    SharedIndexInformer<Pod> pods = informer();
    List<String> keys = new CopyOnWriteArrayList<>();
    WorkQueue<String> queue = recordingQueue(keys);
    ResourceEventHandlerRegistration registration = addHandler(pods, queue);

    assertThat(startAndSync(pods)).isTrue();
    await().until(registration::hasSynced);
    source.modify(pod("shop", "web-1", "node-2", Map.of("tier", "frontend", "env", "prod")));
    source.delete(pod("blog", "web-0", "node-3", Map.of()));

    await()
        .untilAsserted(
            () ->
                assertThat(keys)
                    .containsExactlyInAnyOrder(
                        "shop/web-0", "shop/web-1", "shop/db-0", "blog/web-0", "shop/web-1",
                        "blog/web-0"));
  }

  @Test
  void handler_whenWatchBreaksAndHistoryIsCompacted_stillSeesTheDeletion() throws Exception {
    seedShop();
    SharedIndexInformer<Pod> pods = informer();
    List<String> keys = new CopyOnWriteArrayList<>();
    addHandler(pods, recordingQueue(keys));
    startAndSync(pods);
    await().until(() -> keys.size() == 4);

    source.breakWatches(new InformerException("connection reset", new SocketException()));
    source.delete(pod("shop", "db-0", "node-1", Map.of()));
    source.compact(); // if the informer re-watches after this, it must relist to see it

    // The informer may re-watch before the compaction (the watch brings the deletion) or after it
    // (a 410, then a relist: the deletion comes as onDelete(pod, true)). A relist also brings the
    // unchanged pods, as updates with the same resourceVersion (as client-go does for a handler
    // without resync). Either way the handler hears of the deletion exactly once.
    await().until(() -> keys.subList(4, keys.size()).contains("shop/db-0")); // 4: the initial adds
    List<String> after = List.copyOf(keys.subList(4, keys.size()));
    assertThat(after).containsOnlyOnce("shop/db-0");
    assertThat(after).isSubsetOf("shop/web-0", "shop/web-1", "blog/web-0", "shop/db-0");
    assertThat(pods.getIndexer().listKeys()).doesNotContain("shop/db-0");
  }

  @Test
  void healthCheck_isTrueOnceHandlerCaughtUpAndFalseAfterClose() throws Exception {
    seedShop();
    SharedIndexInformer<Pod> pods = informer();
    ResourceEventHandlerRegistration registration = addHandler(pods, WorkQueue.create());
    assertThat(healthCheck(pods, registration)).isFalse();

    startAndSync(pods);
    await().until(registration::hasSynced);
    assertThat(healthCheck(pods, registration)).isTrue();

    pods.close();
    assertThat(healthCheck(pods, registration)).isFalse();
  }

  @Test
  void lateHandler_seesRunningPodsOnceThenIsRemoved() throws Exception {
    seedShop();
    SharedIndexInformer<Pod> pods = informer();
    startAndSync(pods);
    List<String> running = new CopyOnWriteArrayList<>();

    ResourceEventHandlerRegistration registration = lateHandler(pods, running);

    assertThat(running)
        .containsExactlyInAnyOrder("shop/web-0", "shop/web-1", "shop/db-0", "blog/web-0");
    assertThat(registration.isRemoved()).isTrue();
  }

  @Test
  void filteredHandler_skipsStatusOnlyUpdatesAndOtherPods() throws Exception {
    Pod web = pod("shop", "web-0", "node-1", Map.of("app", "web"));
    web.getMetadata().setGeneration(1L);
    source.add(web);
    source.add(pod("shop", "db-0", "node-1", Map.of("app", "db")));
    SharedIndexInformer<Pod> pods = informer();
    List<String> seen = new CopyOnWriteArrayList<>();
    ResourceEventHandler<Pod> recorder =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod, boolean isInInitialList) {
            seen.add("add " + Keys.metaNamespaceKey(pod));
          }

          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            seen.add("update to generation " + newPod.getMetadata().getGeneration());
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            seen.add("delete " + Keys.metaNamespaceKey(pod));
          }
        };
    ResourceEventHandlerRegistration registration = filteredHandler(pods, recorder);
    startAndSync(pods);
    await().until(registration::hasSynced);
    assertThat(seen).containsExactly("add shop/web-0");

    Pod failed = new PodBuilder(web).editStatus().withPhase("Failed").endStatus().build();
    source.modify(failed); // status only
    source.modify(new PodBuilder(failed).editMetadata().withGeneration(2L).endMetadata().build());
    source.delete(new PodBuilder(failed).build());

    // One object's changes reach a handler in order: after its deletion, nothing more comes.
    await().until(() -> seen.contains("delete shop/web-0"));
    assertThat(seen)
        .containsExactly("add shop/web-0", "update to generation 2", "delete shop/web-0");
  }

  @Test
  void lister_answersByNamespaceSelectorAndIndex() throws Exception {
    seedShop();
    SharedIndexInformer<Pod> pods = informer();
    startAndSync(pods);

    ListerResults r = listerQueries(pods);

    assertThat(r.web0()).map(Keys::metaNamespaceKey).contains("shop/web-0");
    assertThat(r.frontends())
        .extracting(Keys::metaNamespaceKey)
        .containsExactlyInAnyOrder("shop/web-0", "blog/web-0");
    assertThat(r.shopBackends()).extracting(Keys::metaNamespaceKey).containsExactly("shop/db-0");
    assertThat(r.onNode1())
        .extracting(Keys::metaNamespaceKey)
        .containsExactlyInAnyOrder("shop/web-0", "shop/db-0");
  }

  @Test
  void addIndex_onRunningInformer_indexesCachedObjects() throws Exception {
    Pod owned =
        new PodBuilder(pod("shop", "web-5d9c-x1", "node-1", Map.of()))
            .editMetadata()
            .addNewOwnerReference()
            .withKind("ReplicaSet")
            .withName("web-5d9c")
            .endOwnerReference()
            .endMetadata()
            .build();
    source.add(owned);
    source.add(pod("shop", "loner", "node-1", Map.of()));
    SharedIndexInformer<Pod> pods = informer();
    startAndSync(pods);

    assertThat(addIndexLater(pods)).containsExactly("shop/web-5d9c-x1");
  }

  @Test
  void resyncHandler_getsUnchangedObjectEveryPeriod() throws Exception {
    FakeClock clock = new FakeClock();
    seedShop();
    SharedIndexInformer<Pod> pods =
        SharedIndexInformer.builder("pods", source).clock(clock).scheduler(clock).build();
    toClose.add(pods);
    List<String> keys = new CopyOnWriteArrayList<>();
    AtomicInteger resyncs = new AtomicInteger();
    resyncHandler(pods, recordingQueue(keys), resyncs);
    startAndSync(pods);
    assertThat(keys).isEmpty(); // this handler has no onAdd

    clock.advance(Duration.ofMinutes(10));

    await()
        .untilAsserted(
            () ->
                assertThat(keys)
                    .containsExactlyInAnyOrder(
                        "shop/web-0", "shop/web-1", "shop/db-0", "blog/web-0"));
    assertThat(resyncs).hasValue(4);
  }

  @Test
  void transform_dropsManagedFieldsAndLastApplied() throws Exception {
    Pod fat =
        new PodBuilder(pod("shop", "web-0", "node-1", Map.of()))
            .editMetadata()
            .withManagedFields(new ManagedFieldsEntry())
            .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{}")
            .addToAnnotations("keep", "me")
            .endMetadata()
            .build();
    source.add(fat);
    SharedIndexInformer<Pod> pods = informer();
    transforms(pods);
    startAndSync(pods);

    Pod cached = pods.getIndexer().getByKey("shop/web-0").orElseThrow();
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached.getMetadata().getAnnotations()).containsOnlyKeys("keep");
  }

  @Test
  void watchErrorHandler_countsFailuresByStatusCode() throws Exception {
    // The streaming list is refused; the informer reports it and lists instead.
    source.failNextWatch(new ApiException(403, "pods is forbidden"));
    SharedIndexInformer<Pod> pods = informer();
    Map<Integer, AtomicInteger> errors = new ConcurrentHashMap<>();
    watchErrors(pods, errors);

    startAndSync(pods);

    assertThat(errors).containsOnlyKeys(403);
  }

  @Test
  void fakeListerWatcher_drivesAnInformerThroughAnOutage() throws Exception {
    // tag::testing-fake[]
    FakeListerWatcher<Pod> source =
        new FakeListerWatcher<>(
            rv -> new PodBuilder().withNewMetadata().withResourceVersion(rv).endMetadata().build());
    Pod web0 =
        new PodBuilder().withNewMetadata().withNamespace("shop").withName("web-0").endMetadata()
            .build();
    source.add(web0);
    try (SharedIndexInformer<Pod> informer = SharedIndexInformer.builder("pods", source).build()) {
      informer.start();
      assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();

      // a network glitch: an I/O error as the cause, as the HTTP watch reports one
      source.breakWatches(new InformerException("connection reset", new SocketException()));
      source.delete(new PodBuilder(web0).build()); // deleted while the watch is down
      source.compact(); // and the history is gone: the informer must relist to notice

      await().until(() -> informer.getIndexer().listKeys().isEmpty());
    }
    // end::testing-fake[]
  }

  private static WorkQueue<String> recordingQueue(List<String> keys) {
    WorkQueue<String> queue = WorkQueue.create();
    return new WorkQueue<>() {
      @Override
      public void add(String item) {
        keys.add(item);
        queue.add(item);
      }

      @Override
      public int len() {
        return queue.len();
      }

      @Override
      public Optional<String> get() throws InterruptedException {
        return queue.get();
      }

      @Override
      public void done(String item) {
        queue.done(item);
      }

      @Override
      public void shutDown() {
        queue.shutDown();
      }

      @Override
      public void shutDownWithDrain() throws InterruptedException {
        queue.shutDownWithDrain();
      }

      @Override
      public boolean isShuttingDown() {
        return queue.isShuttingDown();
      }
    };
  }
}

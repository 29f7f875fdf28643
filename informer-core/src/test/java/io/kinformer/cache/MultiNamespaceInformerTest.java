package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link MultiNamespaceInformer} over one {@link FakeListerWatcher} per namespace. */
class MultiNamespaceInformerTest {

  private final Map<String, FakeListerWatcher<Pod>> sources = new ConcurrentHashMap<>();
  private final ExecutorService delivery = Informers.newDeliveryExecutor("test-delivery-");
  private MultiNamespaceInformer<Pod> informer;

  @AfterEach
  void stop() throws InterruptedException {
    if (informer != null) {
      informer.close();
    }
    delivery.shutdown();
    assertThat(delivery.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private FakeListerWatcher<Pod> source(String ns) {
    return sources.computeIfAbsent(ns, n -> TestPods.fakeSource());
  }

  private MultiNamespaceInformer<Pod> informerOver(String... namespaces) {
    return informerOver(UnaryOperator.identity(), namespaces);
  }

  /** Over {@code namespaces}, each informer's builder also given {@code options}. */
  private MultiNamespaceInformer<Pod> informerOver(
      UnaryOperator<SharedIndexInformer.Builder<Pod>> options, String... namespaces) {
    return MultiNamespaceInformer.create(
        "pods@{test}",
        List.of(namespaces),
        ns ->
            options.apply(
                    SharedIndexInformer.builder("pods@" + ns, source(ns))
                        .deliveryExecutor(delivery)
                        .streamingList(false))
                .build(),
        delivery);
  }

  @Test
  void removeNamespace_fromAHandlerCall_whileThatNamespacesDeliveryWaitsItsTurn_doesNotDeadlock()
      throws Exception {
    source("a").add(TestPods.pod("a", "0"));
    source("b").add(TestPods.pod("b", "0"));
    informer = informerOver("a", "b");
    List<String> calls = new CopyOnWriteArrayList<>();
    CompletableFuture<CompletableFuture<Void>> removal = new CompletableFuture<>();
    ResourceEventHandlerRegistration[] reg = new ResourceEventHandlerRegistration[1];
    reg[0] =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod pod, boolean isInInitialList) {
                String key = Keys.metaNamespaceKey(pod);
                calls.add("add " + key);
                if (key.equals("a/trigger")) {
                  // b's new object is cached and its delivery taken from the buffer: it now
                  // waits for this call's turn, and closing b's informer waits for it.
                  source("b").add(TestPods.pod("b", "x"));
                  await().until(
                      () -> informer.informerFor("b").orElseThrow().getIndexer()
                              .getByKey("b/x").isPresent()
                          && reg[0].pendingNotifications() == 0);
                  removal.complete(informer.removeNamespace("b"));
                }
              }

              @Override
              public void onDelete(Pod pod, boolean finalStateUnknown) {
                calls.add("delete " + Keys.metaNamespaceKey(pod) + " " + finalStateUnknown);
              }
            });
    informer.start();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();
    await().until(reg[0]::hasSynced);

    source("a").add(TestPods.pod("a", "trigger"));

    removal.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    assertThat(calls.subList(0, 2)).containsExactlyInAnyOrder("add a/0", "add b/0");
    // b/x reached b's cache but not the handler, which is told only what it was told exists.
    assertThat(calls.subList(2, calls.size())).containsExactly("add a/trigger", "delete b/0 true");
    assertThat(informer.namespaces()).containsExactly("a");
    assertThat(informer.getIndexer().listKeys()).containsExactlyInAnyOrder("a/0", "a/trigger");
  }

  @Test
  void indexersTransformAndHandlers_reachANamespaceAddedLater() throws Exception {
    source("a").add(TestPods.pod("a", "0", Map.of("app", "web")));
    source("b").add(TestPods.pod("b", "0", Map.of("app", "web")));
    informer = informerOver("a");
    informer.addIndexer("byApp", p -> List.of(p.getMetadata().getLabels().get("app")));
    informer.setTransform(
        p -> {
          Map<String, String> labels = new java.util.HashMap<>(p.getMetadata().getLabels());
          labels.put("seen", "yes");
          p.getMetadata().setLabels(labels);
          return p;
        });
    List<String> adds = new CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod pod, boolean isInInitialList) {
            adds.add(Keys.metaNamespaceKey(pod) + " " + isInInitialList);
          }
        });
    informer.start();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();

    assertThat(informer.addNamespace("b")).isTrue();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();

    await().until(() -> adds.size() == 2);
    assertThat(adds).containsExactlyInAnyOrder("a/0 true", "b/0 true");
    assertThat(informer.getIndexer().byIndex("byApp", "web")).hasSize(2)
        .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry("seen", "yes"));
    assertThat(informer.lister().namespace("b").get("0")).isPresent();
    assertThatIllegalStateException()
        .isThrownBy(() -> informer.setTransform(p -> p))
        .withMessageContaining("before start()");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> informer.addIndexer("byApp", p -> List.of()))
        .withMessageContaining("byApp");
  }

  @Test
  void shutDownEventHandler_removesItFromEveryNamespace_andTheMergedCacheIsReadOnly()
      throws Exception {
    source("a").add(TestPods.pod("a", "0"));
    source("b").add(TestPods.pod("b", "0"));
    informer = informerOver("a", "b");
    List<String> calls = new CopyOnWriteArrayList<>();
    ResourceEventHandlerRegistration reg =
        informer.addEventHandler(
            new ResourceEventHandler<Pod>() {
              @Override
              public void onAdd(Pod pod, boolean isInInitialList) {
                calls.add(Keys.metaNamespaceKey(pod));
              }
            });
    informer.start();
    await().until(reg::hasSynced);

    assertThat(informer.shutDownEventHandler(reg, Duration.ofSeconds(10))).isTrue();
    assertThat(reg.isRemoved()).isTrue();
    source("a").add(TestPods.pod("a", "late"));
    informer.resourceVersionSeen("a/late", source("a").resourceVersion()).get(10, TimeUnit.SECONDS);

    assertThat(calls).containsExactlyInAnyOrder("a/0", "b/0");
    assertThat(informer.getIndexer().getByKey("a/late")).isPresent();
    assertThat(informer.getStore()).isNotInstanceOf(Store.class);
    assertThat(informer.getIndexer()).isNotInstanceOf(Store.class);
  }

  @Test
  void create_withAnEmptyNamespace_isRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> informerOver("a", ""))
        .withMessageContaining("all namespaces");
  }

  @Test
  void health_oneNamespaceFailing_reportsThatNamespacesFailureAndError() {
    ApiException forbidden =
        new ApiException(403, "Forbidden", "pods is forbidden in billing", null, List.of(), false);
    source("shop").add(TestPods.pod("shop", "web-0"));
    source("billing").failNextList(forbidden);
    FakeClock clock = new FakeClock(); // billing's backoff waits until the test moves it
    informer = informerOver(b -> b.clock(clock).scheduler(clock), "shop", "billing");
    assertThat(informer.health().lastProgressTime()).isNull(); // not started

    informer.start();
    await().until(() -> informer.informerFor("shop").orElseThrow().hasSynced()
        && informer.health().state() instanceof ReflectorState.BackingOff);

    InformerHealth h = informer.health();
    assertThat(h.name()).isEqualTo("pods@{test}");
    assertThat(h.synced()).isFalse();
    assertThat(h.consecutiveFailures()).isEqualTo(1);
    assertThat(h.lastError()).startsWith("pods@billing: LIST").contains("forbidden in billing");
    assertThat(h.lastErrorTime()).isEqualTo(clock.now());
    assertThat(h.terminal()).isFalse();

    await().until(() -> { // past billing's backoff (once scheduled): its list succeeds
      clock.advance(Duration.ofSeconds(10));
      return informer.hasSynced();
    });
    InformerHealth healed = informer.health();
    assertThat(healed.consecutiveFailures()).isZero();
    assertThat(healed.synced()).isTrue();

    informer.close();
    assertThat(informer.health().terminal()).isTrue();
  }
}

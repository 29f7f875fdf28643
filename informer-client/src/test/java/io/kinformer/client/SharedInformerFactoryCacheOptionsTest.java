package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-resource {@link CacheOptions} over factory-wide defaults, over real HTTP against the
 * embedded API server.
 */
class SharedInformerFactoryCacheOptionsTest {

  private static final Gvr PODS = Gvr.of("", "v1", "pods");

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
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

  private static Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("default")
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

  private static ConfigMap configMap(String name, Map<String, String> labels) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  /** Marks every object it sees with an annotation, to tell which informers ran it. */
  private static UnaryOperator<HasMetadata> marking(String mark) {
    return obj -> {
      Map<String, String> a = new HashMap<>();
      if (obj.getMetadata().getAnnotations() != null) {
        a.putAll(obj.getMetadata().getAnnotations());
      }
      a.put("mark", mark);
      obj.getMetadata().setAnnotations(a);
      return obj;
    };
  }

  @Test
  void byObject_selectorTransformAndPageSize_takeEffect_andDefaultsApplyWhereUnset() {
    for (int i = 0; i < 5; i++) {
      server.create(pod("team-" + i, Map.of("team", "x")));
      server.create(configMap("web-" + i, Map.of("app", "web", "team", "y")));
      server.create(secret("s-" + i));
    }
    server.create(pod("other", Map.of("team", "y")));
    server.create(configMap("db", Map.of("app", "db", "team", "x")));
    // The first list (at resourceVersion 0) is served whole from the watch cache, as by a real
    // server; the first watch fails, so that a relist at the informer's resourceVersion shows the
    // page size in its requests.
    for (String resource : List.of("pods", "configmaps", "secrets")) {
      server.faults().failNext(Verb.WATCH, resource, 1, 500);
    }
    factory =
        SharedInformerFactory.builder(client)
            .streamingList(false) // lists, so that their pages show as requests
            .backoff(TestBackoffs.fast(7))
            .defaultCacheOptions(
                CacheOptions.builder()
                    .labelSelector("team=x")
                    .pageSize(2)
                    .transform(marking("default"))
                    .build())
            .byObject(
                ConfigMap.class,
                CacheOptions.builder().labelSelector("app=web").transform(marking("cm")).build())
            .byObject(
                Secret.class,
                CacheOptions.builder()
                    .labelSelector("")
                    .pageSize(0)
                    .transform(UnaryOperator.identity())
                    .build())
            .build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Secret> secrets = factory.informerFor(Secret.class);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();
    await().until(
        () -> server.faults().openWatches("pods") == 1
            && server.faults().openWatches("configmaps") == 1
            && server.faults().openWatches("secrets") == 1);

    // Pods: everything from the defaults.
    assertThat(pods.getIndexer().listKeys()).hasSize(5).allMatch(k -> k.startsWith("default/team-"));
    assertThat(pods.getIndexer().list())
        .allSatisfy(p -> assertThat(p.getMetadata().getAnnotations()).containsEntry("mark", "default"));
    // Config maps: their own selector and transform, the default page size.
    assertThat(cms.getIndexer().listKeys()).hasSize(5).allMatch(k -> k.startsWith("default/web-"));
    assertThat(cms.getIndexer().list())
        .allSatisfy(c -> assertThat(c.getMetadata().getAnnotations()).containsEntry("mark", "cm"));
    // Secrets: "" selects everything, the identity is no transform, 0 does not page.
    assertThat(secrets.getIndexer().listKeys()).hasSize(5);
    assertThat(secrets.getIndexer().list())
        .allSatisfy(c -> assertThat(c.getMetadata().getAnnotations()).isNullOrEmpty());
    // One whole list, then a relist of five objects in pages of two (three requests) or unpaged.
    assertThat(server.faults().requestCount(Verb.LIST, "pods")).isEqualTo(1 + 3);
    assertThat(server.faults().requestCount(Verb.LIST, "configmaps")).isEqualTo(1 + 3);
    assertThat(server.faults().requestCount(Verb.LIST, "secrets")).isEqualTo(1 + 1);
    assertThat(pods.name()).isEqualTo("v1/pods[team=x]");
    assertThat(cms.name()).isEqualTo("v1/configmaps[app=web]");
    assertThat(secrets.name()).isEqualTo("v1/secrets");
  }

  private static Secret secret(String name) {
    return new SecretBuilder().withNewMetadata().withNamespace("default").withName(name)
        .endMetadata().build();
  }

  @Test
  void byResource_appliesToTypedDynamicAndMetadataInformers_andExplicitValuesOverrideDefaults() {
    server.create(pod("a", Map.of("app", "web")));
    server.create(pod("b", Map.of("app", "db")));
    for (int i = 0; i < 3; i++) {
      server.create(configMap("c" + i, Map.of()));
    }
    factory =
        SharedInformerFactory.builder(client)
            .defaultCacheOptions(CacheOptions.builder().labelSelector("app=db").build())
            .byResource(PODS, CacheOptions.builder().labelSelector("app=web").build())
            .byObject(ConfigMap.class, CacheOptions.builder().labelSelector("").build())
            .build();
    SharedIndexInformer<Pod> typed = factory.informerFor(Pod.class);
    SharedIndexInformer<GenericKubernetesResource> dynamic = factory.informerFor(PODS);
    SharedIndexInformer<PartialObjectMetadata> metadata = factory.metadataInformerFor(PODS);
    SharedIndexInformer<ConfigMap> cms = factory.informerFor(ConfigMap.class);
    assertThat(factory.informerFor(Pod.class)).isSameAs(typed);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    assertThat(typed.getIndexer().listKeys()).containsExactly("default/a");
    assertThat(dynamic.getIndexer().listKeys()).containsExactly("default/a");
    assertThat(metadata.getIndexer().listKeys()).containsExactly("default/a");
    assertThat(cms.getIndexer().listKeys()).hasSize(3);
    assertThat(factory.informers())
        .containsOnlyKeys(
            "v1/pods[app=web]", "v1/pods(dynamic)[app=web]", "v1/pods(metadata)[app=web]",
            "v1/configmaps");
  }

  @Test
  void resyncByObject_overridesTheDefault_onTheFakeClock() {
    server.create(pod("p", Map.of()));
    server.create(configMap("c", Map.of()));
    FakeClock clock = new FakeClock();
    factory =
        SharedInformerFactory.builder(client)
            .clock(clock)
            .scheduler(clock)
            .defaultCacheOptions(CacheOptions.builder().resyncPeriod(Duration.ofHours(1)).build())
            .byObject(Pod.class, CacheOptions.builder().resyncPeriod(Duration.ofMinutes(1)).build())
            .build();
    AtomicInteger podResyncs = new AtomicInteger();
    AtomicInteger cmResyncs = new AtomicInteger();
    factory.informerFor(Pod.class).addEventHandler(resyncCounter(podResyncs));
    factory.informerFor(ConfigMap.class).addEventHandler(resyncCounter(cmResyncs));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    clock.advance(Duration.ofMinutes(1));
    await().until(() -> podResyncs.get() > 0);
    assertThat(cmResyncs).hasValue(0);
    clock.advance(Duration.ofMinutes(59));
    await().until(() -> cmResyncs.get() > 0);
  }

  private static <T> ResourceEventHandler<T> resyncCounter(AtomicInteger count) {
    return new ResourceEventHandler<T>() {
      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (oldObj == newObj) {
          count.incrementAndGet();
        }
      }
    };
  }

  @Test
  void perResourceEntries_addUp_laterFieldsReplacingEarlierOnes() {
    factory =
        SharedInformerFactory.builder(client)
            .resync(PODS, Duration.ofMinutes(3))
            .byObject(Pod.class, CacheOptions.builder().labelSelector("app=web").build())
            .byObject(Pod.class, CacheOptions.builder().labelSelector("app=db").build())
            .build();

    assertThat(factory.informerFor(Pod.class).name()).isEqualTo("v1/pods[app=db]");
  }

  @Test
  void explicitInformerOptions_decideNamespaceAndSelectors_overTheResourcesEntry() {
    server.create(pod("a", Map.of("app", "web")));
    factory =
        SharedInformerFactory.builder(client)
            .byObject(Pod.class, CacheOptions.builder().labelSelector("app=db").build())
            .build();
    SharedIndexInformer<Pod> explicit =
        factory.informerFor(Pod.class, SharedInformerFactory.InformerOptions.inNamespace("default"));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(20))).isTrue();

    assertThat(explicit.name()).isEqualTo("v1/pods@default");
    assertThat(explicit.getIndexer().listKeys()).containsExactly("default/a");
  }

  @Test
  void cacheOptions_badValues_areRefusedWithTheValue() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CacheOptions.builder().labelSelector("app in (web").build());
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CacheOptions.builder().namespaces("a", "").build())
        .withMessageContaining("namespace must not be empty");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CacheOptions.builder().pageSize(-1).build())
        .withMessageContaining("-1");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> CacheOptions.builder().resyncPeriod(Duration.ofSeconds(-1)).build())
        .withMessageContaining("PT-1S");
  }

  @Test
  void orElse_takesOnlyUnsetFieldsFromTheDefaults() {
    UnaryOperator<HasMetadata> t = UnaryOperator.identity();
    CacheOptions defaults =
        new CacheOptions(
            java.util.Set.of("a"), "x=1", "metadata.name=n", t, Duration.ofMinutes(1), 10L);
    CacheOptions entry = CacheOptions.builder().namespaces(List.of()).pageSize(0).build();

    assertThat(entry.orElse(defaults))
        .isEqualTo(
            new CacheOptions(java.util.Set.of(), "x=1", "metadata.name=n", t, Duration.ofMinutes(1), 0L));
    assertThat(CacheOptions.unset().orElse(defaults)).isEqualTo(defaults);
  }
}

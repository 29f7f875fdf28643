package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kinformer.cache.Keys;
import io.kinformer.cache.MultiNamespaceInformer;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.client.CacheOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cache-scoping snippets of docs/user-guide.md (namespaces and per-resource options), run
 * against the embedded API server over HTTP; {@link DocSnippetsTest} checks that the page shows
 * this exact code.
 */
class CacheScopingExampleTest {

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    for (String ns : List.of("shop", "billing", "staging", "other")) {
      server.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
      server.create(
          new PodBuilder()
              .withNewMetadata().withNamespace(ns).withName("web-0")
              .withLabels(Map.of("app", "web")).endMetadata()
              .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer()
              .endSpec()
              .build());
      server.create(
          new ConfigMapBuilder()
              .withNewMetadata().withNamespace(ns).withName("settings")
              .withLabels(Map.of("app", ns.equals("shop") ? "web" : "db")).endMetadata()
              .build());
      server.create(
          new SecretBuilder()
              .withNewMetadata().withNamespace(ns).withName("token").endMetadata()
              .build());
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

  @Test
  void cacheOptions_scopeEachResource_overTheFactoryDefaults() {
    // tag::cache-options[]
    factory =
        SharedInformerFactory.builder(client)
            // For every resource: these namespaces, no managedFields in the cache.
            .defaultCacheOptions(
                CacheOptions.builder()
                    .namespaces("shop", "billing")
                    .transform(Transforms.stripManagedFields())
                    .build())
            // Config maps: only the web's, resynced every 10 minutes, listed 100 at a time.
            .byObject(
                ConfigMap.class,
                CacheOptions.builder()
                    .labelSelector("app=web")
                    .resyncPeriod(Duration.ofMinutes(10))
                    .pageSize(100)
                    .build())
            // Secrets: one namespace only (the rest still comes from the defaults).
            .byObject(Secret.class, CacheOptions.builder().namespaces("shop").build())
            .build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class); // shop and billing
    SharedIndexInformer<ConfigMap> webSettings = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Secret> shopSecrets = factory.informerFor(Secret.class);
    // end::cache-options[]
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();

    assertThat(pods.getIndexer().listKeys())
        .containsExactlyInAnyOrder("shop/web-0", "billing/web-0");
    assertThat(webSettings.getIndexer().listKeys()).containsExactly("shop/settings");
    assertThat(shopSecrets.getIndexer().listKeys()).containsExactly("shop/token");
    assertThat(factory.informers().keySet())
        .containsExactlyInAnyOrder(
            "v1/pods@{billing,shop}", "v1/configmaps@{billing,shop}[app=web]", "v1/secrets@shop");
  }

  @Test
  void multiNamespaceInformer_addsAndDropsNamespacesAtRunTime() throws Exception {
    factory =
        SharedInformerFactory.builder(client)
            .defaultCacheOptions(CacheOptions.builder().namespaces("shop", "billing").build())
            .build();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    // tag::multi-namespace[]
    MultiNamespaceInformer<Pod> pods = factory.multiNamespaceInformerFor(Pod.class);
    pods.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod pod, boolean isInInitialList) {
            seen.add(Keys.metaNamespaceKey(pod)); // from every namespace, one call at a time
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            seen.remove(Keys.metaNamespaceKey(pod)); // also when its namespace is dropped
          }
        });
    factory.start();
    factory.waitForCacheSync(Duration.ofSeconds(30));

    pods.addNamespace("staging"); // one more watch; the others are not touched
    pods.awaitSynced(Duration.ofSeconds(30)); // true once staging has synced too
    List<Pod> staging = pods.lister().namespace("staging").list(); // reads span the namespaces
    pods.removeNamespace("billing").get(30, TimeUnit.SECONDS); // handlers told of its deletions
    // end::multi-namespace[]

    assertThat(pods.namespaces()).containsExactly("shop", "staging");
    org.awaitility.Awaitility.await()
        .untilAsserted(
            () -> assertThat(seen).containsExactlyInAnyOrder("shop/web-0", "staging/web-0"));
    assertThat(pods.getIndexer().listKeys())
        .containsExactlyInAnyOrder("shop/web-0", "staging/web-0");
    assertThat(staging).extracting(p -> p.getMetadata().getName()).containsExactly("web-0");
  }
}

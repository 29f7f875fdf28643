package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Informers handed out by reference: the last release closes one and its watch, the factory's
 * other informers go on, and a later request makes a fresh one.
 */
class SharedInformerFactoryReleaseTest {

  private EmbeddedApiServer server;
  private KubeClient client;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    factory = SharedInformerFactory.builder(client).build();
  }

  @AfterEach
  void stop() {
    factory.close();
    client.close();
    server.close();
  }

  private void createConfigMap(String name) {
    server.create(new ConfigMapBuilder().withNewMetadata().withNamespace("default").withName(name)
        .endMetadata().build());
  }

  @Test
  void lastRelease_closesOnlyThatInformer_andALaterRequestMakesANewOne() {
    SharedIndexInformer<ConfigMap> first = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<ConfigMap> second = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Secret> secrets = factory.informerFor(Secret.class);
    assertThat(second).isSameAs(first);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();

    assertThat(factory.release(first)).isFalse(); // one user left
    assertThat(first.isStopped()).isFalse();
    assertThat(factory.release(second)).isTrue();

    assertThat(first.isStopped()).isTrue();
    assertThat(factory.informers()).containsOnlyKeys("v1/secrets");
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("kinformer-v1/configmaps-reflector"));
    createConfigMap("while-released");
    server.create(new SecretBuilder().withNewMetadata().withNamespace("default").withName("s")
        .endMetadata().build());
    await().atMost(Duration.ofSeconds(30))
        .until(() -> secrets.getIndexer().getByKey("default/s").isPresent());

    createConfigMap("later");
    SharedIndexInformer<ConfigMap> fresh = factory.informerFor(ConfigMap.class);
    assertThat(fresh).isNotSameAs(first);
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    assertThat(fresh.getIndexer().listKeys())
        .containsExactlyInAnyOrder("default/while-released", "default/later");
    assertThat(factory.informers()).containsOnlyKeys("v1/secrets", "v1/configmaps");
  }

  @Test
  void release_ofAnInformerNotHandedOut_orOnceTooOften_isRefused() {
    SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
    assertThat(factory.release(configMaps)).isTrue();

    assertThatThrownBy(() -> factory.release(configMaps))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("v1/configmaps is not an informer of this factory");
    try (SharedInformerFactory other = SharedInformerFactory.builder(client).build()) {
      SharedIndexInformer<ConfigMap> foreign = other.informerFor(ConfigMap.class);
      assertThatThrownBy(() -> factory.release(foreign))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}

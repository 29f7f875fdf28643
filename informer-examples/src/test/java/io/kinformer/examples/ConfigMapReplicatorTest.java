package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * End-to-end tests of {@link ConfigMapReplicator} against the embedded API server: it converges
 * from scratch, follows every kind of change, leaves foreign ConfigMaps alone, and still
 * converges when the server fails requests, drops watches and compacts its history.
 *
 * <p>The test's own changes go through the server's in-process API, which fault injection does
 * not touch, so that injected failures hit only the controller.
 */
class ConfigMapReplicatorTest {

  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
  private final List<String> journal = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  private EmbeddedApiServer startController() {
    EmbeddedApiServer server = closeLater(EmbeddedApiServer.builder().start());
    seed(server);
    KubeClient client = closeLater(KubeClient.create(KubeConfig.load(server.kubeConfig())));
    SharedInformerFactory factory = closeLater(SharedInformerFactory.builder(client).build());
    ConfigMapReplicator replicator =
        closeLater(new ConfigMapReplicator(client, factory, "source", 2, journal::add));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    replicator.start();
    return server;
  }

  @Test
  void replicator_fromScratch_copiesLabelledConfigMapsIntoTargetNamespaces() {
    EmbeddedApiServer server = startController();

    awaitConverged(server);

    assertThat(copies(server))
        .containsOnlyKeys(
            "team-a/app-settings", "team-a/feature-flags",
            "team-b/app-settings", "team-b/feature-flags")
        .containsEntry("team-b/feature-flags", Map.of("new-ui", "false"));
    assertThat(journal).hasSize(4).allMatch(line -> line.startsWith("created "));
  }

  @Test
  void replicator_followsSourcesNamespacesAndTamperedCopies() {
    EmbeddedApiServer server = startController();
    awaitConverged(server);

    put(server, configMap("source", "feature-flags", true, Map.of("new-ui", "true")));
    put(server, configMap("source", "limits", true, Map.of("cpu", "2")));
    server.delete("v1", "ConfigMap", "source", "app-settings");
    put(server, namespace("scratch", true)); // becomes a target
    put(server, namespace("team-b", false)); // stops being one
    put(server, copy("team-a", "feature-flags", Map.of("new-ui", "hacked"))); // edited by hand

    awaitConverged(server);
    assertThat(copies(server))
        .containsOnlyKeys(
            "team-a/feature-flags", "team-a/limits", "scratch/feature-flags", "scratch/limits")
        .containsEntry("team-a/feature-flags", Map.of("new-ui", "true"));

    server.delete("v1", "ConfigMap", "team-a", "limits"); // deleted by hand: restored
    awaitConverged(server);
    assertThat(copies(server)).containsKey("team-a/limits");
  }

  @Test
  void replicator_leavesConfigMapsThatAreNotCopiesAlone() {
    EmbeddedApiServer server = closeLater(EmbeddedApiServer.builder().start());
    seed(server);
    server.create(write(configMap("team-a", "app-settings", false, Map.of("mine", "yes"))));
    KubeClient client = closeLater(KubeClient.create(KubeConfig.load(server.kubeConfig())));
    SharedInformerFactory factory = closeLater(SharedInformerFactory.builder(client).build());
    ConfigMapReplicator replicator =
        closeLater(new ConfigMapReplicator(client, factory, "source", 1, journal::add));
    factory.start();
    assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    replicator.start();

    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(copies(server))
                    .containsOnlyKeys(
                        "team-a/feature-flags", "team-b/app-settings", "team-b/feature-flags"));
    assertThat(data(server, "team-a", "app-settings")).isEqualTo(Map.of("mine", "yes"));
  }

  @Test
  void replicator_whenServerFailsAndWatchesBreak_stillConverges() {
    // tag::testing-embedded[]
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        ConfigMapReplicator replicator =
            new ConfigMapReplicator(client, factory, "source", 2, line -> {})) {
      seed(server); // namespaces and ConfigMaps, through the server's in-process API
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
      replicator.start();
      awaitConverged(server);

      server.faults().failNext(Verb.CREATE, "configmaps", 3, 500); // the server has a bad day
      server.faults().failNext(Verb.UPDATE, "configmaps", 2, 429);
      server.faults().failNext(Verb.DELETE, "configmaps", 1, 503);
      server.faults().resetAllWatches(); // every watch connection drops
      changeSources(server); // while users keep changing things
      server.faults().closeAllWatches(); // the watches that came back end again
      server.faults().compactHistory(); // and the history to resume from is gone: 410, relist
      server.faults().failNext(Verb.LIST, "configmaps", 2, 500); // the relist fails, twice

      awaitConverged(server); // the controller recovers from all of it by itself
    }
    // end::testing-embedded[]
  }

  // ---- the desired and the actual state ------------------------------------------------------

  /** The namespaces and ConfigMaps every test starts with. */
  static void seed(EmbeddedApiServer server) {
    for (String ns : List.of("source", "team-a", "team-b", "scratch")) {
      server.create(write(namespace(ns, ns.startsWith("team-"))));
    }
    server.create(write(configMap("source", "app-settings", true, Map.of("log.level", "info"))));
    server.create(write(configMap("source", "feature-flags", true, Map.of("new-ui", "false"))));
    server.create(write(configMap("source", "local-only", false, Map.of("stays", "here"))));
  }

  static void changeSources(EmbeddedApiServer server) {
    put(server, configMap("source", "app-settings", true, Map.of("log.level", "debug")));
    for (int i = 0; i < 3; i++) {
      put(server, configMap("source", "extra-" + i, true, Map.of("i", String.valueOf(i))));
    }
    server.delete("v1", "ConfigMap", "source", "feature-flags");
    put(server, configMap("source", "local-only", true, Map.of("stays", "no longer")));
  }

  /** Waits until the copies on the server are exactly what the sources and namespaces ask for. */
  static void awaitConverged(EmbeddedApiServer server) {
    await()
        .atMost(CONVERGE)
        .untilAsserted(() -> assertThat(copies(server)).isEqualTo(desired(server)));
  }

  /** The copies the server holds: "namespace/name" to data. */
  static Map<String, Map<String, String>> copies(EmbeddedApiServer server) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (String json : server.list("v1", "ConfigMap", null)) {
      ConfigMap cm = read(json, ConfigMap.class);
      if (ConfigMapReplicator.isCopy(cm)) {
        out.put(key(cm), cm.getData() == null ? Map.of() : cm.getData());
      }
    }
    return out;
  }

  /** What the copies should be, computed from the server's sources and namespaces. */
  static Map<String, Map<String, String>> desired(EmbeddedApiServer server) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (String nsJson : server.list("v1", "Namespace", null)) {
      Namespace ns = read(nsJson, Namespace.class);
      if (!ConfigMapReplicator.isTarget(ns) || ns.getMetadata().getName().equals("source")) {
        continue;
      }
      for (String cmJson : server.list("v1", "ConfigMap", "source")) {
        ConfigMap source = read(cmJson, ConfigMap.class);
        if (ConfigMapReplicator.replicated(source)) {
          out.put(
              ns.getMetadata().getName() + "/" + source.getMetadata().getName(),
              source.getData() == null ? Map.of() : source.getData());
        }
      }
    }
    return out;
  }

  private static Map<String, String> data(EmbeddedApiServer server, String ns, String name) {
    return read(server.get("v1", "ConfigMap", ns, name).orElseThrow(), ConfigMap.class).getData();
  }

  private static String key(ConfigMap cm) {
    return cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName();
  }

  /** Creates or replaces (without optimistic concurrency) an object. */
  private static void put(EmbeddedApiServer server, ConfigMap cm) {
    if (server.get("v1", "ConfigMap", cm.getMetadata().getNamespace(), cm.getMetadata().getName())
        .isPresent()) {
      server.update(write(cm));
    } else {
      server.create(write(cm));
    }
  }

  private static void put(EmbeddedApiServer server, Namespace ns) {
    if (server.get("v1", "Namespace", null, ns.getMetadata().getName()).isPresent()) {
      server.update(write(ns));
    } else {
      server.create(write(ns));
    }
  }

  static ConfigMap configMap(String ns, String name, boolean replicate, Map<String, String> data) {
    ConfigMapBuilder b =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .endMetadata()
            .withData(data);
    if (replicate) {
      b.editMetadata().addToLabels(ConfigMapReplicator.REPLICATE_LABEL, "true").endMetadata();
    }
    return b.build();
  }

  private static ConfigMap copy(String ns, String name, Map<String, String> data) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .addToLabels(ConfigMapReplicator.REPLICA_OF_LABEL, "source")
        .endMetadata()
        .withData(data)
        .build();
  }

  static Namespace namespace(String name, boolean target) {
    NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
    if (target) {
      b.editMetadata().addToLabels(ConfigMapReplicator.TARGET_LABEL, "true").endMetadata();
    }
    return b.build();
  }

  static String write(Object object) {
    return JSON.writeValueAsString(object);
  }

  static <T> T read(String json, Class<T> type) {
    return JSON.readValue(json, type);
  }
}

package io.kinformer.envtest;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** Helpers shared by the real-server tests: namespaces of their own, writes, cache snapshots. */
final class Cluster {
  private static final AtomicInteger namespaces = new AtomicInteger();

  private Cluster() {}

  /** Creates a namespace no other test uses and returns its name. */
  static String newNamespace(KubeClient client, String prefix) {
    String name = prefix + "-" + ProcessHandle.current().pid() + "-" + namespaces.incrementAndGet();
    Namespace ns = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
    client.resources(Namespace.class).create(ns);
    return name;
  }

  /** The configmaps of a new namespace of their own ({@link #newNamespace}). */
  static ResourceClient<ConfigMap> configMapsInNewNamespace(KubeClient client, String prefix) {
    return client.resources(ConfigMap.class).inNamespace(newNamespace(client, prefix));
  }

  /**
   * The CRD of namespaced {@code widgets} in {@code group}, version v1, of any content; with
   * {@code statusSubresource}, its status is a subresource (status writes keep the generation).
   */
  static GenericKubernetesResource widgetsCrd(String group, boolean statusSubresource) {
    Map<String, Object> version = new LinkedHashMap<>();
    version.put("name", "v1");
    version.put("served", true);
    version.put("storage", true);
    if (statusSubresource) {
      version.put("subresources", Map.of("status", Map.of()));
    }
    version.put("schema", Map.of("openAPIV3Schema",
        Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true)));
    GenericKubernetesResource crd = new GenericKubernetesResource();
    crd.setApiVersion("apiextensions.k8s.io/v1");
    crd.setKind("CustomResourceDefinition");
    crd.setMetadata(new ObjectMetaBuilder().withName("widgets." + group).build());
    crd.setAdditionalProperty("spec", Map.of(
        "group", group,
        "scope", "Namespaced",
        "names", Map.of("plural", "widgets", "singular", "widget", "kind", "Widget"),
        "versions", List.of(version)));
    return crd;
  }

  /** The CustomResourceDefinitions. */
  static final Gvr CRDS =
      new Gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions");

  /** A widget of {@code group} with {@code spec.size} 3. */
  static GenericKubernetesResource widget(String group, String ns, String name) {
    GenericKubernetesResource w = new GenericKubernetesResource();
    w.setApiVersion(group + "/v1");
    w.setKind("Widget");
    w.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
    w.setAdditionalProperty("spec", Map.of("size", 3));
    return w;
  }

  /**
   * Creates the CRD of {@link #widgetsCrd}, then a widget, and returns the widgets' client:
   * until the apiextensions server has installed the new group, discovery and the first create
   * answer 404, so both are retried; a 409 means an earlier try went through after all.
   */
  static ResourceClient<GenericKubernetesResource> createWithCrd(KubeClient client,
      String group, boolean statusSubresource, String ns, String name) {
    client.resources(CRDS).create(widgetsCrd(group, statusSubresource));
    List<ResourceClient<GenericKubernetesResource>> widgets = new ArrayList<>();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
        .ignoreExceptionsMatching(e -> e instanceof ApiException a && a.isNotFound())
        .until(() -> {
          ResourceClient<GenericKubernetesResource> w =
              client.resources(new Gvr(group, "v1", "widgets")).inNamespace(ns);
          try {
            w.create(widget(group, ns, name));
          } catch (ApiException e) {
            if (!e.isConflict()) {
              throw e;
            }
          }
          widgets.add(w);
          return true;
        });
    return widgets.get(0);
  }

  static ConfigMap configMap(String namespace, String name, String value) {
    return new ConfigMapBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .addToData("value", value)
        .build();
  }

  /** name → resourceVersion of every object the server lists in the client's namespace. */
  static <T extends HasMetadata> Map<String, String> serverState(ResourceClient<T> resources) {
    Map<String, String> state = new TreeMap<>();
    for (T obj : resources.list()) {
      state.put(obj.getMetadata().getName(), obj.getMetadata().getResourceVersion());
    }
    return state;
  }

  /** name → resourceVersion of every object in the informer's cache, in one namespace. */
  static <T extends HasMetadata> Map<String, String> cacheState(
      SharedIndexInformer<T> informer, String namespace) {
    Map<String, String> state = new TreeMap<>();
    for (T obj : informer.getStore().list()) {
      if (namespace.equals(obj.getMetadata().getNamespace())) {
        state.put(obj.getMetadata().getName(), obj.getMetadata().getResourceVersion());
      }
    }
    return state;
  }

  /**
   * Waits (up to a minute) until the informer's cache holds exactly what the server lists in
   * {@code namespace}: the same names with the same resourceVersions.
   */
  static <T extends HasMetadata> void awaitCacheEqualsServer(
      SharedIndexInformer<T> informer, String namespace, ResourceClient<T> resources) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).untilAsserted(() ->
        org.assertj.core.api.Assertions.assertThat(cacheState(informer, namespace))
            .isEqualTo(serverState(resources)));
  }

  /**
   * A burst of {@code ops} seeded random writes to configmaps: creates (half the time while
   * under {@code maxObjects}), updates and deletes of live names. Returns how many of each.
   */
  static int[] burst(ResourceClient<ConfigMap> configMaps, String namespace, long seed, int ops,
      int maxObjects) {
    Random random = new Random(seed);
    List<String> live = new ArrayList<>(serverState(configMaps).keySet());
    int[] counts = new int[3];
    int next = 0;
    for (int i = 0; i < ops; i++) {
      int choice = live.isEmpty() || (live.size() < maxObjects && random.nextBoolean()) ? 0
          : random.nextInt(3) == 0 ? 2 : 1;
      switch (choice) {
        case 0 -> {
          String name = "cm-" + seed + "-" + next++;
          configMaps.create(configMap(namespace, name, "v0"));
          live.add(name);
        }
        case 1 -> {
          String name = live.get(random.nextInt(live.size()));
          configMaps.update(configMap(namespace, name, "v" + i));
        }
        default -> configMaps.delete(live.remove(random.nextInt(live.size())));
      }
      counts[choice]++;
    }
    return counts;
  }

  /**
   * How to write one kind of object in {@link #burst(ResourceClient, long, int, int, Writes)}.
   *
   * @param <T> the kind
   */
  interface Writes<T extends HasMetadata> {
    /** A new object named {@code name}. */
    T create(String name);

    /** {@code current} (a fresh copy from the server) with its spec, data or labels changed. */
    T change(T current, int step);

    /** {@code current} with its status changed, or null if the kind has no status. */
    @Nullable T changeStatus(T current, int step);
  }

  /**
   * A burst of {@code ops} seeded random writes: creates (half the time while under
   * {@code maxObjects}), changes and status changes of live objects (each read from the server
   * first), and deletes. The caller's client names the namespace.
   */
  static <T extends HasMetadata> void burst(ResourceClient<T> resources, long seed, int ops,
      int maxObjects, Writes<T> writes) {
    Random random = new Random(seed);
    List<String> live = new ArrayList<>(serverState(resources).keySet());
    int next = 0;
    for (int i = 0; i < ops; i++) {
      if (live.isEmpty() || (live.size() < maxObjects && random.nextBoolean())) {
        String name = "obj-" + seed + "-" + next++;
        resources.create(writes.create(name));
        live.add(name);
        continue;
      }
      int choice = random.nextInt(4);
      if (choice == 0) {
        resources.delete(live.remove(random.nextInt(live.size())));
        continue;
      }
      String name = live.get(random.nextInt(live.size()));
      T current = resources.get(name).orElseThrow();
      T status = choice == 1 ? writes.changeStatus(current, i) : null;
      if (status != null) {
        resources.updateStatus(status);
      } else {
        resources.update(writes.change(current, i));
      }
    }
  }
}

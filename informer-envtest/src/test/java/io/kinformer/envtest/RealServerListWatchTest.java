package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The list and watch protocol as Kubernetes' own server code speaks it (see PROTOCOL.md). */
@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class RealServerListWatchTest {

  private static ResourceClient<ConfigMap> configMaps(KubeClient client, String ns, int count) {
    ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class).inNamespace(ns);
    for (int i = 0; i < count; i++) {
      cms.create(Cluster.configMap(ns, String.format("cm-%03d", i), "v"));
    }
    return cms;
  }

  @Test
  void list_withLimit_pagesInKeyOrderAtOneResourceVersion(KubeClient client) {
    String ns = Cluster.newNamespace(client, "paged");
    ResourceClient<ConfigMap> cms = configMaps(client, ns, 120);

    List<String> names = new ArrayList<>();
    List<String> pageVersions = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    ListOptions options = ListOptions.builder().limit(50L).build();
    while (true) {
      ListResult<ConfigMap> page = cms.listerWatcher().list(options, Cancellation.none());
      page.items().forEach(cm -> names.add(cm.getMetadata().getName()));
      pageVersions.add(page.resourceVersion());
      pageSizes.add(page.items().size());
      if (!page.hasMore()) {
        break;
      }
      options = options.toBuilder().continueToken(page.continueToken()).build();
    }

    assertThat(pageSizes).containsExactly(50, 50, 20);
    assertThat(pageVersions).containsOnly(pageVersions.get(0));
    assertThat(names).hasSize(120).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void list_atResourceVersionZero_ignoresLimit(KubeClient client) {
    String ns = Cluster.newNamespace(client, "rv0");
    ResourceClient<ConfigMap> cms = configMaps(client, ns, 30);

    ListResult<ConfigMap> all =
        cms.listerWatcher().list(ListOptions.builder().resourceVersion("0").limit(10L).build(),
            Cancellation.none());

    assertThat(all.items()).hasSize(30);
    assertThat(all.hasMore()).isFalse();
  }

  @Test
  void watch_withSendInitialEvents_sendsEachObjectThenAnInitialEventsEndBookmark(
      KubeClient client) {
    String ns = Cluster.newNamespace(client, "stream");
    ResourceClient<ConfigMap> cms = configMaps(client, ns, 5);

    List<String> added = new ArrayList<>();
    WatchEvent<ConfigMap> bookmark;
    try (Watch<ConfigMap> w = cms.watch(ListOptions.builder()
        .sendInitialEvents(true)
        .resourceVersionMatch(ListOptions.NOT_OLDER_THAN)
        .allowWatchBookmarks(true)
        .timeoutSeconds(30L)
        .build())) {
      WatchEvent<ConfigMap> e;
      while ((e = w.next()) != null && e.type() == WatchEventType.ADDED) {
        added.add(e.object().getMetadata().getName());
      }
      bookmark = e;
    }

    assertThat(added).containsExactly("cm-000", "cm-001", "cm-002", "cm-003", "cm-004");
    assertThat(bookmark).isNotNull();
    assertThat(bookmark.type()).isEqualTo(WatchEventType.BOOKMARK);
    assertThat(bookmark.object().getMetadata().getAnnotations())
        .containsEntry(WatchEvent.INITIAL_EVENTS_END_ANNOTATION, "true");
  }

  @Test
  void watch_fromListResourceVersion_resumesWithLaterChangesOnly(KubeClient client) {
    String ns = Cluster.newNamespace(client, "resume");
    ResourceClient<ConfigMap> cms = configMaps(client, ns, 3);
    String listRv = cms.list(ListOptions.none()).resourceVersion();
    cms.update(Cluster.configMap(ns, "cm-001", "changed"));
    cms.delete("cm-002");
    ConfigMap created = cms.create(Cluster.configMap(ns, "cm-new", "v"));

    List<String> seen = new ArrayList<>();
    try (Watch<ConfigMap> w = cms.watch(ListOptions.builder()
        .resourceVersion(listRv).allowWatchBookmarks(true).timeoutSeconds(30L).build())) {
      while (seen.size() < 3) {
        WatchEvent<ConfigMap> e = w.next();
        assertThat(e).isNotNull();
        if (e.type() != WatchEventType.BOOKMARK) {
          seen.add(e.type() + " " + e.object().getMetadata().getName());
        }
      }
    }

    assertThat(seen).containsExactly("MODIFIED cm-001", "DELETED cm-002", "ADDED cm-new");
    assertThat(Long.parseLong(created.getMetadata().getResourceVersion()))
        .isGreaterThan(Long.parseLong(listRv));
  }

  /**
   * With bookmarks allowed, a watch whose own objects do not change still learns that the
   * resource moved on: a write in another namespace advances the watch cache, and a bookmark
   * (sent two seconds before the watch's timeout, and every minute) carries a resourceVersion
   * at least as new as that write. Nothing else arrives.
   */
  @Test
  void watch_withBookmarksAllowed_learnsOfWritesElsewhereFromABookmark(KubeClient client) {
    String ns = Cluster.newNamespace(client, "bookmark");
    ResourceClient<ConfigMap> cms = configMaps(client, ns, 2);
    String listRv = cms.list(ListOptions.none()).resourceVersion();
    ResourceClient<ConfigMap> elsewhere = Cluster.configMapsInNewNamespace(client, "elsewhere");

    List<WatchEvent<ConfigMap>> events = new ArrayList<>();
    String writtenElsewhere;
    try (Watch<ConfigMap> w = cms.watch(ListOptions.builder()
        .resourceVersion(listRv).allowWatchBookmarks(true).timeoutSeconds(5L).build())) {
      writtenElsewhere = elsewhere.create(
          Cluster.configMap(elsewhere.namespace().orElseThrow(), "other", "v"))
          .getMetadata().getResourceVersion();
      for (WatchEvent<ConfigMap> e = w.next(); e != null; e = w.next()) {
        events.add(e);
      }
    }

    assertThat(events).isNotEmpty().allSatisfy(e -> {
      assertThat(e.type()).isEqualTo(WatchEventType.BOOKMARK);
      assertThat(Long.parseLong(e.object().getMetadata().getResourceVersion()))
          .isGreaterThanOrEqualTo(Long.parseLong(writtenElsewhere));
    });
  }

  private static Pod pod(String ns, String name, String node) {
    return new PodBuilder()
        .withNewMetadata().withNamespace(ns).withName(name).endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox")
        .endContainer().endSpec()
        .build();
  }

  @Test
  void list_withPodFieldSelectors_filtersOnNodeNameAndPhase(KubeClient client) {
    String ns = Cluster.newNamespace(client, "fields");
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace(ns);
    pods.create(pod(ns, "on-a", "node-a"));
    Pod onB = pods.create(pod(ns, "on-b", "node-b"));
    onB.getStatus().setPhase("Running");
    pods.updateStatus(onB);

    assertThat(names(pods.withFieldSelector("spec.nodeName=node-a").list())).containsExactly("on-a");
    assertThat(names(pods.withFieldSelector("status.phase=Running").list())).containsExactly("on-b");
    assertThat(names(pods.withFieldSelector("status.phase=Pending").list())).containsExactly("on-a");
    assertThat(names(pods.withFieldSelector("metadata.name=on-b").list())).containsExactly("on-b");
  }

  @Test
  void pod_create_resetsStatusAndStatusUpdateKeepsSpec(KubeClient client) {
    String ns = Cluster.newNamespace(client, "status");
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace(ns);
    Pod withStatus = pod(ns, "p", "node-a");
    withStatus.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
        .withPhase("Succeeded").build());

    Pod created = pods.create(withStatus);
    created.getSpec().setNodeName("node-other");
    created.getStatus().setPhase("Running");
    Pod updated = pods.updateStatus(created);

    assertThat(pods.create(pod(ns, "q", "n")).getStatus().getPhase()).isEqualTo("Pending");
    assertThat(updated.getStatus().getPhase()).isEqualTo("Running");
    assertThat(updated.getSpec().getNodeName()).isEqualTo("node-a");
  }

  @Test
  void delete_ofBoundPod_isGracefulUntilGracePeriodZero(KubeClient client) {
    String ns = Cluster.newNamespace(client, "graceful");
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace(ns);
    pods.create(pod(ns, "bound", "node-a"));

    assertThat(pods.delete("bound")).isTrue();
    Pod terminating = pods.get("bound").orElseThrow();
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);

    pods.delete("bound", new DeleteOptionsBuilder().withGracePeriodSeconds(0L).build());
    assertThat(pods.get("bound")).isEmpty();
  }

  @Test
  void watch_ofUnboundPodDeletion_seesModifiedThenDeleted(KubeClient client) {
    String ns = Cluster.newNamespace(client, "poddelete");
    ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace(ns);
    Pod created = pods.create(pod(ns, "unbound", ""));

    List<String> seen = new ArrayList<>();
    try (Watch<Pod> w = pods.watch(ListOptions.builder()
        .resourceVersion(created.getMetadata().getResourceVersion()).timeoutSeconds(30L).build())) {
      pods.delete("unbound");
      while (seen.size() < 2) {
        WatchEvent<Pod> e = w.next();
        assertThat(e).isNotNull();
        seen.add(e.type() + (e.object().getMetadata().getDeletionTimestamp() != null ? "+ts" : ""));
      }
    }

    assertThat(seen).containsExactly("MODIFIED+ts", "DELETED+ts");
    assertThat(pods.get("unbound")).isEmpty();
  }

  @Test
  void list_ofClusterScopedNodes_andNamespacedKindsAcrossNamespaces(KubeClient client) {
    String ns = Cluster.newNamespace(client, "scopes");
    configMaps(client, ns, 2);
    client.resources(io.fabric8.kubernetes.api.model.Node.class).create(
        new io.fabric8.kubernetes.api.model.NodeBuilder()
            .withNewMetadata().withName(ns + "-node").endMetadata().build());

    Map<String, String> all = Cluster.serverState(client.resources(ConfigMap.class).inAnyNamespace()
        .withFieldSelector("metadata.namespace=" + ns));
    assertThat(all).containsOnlyKeys("cm-000", "cm-001");
    assertThat(names(client.resources(io.fabric8.kubernetes.api.model.Node.class).list()))
        .contains(ns + "-node");
  }

  private static TreeSet<String> names(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objs) {
    TreeSet<String> names = new TreeSet<>();
    objs.forEach(o -> names.add(o.getMetadata().getName()));
    return names;
  }
}

package io.kinformer.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource types the server serves, looked up by URL (group, version, plural) and by body
 * (apiVersion, kind).
 *
 * <p>Thread safety: thread-safe; registration is rare and synchronized, lookups are lock-free.
 */
final class Registry {

  private final Map<String, ServedResource> byPath = new ConcurrentHashMap<>();
  private final Map<String, ServedResource> byKind = new ConcurrentHashMap<>();
  /** apiVersion/kind -> the openAPIV3Schema a custom resource was registered with. */
  private final Map<String, tools.jackson.databind.node.ObjectNode> schemas =
      new ConcurrentHashMap<>();
  /** group -> versions, in registration order. Guarded by this. */
  private final Map<String, Set<String>> groups = new LinkedHashMap<>();

  /** The common built-in resources (namespaces first). */
  static final List<ServedResource> BUILT_INS = List.copyOf(createBuiltIns());

  static List<ServedResource> builtIns() {
    return BUILT_INS;
  }

  private static List<ServedResource> createBuiltIns() {
    List<ServedResource> l = new ArrayList<>();
    String podTemplate = "\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}}";
    l.add(core("Namespace", "namespaces", false, true, false, "\"spec\":{},\"status\":{}", "ns"));
    l.add(core("Node", "nodes", false, true, false, "\"spec\":{},\"status\":{}", "no"));
    l.add(core("Pod", "pods", true, true, true,
        "\"spec\":{\"containers\":null},\"status\":{}", "po"));
    l.add(core("Service", "services", true, true, false,
        "\"spec\":{},\"status\":{\"loadBalancer\":{}}", "svc"));
    l.add(core("Endpoints", "endpoints", true, false, false, "", "ep"));
    l.add(core("ConfigMap", "configmaps", true, false, false, "", "cm"));
    l.add(core("Secret", "secrets", true, false, false, "", ""));
    l.add(core("Event", "events", true, false, false,
        "\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,\"lastTimestamp\":null,"
            + "\"eventTime\":null,\"reportingComponent\":\"\",\"reportingInstance\":\"\"", "ev"));
    l.add(core("ServiceAccount", "serviceaccounts", true, false, false, "", "sa"));
    l.add(core("PersistentVolumeClaim", "persistentvolumeclaims", true, true, false,
        "\"spec\":{\"resources\":{}},\"status\":{}", "pvc"));
    l.add(apps("Deployment", "deployments",
        "\"spec\":{\"selector\":null," + podTemplate + ",\"strategy\":{}},\"status\":{}",
        "deploy"));
    l.add(apps("ReplicaSet", "replicasets",
        "\"spec\":{\"selector\":null," + podTemplate + "},\"status\":{\"replicas\":0}", "rs"));
    l.add(apps("StatefulSet", "statefulsets",
        "\"spec\":{\"selector\":null," + podTemplate
            + ",\"serviceName\":\"\",\"updateStrategy\":{}},\"status\":{\"replicas\":0"
            + ",\"availableReplicas\":0}", "sts"));
    l.add(apps("DaemonSet", "daemonsets",
        "\"spec\":{\"selector\":null," + podTemplate + ",\"updateStrategy\":{}},\"status\":{"
            + "\"currentNumberScheduled\":0,\"numberMisscheduled\":0,"
            + "\"desiredNumberScheduled\":0,\"numberReady\":0}", "ds"));
    l.add(new ServedResource("batch", "v1", "Job", "jobs", "job", true, true, true, List.of(),
        "\"spec\":{" + podTemplate + "},\"status\":{}"));
    l.add(new ServedResource("coordination.k8s.io", "v1", "Lease", "leases", "lease", true, false,
        false, List.of(), "\"spec\":{}"));
    return l;
  }

  private static ServedResource core(String kind, String plural, boolean namespaced,
      boolean status, boolean generation, String bookmark, String shortName) {
    return new ServedResource("", "v1", kind, plural, kind.toLowerCase(java.util.Locale.ROOT),
        namespaced, status, generation, shortName.isEmpty() ? List.of() : List.of(shortName),
        bookmark);
  }

  private static ServedResource apps(String kind, String plural, String bookmark, String shortName) {
    return new ServedResource("apps", "v1", kind, plural, kind.toLowerCase(java.util.Locale.ROOT),
        true, true, true, List.of(shortName), bookmark);
  }

  synchronized void register(ServedResource type) {
    String pathKey = pathKey(type.group(), type.version(), type.plural());
    ServedResource existing = byPath.get(pathKey);
    if (existing != null && !existing.equals(type)) {
      throw new IllegalArgumentException("resource already registered differently: " + existing);
    }
    byPath.put(pathKey, type);
    byKind.put(type.apiVersion() + "/" + type.kind(), type);
    groups.computeIfAbsent(type.group(), g -> new LinkedHashSet<>()).add(type.version());
  }

  /** Records the openAPIV3Schema of a registered custom resource (replacing an earlier one). */
  void schema(ServedResource type, tools.jackson.databind.node.ObjectNode openApiV3Schema) {
    schemas.put(type.apiVersion() + "/" + type.kind(), openApiV3Schema);
  }

  /** The openAPIV3Schema {@code type} was registered with, if any. */
  Optional<tools.jackson.databind.node.ObjectNode> schema(ServedResource type) {
    return Optional.ofNullable(schemas.get(type.apiVersion() + "/" + type.kind()));
  }

  Optional<ServedResource> byPath(String group, String version, String plural) {
    return Optional.ofNullable(byPath.get(pathKey(group, version, plural)));
  }

  Optional<ServedResource> byKind(String apiVersion, String kind) {
    return Optional.ofNullable(byKind.get(apiVersion + "/" + kind));
  }

  synchronized boolean hasGroupVersion(String group, String version) {
    Set<String> v = groups.get(group);
    return v != null && v.contains(version)
        || group.equals(AccessReviews.GROUP) && version.equals(AccessReviews.VERSION);
  }

  synchronized boolean hasGroup(String group) {
    return groups.containsKey(group) || group.equals(AccessReviews.GROUP);
  }

  /** Non-core groups and their versions, in registration order. */
  synchronized Map<String, List<String>> namedGroups() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    groups.forEach((g, v) -> {
      if (!g.isEmpty()) {
        out.put(g, List.copyOf(v));
      }
    });
    // Every server serves the access reviews (kubectl auth can-i), with no resource registered.
    out.computeIfAbsent(AccessReviews.GROUP, g -> List.of(AccessReviews.VERSION));
    return out;
  }

  List<ServedResource> resources(String group, String version) {
    List<ServedResource> out = new ArrayList<>();
    for (ServedResource t : byPath.values()) {
      if (t.group().equals(group) && t.version().equals(version)) {
        out.add(t);
      }
    }
    out.sort((a, b) -> a.plural().compareTo(b.plural()));
    return out;
  }

  /** Every resource served, in no particular order. */
  List<ServedResource> all() {
    return List.copyOf(byPath.values());
  }

  private static String pathKey(String group, String version, String plural) {
    return group + "/" + version + "/" + plural;
  }
}

package io.kinformer.testing;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The discovery documents ({@code /version}, {@code /api}, {@code /api/v1}, {@code /apis}, {@code
 * /apis/{group}} and {@code /apis/{group}/{version}}), built from the registry in the plain
 * (non-aggregated) form that client-go and kubectl fall back to. See transcript 11.
 *
 * <p>Thread safety: stateless.
 */
final class Discovery {

  private static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  private Discovery() {}

  static ObjectNode version() {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("major", "1");
    v.put("minor", "36");
    v.put("emulationMajor", "1");
    v.put("emulationMinor", "36");
    v.put("minCompatibilityMajor", "1");
    v.put("minCompatibilityMinor", "35");
    v.put("gitVersion", "v1.36.2-kinformer");
    v.put("gitCommit", "0000000000000000000000000000000000000000");
    v.put("gitTreeState", "clean");
    v.put("buildDate", "2026-11-30T00:00:00Z");
    v.put("goVersion", "go1.25.0");
    v.put("compiler", "gc");
    v.put("platform", "linux/amd64");
    return v;
  }

  static ObjectNode apiVersions(String serverAddress) {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("kind", "APIVersions");
    v.putArray("versions").add("v1");
    v.putArray("serverAddressByClientCIDRs").addObject()
        .put("clientCIDR", "0.0.0.0/0").put("serverAddress", serverAddress);
    return v;
  }

  static ObjectNode groupList(Registry registry) {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("kind", "APIGroupList");
    v.put("apiVersion", "v1");
    ArrayNode groups = v.putArray("groups");
    for (Map.Entry<String, List<String>> e : registry.namedGroups().entrySet()) {
      groups.add(group(e.getKey(), e.getValue(), false));
    }
    return v;
  }

  static ObjectNode group(String name, List<String> versions, boolean withKind) {
    ObjectNode g = Json.MAPPER.createObjectNode();
    if (withKind) {
      g.put("kind", "APIGroup");
      g.put("apiVersion", "v1");
    }
    g.put("name", name);
    ArrayNode vs = g.putArray("versions");
    for (String v : versions) {
      vs.addObject().put("groupVersion", name + "/" + v).put("version", v);
    }
    g.putObject("preferredVersion")
        .put("groupVersion", name + "/" + versions.get(0)).put("version", versions.get(0));
    return g;
  }

  static ObjectNode resourceList(Registry registry, String group, String version) {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("kind", "APIResourceList");
    if (!group.isEmpty()) {
      v.put("apiVersion", "v1");
    }
    v.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode resources = v.putArray("resources");
    for (ServedResource t : registry.resources(group, version)) {
      ObjectNode r = resources.addObject();
      r.put("name", t.plural());
      r.put("singularName", t.singular());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      ArrayNode verbs = r.putArray("verbs");
      VERBS.forEach(verbs::add);
      if (!t.shortNames().isEmpty()) {
        ArrayNode sn = r.putArray("shortNames");
        t.shortNames().forEach(sn::add);
      }
      if (t.group().isEmpty() && t.plural().equals("pods")
          || t.group().equals("apps") && !t.plural().equals("controllerrevisions")
          || t.group().equals("batch")) {
        r.putArray("categories").add("all");
      }
      if (t.statusSubresource()) {
        ObjectNode s = resources.addObject();
        s.put("name", t.plural() + "/status");
        s.put("singularName", "");
        s.put("namespaced", t.namespaced());
        s.put("kind", t.kind());
        s.putArray("verbs").add("get").add("patch").add("update");
      }
      if (Scales.supports(t)) {
        ObjectNode s = resources.addObject();
        s.put("name", t.plural() + "/scale");
        s.put("singularName", "");
        s.put("namespaced", t.namespaced());
        s.put("group", "autoscaling");
        s.put("version", "v1");
        s.put("kind", "Scale");
        s.putArray("verbs").add("get").add("patch").add("update");
      }
    }
    AccessReviews.addResources(group, version, resources);
    return v;
  }

  /** The media type of aggregated discovery (apidiscovery.k8s.io/v2), as the server echoes it. */
  static final String AGGREGATED =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

  /** A strong ETag of a discovery document: its SHA-512, in upper-case hex, quoted. */
  static String etag(byte[] doc) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-512").digest(doc);
      return "\"" + java.util.HexFormat.of().withUpperCase().formatHex(d) + "\"";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is always available", e);
    }
  }

  /** Whether the client asked for aggregated discovery v2 (kubectl and client-go do). */
  static boolean wantsAggregated(String accept) {
    for (String range : accept.split(",")) {
      List<String> params = new java.util.ArrayList<>();
      for (String p : range.split(";")) {
        params.add(p.trim());
      }
      if (params.contains("as=APIGroupDiscoveryList") && params.contains("v=v2")
          && params.contains("g=apidiscovery.k8s.io")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Aggregated discovery: {@code /api} (the core group only) or {@code /apis} (every named
   * group), each version with all its resources.
   */
  static ObjectNode aggregated(Registry registry, boolean core) {
    ObjectNode list = Json.MAPPER.createObjectNode();
    list.put("kind", "APIGroupDiscoveryList");
    list.put("apiVersion", "apidiscovery.k8s.io/v2");
    list.putObject("metadata");
    ArrayNode items = list.putArray("items");
    if (core) {
      ObjectNode g = items.addObject();
      g.putObject("metadata");
      ArrayNode versions = g.putArray("versions");
      versions.add(aggregatedVersion(registry, "", "v1"));
    } else {
      for (Map.Entry<String, List<String>> e : registry.namedGroups().entrySet()) {
        ObjectNode g = items.addObject();
        g.putObject("metadata").put("name", e.getKey());
        ArrayNode versions = g.putArray("versions");
        for (String v : e.getValue()) {
          versions.add(aggregatedVersion(registry, e.getKey(), v));
        }
      }
    }
    return list;
  }

  private static ObjectNode aggregatedVersion(Registry registry, String group, String version) {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("version", version);
    ArrayNode resources = v.putArray("resources");
    for (ServedResource t : registry.resources(group, version)) {
      ObjectNode r = resources.addObject();
      r.put("resource", t.plural());
      r.putObject("responseKind").put("group", "").put("version", "").put("kind", t.kind());
      r.put("scope", t.namespaced() ? "Namespaced" : "Cluster");
      r.put("singularResource", t.singular());
      ArrayNode verbs = r.putArray("verbs");
      VERBS.forEach(verbs::add);
      if (!t.shortNames().isEmpty()) {
        ArrayNode sn = r.putArray("shortNames");
        t.shortNames().forEach(sn::add);
      }
      if (t.statusSubresource()) {
        ObjectNode s = r.withArrayProperty("subresources").addObject();
        s.put("subresource", "status");
        s.putObject("responseKind").put("group", "").put("version", "").put("kind", t.kind());
        s.putArray("verbs").add("get").add("patch").add("update");
      }
      if (Scales.supports(t)) {
        ObjectNode s = r.withArrayProperty("subresources").addObject();
        s.put("subresource", "scale");
        s.putObject("responseKind").put("group", "autoscaling").put("version", "v1")
            .put("kind", "Scale");
        s.putArray("verbs").add("get").add("patch").add("update");
      }
    }
    AccessReviews.addAggregated(group, version, resources);
    v.put("freshness", "Current");
    return v;
  }
}

package io.kinformer.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code /scale} subresource: an autoscaling/v1 Scale view of a workload (spec.replicas,
 * status.replicas, status.selector as a label-selector string) for deployments, replicasets,
 * statefulsets and replicationcontrollers, and for custom resources declaring a {@link
 * ScaleSubresource}. Writing the Scale (PUT or PATCH) sets the parent's desired replicas through
 * the ordinary update path: resourceVersion preconditions, generation and dry runs as for the
 * object itself.
 *
 * <p>Thread safety: stateless.
 */
final class Scales {

  private static final ScaleSubresource WORKLOAD =
      new ScaleSubresource(".spec.replicas", ".status.replicas", null);

  private Scales() {}

  /** Whether {@code type} has a {@code /scale} subresource. */
  static boolean supports(ServedResource type) {
    return builtIn(type) || type.scale() != null;
  }

  private static boolean builtIn(ServedResource type) {
    return type.group().equals("apps") && (type.plural().equals("deployments")
        || type.plural().equals("replicasets") || type.plural().equals("statefulsets"))
        || type.group().isEmpty() && type.plural().equals("replicationcontrollers");
  }

  private static ScaleSubresource paths(ServedResource type) {
    ScaleSubresource s = type.scale();
    return s != null ? s : WORKLOAD;
  }

  /** GET: the Scale of the object. */
  static ApiOps.Result get(Store store, ServedResource type, String ns, String name) {
    StoredObject o = store.get(type, StoredObject.key(type.namespaced() ? ns : "", name));
    if (o == null) {
      throw ApiError.notFound(type.plural(), name);
    }
    return new ApiOps.Result(200, Json.bytes(scaleOf(type, o.tree())));
  }

  /** PUT: sets the parent's desired replicas from the Scale in {@code body}. */
  static ApiOps.Result update(ApiOps ops, ServedResource type, String ns, String name,
      byte[] body) {
    ObjectNode scale = parseScale(body);
    String bodyName = scale.path("metadata").path("name").asString("");
    if (!bodyName.isEmpty() && !bodyName.equals(name)) {
      throw ApiError.badRequest("the name of the object (" + bodyName
          + ") does not match the name on the URL (" + name + ")");
    }
    return write(ops, type, ns, name, cur -> scale);
  }

  /** PATCH: patches the Scale view and sets the parent's desired replicas from the result. */
  static ApiOps.Result patch(ApiOps ops, ServedResource type, String ns, String name,
      String contentType, byte[] body) {
    String ct = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    JsonNode p;
    try {
      p = ct.equals("application/apply-patch+yaml") ? Json.YAML.readTree(body)
          : Json.MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiError.badRequest("error decoding patch: " + e.getOriginalMessage());
    }
    return write(ops, type, ns, name, cur -> {
      JsonNode patched;
      switch (ct) {
        case "application/merge-patch+json":
        case "application/strategic-merge-patch+json":
        case "application/apply-patch+yaml":
          patched = Patches.mergePatch(cur, p, false);
          break;
        case "application/json-patch+json":
          patched = Patches.jsonPatch(cur, p);
          break;
        default:
          throw ApiError.unsupportedMediaType();
      }
      if (!(patched instanceof ObjectNode o)) {
        throw ApiError.badRequest("the patched object is not a JSON object");
      }
      return o;
    });
  }

  private interface ScaleChange {
    ObjectNode apply(ObjectNode currentScale);
  }

  private static ApiOps.Result write(ApiOps ops, ServedResource type, String ns, String name,
      ScaleChange change) {
    ScaleSubresource paths = paths(type);
    ApiOps.Result r = ops.replace(type, ns, name, false, cur -> {
      ObjectNode tree = cur.tree();
      ObjectNode next = change.apply(scaleOf(type, tree));
      // A Scale without spec.replicas asks for zero, as Go's zero value does.
      JsonNode replicas = next.path("spec").path("replicas");
      if (!replicas.isMissingNode() && !replicas.isNull() && (!replicas.isIntegralNumber()
          || !replicas.canConvertToInt())) {
        throw ApiError.badRequest("Scale in version \"v1\" cannot be handled as a Scale: "
            + "spec.replicas must be a 32-bit integer, not " + replicas);
      }
      long count = replicas.asLong(0);
      if (count < 0) {
        throw ApiError.invalid("Scale", name, "spec.replicas", "FieldValueInvalid",
            "Invalid value: " + count + ": must be greater than or equal to 0");
      }
      set(tree, paths.specReplicasPath(), (int) count);
      // The Scale's resourceVersion is the parent's: a stale one is a conflict.
      String rv = next.path("metadata").path("resourceVersion").asString("");
      ObjectNode meta = (ObjectNode) tree.get("metadata");
      if (rv.isEmpty()) {
        meta.remove("resourceVersion");
      } else {
        meta.put("resourceVersion", rv);
      }
      return tree;
    });
    return new ApiOps.Result(r.code(), Json.bytes(scaleOf(type, ApiOps.parseObject(r.body(),
        type))));
  }

  /** The autoscaling/v1 Scale of {@code object}. */
  static ObjectNode scaleOf(ServedResource type, ObjectNode object) {
    ScaleSubresource paths = paths(type);
    ObjectNode scale = Json.MAPPER.createObjectNode();
    scale.put("kind", "Scale");
    scale.put("apiVersion", "autoscaling/v1");
    ObjectNode meta = scale.putObject("metadata");
    JsonNode om = object.path("metadata");
    for (String k : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (om.has(k)) {
        meta.set(k, om.get(k));
      }
    }
    JsonNode specReplicas = at(object, paths.specReplicasPath());
    scale.putObject("spec").put("replicas", specReplicas == null ? 0 : specReplicas.asInt());
    ObjectNode status = scale.putObject("status");
    JsonNode statusReplicas = at(object, paths.statusReplicasPath());
    status.put("replicas", statusReplicas == null ? 0 : statusReplicas.asInt());
    String selector;
    if (type.scale() == null) {
      selector = selectorString(object.path("spec").path("selector"));
    } else {
      JsonNode s = paths.labelSelectorPath() == null ? null
          : at(object, paths.labelSelectorPath());
      selector = s == null || !s.isString() ? "" : s.asString();
    }
    if (!selector.isEmpty()) {
      status.put("selector", selector);
    }
    return scale;
  }

  private static ObjectNode parseScale(byte[] body) {
    JsonNode n;
    try {
      n = Json.MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiError.badRequest("the object provided is unrecognized (must be of type Scale): "
          + e.getOriginalMessage());
    }
    if (!(n instanceof ObjectNode o)) {
      throw ApiError.badRequest("the object provided is unrecognized (must be of type Scale)");
    }
    String kind = o.path("kind").asString("Scale");
    if (!kind.equals("Scale")) {
      throw ApiError.badRequest(kind + " in version \"" + o.path("apiVersion").asString("")
          + "\" cannot be handled as a Scale");
    }
    return o;
  }

  /**
   * A label selector as {@code labels.Selector.String()} prints it: requirements sorted by key,
   * {@code k=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}. A plain map
   * (a replication controller's selector) is taken as matchLabels.
   */
  static String selectorString(JsonNode selector) {
    if (!selector.isObject()) {
      return "";
    }
    boolean labelSelector = selector.has("matchLabels") || selector.has("matchExpressions");
    JsonNode matchLabels = labelSelector ? selector.path("matchLabels") : selector;
    TreeMap<String, List<String>> byKey = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : matchLabels.properties()) {
      byKey.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
          .add(e.getKey() + "=" + e.getValue().asString(""));
    }
    for (JsonNode r : selector.path("matchExpressions")) {
      String key = r.path("key").asString("");
      List<String> values = new ArrayList<>();
      r.path("values").forEach(v -> values.add(v.asString("")));
      values.sort(null);
      String req;
      switch (r.path("operator").asString("")) {
        case "In":
          req = key + " in (" + String.join(",", values) + ")";
          break;
        case "NotIn":
          req = key + " notin (" + String.join(",", values) + ")";
          break;
        case "Exists":
          req = key;
          break;
        case "DoesNotExist":
          req = "!" + key;
          break;
        default:
          continue;
      }
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(req);
    }
    List<String> all = new ArrayList<>();
    byKey.values().forEach(all::addAll);
    return String.join(",", all);
  }

  /** The value at a dotted field path, or null. */
  static @Nullable JsonNode at(JsonNode object, String path) {
    JsonNode n = object;
    for (String f : path.substring(1).split("\\.")) {
      n = n.get(f);
      if (n == null || n.isNull()) {
        return null;
      }
    }
    return n;
  }

  private static void set(ObjectNode object, String path, int value) {
    String[] fields = path.substring(1).split("\\.");
    ObjectNode n = object;
    for (int i = 0; i < fields.length - 1; i++) {
      n = Json.objectOrEmpty(n, fields[i]);
    }
    n.put(fields[fields.length - 1], value);
  }
}

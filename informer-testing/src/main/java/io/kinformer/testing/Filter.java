package io.kinformer.testing;

import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.ShardSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What a list or watch selects: a namespace (or all), a label selector, a field selector and a
 * shard selector ({@code ShardedListAndWatch}).
 *
 * <p>Thread safety: immutable.
 */
final class Filter {

  private static final Set<String> COMMON_FIELDS = Set.of("metadata.name", "metadata.namespace");

  final @Nullable String namespace;
  private final Predicate<Map<String, String>> labels;
  private final List<FieldRequirement> fields;
  /** Whether a label, field or shard selector was given (then lists omit remainingItemCount). */
  final boolean selective;
  /** The shard selector applied, or null: a list echoes it in {@code metadata.shardInfo}. */
  final @Nullable ShardSelector shard;

  private record FieldRequirement(String field, String value, boolean equal) {}

  private Filter(
      @Nullable String namespace,
      Predicate<Map<String, String>> labels,
      List<FieldRequirement> fields,
      boolean selective,
      @Nullable ShardSelector shard) {
    this.namespace = namespace;
    this.labels = labels;
    this.fields = fields;
    this.selective = selective;
    this.shard = shard;
  }

  /**
   * This filter, restricted to the shard selector {@code raw} (the query's {@code
   * shardSelector}), as kube-apiserver's generic registry store does with the gate on; an absent
   * or empty parameter changes nothing.
   *
   * @throws ApiError 500 without a reason, as kube-apiserver answers a selector that {@code
   *     sharding.Parse} refuses (the registry returns a plain error, not an API status)
   */
  Filter withShardSelector(@Nullable String raw) {
    if (raw == null || raw.isEmpty()) {
      return this;
    }
    ShardSelector parsed;
    try {
      parsed = ShardSelector.parse(raw);
    } catch (IllegalArgumentException e) {
      throw ApiError.unknown("invalid shard selector: " + e.getMessage());
    }
    return new Filter(namespace, labels, fields, true, parsed);
  }

  /**
   * Parses the query's selectors.
   *
   * @throws ApiError 400 for a malformed selector or an unsupported field
   */
  static Filter parse(
      ServedResource type,
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector) {
    Predicate<Map<String, String>> lp = m -> true;
    boolean selective = false;
    if (labelSelector != null && !labelSelector.isBlank()) {
      try {
        lp = LabelSelector.parse(labelSelector)::matches;
      } catch (IllegalArgumentException e) {
        throw ApiError.badRequest(e.getMessage());
      }
      selective = true;
    }
    List<FieldRequirement> reqs = new ArrayList<>();
    if (fieldSelector != null && !fieldSelector.isBlank()) {
      selective = true;
      for (String part : fieldSelector.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) {
          continue;
        }
        int ne = p.indexOf("!=");
        int eq = p.indexOf('=');
        String field;
        String value;
        boolean equal;
        if (ne >= 0) {
          field = p.substring(0, ne).trim();
          value = p.substring(ne + 2).trim();
          equal = false;
        } else if (eq >= 0) {
          field = p.substring(0, eq).trim();
          value = p.substring(p.startsWith("==", eq) ? eq + 2 : eq + 1).trim();
          equal = true;
        } else {
          throw ApiError.badRequest("invalid selector: '" + fieldSelector + "'; can't understand '"
              + p + "'");
        }
        if (!COMMON_FIELDS.contains(field) && !supportsField(type, field)) {
          throw ApiError.badRequest("field label not supported: " + field);
        }
        reqs.add(new FieldRequirement(field, value, equal));
      }
    }
    return new Filter(namespace, lp, List.copyOf(reqs), selective, null);
  }

  static Filter namespaceOnly(@Nullable String namespace) {
    return new Filter(namespace, m -> true, List.of(), false, null);
  }

  private static boolean supportsField(ServedResource type, String field) {
    if (!type.group().isEmpty()) {
      return false;
    }
    switch (type.plural()) {
      case "pods":
        return Set.of(
                "spec.nodeName",
                "spec.restartPolicy",
                "spec.schedulerName",
                "spec.serviceAccountName",
                "status.phase",
                "status.podIP")
            .contains(field);
      case "secrets":
        return field.equals("type");
      case "events":
        return field.startsWith("involvedObject.") || field.equals("reason")
            || field.equals("type");
      default:
        return false;
    }
  }

  boolean matches(StoredObject o) {
    if (namespace != null && !namespace.equals(o.namespace)) {
      return false;
    }
    if (shard != null && !shard.matchesValue(
        shard.field() == ShardSelector.Field.UID ? o.uid : o.namespace)) {
      return false;
    }
    if (!labels.test(o.labels)) {
      return false;
    }
    for (FieldRequirement r : fields) {
      String v = Objects.requireNonNullElse(o.field(r.field()), "");
      if (v.equals(r.value()) != r.equal()) {
        return false;
      }
    }
    return true;
  }
}

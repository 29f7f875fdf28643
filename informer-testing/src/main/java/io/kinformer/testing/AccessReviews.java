package io.kinformer.testing;

import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The self-review endpoints of authorization.k8s.io/v1 that {@code kubectl auth can-i} posts to:
 * SelfSubjectAccessReview ("may I do this?") and SelfSubjectRulesReview ("what may I do?"). The
 * embedded server authorizes every authenticated request, so every review is allowed, with a
 * reason saying why; an unauthenticated request never gets here (401). Nothing is stored.
 *
 * <p>Thread safety: stateless.
 */
final class AccessReviews {

  static final String GROUP = "authorization.k8s.io";
  static final String VERSION = "v1";
  static final String ACCESS = "selfsubjectaccessreviews";
  static final String RULES = "selfsubjectrulesreviews";
  static final String REASON = "the embedded API server allows every authenticated request";

  private AccessReviews() {}

  /** Whether {@code group/version/resource} is one of the review endpoints. */
  static boolean serves(String group, String version, List<String> rest) {
    return group.equals(GROUP) && version.equals(VERSION) && rest.size() == 1
        && (rest.get(0).equals(ACCESS) || rest.get(0).equals(RULES));
  }

  /** The kind of the reviews posted to {@code resource}, one of {@link #serves}'. */
  static String kind(String resource) {
    return resource.equals(ACCESS) ? "SelfSubjectAccessReview" : "SelfSubjectRulesReview";
  }

  /** POST of a review to {@code resource}: the review, answered. */
  static ApiOps.Result create(String resource, byte[] body) {
    boolean access = resource.equals(ACCESS);
    String kind = kind(resource);
    ServedResource type = new ServedResource(GROUP, VERSION, kind, resource,
        kind.toLowerCase(java.util.Locale.ROOT), false, false, false, List.of(), "");
    ObjectNode review = ApiOps.parseObject(body, type);
    String k = review.path("kind").asString("");
    String v = review.path("apiVersion").asString("");
    if (!k.isEmpty() && !k.equals(kind) || !v.isEmpty() && !v.equals(type.apiVersion())) {
      throw ApiError.badRequest(k + " in version \"" + v + "\" cannot be handled as a " + kind);
    }
    review.put("kind", kind);
    review.put("apiVersion", type.apiVersion());
    ObjectNode meta = Json.objectOrEmpty(review, "metadata");
    if (!meta.has("creationTimestamp")) {
      meta.putNull("creationTimestamp");
    }
    ObjectNode spec = Json.objectOrEmpty(review, "spec");
    ObjectNode status = review.putObject("status");
    if (access) {
      boolean resourceAttrs = spec.path("resourceAttributes").isObject();
      boolean nonResourceAttrs = spec.path("nonResourceAttributes").isObject();
      if (resourceAttrs == nonResourceAttrs) {
        throw ApiError.invalid(kind, "", "spec.resourceAttributes", resourceAttrs
            ? "FieldValueInvalid" : "FieldValueRequired", resourceAttrs
            ? "Invalid value: \"null\": cannot be specified in combination with "
                + "nonResourceAttributes"
            : "Required value: exactly one of nonResourceAttributes or resourceAttributes must "
                + "be specified");
      }
      status.put("allowed", true);
      status.put("reason", REASON);
    } else {
      if (spec.path("namespace").asString("").isEmpty()) {
        spec.put("namespace", "");
      }
      ObjectNode rule = status.putArray("resourceRules").addObject();
      rule.putArray("verbs").add("*");
      rule.putArray("apiGroups").add("*");
      rule.putArray("resources").add("*");
      ObjectNode nonResource = status.putArray("nonResourceRules").addObject();
      nonResource.putArray("verbs").add("*");
      nonResource.putArray("nonResourceURLs").add("*");
      status.put("incomplete", false);
    }
    return new ApiOps.Result(201, Json.bytes(review));
  }

  /** The review resources in a plain APIResourceList of {@code group/version}. */
  static void addResources(String group, String version, ArrayNode resources) {
    if (!group.equals(GROUP) || !version.equals(VERSION)) {
      return;
    }
    for (String[] r : reviews()) {
      ObjectNode o = resources.addObject();
      o.put("name", r[0]);
      o.put("singularName", r[1]);
      o.put("namespaced", false);
      o.put("kind", r[2]);
      o.putArray("verbs").add("create");
    }
  }

  /** The review resources in an aggregated discovery version of {@code group/version}. */
  static void addAggregated(String group, String version, ArrayNode resources) {
    if (!group.equals(GROUP) || !version.equals(VERSION)) {
      return;
    }
    for (String[] r : reviews()) {
      ObjectNode o = resources.addObject();
      o.put("resource", r[0]);
      o.putObject("responseKind").put("group", "").put("version", "").put("kind", r[2]);
      o.put("scope", "Cluster");
      o.put("singularResource", r[1]);
      o.putArray("verbs").add("create");
    }
  }

  private static List<String[]> reviews() {
    return List.of(
        new String[] {ACCESS, "selfsubjectaccessreview", "SelfSubjectAccessReview"},
        new String[] {RULES, "selfsubjectrulesreview", "SelfSubjectRulesReview"});
  }
}

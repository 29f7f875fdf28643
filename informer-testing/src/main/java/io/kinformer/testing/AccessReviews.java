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

  /** POST of a review to {@code resource}: the review, answered. */
  static ApiOps.Result create(String resource, byte[] body) {
    boolean access = resource.equals(ACCESS);
    String kind = access ? "SelfSubjectAccessReview" : "SelfSubjectRulesReview";
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

  /**
   * A review sent as Kubernetes protobuf (kubectl's typed client sends reviews so), as the JSON
   * the rest of this class reads: the {@code k8s\0} envelope's runtime.Unknown holds the type
   * and the raw SelfSubjectAccessReview or SelfSubjectRulesReview message, whose spec is all a
   * review needs.
   */
  static byte[] fromProtobuf(byte[] body) {
    if (body.length < 4 || body[0] != 'k' || body[1] != '8' || body[2] != 's' || body[3] != 0) {
      throw ApiError.badRequest("provided data does not appear to be a protobuf message, "
          + "expected prefix [107 56 115 0]");
    }
    ObjectNode review = Json.MAPPER.createObjectNode();
    byte[] raw = new byte[0];
    for (Field f : fields(body, 4, body.length)) {
      if (f.number == 1) {
        for (Field t : fields(body, f.start, f.end)) {
          review.put(t.number == 1 ? "apiVersion" : "kind", t.string(body));
        }
      } else if (f.number == 2) {
        raw = java.util.Arrays.copyOfRange(body, f.start, f.end);
      }
    }
    review.putObject("metadata");
    ObjectNode spec = review.putObject("spec");
    boolean access = "SelfSubjectAccessReview".equals(review.path("kind").asString(""));
    for (Field f : fields(raw, 0, raw.length)) {
      if (f.number != 2) {
        continue;
      }
      for (Field s : fields(raw, f.start, f.end)) {
        if (!access) {
          if (s.number == 1) {
            spec.put("namespace", s.string(raw));
          }
          continue;
        }
        List<String> names = s.number == 1
            ? List.of("namespace", "verb", "group", "version", "resource", "subresource", "name")
            : List.of("path", "verb");
        ObjectNode attrs = spec.putObject(s.number == 1 ? "resourceAttributes"
            : "nonResourceAttributes");
        for (Field a : fields(raw, s.start, s.end)) {
          if (a.number >= 1 && a.number <= names.size() && a.wireType == 2
              && a.end > a.start) {
            attrs.put(names.get(a.number - 1), a.string(raw));
          }
        }
      }
    }
    return Json.bytes(review);
  }

  /** One protobuf field: its number, wire type and, for length-delimited ones, its bytes. */
  private record Field(int number, int wireType, int start, int end) {
    String string(byte[] b) {
      return new String(b, start, end - start, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static List<Field> fields(byte[] b, int from, int to) {
    List<Field> out = new java.util.ArrayList<>();
    int[] pos = {from};
    while (pos[0] < to) {
      long key = varint(b, pos, to);
      int wireType = (int) (key & 7);
      int number = (int) (key >>> 3);
      switch (wireType) {
        case 0:
          varint(b, pos, to);
          out.add(new Field(number, wireType, pos[0], pos[0]));
          break;
        case 2: {
          long len = varint(b, pos, to);
          if (len < 0 || pos[0] + len > to) {
            throw malformed();
          }
          out.add(new Field(number, wireType, pos[0], pos[0] + (int) len));
          pos[0] += (int) len;
          break;
        }
        case 1:
          pos[0] += 8;
          break;
        case 5:
          pos[0] += 4;
          break;
        default:
          throw malformed();
      }
    }
    if (pos[0] != to) {
      throw malformed();
    }
    return out;
  }

  private static long varint(byte[] b, int[] pos, int to) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= to) {
        throw malformed();
      }
      byte x = b[pos[0]++];
      v |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        return v;
      }
    }
    throw malformed();
  }

  private static ApiError malformed() {
    return ApiError.badRequest("the protobuf review could not be decoded");
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

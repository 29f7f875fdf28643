package io.kinformer.testing;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.util.Fields;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code dryRun} option of writes: {@code ?dryRun=All} on create, update and patch, and also
 * {@code dryRun: ["All"]} in a DELETE's DeleteOptions body, as client-go sends it. {@code All} is
 * the only value kube-apiserver accepts; anything else is refused as its option validation
 * refuses it (422, naming the options kind).
 *
 * <p>Thread safety: stateless.
 */
final class DryRun {

  private DryRun() {}

  /**
   * Whether the request asks for a dry run.
   *
   * @param optionsKind the options type the real server validates: {@code CreateOptions},
   *     {@code UpdateOptions}, {@code PatchOptions} or {@code DeleteOptions}
   * @param deleteBody the DeleteOptions body of a DELETE, else empty
   * @throws ApiError 422 for a value other than {@code All}
   */
  static boolean requested(Fields query, String optionsKind, byte[] deleteBody) {
    List<String> values = new ArrayList<>();
    List<String> fromQuery = query.getValues("dryRun");
    if (fromQuery != null) {
      values.addAll(fromQuery);
    }
    if (deleteBody.length > 0) {
      try {
        JsonNode n = Json.MAPPER.readTree(deleteBody);
        JsonNode d = n.path("dryRun");
        if (d.isArray()) {
          d.forEach(v -> values.add(v.asString("")));
        }
      } catch (JacksonException e) {
        // DeleteOptions.parse reports the malformed body.
      }
    }
    if (values.isEmpty()) {
      return false;
    }
    for (String v : values) {
      if (!v.equals("All")) {
        throw unsupported(optionsKind, values);
      }
    }
    return true;
  }

  private static ApiError unsupported(String optionsKind, List<String> values) {
    StringBuilder go = new StringBuilder("[]string{");
    for (int i = 0; i < values.size(); i++) {
      go.append(i > 0 ? ", " : "").append('"').append(values.get(i)).append('"');
    }
    go.append('}');
    String message = "Unsupported value: " + go + ": supported values: \"All\"";
    ObjectNode details = Json.MAPPER.createObjectNode();
    details.put("group", "meta.k8s.io");
    details.put("kind", optionsKind);
    details.putArray("causes").addObject()
        .put("reason", "FieldValueNotSupported").put("message", message).put("field", "dryRun");
    return ApiError.of(422, "Invalid",
        optionsKind + ".meta.k8s.io \"\" is invalid: dryRun: " + message, details);
  }
}

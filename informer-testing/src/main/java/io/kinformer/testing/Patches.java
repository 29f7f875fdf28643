package io.kinformer.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON merge patch (RFC 7386), JSON patch (RFC 6902), and a strategic-merge-patch approximation
 * (merge patch that merges lists of named objects by {@code name} and drops {@code $} directives).
 *
 * <p>Thread safety: stateless.
 */
final class Patches {

  private Patches() {}

  /** RFC 7386: returns the patched document (may be {@code target} itself, mutated). */
  static JsonNode mergePatch(JsonNode target, JsonNode patch, boolean strategic) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target.isObject() ? (ObjectNode) target : Json.MAPPER.createObjectNode();
    for (Map.Entry<String, JsonNode> e : patch.properties()) {
      String k = e.getKey();
      JsonNode v = e.getValue();
      if (strategic && k.startsWith("$")) {
        continue;
      }
      if (v.isNull()) {
        result.remove(k);
      } else if (strategic && v.isArray() && result.get(k) instanceof ArrayNode existing
          && namedObjects(existing) && namedObjects((ArrayNode) v)) {
        result.set(k, mergeByName(existing, (ArrayNode) v));
      } else {
        JsonNode cur = result.get(k);
        result.set(k, mergePatch(cur == null ? Json.MAPPER.nullNode() : cur, v, strategic));
      }
    }
    return result;
  }

  private static boolean namedObjects(ArrayNode a) {
    for (JsonNode n : a) {
      if (!n.isObject() || !n.path("name").isString()) {
        return false;
      }
    }
    return true;
  }

  private static ArrayNode mergeByName(ArrayNode existing, ArrayNode patch) {
    ArrayNode out = existing.deepCopy();
    for (JsonNode p : patch) {
      String name = p.get("name").asString();
      boolean merged = false;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).path("name").asString("").equals(name)) {
          if ("delete".equals(p.path("$patch").asString(""))) {
            out.remove(i);
          } else {
            out.set(i, mergePatch(out.get(i), p, true));
          }
          merged = true;
          break;
        }
      }
      if (!merged && !"delete".equals(p.path("$patch").asString(""))) {
        out.add(mergePatch(Json.MAPPER.createObjectNode(), p, true));
      }
    }
    return out;
  }

  /**
   * RFC 6902.
   *
   * @throws ApiError 422 for a failed {@code test} or a missing path, 400 for a malformed patch
   */
  static JsonNode jsonPatch(JsonNode target, JsonNode patch) {
    if (!patch.isArray()) {
      throw ApiError.badRequest(
          "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    }
    JsonNode doc = target.deepCopy();
    for (JsonNode op : patch) {
      String kind = op.path("op").asString("");
      String path = op.path("path").asString(null);
      if (path == null) {
        throw ApiError.badRequest("the server rejected our request due to an error in our request");
      }
      switch (kind) {
        case "add":
          doc = add(doc, path, op.get("value"));
          break;
        case "remove":
          remove(doc, path);
          break;
        case "replace":
          if (get(doc, path) == null) {
            throw unprocessable("replace operation does not apply: doc is missing path: " + path);
          }
          remove(doc, path);
          doc = add(doc, path, op.get("value"));
          break;
        case "move": {
          String from = op.path("from").asString("");
          JsonNode v = get(doc, from);
          if (v == null) {
            throw unprocessable("move operation does not apply: doc is missing from path: " + from);
          }
          remove(doc, from);
          doc = add(doc, path, v);
          break;
        }
        case "copy": {
          String from = op.path("from").asString("");
          JsonNode v = get(doc, from);
          if (v == null) {
            throw unprocessable("copy operation does not apply: doc is missing from path: " + from);
          }
          doc = add(doc, path, v.deepCopy());
          break;
        }
        case "test": {
          JsonNode v = get(doc, path);
          if (v == null || !v.equals(op.get("value"))) {
            throw unprocessable("testing value " + path + " failed: test failed");
          }
          break;
        }
        default:
          throw ApiError.badRequest("Unexpected kind: " + kind);
      }
    }
    return doc;
  }

  private static ApiError unprocessable(String message) {
    return ApiError.of(422, "Invalid", message, null);
  }

  private static List<String> tokens(String path) {
    List<String> out = new ArrayList<>();
    if (path.isEmpty()) {
      return out;
    }
    if (!path.startsWith("/")) {
      throw ApiError.badRequest("invalid JSON pointer: " + path);
    }
    for (String t : path.substring(1).split("/", -1)) {
      out.add(t.replace("~1", "/").replace("~0", "~"));
    }
    return out;
  }

  private static JsonNode get(JsonNode doc, String path) {
    JsonNode cur = doc;
    for (String t : tokens(path)) {
      if (cur == null) {
        return null;
      }
      if (cur.isObject()) {
        cur = cur.get(t);
      } else if (cur.isArray()) {
        int i = index(t, cur.size(), false, path);
        cur = cur.get(i);
      } else {
        return null;
      }
    }
    return cur;
  }

  private static JsonNode parentOf(JsonNode doc, List<String> tokens, String path) {
    JsonNode parent = doc;
    for (int i = 0; i < tokens.size() - 1; i++) {
      String t = tokens.get(i);
      parent = parent.isArray() ? parent.get(index(t, parent.size(), false, path)) : parent.get(t);
      if (parent == null || !(parent.isObject() || parent.isArray())) {
        throw unprocessable("doc is missing path: \"" + path + "\": missing value");
      }
    }
    return parent;
  }

  private static int index(String t, int size, boolean allowEnd, String path) {
    if (allowEnd && t.equals("-")) {
      return size;
    }
    try {
      int i = Integer.parseInt(t);
      if (i < 0 || i > size || (!allowEnd && i == size)) {
        throw unprocessable("index out of bounds in " + path);
      }
      return i;
    } catch (NumberFormatException e) {
      throw unprocessable("invalid array index " + t + " in " + path);
    }
  }

  private static JsonNode add(JsonNode doc, String path, JsonNode value) {
    if (value == null) {
      throw ApiError.badRequest("missing value for add at " + path);
    }
    List<String> tk = tokens(path);
    if (tk.isEmpty()) {
      return value.deepCopy();
    }
    JsonNode parent = parentOf(doc, tk, path);
    String last = tk.get(tk.size() - 1);
    if (parent instanceof ObjectNode o) {
      o.set(last, value.deepCopy());
    } else {
      ArrayNode a = (ArrayNode) parent;
      a.insert(index(last, a.size(), true, path), value.deepCopy());
    }
    return doc;
  }

  private static void remove(JsonNode doc, String path) {
    List<String> tk = tokens(path);
    if (tk.isEmpty()) {
      throw unprocessable("cannot remove the whole document");
    }
    JsonNode parent = parentOf(doc, tk, path);
    String last = tk.get(tk.size() - 1);
    if (parent instanceof ObjectNode o) {
      if (o.remove(last) == null) {
        throw unprocessable("remove operation does not apply: doc is missing path: \"" + path
            + "\": missing value");
      }
    } else {
      ArrayNode a = (ArrayNode) parent;
      a.remove(index(last, a.size(), false, path));
    }
  }
}

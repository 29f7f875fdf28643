package io.kinformer.testing;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API semantics of writes, as kube-apiserver's generic registry applies them: defaults on
 * create (uid, creationTimestamp, generation, generateName), optimistic concurrency on update,
 * status subresources, patches, graceful deletion of pods and finalizers.
 *
 * <p>Thread safety: thread-safe; every write is one {@link Store#write} transaction.
 */
final class ApiOps {

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  static final ServedResource NAMESPACES = Registry.builtIns().get(0);

  private final Registry registry;
  private final Store store;
  private final Clock clock;
  private final RandomGenerator random;
  private final Object randomLock;
  private final boolean dryRun;

  /** A response: HTTP code and body. */
  record Result(int code, byte[] body) {}

  ApiOps(Registry registry, Store store, Clock clock, RandomGenerator random) {
    this(registry, store, clock, random, new Object(), false);
  }

  private ApiOps(Registry registry, Store store, Clock clock, RandomGenerator random,
      Object randomLock, boolean dryRun) {
    this.registry = registry;
    this.store = store;
    this.clock = clock;
    this.random = random;
    this.randomLock = randomLock;
    this.dryRun = dryRun;
  }

  /**
   * These operations as {@code dryRun=All} runs them: every check and default applied, the
   * response as if done, nothing stored, no watch event, no resourceVersion consumed.
   */
  ApiOps dryRun() {
    return dryRun ? this : new ApiOps(registry, store, clock, random, randomLock, true);
  }

  /** The server's clock. */
  Clock clock() {
    return clock;
  }

  Store store() {
    return store;
  }

  Registry registry() {
    return registry;
  }

  static ObjectNode parseObject(byte[] body, ServedResource type) {
    JsonNode n;
    try {
      n = Json.MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiError.badRequest("the object provided is unrecognized (must be of type "
          + type.kind() + "): couldn't get version/kind; json parse error: "
          + e.getOriginalMessage());
    }
    if (!(n instanceof ObjectNode o)) {
      throw ApiError.badRequest("the object provided is unrecognized (must be of type "
          + type.kind() + "): couldn't get version/kind; json parse error: not an object");
    }
    return o;
  }

  private static void checkKind(ServedResource type, ObjectNode body) {
    String kind = body.path("kind").asString("");
    String apiVersion = body.path("apiVersion").asString("");
    if ((!kind.isEmpty() && !kind.equals(type.kind()))
        || (!apiVersion.isEmpty() && !apiVersion.equals(type.apiVersion()))) {
      throw ApiError.badRequest(kind + " in version \"" + apiVersion + "\" cannot be handled as a "
          + type.kind() + ": converting (" + apiVersion + "." + kind + ") to (" + type.kind()
          + "): unknown conversion");
    }
  }

  String uid() {
    long hi;
    long lo;
    synchronized (randomLock) {
      hi = random.nextLong();
      lo = random.nextLong();
    }
    hi = (hi & ~0xF000L) | 0x4000L;
    lo = (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(hi, lo).toString();
  }

  /** A random number in [0, bound), from the injected generator. */
  long randomLong(long bound) {
    synchronized (randomLock) {
      return random.nextLong(bound);
    }
  }

  private String suffix() {
    StringBuilder sb = new StringBuilder(5);
    synchronized (randomLock) {
      for (int i = 0; i < 5; i++) {
        sb.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
      }
    }
    return sb.toString();
  }

  private String now() {
    return Json.timestamp(clock.now());
  }

  /** POST: creates the object. */
  Result create(ServedResource type, @Nullable String urlNamespace, ObjectNode body) {
    checkKind(type, body);
    ObjectNode meta = Json.objectOrEmpty(body, "metadata");
    String ns = meta.path("namespace").asString("");
    if (type.namespaced()) {
      if (urlNamespace == null) {
        throw ApiError.methodNotAllowed();
      }
      if (!ns.isEmpty() && !ns.equals(urlNamespace)) {
        throw ApiError.badRequest("the namespace of the provided object does not match the "
            + "namespace sent on the request");
      }
      ns = urlNamespace;
      meta.put("namespace", ns);
      if (store.get(NAMESPACES, ns) == null) {
        throw ApiError.notFound("namespaces", ns);
      }
    } else {
      meta.remove("namespace");
      ns = "";
    }
    String name = meta.path("name").asString("");
    String generateName = meta.path("generateName").asString("");
    if (name.isEmpty() && generateName.isEmpty()) {
      throw ApiError.invalid(type.kind(), "", "metadata.name", "FieldValueRequired",
          "Required value: name or generateName is required");
    }
    if (!name.isEmpty()) {
      validateName(type, name);
    }
    meta.put("uid", uid());
    meta.put("creationTimestamp", now());
    meta.remove("deletionTimestamp");
    meta.remove("deletionGracePeriodSeconds");
    meta.remove("resourceVersion");
    meta.remove("selfLink");
    if (type.hasGeneration()) {
      meta.put("generation", 1);
    } else {
      meta.remove("generation");
    }
    applyCreateDefaults(type, body);
    final String namespace = ns;
    for (int attempt = 0; ; attempt++) {
      String n = name.isEmpty() ? generateName + suffix() : name;
      if (name.isEmpty()) {
        validateName(type, n);
      }
      meta.put("name", n);
      String key = StoredObject.key(namespace, n);
      StoredObject created = store.write(type, key, dryRun, txn -> {
        if (txn.current() != null) {
          return null;
        }
        return txn.put(body);
      });
      if (created != null) {
        return new Result(201, dryRun ? withoutResourceVersion(created) : created.json);
      }
      if (!name.isEmpty() || attempt >= 8) {
        throw ApiError.alreadyExists(type.plural(), n);
      }
    }
  }

  /** A dry-run creation's object: it has no resourceVersion, as nothing was stored. */
  private static byte[] withoutResourceVersion(StoredObject o) {
    ObjectNode tree = o.tree();
    ((ObjectNode) tree.get("metadata")).remove("resourceVersion");
    return Json.bytes(tree);
  }

  private static void validateName(ServedResource type, String name) {
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      throw ApiError.invalid(type.kind(), name, "metadata.name", "FieldValueInvalid",
          "Invalid value: \"" + name + "\": a lowercase RFC 1123 subdomain must consist of lower"
              + " case alphanumeric characters, '-' or '.', and must start and end with an"
              + " alphanumeric character (e.g. 'example.com', regex used for validation is"
              + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
  }

  private static void applyCreateDefaults(ServedResource type, ObjectNode body) {
    if (type.statusSubresource()) {
      body.remove("status");
    }
    if (!type.group().isEmpty()) {
      return;
    }
    if (type.plural().equals("pods")) {
      body.putObject("status").put("phase", "Pending");
    } else if (type.plural().equals("namespaces")) {
      ObjectNode spec = Json.objectOrEmpty(body, "spec");
      if (!spec.has("finalizers")) {
        spec.putArray("finalizers").add("kubernetes");
      }
      body.putObject("status").put("phase", "Active");
      Json.objectOrEmpty(Json.objectOrEmpty(body, "metadata"), "labels")
          .put("kubernetes.io/metadata.name", body.path("metadata").path("name").asString(""));
    }
  }

  /** PUT of an object or of its status. */
  Result update(ServedResource type, String ns, String name, ObjectNode body, boolean status) {
    checkKind(type, body);
    String bodyName = body.path("metadata").path("name").asString("");
    if (!bodyName.equals(name)) {
      throw ApiError.badRequest("the name of the object (" + bodyName
          + ") does not match the name on the URL (" + name + ")");
    }
    return replace(type, ns, name, status, cur -> body);
  }

  /** PATCH of an object or of its status. */
  Result patch(ServedResource type, String ns, String name, String contentType, byte[] body,
      boolean status) {
    String ct = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    boolean builtIn = Registry.builtIns().contains(type);
    switch (ct) {
      case "application/merge-patch+json": {
        JsonNode p = parsePatch(body);
        return replace(type, ns, name, status, cur -> Patches.mergePatch(cur.tree(), p, false));
      }
      case "application/strategic-merge-patch+json": {
        if (!builtIn) {
          throw ApiError.unsupportedMediaType();
        }
        JsonNode p = parsePatch(body);
        return replace(type, ns, name, status, cur -> Patches.mergePatch(cur.tree(), p, true));
      }
      case "application/json-patch+json": {
        JsonNode p = parsePatch(body);
        return replace(type, ns, name, status, cur -> Patches.jsonPatch(cur.tree(), p));
      }
      case "application/apply-patch+yaml": {
        JsonNode p;
        try {
          p = Json.YAML.readTree(body);
        } catch (JacksonException e) {
          throw ApiError.badRequest("error decoding YAML: " + e.getOriginalMessage());
        }
        if (!(p instanceof ObjectNode applied)) {
          throw ApiError.badRequest("error decoding YAML: not an object");
        }
        if (store.get(type, StoredObject.key(type.namespaced() ? ns : "", name)) == null
            && !status) {
          Json.objectOrEmpty(applied, "metadata").put("name", name);
          return create(type, type.namespaced() ? ns : null, applied);
        }
        return replace(type, ns, name, status,
            cur -> Patches.mergePatch(cur.tree(), applied, true));
      }
      default:
        throw ApiError.unsupportedMediaType();
    }
  }

  private static JsonNode parsePatch(byte[] body) {
    try {
      return Json.MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiError.badRequest("error decoding patch: " + e.getOriginalMessage());
    }
  }

  /**
   * The shared update path: computes the new state from the current one, checks the
   * resourceVersion precondition, keeps what clients may not change, bumps generation, skips
   * no-op writes, and deletes an object being deleted once its last finalizer is gone.
   */
  Result replace(ServedResource type, String ns, String name, boolean statusOnly,
      Function<StoredObject, JsonNode> compute) {
    String namespace = type.namespaced() ? ns : "";
    String key = StoredObject.key(namespace, name);
    return store.write(type, key, dryRun, txn -> {
      StoredObject cur = txn.current();
      if (cur == null) {
        throw ApiError.notFound(type.plural(), name);
      }
      JsonNode computed = compute.apply(cur);
      if (!(computed instanceof ObjectNode next)) {
        throw ApiError.badRequest("the patched object is not a JSON object");
      }
      ObjectNode old = cur.tree();
      ObjectNode oldMeta = (ObjectNode) old.get("metadata");
      ObjectNode meta = Json.objectOrEmpty(next, "metadata");
      String rv = meta.path("resourceVersion").asString("");
      if (!rv.isEmpty() && !rv.equals(Long.toString(cur.rv))) {
        throw ApiError.conflict(type.plural(), name);
      }
      if (!meta.path("name").asString("").equals(name)) {
        throw ApiError.badRequest("the name of the object ("
            + meta.path("name").asString("") + ") does not match the name on the URL (" + name
            + ")");
      }
      ObjectNode result;
      if (statusOnly) {
        result = cur.tree();
        JsonNode st = next.get("status");
        if (st == null) {
          result.remove("status");
        } else {
          result.set("status", st);
        }
      } else {
        result = next;
        if (type.statusSubresource()) {
          JsonNode st = old.get("status");
          if (st == null) {
            result.remove("status");
          } else {
            result.set("status", st);
          }
        }
        ObjectNode rm = Json.objectOrEmpty(result, "metadata");
        for (String k : List.of("uid", "creationTimestamp", "deletionTimestamp",
            "deletionGracePeriodSeconds", "generation", "namespace")) {
          JsonNode v = oldMeta.get(k);
          if (v == null) {
            rm.remove(k);
          } else {
            rm.set(k, v);
          }
        }
        if (type.hasGeneration() && !sameSpec(old, result)) {
          rm.put("generation", oldMeta.path("generation").asLong(0) + 1);
        }
      }
      result.put("kind", type.kind());
      result.put("apiVersion", type.apiVersion());
      ObjectNode resultMeta = Json.objectOrEmpty(result, "metadata");
      resultMeta.put("resourceVersion", Long.toString(cur.rv));
      if (result.equals(old)) {
        return new Result(200, cur.json); // a no-op update writes nothing and keeps the RV
      }
      JsonNode fin = resultMeta.get("finalizers");
      boolean noFinalizers = fin == null || fin.isNull() || fin.isEmpty();
      // The generic registry deletes an object being deleted (with no grace period left) as
      // soon as an update empties its finalizers; watchers get only DELETED, carrying the last
      // persisted state, and the caller gets the update's result at the old RV (transcript 07).
      if (cur.deleting && noFinalizers && !cur.finalizers.isEmpty()
          && oldMeta.path("deletionGracePeriodSeconds").asLong(0) == 0) {
        txn.delete();
        return new Result(200, StoredObject.of(type, result, cur.rv).json);
      }
      StoredObject stored = txn.put(result);
      return new Result(200, stored.json);
    });
  }

  /** Whether everything but kind, apiVersion, metadata and status is equal. */
  private static boolean sameSpec(ObjectNode a, ObjectNode b) {
    java.util.Set<String> names = new java.util.HashSet<>(a.propertyNames());
    names.addAll(b.propertyNames());
    for (String k : names) {
      if (k.equals("metadata") || k.equals("status") || k.equals("kind")
          || k.equals("apiVersion")) {
        continue;
      }
      if (!java.util.Objects.equals(a.get(k), b.get(k))) {
        return false;
      }
    }
    return true;
  }

  /** DELETE options: from the body (DeleteOptions) or the query. */
  record DeleteOptions(@Nullable Long gracePeriodSeconds, @Nullable String uid,
      @Nullable String resourceVersion) {
    static DeleteOptions parse(byte[] body, @Nullable String queryGrace) {
      Long grace = null;
      String uid = null;
      String rv = null;
      if (body.length > 0) {
        JsonNode n;
        try {
          n = Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
          throw ApiError.badRequest("error decoding DeleteOptions: " + e.getOriginalMessage());
        }
        if (n.hasNonNull("gracePeriodSeconds")) {
          grace = n.get("gracePeriodSeconds").asLong();
        }
        JsonNode pre = n.path("preconditions");
        if (pre.hasNonNull("uid")) {
          uid = pre.get("uid").asString();
        }
        if (pre.hasNonNull("resourceVersion")) {
          rv = pre.get("resourceVersion").asString();
        }
      }
      if (grace == null && queryGrace != null && !queryGrace.isEmpty()) {
        try {
          grace = Long.parseLong(queryGrace);
        } catch (NumberFormatException e) {
          throw ApiError.badRequest("invalid gracePeriodSeconds: " + queryGrace);
        }
      }
      return new DeleteOptions(grace, uid, rv);
    }
  }

  /** The outcome of one DELETE: the pre-delete state and the response. */
  record Deleted(StoredObject before, Result result) {}

  /** DELETE of one object, with pods' graceful deletion and finalizers. */
  Deleted delete(ServedResource type, String ns, String name, DeleteOptions opts) {
    String namespace = type.namespaced() ? ns : "";
    if (type.equals(NAMESPACES)) {
      cascade(name);
    }
    return store.write(type, StoredObject.key(namespace, name), dryRun, txn -> {
      StoredObject cur = txn.current();
      if (cur == null) {
        throw ApiError.notFound(type.plural(), name);
      }
      if (opts.uid() != null && !opts.uid().equals(cur.uid)) {
        throw ApiError.of(409, "Conflict", "Operation cannot be fulfilled on " + type.kind()
            + " \"" + name + "\": the UID in the precondition (" + opts.uid()
            + ") does not match the UID in record (" + cur.uid
            + "). The object might have been deleted and then recreated",
            ApiError.details(name, type.kind()));
      }
      if (opts.resourceVersion() != null
          && !opts.resourceVersion().equals(Long.toString(cur.rv))) {
        throw ApiError.of(409, "Conflict", "Operation cannot be fulfilled on " + type.kind()
            + " \"" + name + "\": the ResourceVersion in the precondition ("
            + opts.resourceVersion() + ") does not match the ResourceVersion in record ("
            + cur.rv + "). The object might have been modified",
            ApiError.details(name, type.kind()));
      }
      boolean pod = type.group().isEmpty() && type.plural().equals("pods");
      if (pod) {
        ObjectNode tree = cur.tree();
        long grace = opts.gracePeriodSeconds() != null ? Math.max(0, opts.gracePeriodSeconds())
            : tree.path("spec").path("nodeName").asString("").isEmpty() ? 0
            : tree.path("spec").path("terminationGracePeriodSeconds").asLong(30);
        ObjectNode meta = (ObjectNode) tree.get("metadata");
        long curGrace = meta.path("deletionGracePeriodSeconds").asLong(Long.MAX_VALUE);
        StoredObject o = cur;
        if (!cur.deleting || grace < curGrace) {
          meta.put("deletionTimestamp",
              Json.timestamp(clock.now().plus(Duration.ofSeconds(grace))));
          meta.put("deletionGracePeriodSeconds", grace);
          if (!cur.deleting) {
            // Only the first graceful delete bumps generation; a shorter grace period later
            // just moves deletionTimestamp (transcript 07 §7.1).
            meta.put("generation", meta.path("generation").asLong(0) + 1);
          }
          o = txn.put(tree);
        }
        if (grace == 0 && o.finalizers.isEmpty()) {
          StoredObject last = txn.delete();
          return new Deleted(cur, new Result(200, last.json));
        }
        return new Deleted(cur, new Result(200, o.json));
      }
      if (!cur.finalizers.isEmpty()) {
        if (cur.deleting) {
          return new Deleted(cur, new Result(200, cur.json));
        }
        ObjectNode tree = cur.tree();
        ObjectNode meta = (ObjectNode) tree.get("metadata");
        meta.put("deletionTimestamp", now());
        meta.put("deletionGracePeriodSeconds", 0);
        if (type.hasGeneration()) {
          meta.put("generation", meta.path("generation").asLong(0) + 1);
        }
        return new Deleted(cur, new Result(200, txn.put(tree).json));
      }
      StoredObject last = txn.delete();
      if (type.equals(NAMESPACES)) {
        return new Deleted(cur, new Result(200, last.json));
      }
      ObjectNode status = Json.MAPPER.createObjectNode();
      status.put("kind", "Status");
      status.put("apiVersion", "v1");
      status.putObject("metadata");
      status.put("status", "Success");
      status.putObject("details").put("name", name).put("kind", type.plural())
          .put("uid", cur.uid);
      return new Deleted(cur, new Result(200, Json.bytes(status)));
    });
  }

  /** Deletes everything in a namespace (the namespace controller's job, done at once here). */
  private void cascade(String namespace) {
    for (ServedResource t : store.types()) {
      if (!t.namespaced()) {
        continue;
      }
      for (String key : store.keys(t, namespace)) {
        String name = key.substring(namespace.length() + 1);
        try {
          delete(t, namespace, name, new DeleteOptions(0L, null, null));
        } catch (ApiError e) {
          if (e.code != 404) {
            throw e;
          }
        }
      }
    }
  }

  /** DELETE of a collection: deletes every selected object; returns their pre-delete states. */
  List<StoredObject> deleteCollection(ServedResource type, Filter filter, DeleteOptions opts) {
    List<StoredObject> out = new ArrayList<>();
    Store.Snapshot snap = Objects.requireNonNull(store.snapshot(type, filter.namespace, null, -1));
    for (StoredObject o : snap.items()) {
      if (!filter.matches(o)) {
        continue;
      }
      try {
        out.add(delete(type, o.namespace, o.name, opts).before());
      } catch (ApiError e) {
        if (e.code != 404) {
          throw e;
        }
      }
    }
    return out;
  }

  /** Creates the namespaces every cluster has. */
  void bootstrap(List<String> namespaces) {
    for (String ns : namespaces) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("kind", "Namespace").put("apiVersion", "v1");
      o.putObject("metadata").put("name", ns);
      create(NAMESPACES, null, o);
    }
  }
}

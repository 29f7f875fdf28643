package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The OpenAPI documents over HTTP: {@code /openapi/v3}, its group versions, {@code /openapi/v2}. */
class OpenApiDocumentsTest {

  private static final String GVK = "x-kubernetes-group-version-kind";

  private EmbeddedApiServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = KubectlOpenApiTest.startWithWidgets();
    server.register(ServedResource.clusterScoped("example.com", "v1alpha1", "Gadget", "gadgets"));
    http = new Http(server);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static String gvPath(ServedResource r) {
    return r.group().isEmpty() ? "api/" + r.version() : "apis/" + r.group() + "/" + r.version();
  }

  private List<ServedResource> served() {
    List<ServedResource> all = new ArrayList<>(Registry.builtIns());
    all.add(KubectlOpenApiTest.WIDGETS);
    all.add(ServedResource.clusterScoped("example.com", "v1alpha1", "Gadget", "gadgets"));
    return all;
  }

  private static boolean hasGvk(JsonNode schema, ServedResource r) {
    for (JsonNode g : schema.path(GVK)) {
      if (g.path("group").asString().equals(r.group())
          && g.path("version").asString().equals(r.version())
          && g.path("kind").asString().equals(r.kind())) {
        return true;
      }
    }
    return false;
  }

  @Test
  void everyServedBuiltInKind_hasAGeneratedDefinition() {
    OpenApiDefinitions defs = OpenApiDefinitions.get();
    assertThat(defs.provenance()).startsWith("kinformer-openapi-gen/")
        .endsWith("from k8s.io/api v0.36.4");
    List<String> missing = new ArrayList<>();
    for (ServedResource r : Registry.builtIns()) {
      if (defs.nameOf(r.group(), r.version(), r.kind()).isEmpty()
          || defs.nameOf(r.group(), r.version(), r.kind() + "List").isEmpty()) {
        missing.add(r.apiVersion() + " " + r.kind());
      }
    }
    assertThat(missing).as("built-in kinds without a definition: regenerate with"
        + " informer-testing/openapi-gen/gen.sh").isEmpty();
    assertThat(defs.nameOf("", "v1", "Pod")).contains("io.k8s.api.core.v1.Pod");
    assertThat(defs.nameOf("apps", "v1", "Deployment")).contains("io.k8s.api.apps.v1.Deployment");
  }

  @Test
  void definitions_carryTheMarkersOfTheGoSources() {
    JsonNode podSpec = OpenApiDefinitions.get().v2().get("io.k8s.api.core.v1.PodSpec");
    JsonNode containers = podSpec.path("properties").path("containers");
    assertThat(containers.path("items").path("$ref").asString())
        .isEqualTo("#/definitions/io.k8s.api.core.v1.Container");
    assertThat(containers.path("x-kubernetes-patch-strategy").asString()).isEqualTo("merge");
    assertThat(containers.path("x-kubernetes-patch-merge-key").asString()).isEqualTo("name");
    assertThat(containers.path("x-kubernetes-list-type").asString()).isEqualTo("map");
    assertThat(containers.path("x-kubernetes-list-map-keys").get(0).asString()).isEqualTo("name");
    assertThat(podSpec.path("required").toString()).isEqualTo("[\"containers\"]");

    JsonNode container = OpenApiDefinitions.get().v3().get("io.k8s.api.core.v1.Container");
    JsonNode pullPolicy = container.path("properties").path("imagePullPolicy");
    assertThat(pullPolicy.path("enum").toString())
        .isEqualTo("[\"Always\",\"IfNotPresent\",\"Never\"]");
    assertThat(pullPolicy.path("description").asString()).contains("Cannot be updated.")
        .contains("\n\nPossible enum values:\n - `\"Always\"` means that kubelet always attempts"
            + " to pull the latest image.");
    JsonNode resources = container.path("properties").path("resources");
    assertThat(resources.path("allOf").get(0).path("$ref").asString())
        .isEqualTo("#/components/schemas/io.k8s.api.core.v1.ResourceRequirements");
    assertThat(resources.path("description").asString()).startsWith("Compute Resources");

    JsonNode intOrString =
        OpenApiDefinitions.get().v3().get("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assertThat(intOrString.path("x-kubernetes-int-or-string").asBoolean()).isTrue();
    assertThat(OpenApiDefinitions.get().v2().get("io.k8s.apimachinery.pkg.api.resource.Quantity")
        .path("type").asString()).isEqualTo("string");
    assertThat(OpenApiDefinitions.get().v2().get("io.k8s.apimachinery.pkg.apis.meta.v1.Time")
        .path("format").asString()).isEqualTo("date-time");
    assertThat(OpenApiDefinitions.get().v2()
        .get("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
        .path("x-kubernetes-map-type").asString()).isEqualTo("atomic");
  }

  @Test
  void v3_listsEveryServedGroupVersion_withADocumentForEachKind() {
    Http.Reply root = http.get("/openapi/v3");
    assertThat(root.code()).isEqualTo(200);
    JsonNode paths = root.json().path("paths");
    Set<String> gvs = new HashSet<>();
    served().forEach(r -> gvs.add(gvPath(r)));
    // The access reviews kubectl auth can-i posts are served too, though not as stored resources.
    gvs.add("apis/" + AccessReviews.GROUP + "/" + AccessReviews.VERSION);
    assertThat(paths.propertyNames()).containsExactlyInAnyOrderElementsOf(gvs);

    for (ServedResource r : served()) {
      String url = paths.path(gvPath(r)).path("serverRelativeURL").asString();
      assertThat(url).startsWith("/openapi/v3/" + gvPath(r) + "?hash=");
      Http.Reply doc = http.get(url);
      assertThat(doc.code()).as(url).isEqualTo(200);
      assertThat(doc.headers().get("Cache-Control")).isEqualTo("public, immutable");
      JsonNode d = doc.json();
      assertThat(d.path("openapi").asString()).isEqualTo("3.0.0");
      JsonNode schemas = d.path("components").path("schemas");
      boolean found = false;
      for (JsonNode s : schemas) {
        found |= hasGvk(s, r);
      }
      assertThat(found).as("a schema of " + r.kind() + " in " + url).isTrue();

      String collection = "/" + gvPath(r) + (r.namespaced() ? "/namespaces/{namespace}/" : "/")
          + r.plural();
      JsonNode patch = d.path("paths").path(collection + "/{name}").path("patch");
      assertThat(patch.path(GVK).path("kind").asString()).isEqualTo(r.kind());
      List<String> params = new ArrayList<>();
      patch.path("parameters").forEach(p -> params.add(p.path("in").asString() + ":"
          + p.path("name").asString()));
      assertThat(params).contains("query:fieldValidation", "query:dryRun", "query:fieldManager");
      List<String> postParams = new ArrayList<>();
      d.path("paths").path(collection).path("post").path("parameters")
          .forEach(p -> postParams.add(p.path("name").asString()));
      assertThat(postParams).contains("fieldValidation", "dryRun");
      // Every reference resolves within the document.
      List<String> refs = new ArrayList<>();
      collectRefs(d, refs);
      for (String ref : refs) {
        assertThat(schemas.has(ref.substring("#/components/schemas/".length())))
            .as(ref + " in " + url).isTrue();
      }
    }
  }

  private static void collectRefs(JsonNode n, List<String> out) {
    if (n.has("$ref")) {
      out.add(n.get("$ref").asString());
    }
    n.forEach(c -> collectRefs(c, out));
  }

  @Test
  void v3_customResource_hasItsSchemaWithMetadata_andNoStrategicMergePatch() {
    JsonNode d = http.get("/openapi/v3/apis/example.com/v1").json();
    JsonNode widget = d.path("components").path("schemas").path("com.example.v1.Widget");
    assertThat(widget.path("properties").path("spec").path("properties").path("size")
        .path("type").asString()).isEqualTo("integer");
    assertThat(widget.path("properties").path("metadata").path("allOf").get(0).path("$ref")
        .asString()).isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1"
            + ".ObjectMeta");
    assertThat(d.path("components").path("schemas").has("com.example.v1.WidgetList")).isTrue();
    JsonNode content = d.path("paths").path("/apis/example.com/v1/namespaces/{namespace}/widgets"
        + "/{name}").path("patch").path("requestBody").path("content");
    assertThat(content.propertyNames()).contains("application/merge-patch+json")
        .doesNotContain("application/strategic-merge-patch+json");

    JsonNode gadget = http.get("/openapi/v3/apis/example.com/v1alpha1").json()
        .path("components").path("schemas").path("com.example.v1alpha1.Gadget");
    assertThat(gadget.path("x-kubernetes-preserve-unknown-fields").asBoolean()).isTrue();
  }

  @Test
  void v3_staleHashRedirectsToTheCurrentOne_andUnknownGroupVersionIs404() {
    Http noRedirects = new Http(server, new OkHttpClient.Builder().followRedirects(false));
    String current = http.get("/openapi/v3").json().path("paths").path("api/v1")
        .path("serverRelativeURL").asString();
    Http.Reply stale = noRedirects.get("/openapi/v3/api/v1?hash=0123");
    assertThat(stale.code()).isEqualTo(301);
    assertThat(stale.headers().get("Location")).isEqualTo(current);
    assertThat(http.get("/openapi/v3/apis/nope.example.com/v1").code()).isEqualTo(404);

    String etag = http.get(current).headers().get("ETag");
    Http.Reply notModified = http.call(new Request.Builder().url(server.url() + current)
        .header("If-None-Match", etag).build());
    assertThat(notModified.code()).isEqualTo(304);
  }

  @Test
  void v3_documentChanges_whenAKindIsRegistered() {
    String before = http.get("/openapi/v3").json().path("paths").path("apis/example.com/v1")
        .path("serverRelativeURL").asString();
    server.register(ServedResource.namespaced("example.com", "v1", "Sprocket", "sprockets"));
    String after = http.get("/openapi/v3").json().path("paths").path("apis/example.com/v1")
        .path("serverRelativeURL").asString();
    assertThat(after).isNotEqualTo(before);
    assertThat(http.get(after).json().path("components").path("schemas")
        .has("com.example.v1.Sprocket")).isTrue();
  }

  @Test
  void v2_hasEveryServedKind() {
    Http.Reply r = http.get("/openapi/v2");
    assertThat(r.code()).isEqualTo(200);
    JsonNode d = r.json();
    assertThat(d.path("swagger").asString()).isEqualTo("2.0");
    JsonNode defs = d.path("definitions");
    for (ServedResource s : served()) {
      boolean found = false;
      for (JsonNode def : defs) {
        found |= hasGvk(def, s);
      }
      assertThat(found).as(s.kind()).isTrue();
    }
    JsonNode widgetMeta = defs.path("com.example.v1.Widget").path("properties").path("metadata");
    assertThat(widgetMeta.path("$ref").asString())
        .isEqualTo("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    JsonNode patch = d.path("paths").path("/api/v1/namespaces/{namespace}/pods/{name}")
        .path("patch");
    assertThat(patch.path("consumes").toString()).contains("strategic-merge-patch");
    List<String> refs = new ArrayList<>();
    collectRefs(d, refs);
    for (String ref : refs) {
      assertThat(defs.has(ref.substring("#/definitions/".length()))).as(ref).isTrue();
    }
  }

  /** The length-delimited fields {@code field} of a protobuf message, in order. */
  private static List<byte[]> fields(byte[] msg, int field) {
    List<byte[]> out = new ArrayList<>();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(msg);
    while (b.hasRemaining()) {
      long key = varint(b);
      int wire = (int) (key & 7);
      if (wire == 0) {
        varint(b);
      } else if (wire == 2) {
        byte[] v = new byte[(int) varint(b)];
        b.get(v);
        if (key >>> 3 == field) {
          out.add(v);
        }
      } else {
        throw new AssertionError("unexpected wire type " + wire);
      }
    }
    return out;
  }

  private static long varint(java.nio.ByteBuffer b) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      byte x = b.get();
      v |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
    }
  }

  private static String text(byte[] b) {
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void v2_asProtobuf_isAGnosticDocument() {
    Http.Reply r = http.call(new Request.Builder().url(server.url() + "/openapi/v2")
        .header("Accept", OpenApiV2Proto.MEDIA_TYPE).build());
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.headers().get("Content-Type")).isEqualTo(OpenApiV2Proto.CONTENT_TYPE);
    byte[] doc;
    try (okhttp3.Response raw = new OkHttpClient().newCall(new Request.Builder()
        .url(server.url() + "/openapi/v2").header("Accept", OpenApiV2Proto.MEDIA_TYPE).build())
        .execute()) {
      doc = raw.body().bytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(text(fields(doc, 1).get(0))).isEqualTo("2.0"); // Document.swagger
    // Document.definitions (9) -> NamedSchema (1) -> name (1), value (2)
    List<String> names = new ArrayList<>();
    byte[] pod = null;
    for (byte[] named : fields(fields(doc, 9).get(0), 1)) {
      String name = text(fields(named, 1).get(0));
      names.add(name);
      if (name.equals("io.k8s.api.core.v1.Pod")) {
        pod = fields(named, 2).get(0);
      }
    }
    assertThat(names).contains("io.k8s.api.core.v1.Pod", "io.k8s.api.apps.v1.Deployment",
        "com.example.v1.Widget", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    // Schema.vendor_extension (31) -> NamedAny: name (1), Any (2) -> yaml (2)
    byte[] gvk = fields(pod, 31).get(0);
    assertThat(text(fields(gvk, 1).get(0))).isEqualTo(GVK);
    assertThat(http.get("/openapi/v2").json().path("definitions").path("io.k8s.api.core.v1.Pod")
        .path(GVK).toString() + "\n").isEqualTo(text(fields(fields(gvk, 2).get(0), 2).get(0)));
    // Document.paths (8) -> NamedPathItem (2): one per path of the JSON document
    assertThat(fields(fields(doc, 8).get(0), 2))
        .hasSize(http.get("/openapi/v2").json().path("paths").size());
  }

  @Test
  void register_refusesASchemaThatIsNotAnObject() {
    ServedResource things = ServedResource.namespaced("example.com", "v1", "Thing", "things");
    assertThatThrownBy(() -> server.register(things, "[1, 2]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("openAPIV3Schema of things.example.com must be an object");
    assertThatThrownBy(() -> server.register(things, "{\"type\": "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("neither JSON nor YAML");
  }
}

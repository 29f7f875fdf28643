package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.client.internal.codec.CodecTranscripts;
import io.kinformer.client.internal.codec.Codecs;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ResourceClientTest {

  private static final JsonMapper MAPPER = Codecs.newMapper();
  private static final String POD_A = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
      + "{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"5\",\"uid\":\"u-1\"},"
      + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"img\"}]}}";

  private final MockWebServer server = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient();

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private <T extends HasMetadata> ResourceClient<T> client(ResourceType<T> type) {
    return ResourceClient.create(http, server.url("/"), type, MAPPER);
  }

  private ResourceClient<Pod> pods() {
    return client(ResourceType.of(Pod.class)).inNamespace("ns");
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
        .body(body).build();
  }

  private RecordedRequest take() throws InterruptedException {
    RecordedRequest r = server.takeRequest(10, TimeUnit.SECONDS);
    assertThat(r).as("request reached the server").isNotNull();
    return r;
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("img").endContainer().endSpec()
        .build();
  }

  private static JsonNode body(RecordedRequest r) {
    return MAPPER.readTree(r.getBody().utf8());
  }

  @Test
  void get_existing_returnsTheObject() throws Exception {
    server.enqueue(json(200, POD_A));

    Pod pod = pods().get("a").orElseThrow();

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("GET");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a");
    assertThat(r.getHeaders().get("Accept")).isEqualTo("application/json");
    assertThat(pod.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(pod.getSpec().getContainers()).hasSize(1);
  }

  @Test
  void get_notFoundStatus_isEmpty() {
    server.enqueue(json(404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"pods \\\"missing\\\" not found\","
        + "\"reason\":\"NotFound\",\"details\":{\"name\":\"missing\",\"kind\":\"pods\"},"
        + "\"code\":404}"));

    assertThat(pods().get("missing")).isEmpty();
  }

  @Test
  void get_plainText404_isEmptyAsInClientGo() {
    server.enqueue(new MockResponse.Builder().code(404)
        .addHeader("Content-Type", "text/plain; charset=utf-8")
        .body("404 page not found\n").build());

    assertThat(pods().get("a")).isEmpty();
  }

  @Test
  void get_404WithAnotherReason_isApiException() {
    server.enqueue(json(404, "{\"kind\":\"Status\",\"status\":\"Failure\","
        + "\"reason\":\"Gone\",\"code\":404}"));

    assertThatThrownBy(() -> pods().get("a")).isInstanceOf(ApiException.class);
  }

  @Test
  void create_unknownGroupPlainText404_isClearApiException() {
    server.enqueue(new MockResponse.Builder().code(404)
        .addHeader("Content-Type", "text/plain; charset=utf-8")
        .body("404 page not found\n").build());
    ResourceClient<GenericKubernetesResource> things = client(ResourceType.dynamic(
        Gvr.of("nope.example.com", "v1", "things"), "Thing", false));
    GenericKubernetesResource thing = new GenericKubernetesResourceBuilder()
        .withApiVersion("nope.example.com/v1").withKind("Thing")
        .withNewMetadata().withName("x").endMetadata().build();

    assertThatThrownBy(() -> things.create(thing))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(404);
          assertThat(e.reason()).isEmpty();
          assertThat(e.statusMessage()).contains("404 page not found");
          assertThat(e.getMessage()).isEqualTo("HTTP 404: 404 page not found");
        });
  }

  @Test
  void get_namespacedWithoutNamespace_isIllegalState() {
    assertThatThrownBy(() -> client(ResourceType.of(Pod.class)).get("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inNamespace");
  }

  @Test
  void get_clusterScoped_hasNoNamespaceSegment() throws Exception {
    server.enqueue(json(200, "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\","
        + "\"metadata\":{\"name\":\"kube-system\"}}"));

    Namespace ns = client(ResourceType.of(Namespace.class)).get("kube-system").orElseThrow();

    assertThat(take().getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/kube-system");
    assertThat(ns.getMetadata().getName()).isEqualTo("kube-system");
  }

  @Test
  void get_undecodableBody_isInformerExceptionNamingTheRequest() {
    server.enqueue(json(200, "{\"metadata\":[oops"));

    assertThatThrownBy(() -> pods().get("a"))
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("GET " + server.url("/api/v1/namespaces/ns/pods/a"))
        .hasMessageContaining("undecodable Pod");
  }

  @Test
  void withRequestTimeout_boundsTheWholeCall_andLeavesTheOriginalClientAlone() {
    // The body trickles in for 10 s; the call may take 300 ms.
    server.enqueue(new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json")
        .body(POD_A).throttleBody(1, 10, TimeUnit.SECONDS).build());
    ResourceClient<Pod> hasty = pods().withRequestTimeout(java.time.Duration.ofMillis(300));

    assertThatThrownBy(() -> hasty.get("a")).isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class);
    server.enqueue(json(200, POD_A));
    assertThat(pods().get("a")).isPresent();
    assertThatThrownBy(() -> pods().withRequestTimeout(java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
  }

  @Test
  void list_followsContinueTokensAcrossAllPages() throws Exception {
    server.enqueue(json(200, CodecTranscripts.read("list-01-page1.json")));
    server.enqueue(json(200, CodecTranscripts.read("list-01-page2.json")));
    server.enqueue(json(200, CodecTranscripts.read("list-01-page3.json")));

    ListResult<Pod> all = pods().withLabelSelector("app=demo").list(ListOptions.none());

    assertThat(all.items()).extracting(p -> p.getMetadata().getName())
        .containsExactly("a", "b", "c", "d", "e");
    assertThat(all.items()).allSatisfy(p -> assertThat(p.getKind()).isEqualTo("Pod"));
    assertThat(all.resourceVersion()).isEqualTo("127");
    assertThat(all.hasMore()).isFalse();
    RecordedRequest first = take();
    assertThat(first.getUrl().queryParameter("limit")).isEqualTo("500");
    assertThat(first.getUrl().queryParameter("continue")).isNull();
    assertThat(first.getUrl().queryParameter("labelSelector")).isEqualTo("app=demo");
    RecordedRequest second = take();
    assertThat(second.getUrl().queryParameter("continue"))
        .isEqualTo("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTI3LCJzdGFydCI6Ii9iXHUwMDAwIn0");
    assertThat(second.getUrl().queryParameter("labelSelector")).isEqualTo("app=demo");
    assertThat(take().getUrl().queryParameter("continue"))
        .isEqualTo("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTI3LCJzdGFydCI6Ii9kXHUwMDAwIn0");
  }

  @Test
  void list_expiredContinue_isApiException410() {
    server.enqueue(json(200, CodecTranscripts.read("list-01-page1.json")));
    server.enqueue(json(410, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"The provided continue parameter is too old\","
        + "\"reason\":\"Expired\",\"code\":410}"));

    assertThatThrownBy(() -> pods().list())
        .isInstanceOfSatisfying(ApiException.class,
            e -> assertThat(e.isResourceExpired()).isTrue());
  }

  @Test
  void create_postsJsonToTheCollection() throws Exception {
    server.enqueue(json(201, POD_A));

    Pod created = pods().create(pod("a"));

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("POST");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods");
    assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
    JsonNode sent = body(r);
    assertThat(sent.path("kind").asString()).isEqualTo("Pod");
    assertThat(sent.path("apiVersion").asString()).isEqualTo("v1");
    assertThat(sent.path("metadata").path("name").asString()).isEqualTo("a");
    assertThat(created.getMetadata().getResourceVersion()).isEqualTo("5");
  }

  @Test
  void create_withoutClientNamespace_usesTheObjectsNamespace() throws Exception {
    server.enqueue(json(201, POD_A));
    Pod pod = pod("a");
    pod.getMetadata().setNamespace("other");

    client(ResourceType.of(Pod.class)).create(pod);

    assertThat(take().getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/other/pods");
  }

  @Test
  void create_namespaceMismatch_isIllegalArgument() {
    Pod pod = pod("a");
    pod.getMetadata().setNamespace("other");

    assertThatThrownBy(() -> pods().create(pod))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("other")
        .hasMessageContaining("ns");
  }

  @Test
  void create_existing_isApiException409AlreadyExists() {
    server.enqueue(json(409, CodecTranscripts.read("status-08-already-exists.json")));

    assertThatThrownBy(() -> pods().create(pod("a")))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(409);
          assertThat(e.reason()).contains("AlreadyExists");
          assertThat(e.statusMessage()).contains("pods \"a\" already exists");
        });
  }

  @Test
  void create_invalid_isApiException422WithCauses() {
    server.enqueue(json(422, CodecTranscripts.read("status-08-invalid.json")));

    assertThatThrownBy(() -> pods().create(pod("Bad_Name")))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(422);
          assertThat(e.reason()).contains("Invalid");
          assertThat(e.causeReasons())
              .containsExactly("FieldValueInvalid", "FieldValueRequired");
        });
  }

  @Test
  void create_dynamic_sendsAdditionalProperties() throws Exception {
    server.enqueue(json(201, "{\"kind\":\"Widget\",\"apiVersion\":\"example.com/v1\","
        + "\"metadata\":{\"name\":\"w\",\"namespace\":\"ns\"},\"spec\":{\"size\":3}}"));
    GenericKubernetesResource widget = new GenericKubernetesResourceBuilder()
        .withApiVersion("example.com/v1").withKind("Widget")
        .withNewMetadata().withName("w").endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("size", 3))).build();

    GenericKubernetesResource created = client(ResourceType.dynamic(
        Gvr.of("example.com", "v1", "widgets"), "Widget", true))
        .inNamespace("ns").create(widget);

    RecordedRequest r = take();
    assertThat(r.getUrl().encodedPath()).isEqualTo("/apis/example.com/v1/namespaces/ns/widgets");
    assertThat(body(r).path("spec").path("size").asInt()).isEqualTo(3);
    assertThat(created.getAdditionalProperties()).containsKey("spec");
  }

  @Test
  void update_putsToTheObject_andConflictIsApiException409() throws Exception {
    server.enqueue(json(200, POD_A));
    server.enqueue(json(409, CodecTranscripts.read("status-08-conflict.json")));
    Pod pod = pod("a");
    pod.getMetadata().setResourceVersion("5");

    pods().update(pod);
    assertThatThrownBy(() -> pods().update(pod))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(409);
          assertThat(e.reason()).contains("Conflict");
        });

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("PUT");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a");
    assertThat(body(r).path("metadata").path("resourceVersion").asString()).isEqualTo("5");
  }

  @Test
  void updateStatus_putsToTheStatusSubresource() throws Exception {
    server.enqueue(json(200, POD_A));

    pods().updateStatus(pod("a"));

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("PUT");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a/status");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = PatchType.class, names = {"JSON_MERGE", "JSON", "STRATEGIC_MERGE"})
  void patch_sendsTheBodyWithThePatchContentType(PatchType type) throws Exception {
    server.enqueue(json(200, POD_A));
    String patch = type == PatchType.JSON
        ? "[{\"op\":\"add\",\"path\":\"/metadata/labels/x\",\"value\":\"y\"}]"
        : "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}";

    Pod patched = pods().patch("a", type, patch);

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("PATCH");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a");
    assertThat(r.getHeaders().get("Content-Type")).startsWith(type.contentType());
    assertThat(r.getBody().utf8()).isEqualTo(patch);
    assertThat(patched.getMetadata().getName()).isEqualTo("a");
  }

  @Test
  void patch_contentTypesAreTheApiServers() {
    assertThat(Stream.of(PatchType.values()).map(PatchType::contentType)).containsExactly(
        "application/merge-patch+json", "application/json-patch+json",
        "application/strategic-merge-patch+json", "application/apply-patch+yaml");
  }

  @Test
  void patch_statusSubresource_patchesStatus() throws Exception {
    server.enqueue(json(200, POD_A));

    pods().patch("a", PatchType.JSON_MERGE, "{\"status\":{}}", "status");

    assertThat(take().getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a/status");
  }

  @Test
  void patch_applyType_isRefusedInFavourOfApply() {
    assertThatThrownBy(() -> pods().patch("a", PatchType.APPLY, "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field manager");
  }

  @Test
  void apply_object_sendsApplyPatchWithFieldManagerAndForce() throws Exception {
    server.enqueue(json(200, POD_A));

    pods().apply(pod("a"), "kinformer-test", true);

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("PATCH");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/pods/a");
    assertThat(r.getUrl().queryParameter("fieldManager")).isEqualTo("kinformer-test");
    assertThat(r.getUrl().queryParameter("force")).isEqualTo("true");
    assertThat(r.getHeaders().get("Content-Type")).startsWith("application/apply-patch+yaml");
    assertThat(body(r).path("metadata").path("name").asString()).isEqualTo("a");
  }

  @Test
  void apply_yamlDocument_withoutForce_sendsNoForceParameter() throws Exception {
    server.enqueue(json(200, POD_A));
    String yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n";

    pods().apply("a", yaml, "mgr", false);

    RecordedRequest r = take();
    assertThat(r.getUrl().queryParameter("force")).isNull();
    assertThat(r.getBody().utf8()).isEqualTo(yaml);
  }

  @Test
  void apply_withoutFieldManager_isIllegalArgument() {
    assertThatThrownBy(() -> pods().apply(pod("a"), "", false))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void withFieldManagerAndDryRun_areSentOnEveryWrite_andNotOnReads() throws Exception {
    for (int i = 0; i < 4; i++) {
      server.enqueue(json(200, POD_A));
    }
    server.enqueue(json(200, "{\"kind\":\"Status\",\"status\":\"Success\"}"));
    server.enqueue(json(200, POD_A));
    server.enqueue(json(200, POD_A));
    ResourceClient<Pod> c = pods().withFieldManager("my-controller").withDryRun(true);
    Pod a = pod("a");

    c.create(a);
    c.update(a);
    c.updateStatus(a);
    c.patch("a", PatchType.JSON_MERGE, "{}");
    c.delete("a");
    c.apply("a", "{}", "applier", false);
    c.get("a");

    for (String verb : List.of("POST", "PUT", "PUT", "PATCH")) {
      RecordedRequest r = take();
      assertThat(r.getMethod()).isEqualTo(verb);
      assertThat(r.getUrl().queryParameterValues("dryRun")).containsExactly("All");
      assertThat(r.getUrl().queryParameterValues("fieldManager")).containsExactly("my-controller");
    }
    RecordedRequest delete = take();
    assertThat(delete.getUrl().queryParameterValues("dryRun")).containsExactly("All");
    assertThat(delete.getUrl().queryParameter("fieldManager")).isNull();
    RecordedRequest apply = take();
    assertThat(apply.getUrl().queryParameterValues("dryRun")).containsExactly("All");
    assertThat(apply.getUrl().queryParameterValues("fieldManager")).containsExactly("applier");
    RecordedRequest get = take();
    assertThat(get.getUrl().query()).isNull();

    server.enqueue(json(201, POD_A));
    pods().create(a);
    assertThat(take().getUrl().query()).as("the original client is unchanged").isNull();
  }

  @Test
  void delete_plain_sendsDeleteWithoutBody() throws Exception {
    server.enqueue(json(200, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\"}"));

    assertThat(client(ResourceType.of(ConfigMap.class)).inNamespace("ns").delete("cm")).isTrue();

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("DELETE");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/api/v1/namespaces/ns/configmaps/cm");
    assertThat(r.getBodySize()).isZero();
  }

  @Test
  void delete_withPreconditionsAndPropagation_sendsDeleteOptions() throws Exception {
    server.enqueue(json(200, POD_A));
    DeleteOptions options = new DeleteOptionsBuilder()
        .withNewPreconditions().withUid("u-1").withResourceVersion("5").endPreconditions()
        .withPropagationPolicy("Foreground").withGracePeriodSeconds(0L).build();

    assertThat(pods().delete("a", options)).isTrue();

    RecordedRequest r = take();
    JsonNode sent = body(r);
    assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(sent.path("kind").asString()).isEqualTo("DeleteOptions");
    assertThat(sent.path("preconditions").path("uid").asString()).isEqualTo("u-1");
    assertThat(sent.path("preconditions").path("resourceVersion").asString()).isEqualTo("5");
    assertThat(sent.path("propagationPolicy").asString()).isEqualTo("Foreground");
    assertThat(sent.path("gracePeriodSeconds").asLong()).isZero();
  }

  @Test
  void delete_missing_isFalse_andPreconditionMismatchIsConflict() {
    server.enqueue(json(404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        + "\"reason\":\"NotFound\",\"code\":404}"));
    server.enqueue(json(409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        + "\"message\":\"Precondition failed: UID in precondition: x, UID in object meta: u-1\","
        + "\"reason\":\"Conflict\",\"code\":409}"));

    assertThat(pods().delete("gone")).isFalse();
    assertThatThrownBy(() -> pods().delete("a", new DeleteOptionsBuilder()
        .withNewPreconditions().withUid("x").endPreconditions().build()))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
  }

  @Test
  void serverError_withRetryAfterHeader_isCarried() {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "7")
        .addHeader("Content-Type", "application/json")
        .body("{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"TooManyRequests\","
            + "\"message\":\"slow down\",\"code\":429}").build());

    assertThatThrownBy(() -> pods().get("a"))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(429);
          assertThat(e.retryAfter()).contains(java.time.Duration.ofSeconds(7));
        });
  }

  @Test
  void inNamespace_returnsNewClient_leavingTheOriginalUnchanged() {
    ResourceClient<Pod> all = client(ResourceType.of(Pod.class));
    ResourceClient<Pod> one = all.inNamespace("ns");

    assertThat(all.namespace()).isEmpty();
    assertThat(one.namespace()).contains("ns");
    assertThat(one.inAnyNamespace().namespace()).isEmpty();
    assertThat(one.type()).isEqualTo(all.type());
  }

  @Test
  void inNamespace_badArguments_areIllegalArgument() {
    assertThatThrownBy(() -> client(ResourceType.of(Namespace.class)).inNamespace("x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster-scoped");
    assertThatThrownBy(() -> client(ResourceType.of(Pod.class)).inNamespace(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pods().get("a/b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a/b");
  }

  @Test
  void metadataOnly_getUsesObjectAccept_andWritesAreUnsupported() throws Exception {
    server.enqueue(json(200, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
        + "\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\"}}"));
    ResourceClient<PartialObjectMetadata> meta =
        client(ResourceType.metadataOnly(Pod.class)).inNamespace("ns");

    PartialObjectMetadata a = meta.get("a").orElseThrow();

    assertThat(take().getHeaders().get("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
    assertThat(a.getMetadata().getName()).isEqualTo("a");
    assertThatThrownBy(() -> meta.create(a)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void configMapBuilder_roundTrip_keepsData() throws Exception {
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("cm").endMetadata()
        .withData(Map.of("k", "v")).build();
    server.enqueue(json(201, MAPPER.writeValueAsString(cm)));

    ConfigMap created = client(ResourceType.of(ConfigMap.class)).inNamespace("ns").create(cm);

    assertThat(created.getData()).isEqualTo(Map.of("k", "v"));
    assertThat(body(take()).path("data").path("k").asString()).isEqualTo("v");
    assertThat(List.of(created.getKind(), created.getApiVersion()))
        .containsExactly("ConfigMap", "v1");
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.cache.ApiException;
import io.kinformer.time.testing.FakeClock;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Create/update/patch/delete semantics over raw HTTP (transcripts 07 and 08). */
class ObjectSemanticsTest {

  private static final String CM = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
      + "{\"name\":\"%s\"},\"data\":{\"k\":\"%s\"}}";
  private static final ServedResource WIDGETS =
      ServedResource.namespaced("example.com", "v1", "Widget", "widgets").withStatusSubresource();

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-30T10:40:08Z"));
  private final EmbeddedApiServer server =
      EmbeddedApiServer.builder().clock(clock).resource(WIDGETS).start();
  private final Http http = new Http(server);

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void create_fillsUidTimestampGenerationAndRv() {
    JsonNode pod = http.post("/api/v1/namespaces/default/pods", String.format(Http.POD, "a", "x"))
        .json();
    JsonNode meta = pod.path("metadata");
    assertThat(meta.path("uid").asString()).matches("[0-9a-f-]{36}");
    assertThat(meta.path("creationTimestamp").asString()).isEqualTo("2026-11-30T10:40:08Z");
    assertThat(meta.path("generation").asInt()).isEqualTo(1);
    assertThat(meta.path("resourceVersion").asLong()).isEqualTo(server.resourceVersion());
    assertThat(pod.path("status").path("phase").asString()).isEqualTo("Pending");
  }

  @Test
  void create_withGenerateName_picksAName() {
    JsonNode cm = http.post("/api/v1/namespaces/default/configmaps", "{\"apiVersion\":\"v1\","
        + "\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"web-\"}}").json();
    assertThat(cm.path("metadata").path("name").asString()).matches("web-[a-z0-9]{5}");
    assertThat(cm.path("metadata").has("generation")).isFalse();
  }

  @Test
  void create_twice_is409AlreadyExists() {
    http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "c", "v"));
    Http.Reply r = http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "c", "v"));
    assertThat(r.code()).isEqualTo(409);
    assertThat(r.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"configmaps \\\"c\\\" already exists\","
        + "\"reason\":\"AlreadyExists\",\"details\":{\"name\":\"c\",\"kind\":\"configmaps\"},"
        + "\"code\":409}\n");
  }

  @Test
  void create_withAResourceVersion_isRefusedAsTheStorageLayerDoes() {
    // kube-apiserver's storage refuses it with a plain error, answered as 500 with no reason
    // ("Error from server: resourceVersion should not be set on objects to be created").
    Http.Reply r = http.post("/api/v1/namespaces/default/configmaps", "{\"apiVersion\":\"v1\","
        + "\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"with-rv\",\"resourceVersion\":\"42\"}}");
    assertThat(r.code()).isEqualTo(500);
    assertThat(r.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"resourceVersion should not be set on objects to "
        + "be created\",\"code\":500}\n");
    assertThat(http.get("/api/v1/namespaces/default/configmaps/with-rv").code()).isEqualTo(404);
  }

  @Test
  void create_inAMissingNamespace_is404() {
    Http.Reply r = http.post("/api/v1/namespaces/nope/configmaps", String.format(CM, "c", "v"));
    assertThat(r.code()).isEqualTo(404);
    assertThat(r.json().path("message").asString()).isEqualTo("namespaces \"nope\" not found");
  }

  @Test
  void create_withAnInvalidName_is422_andAWrongKind_is400() {
    assertThat(http.post("/api/v1/namespaces/default/configmaps",
        String.format(CM, "Bad_Name", "v")).code()).isEqualTo(422);
    Http.Reply r = http.post("/api/v1/namespaces/default/pods", String.format(CM, "c", "v"));
    assertThat(r.code()).isEqualTo(400);
    assertThat(r.json().path("message").asString()).contains("cannot be handled as a Pod");
    assertThat(http.post("/api/v1/namespaces/default/pods", "{\"apiVersion\":").code())
        .isEqualTo(400);
  }

  @Test
  void update_withAStaleRv_is409Conflict_andWithTheCurrentRvSucceeds() {
    JsonNode cm = http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "c", "1"))
        .json();
    String rv = cm.path("metadata").path("resourceVersion").asString();
    String v2 = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
        + "\"resourceVersion\":\"" + rv + "\"},\"data\":{\"k\":\"2\"}}";
    Http.Reply ok = http.put("/api/v1/namespaces/default/configmaps/c", v2);
    assertThat(ok.code()).isEqualTo(200);
    assertThat(ok.json().path("metadata").path("resourceVersion").asLong())
        .isGreaterThan(Long.parseLong(rv));
    assertThat(ok.json().path("metadata").path("uid")).isEqualTo(cm.path("metadata").path("uid"));
    Http.Reply stale = http.put("/api/v1/namespaces/default/configmaps/c", v2);
    assertThat(stale.code()).isEqualTo(409);
    assertThat(stale.json().path("reason").asString()).isEqualTo("Conflict");
    assertThat(stale.json().path("message").asString()).isEqualTo("Operation cannot be fulfilled "
        + "on configmaps \"c\": the object has been modified; please apply your changes to the "
        + "latest version and try again");
    Http.Reply stalePatch = http.patch("/api/v1/namespaces/default/configmaps/c",
        "application/merge-patch+json", "{\"metadata\":{\"resourceVersion\":\"" + rv + "\"}}");
    assertThat(stalePatch.code()).isEqualTo(409);
  }

  @Test
  void update_nameMismatch_is400_andMissingObject_is404() {
    http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "c", "1"));
    assertThat(http.put("/api/v1/namespaces/default/configmaps/c", String.format(CM, "d", "1"))
        .code()).isEqualTo(400);
    assertThat(http.put("/api/v1/namespaces/default/configmaps/d", String.format(CM, "d", "1"))
        .code()).isEqualTo(404);
  }

  @Test
  void noOpUpdate_keepsTheRv() {
    JsonNode cm = http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "c", "1"))
        .json();
    JsonNode same = http.patch("/api/v1/namespaces/default/configmaps/c",
        "application/merge-patch+json", "{\"data\":{\"k\":\"1\"}}").json();
    assertThat(same.path("metadata").path("resourceVersion"))
        .isEqualTo(cm.path("metadata").path("resourceVersion"));
  }

  @Test
  void patches_mergeJsonAndStrategic_andOtherContentTypesAre415() {
    http.createPod("default", "p", "web");
    String path = "/api/v1/namespaces/default/pods/p";
    JsonNode merged = http.patch(path, "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"tier\":\"1\",\"app\":null}}}").json();
    assertThat(merged.path("metadata").path("labels").toString()).isEqualTo("{\"tier\":\"1\"}");
    JsonNode jsonPatched = http.patch(path, "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/metadata/labels/x\",\"value\":\"y\"},"
            + "{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\",\"value\":\"j\"}]").json();
    assertThat(jsonPatched.path("metadata").path("labels").path("x").asString()).isEqualTo("y");
    assertThat(jsonPatched.path("spec").path("containers").get(0).path("image").asString())
        .isEqualTo("j");
    assertThat(jsonPatched.path("metadata").path("generation").asInt()).isEqualTo(2);
    JsonNode strategic = http.patch(path, "application/strategic-merge-patch+json",
        "{\"$setElementOrder/containers\":[{\"name\":\"c\"}],"
            + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"k\"}]}}").json();
    JsonNode c = strategic.path("spec").path("containers").get(0);
    assertThat(c.path("image").asString()).isEqualTo("k");
    assertThat(c.path("name").asString()).isEqualTo("c");
    assertThat(strategic.has("$setElementOrder/containers")).isFalse();
    Http.Reply bad = http.patch(path, "application/json", "{}");
    assertThat(bad.code()).isEqualTo(415);
    assertThat(bad.json().path("reason").asString()).isEqualTo("UnsupportedMediaType");
    Http.Reply failedTest = http.patch(path, "application/json-patch+json",
        "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"zzz\"}]");
    assertThat(failedTest.code()).isEqualTo(422);
  }

  @Test
  void serverSideApply_createsThenMerges() {
    String path = "/api/v1/namespaces/default/configmaps/applied?fieldManager=test";
    Http.Reply created = http.patch(path, "application/apply-patch+yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n");
    assertThat(created.code()).isEqualTo(201);
    Http.Reply merged = http.patch(path, "application/apply-patch+yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  b: '2'\n");
    assertThat(merged.code()).isEqualTo(200);
    assertThat(merged.json().path("data").toString()).isEqualTo("{\"a\":\"1\",\"b\":\"2\"}");
  }

  @Test
  void statusSubresource_separatesSpecFromStatus() {
    String base = "/apis/example.com/v1/namespaces/default/widgets";
    JsonNode w = http.post(base, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
        + "\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":1},\"status\":{\"ok\":true}}").json();
    assertThat(w.has("status")).isFalse();
    assertThat(w.path("metadata").path("generation").asInt()).isEqualTo(1);
    JsonNode s = http.put(base + "/w/status", "{\"apiVersion\":\"example.com/v1\","
        + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":99},"
        + "\"status\":{\"ok\":true}}").json();
    assertThat(s.path("status").path("ok").asBoolean()).isTrue();
    assertThat(s.path("spec").path("size").asInt()).isEqualTo(1);
    assertThat(s.path("metadata").path("generation").asInt()).isEqualTo(1);
    JsonNode m = http.patch(base + "/w", "application/merge-patch+json",
        "{\"spec\":{\"size\":2},\"status\":{\"ok\":false}}").json();
    assertThat(m.path("spec").path("size").asInt()).isEqualTo(2);
    assertThat(m.path("status").path("ok").asBoolean()).isTrue();
    assertThat(m.path("metadata").path("generation").asInt()).isEqualTo(2);
    assertThat(http.patch(base + "/w", "application/strategic-merge-patch+json", "{}").code())
        .isEqualTo(415);
    assertThat(http.get("/apis/example.com/v1/widgets").json().path("items").size()).isEqualTo(1);
  }

  @Test
  void clusterScopedResources_haveNoNamespaceSegment() {
    Http.Reply node = http.post("/api/v1/nodes",
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}");
    assertThat(node.code()).isEqualTo(201);
    assertThat(node.json().path("metadata").has("namespace")).isFalse();
    assertThat(http.get("/api/v1/nodes/n1").code()).isEqualTo(200);
    assertThat(http.get("/api/v1/namespaces/default/nodes").code()).isEqualTo(404);
  }

  @Test
  void scheduledPod_deletesGracefully_andAZeroGraceDeleteRemovesIt() {
    http.post("/api/v1/namespaces/default/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
        + "\"metadata\":{\"name\":\"g\"},\"spec\":{\"nodeName\":\"node-1\",\"containers\":[]}}");
    JsonNode graceful = http.delete("/api/v1/namespaces/default/pods/g").json();
    assertThat(graceful.path("metadata").path("deletionGracePeriodSeconds").asInt())
        .isEqualTo(30);
    assertThat(graceful.path("metadata").path("deletionTimestamp").asString())
        .isEqualTo("2026-11-30T10:40:38Z");
    assertThat(graceful.path("metadata").path("generation").asInt()).isEqualTo(2);
    assertThat(http.get("/api/v1/namespaces/default/pods/g").code()).isEqualTo(200);
    JsonNode forced =
        http.delete("/api/v1/namespaces/default/pods/g", "{\"gracePeriodSeconds\":0}").json();
    assertThat(forced.path("metadata").path("deletionGracePeriodSeconds").asInt()).isZero();
    // Shortening the grace period of a pod already being deleted does not bump generation
    // again (transcript 07 §7.1: RVs 304, 306 and 307 all have generation 2).
    assertThat(forced.path("metadata").path("generation").asInt()).isEqualTo(2);
    assertThat(http.get("/api/v1/namespaces/default/pods/g").code()).isEqualTo(404);
  }

  @Test
  void deletePreconditions_mismatch_is409() {
    http.post("/api/v1/namespaces/default/configmaps", String.format(CM, "u", "1"));
    Http.Reply r = http.delete("/api/v1/namespaces/default/configmaps/u",
        "{\"preconditions\":{\"uid\":\"00000000-0000-0000-0000-000000000000\"}}");
    assertThat(r.code()).isEqualTo(409);
    assertThat(r.json().path("message").asString()).contains("the UID in the precondition");
    assertThat(http.delete("/api/v1/namespaces/default/configmaps/nope").code()).isEqualTo(404);
  }

  @Test
  void deleteCollection_deletesTheSelection_andReturnsTheirPriorState() {
    http.createPod("default", "h1", "demo");
    http.createPod("default", "h2", "demo");
    http.createPod("default", "other", "keep");
    JsonNode list = http.delete("/api/v1/namespaces/default/pods?labelSelector=app%3Ddemo").json();
    assertThat(list.path("kind").asString()).isEqualTo("PodList");
    assertThat(list.path("items").size()).isEqualTo(2);
    assertThat(http.get("/api/v1/namespaces/default/pods").json().path("items").size())
        .isEqualTo(1);
  }

  @Test
  void deletingANamespace_deletesItsContent() {
    http.createNamespace("doomed");
    http.createPod("doomed", "p", "x");
    assertThat(http.delete("/api/v1/namespaces/doomed").code()).isEqualTo(200);
    assertThat(http.get("/api/v1/namespaces/doomed").code()).isEqualTo(404);
    assertThat(http.get("/api/v1/namespaces/doomed/pods").json().path("items").size()).isZero();
  }

  @Test
  void directAccess_hasTheSameSemantics() {
    String created = server.create(String.format(CM, "direct", "1"));
    assertThat(created).contains("\"namespace\":\"default\"");
    assertThat(server.get("v1", "ConfigMap", "default", "direct")).contains(created);
    assertThat(server.list("v1", "ConfigMap", null)).containsExactly(created);
    assertThatThrownBy(() -> server.create(String.format(CM, "direct", "1")))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(409);
          assertThat(e.reason()).contains("AlreadyExists");
        });
    server.delete("v1", "ConfigMap", "default", "direct");
    assertThat(server.get("v1", "ConfigMap", "default", "direct")).isEmpty();
    assertThatThrownBy(() -> server.create("{\"apiVersion\":\"x/v1\",\"kind\":\"Nope\"}"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

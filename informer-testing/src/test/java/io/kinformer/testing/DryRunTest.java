package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@code dryRun=All} over HTTP: the answer as if done, and nothing done. */
class DryRunTest {

  private static final String CM = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
      + "{\"name\":\"%s\"},\"data\":{\"k\":\"%s\"}}";
  private static final String CMS = "/api/v1/namespaces/default/configmaps";

  private final EmbeddedApiServer server = EmbeddedApiServer.start();
  private final Http http = new Http(server);

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void create_answersTheObjectWithoutStoringIt() {
    long rv = server.resourceVersion();
    Http.Reply r = http.post(CMS + "?dryRun=All", String.format(CM, "dry", "1"));
    assertThat(r.code()).isEqualTo(201);
    JsonNode meta = r.json().path("metadata");
    assertThat(meta.path("name").asString()).isEqualTo("dry");
    assertThat(meta.path("uid").asString()).isNotEmpty();
    assertThat(meta.path("creationTimestamp").asString()).isNotEmpty();
    assertThat(meta.has("resourceVersion")).isFalse();
    assertThat(http.get(CMS + "/dry").code()).isEqualTo(404);
    assertThat(server.resourceVersion()).isEqualTo(rv);

    // Validation and conflicts are those of a real create.
    assertThat(http.post(CMS + "?dryRun=All", String.format(CM, "Bad_Name", "1")).code())
        .isEqualTo(422);
    http.post(CMS, String.format(CM, "real", "1"));
    assertThat(http.post(CMS + "?dryRun=All", String.format(CM, "real", "2")).code())
        .isEqualTo(409);
    Http.Reply generated = http.post(CMS + "?dryRun=All", "{\"apiVersion\":\"v1\",\"kind\":"
        + "\"ConfigMap\",\"metadata\":{\"generateName\":\"gen-\"}}");
    assertThat(generated.json().path("metadata").path("name").asString()).startsWith("gen-");
  }

  @Test
  void updatePatchDelete_answerAsIfDone_andNoWatcherSeesThem() {
    http.post(CMS, String.format(CM, "c", "1"));
    String stored = server.get("v1", "ConfigMap", "default", "c").orElseThrow();
    long rv = server.resourceVersion();
    try (Http.WatchStream w = http.watch(CMS + "?watch=true&resourceVersion=" + rv)) {
      Http.Reply put = http.put(CMS + "/c?dryRun=All", stored.replace("\"k\":\"1\"",
          "\"k\":\"2\""));
      assertThat(put.code()).isEqualTo(200);
      assertThat(put.json().path("data").path("k").asString()).isEqualTo("2");
      assertThat(put.json().path("metadata").path("resourceVersion").asLong()).isEqualTo(rv);
      Http.Reply patch = http.patch(CMS + "/c?dryRun=All", "application/merge-patch+json",
          "{\"data\":{\"k\":\"3\"}}");
      assertThat(patch.json().path("data").path("k").asString()).isEqualTo("3");
      Http.Reply delete = http.delete(CMS + "/c",
          "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"All\"]}");
      assertThat(delete.code()).isEqualTo(200);
      assertThat(http.delete(CMS + "/c?dryRun=All").code()).isEqualTo(200);
      assertThat(http.delete(CMS + "?dryRun=All").code()).isEqualTo(200);
      assertThat(server.get("v1", "ConfigMap", "default", "c")).contains(stored);
      assertThat(server.resourceVersion()).isEqualTo(rv);

      // The first event the watcher gets is the real write that follows.
      http.patch(CMS + "/c", "application/merge-patch+json", "{\"data\":{\"k\":\"4\"}}");
      JsonNode event = w.next();
      assertThat(event.path("type").asString()).isEqualTo("MODIFIED");
      assertThat(event.path("object").path("data").path("k").asString()).isEqualTo("4");
      assertThat(event.path("object").path("metadata").path("resourceVersion").asLong())
          .isEqualTo(rv + 1);
    }
  }

  @Test
  void deletingANamespace_dryRun_keepsItAndItsObjects() {
    http.createNamespace("team");
    http.post("/api/v1/namespaces/team/configmaps", String.format(CM, "c", "1"));
    Http.Reply r = http.delete("/api/v1/namespaces/team?dryRun=All");
    assertThat(r.code()).isEqualTo(200);
    assertThat(server.get("v1", "Namespace", null, "team")).isPresent();
    assertThat(server.get("v1", "ConfigMap", "team", "c")).isPresent();
  }

  @Test
  void unknownDryRunValue_isInvalid_andNothingIsWritten() {
    Http.Reply r = http.post(CMS + "?dryRun=Some", String.format(CM, "x", "1"));
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.json().path("message").asString()).isEqualTo("CreateOptions.meta.k8s.io \"\" "
        + "is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\"");
    assertThat(r.json().path("details").path("causes").path(0).path("field").asString())
        .isEqualTo("dryRun");
    assertThat(http.get(CMS + "/x").code()).isEqualTo(404);
    http.post(CMS, String.format(CM, "x", "1"));
    Http.Reply d = http.delete(CMS + "/x", "{\"dryRun\":[\"All\",\"Nope\"]}");
    assertThat(d.code()).isEqualTo(422);
    assertThat(d.json().path("message").asString()).startsWith("DeleteOptions.meta.k8s.io");
    assertThat(http.get(CMS + "/x").code()).isEqualTo(200);
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.cache.ApiException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/** The real server's size limits and its health endpoints. */
@ExtendWith(EmbeddedApiServerExtension.class)
class LimitsAndHealthTest {

  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
  private static final int MIB = 1024 * 1024;

  EmbeddedApiServer server;

  @BeforeEach
  void clean() {
    server.reset();
  }

  /** A ConfigMap JSON of exactly {@code size} bytes. */
  private static String configMap(String name, int size) {
    String head = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
        + "\"},\"data\":{\"k\":\"";
    String tail = "\"}}";
    return head + "x".repeat(size - head.length() - tail.length()) + tail;
  }

  /** The size of {@code json} once stored (the server adds uid, timestamps, RV...). */
  private int storedOverhead() {
    String small = configMap("probe", 200);
    int stored = server.create(small).length();
    server.delete("v1", "ConfigMap", "default", "probe");
    return stored - small.length();
  }

  private boolean exists(Http http, String name) {
    return http.get(CONFIGMAPS + "/" + name).code() == 200;
  }

  @Test
  void bodyOverThreeMebibytes_isRefusedWith413() {
    Http http = new Http(server);
    long rv = server.resourceVersion();
    Http.Reply r = http.post(CONFIGMAPS, configMap("huge", 3 * MIB + 1));
    assertThat(r.code()).isEqualTo(413);
    JsonNode status = r.json();
    assertThat(status.path("kind").asString()).isEqualTo("Status");
    assertThat(status.path("reason").asString()).isEqualTo("RequestEntityTooLarge");
    assertThat(status.path("message").asString())
        .isEqualTo("Request entity too large: limit is 3145728");
    assertThat(status.path("code").asInt()).isEqualTo(413);
    assertThat(exists(http, "huge")).isFalse();
    assertThat(server.resourceVersion()).isEqualTo(rv);
  }

  @Test
  void objectOverOneAndAHalfMebibytes_isRefusedAndNotStored() {
    Http http = new Http(server);
    long rv = server.resourceVersion();
    Http.Reply r = http.post(CONFIGMAPS, configMap("big", 3 * MIB / 2 + 1));
    assertThat(r.code()).isEqualTo(500);
    assertThat(r.json().path("message").asString()).isEqualTo("etcdserver: request is too large");
    assertThat(r.json().path("status").asString()).isEqualTo("Failure");
    assertThat(exists(http, "big")).isFalse();
    assertThat(server.list("v1", "ConfigMap", "default")).isEmpty();
    assertThat(server.resourceVersion()).isEqualTo(rv);
  }

  @Test
  void objectJustUnderTheLimit_isStored() {
    Http http = new Http(server);
    // A margin for the resourceVersion's digits, which may grow by the time it is stored.
    String json = configMap("probe", 3 * MIB / 2 - storedOverhead() - 4);
    Http.Reply r = http.post(CONFIGMAPS, json);
    assertThat(r.code()).as(r.body().length() < 1000 ? r.body() : "").isEqualTo(201);
    assertThat(r.body().trim().length()).isBetween(3 * MIB / 2 - 8, 3 * MIB / 2);
    assertThat(exists(http, "probe")).isTrue();
  }

  @Test
  void updatePatchAndStatusUpdate_overTheObjectLimit_changeNothing() {
    Http http = new Http(server);
    server.create(configMap("cm", 200));
    server.create("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
        + "\"d\",\"namespace\":\"default\"},\"spec\":{\"selector\":{}}}");
    long rv = server.resourceVersion();
    String big = "x".repeat(3 * MIB / 2);

    assertThat(http.put(CONFIGMAPS + "/cm", configMap("cm", 3 * MIB / 2 + 10)).code())
        .isEqualTo(500);
    Http.Reply patched = http.patch(CONFIGMAPS + "/cm", "application/merge-patch+json",
        "{\"data\":{\"k\":\"" + big + "\"}}");
    assertThat(patched.code()).isEqualTo(500);
    assertThat(patched.json().path("message").asString())
        .isEqualTo("etcdserver: request is too large");
    Http.Reply status = http.put("/apis/apps/v1/namespaces/default/deployments/d/status",
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\","
            + "\"namespace\":\"default\"},\"status\":{\"conditions\":[{\"type\":\"T\","
            + "\"status\":\"True\",\"message\":\"" + big + "\"}]}}");
    assertThat(status.code()).isEqualTo(500);
    assertThat(server.resourceVersion()).isEqualTo(rv);
    assertThat(server.get("v1", "ConfigMap", "default", "cm").orElseThrow()).doesNotContain(big);
  }

  @Test
  void javaApi_refusesLikeHttp() {
    long rv = server.resourceVersion();
    assertThatThrownBy(() -> server.create(configMap("huge", 3 * MIB + 1)))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(413);
          assertThat(e.reason()).contains("RequestEntityTooLarge");
        });
    assertThatThrownBy(() -> server.create(configMap("big", 3 * MIB / 2 + 1)))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(500);
          assertThat(e.statusMessage()).contains("etcdserver: request is too large");
        });
    server.create(configMap("cm", 200));
    long afterCreate = server.resourceVersion();
    assertThatThrownBy(() -> server.update(configMap("cm", 3 * MIB / 2 + 1)))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(500));
    assertThat(server.resourceVersion()).isEqualTo(afterCreate);
    assertThat(afterCreate).isEqualTo(rv + 1);
  }

  @Test
  void limits_areConfigurable() {
    try (EmbeddedApiServer small = EmbeddedApiServer.builder().maxRequestBodyBytes(2000)
        .maxObjectBytes(1000).start()) {
      Http http = new Http(small);
      assertThat(http.post(CONFIGMAPS, configMap("a", 2001)).code()).isEqualTo(413);
      assertThat(http.post(CONFIGMAPS, configMap("b", 1500)).code()).isEqualTo(500);
      assertThat(http.post(CONFIGMAPS, configMap("c", 300)).code()).isEqualTo(201);
    }
    assertThatThrownBy(() -> EmbeddedApiServer.builder().maxObjectBytes(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxObjectBytes");
  }

  @Test
  void watchersSeeOnlyWhatWasStored_andKeepWatchingAfterARefusal() {
    Http http = new Http(server);
    try (Http.WatchStream w = http.watch(CONFIGMAPS + "?watch=1&resourceVersion="
        + server.resourceVersion())) {
      assertThat(http.post(CONFIGMAPS, configMap("big", 3 * MIB / 2 + 1)).code())
          .isEqualTo(500);
      assertThat(http.post(CONFIGMAPS, configMap("huge", 3 * MIB + 1)).code()).isEqualTo(413);
      assertThat(http.post(CONFIGMAPS, configMap("ok", 300)).code()).isEqualTo(201);
      JsonNode event = w.next();
      assertThat(event.path("type").asString()).isEqualTo("ADDED");
      assertThat(event.path("object").path("metadata").path("name").asString()).isEqualTo("ok");
    }
  }

  @Test
  void healthEndpoints_answerLikeKubeApiserver() {
    Http http = new Http(server);
    for (String endpoint : new String[] {"/healthz", "/livez", "/readyz"}) {
      Http.Reply ok = http.get(endpoint);
      assertThat(ok.code()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("ok");
      assertThat(ok.headers().get("Content-Type")).isEqualTo("text/plain; charset=utf-8");
      assertThat(http.get(endpoint + "/ping").body()).isEqualTo("ok");
      Http.Reply verbose = http.get(endpoint + "?verbose");
      assertThat(verbose.code()).isEqualTo(200);
      assertThat(verbose.body()).startsWith("[+]ping ok\n[+]log ok\n[+]etcd ok\n")
          .endsWith(endpoint.substring(1) + " check passed\n");
      assertThat(http.get(endpoint + "/nosuchcheck").code()).isEqualTo(404);
    }
    assertThat(http.get("/readyz?verbose").body()).contains("[+]informer-sync ok\n");
  }

  @Test
  void healthEndpoints_needNoToken() {
    try (EmbeddedApiServer secured = EmbeddedApiServer.builder().bearerToken("t0ken").start()) {
      Http anonymous = new Http(secured.url().toString(), null,
          new okhttp3.OkHttpClient.Builder());
      assertThat(anonymous.get("/readyz").body()).isEqualTo("ok");
      assertThat(anonymous.get("/api/v1/namespaces").code()).isEqualTo(401);
    }
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The {@code /scale} subresource over HTTP. */
class ScaleSubresourceTest {

  private static final String DEPLOYMENT = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
      + "\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":"
      + "{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"NotIn\","
      + "\"values\":[\"db\"]},{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]},\"template\":"
      + "{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
      + "\"image\":\"i\"}]}}}}";
  private static final String PATH = "/apis/apps/v1/namespaces/default/deployments/web/scale";
  private static final ServedResource WIDGETS = KubectlServerFeaturesTest.WIDGETS;

  private final EmbeddedApiServer server = EmbeddedApiServer.builder().resource(WIDGETS).start();
  private final Http http = new Http(server);

  @AfterEach
  void stop() {
    server.close();
  }

  private JsonNode stored() {
    return Http.JSON.readTree(server.get("apps/v1", "Deployment", "default", "web").orElseThrow());
  }

  @Test
  void get_isTheScaleOfTheDeployment() {
    JsonNode d = http.post("/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT).json();
    Http.Reply r = http.get(PATH);
    assertThat(r.code()).isEqualTo(200);
    JsonNode s = r.json();
    assertThat(s.path("kind").asString()).isEqualTo("Scale");
    assertThat(s.path("apiVersion").asString()).isEqualTo("autoscaling/v1");
    assertThat(s.path("metadata").path("name").asString()).isEqualTo("web");
    assertThat(s.path("metadata").path("namespace").asString()).isEqualTo("default");
    assertThat(s.path("metadata").path("uid")).isEqualTo(d.path("metadata").path("uid"));
    assertThat(s.path("metadata").path("resourceVersion"))
        .isEqualTo(d.path("metadata").path("resourceVersion"));
    assertThat(s.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(s.path("status").path("replicas").asInt()).isZero();
    assertThat(s.path("status").path("selector").asString())
        .isEqualTo("app=web,!canary,tier notin (db)");
  }

  @Test
  void putAndPatch_setTheParentsReplicas_withResourceVersionPreconditions() {
    http.post("/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT);
    String rv = stored().path("metadata").path("resourceVersion").asString();
    Http.Reply put = http.put(PATH, "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\","
        + "\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"" + rv + "\"},\"spec\":{"
        + "\"replicas\":4}}");
    assertThat(put.code()).as(put.body()).isEqualTo(200);
    assertThat(put.json().path("spec").path("replicas").asInt()).isEqualTo(4);
    assertThat(stored().path("spec").path("replicas").asInt()).isEqualTo(4);
    assertThat(stored().path("metadata").path("generation").asInt()).isEqualTo(2);
    assertThat(put.json().path("metadata").path("resourceVersion").asString())
        .isEqualTo(stored().path("metadata").path("resourceVersion").asString());

    Http.Reply stale = http.put(PATH, "{\"metadata\":{\"name\":\"web\",\"resourceVersion\":\""
        + rv + "\"},\"spec\":{\"replicas\":9}}");
    assertThat(stale.code()).isEqualTo(409);
    assertThat(stored().path("spec").path("replicas").asInt()).isEqualTo(4);

    Http.Reply patch = http.patch(PATH, "application/merge-patch+json",
        "{\"spec\":{\"replicas\":1}}");
    assertThat(patch.code()).as(patch.body()).isEqualTo(200);
    assertThat(stored().path("spec").path("replicas").asInt()).isEqualTo(1);
    Http.Reply jsonPatch = http.patch(PATH, "application/json-patch+json",
        "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":0}]");
    assertThat(jsonPatch.json().path("spec").path("replicas").asInt()).isZero();

    Http.Reply negative = http.patch(PATH, "application/merge-patch+json",
        "{\"spec\":{\"replicas\":-1}}");
    assertThat(negative.code()).isEqualTo(422);
    assertThat(negative.json().path("message").asString())
        .contains("spec.replicas").contains("must be greater than or equal to 0");

    Http.Reply text = http.patch(PATH, "application/merge-patch+json",
        "{\"spec\":{\"replicas\":\"two\"}}");
    assertThat(text.code()).isEqualTo(400);
    assertThat(text.json().path("message").asString())
        .contains("spec.replicas must be a 32-bit integer");

    long before = server.resourceVersion();
    Http.Reply dry = http.patch(PATH + "?dryRun=All", "application/merge-patch+json",
        "{\"spec\":{\"replicas\":7}}");
    assertThat(dry.json().path("spec").path("replicas").asInt()).isEqualTo(7);
    assertThat(stored().path("spec").path("replicas").asInt()).isZero();
    assertThat(server.resourceVersion()).isEqualTo(before);
  }

  @Test
  void customResource_usesItsDeclaredPaths() {
    http.post("/apis/example.com/v1/namespaces/default/widgets", "{\"apiVersion\":"
        + "\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
        + "\"count\":2},\"status\":{\"count\":1,\"selector\":\"app=w\"}}");
    String path = "/apis/example.com/v1/namespaces/default/widgets/w/scale";
    JsonNode s = http.get(path).json();
    assertThat(s.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(s.path("status").path("replicas").asInt()).isEqualTo(1);
    assertThat(s.path("status").path("selector").asString()).isEqualTo("app=w");
    http.patch(path, "application/merge-patch+json", "{\"spec\":{\"replicas\":6}}");
    assertThat(Http.JSON.readTree(server.get("example.com/v1", "Widget", "default", "w")
        .orElseThrow()).path("spec").path("count").asInt()).isEqualTo(6);
  }

  @Test
  void scale_isOnlyServedWhereItExists_andIsListedInDiscovery() {
    http.post("/api/v1/namespaces/default/configmaps",
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}");
    assertThat(http.get("/api/v1/namespaces/default/configmaps/c/scale").code()).isEqualTo(404);
    assertThat(http.get(PATH).code()).isEqualTo(404);
    assertThat(http.delete(PATH).code()).isEqualTo(405);

    JsonNode apps = http.get("/apis/apps/v1").json();
    JsonNode scale = null;
    for (JsonNode r : apps.path("resources")) {
      if (r.path("name").asString().equals("deployments/scale")) {
        scale = r;
      }
    }
    assertThat(scale).isNotNull();
    assertThat(scale.path("group").asString()).isEqualTo("autoscaling");
    assertThat(scale.path("version").asString()).isEqualTo("v1");
    assertThat(scale.path("kind").asString()).isEqualTo("Scale");
    assertThat(http.get("/apis/example.com/v1").body()).contains("\"widgets/scale\"");
    assertThat(http.get("/apis/apps/v1").body()).contains("\"statefulsets/scale\"")
        .contains("\"replicasets/scale\"").doesNotContain("\"daemonsets/scale\"");
    String aggregated = http.get("/apis",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").body();
    assertThat(aggregated).contains("{\"subresource\":\"scale\",\"responseKind\":{\"group\":"
        + "\"autoscaling\",\"version\":\"v1\",\"kind\":\"Scale\"}");
  }

  @Test
  void declarations_withBadPaths_areRefusedNamingTheFix() {
    assertThatThrownBy(() -> new ScaleSubresource(".status.replicas", ".status.replicas", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("specReplicasPath must be under .spec, such as .spec.replicas: "
            + ".status.replicas");
    assertThatThrownBy(() -> new ScaleSubresource(".spec.replicas", ".spec.replicas", null))
        .hasMessageStartingWith("statusReplicasPath must be under .status");
    assertThatThrownBy(() -> new ScaleSubresource(".spec.replicas", ".status.replicas",
        ".metadata.labels")).hasMessageStartingWith("labelSelectorPath must be under .spec or");
    assertThatThrownBy(() -> new ScaleSubresource("spec.replicas", ".status.replicas", null))
        .hasMessageContaining("must be a dotted field path");
    assertThatThrownBy(() -> PrinterColumn.of("Size", "int", ".spec.size"))
        .hasMessage("printer column Size: type must be string, integer, number, boolean or "
            + "date, not int");
    assertThatThrownBy(() -> PrinterColumn.of("Size", "integer", "spec.size"))
        .hasMessageContaining("jsonPath must start with '.'");
  }
}

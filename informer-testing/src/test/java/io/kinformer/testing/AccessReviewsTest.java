package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** SelfSubjectAccessReview and SelfSubjectRulesReview over HTTP. */
class AccessReviewsTest {

  private static final String SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  private static final String SSRR = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

  @Test
  void accessReview_isAllowedWithAReason() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      Http http = new Http(server);
      Http.Reply r = http.post(SSAR, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
          + "\"SelfSubjectAccessReview\",\"spec\":{\"resourceAttributes\":{\"namespace\":"
          + "\"default\",\"verb\":\"create\",\"resource\":\"pods\"}}}");
      assertThat(r.code()).isEqualTo(201);
      JsonNode review = r.json();
      assertThat(review.path("kind").asString()).isEqualTo("SelfSubjectAccessReview");
      assertThat(review.path("spec").path("resourceAttributes").path("verb").asString())
          .isEqualTo("create");
      assertThat(review.path("status").path("allowed").asBoolean()).isTrue();
      assertThat(review.path("status").path("reason").asString())
          .contains("allows every authenticated request");

      Http.Reply empty = http.post(SSAR, "{\"spec\":{}}");
      assertThat(empty.code()).isEqualTo(422);
      assertThat(empty.json().path("message").asString())
          .contains("exactly one of nonResourceAttributes or resourceAttributes");
      assertThat(http.get(SSAR).code()).isEqualTo(405);
    }
  }

  @Test
  void rulesReview_allowsEverything() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      JsonNode review = new Http(server).post(SSRR, "{\"kind\":\"SelfSubjectRulesReview\","
          + "\"apiVersion\":\"authorization.k8s.io/v1\",\"spec\":{\"namespace\":\"default\"}}")
          .json();
      JsonNode status = review.path("status");
      assertThat(status.path("resourceRules").path(0).toString()).isEqualTo(
          "{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}");
      assertThat(status.path("nonResourceRules").path(0).toString())
          .isEqualTo("{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}");
      assertThat(status.path("incomplete").asBoolean()).isFalse();
    }
  }

  @Test
  void protobufReview_isReadAndAnsweredInJson() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      // A SelfSubjectAccessReview as kubectl 1.32 sends it (transcribed from its -v=8 dump).
      byte[] body = java.util.HexFormat.of().parseHex(
          "6b3873000a320a17617574686f72697a"
          + "6174696f6e2e6b38732e696f2f763112"
          + "1753656c665375626a65637441636365"
          + "7373526576696577123f0a100a001200"
          + "1a0022002a0032003800420012210a1f"
          + "0a0764656661756c7412066372656174"
          + "651a0022002a04706f647332003a001a"
          + "08080012001a0020001a002200");
      okhttp3.Request request = new okhttp3.Request.Builder().url(server.url() + SSAR)
          .header("Accept", "application/vnd.kubernetes.protobuf,application/json")
          .post(okhttp3.RequestBody.create(body,
              okhttp3.MediaType.get("application/vnd.kubernetes.protobuf")))
          .build();
      Http.Reply r = new Http(server).call(request);
      assertThat(r.code()).as(r.body()).isEqualTo(201);
      JsonNode attrs = r.json().path("spec").path("resourceAttributes");
      assertThat(attrs.toString())
          .isEqualTo("{\"namespace\":\"default\",\"verb\":\"create\",\"resource\":\"pods\"}");
      assertThat(r.json().path("status").path("allowed").asBoolean()).isTrue();
    }
  }

  @Test
  void reviews_areInDiscovery_andNeedAuthentication() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().bearerToken("t").start()) {
      Http http = new Http(server);
      assertThat(http.get("/apis").body()).contains("\"name\":\"authorization.k8s.io\"");
      JsonNode list = http.get("/apis/authorization.k8s.io/v1").json();
      assertThat(list.path("resources").toString())
          .contains("{\"name\":\"selfsubjectaccessreviews\",\"singularName\":"
              + "\"selfsubjectaccessreview\",\"namespaced\":false,\"kind\":"
              + "\"SelfSubjectAccessReview\",\"verbs\":[\"create\"]}")
          .contains("\"selfsubjectrulesreviews\"");
      Http anonymous = new Http(server.url().toString(), null, new okhttp3.OkHttpClient.Builder());
      assertThat(anonymous.post(SSAR, "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/\","
          + "\"verb\":\"get\"}}}").code()).isEqualTo(401);
      assertThat(http.post(SSAR, "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/\","
          + "\"verb\":\"get\"}}}").json().path("status").path("allowed").asBoolean()).isTrue();
    }
  }
}

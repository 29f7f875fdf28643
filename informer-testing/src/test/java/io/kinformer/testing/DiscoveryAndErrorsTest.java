package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/** Discovery documents (transcript 11) and error shapes (transcript 08). */
@ExtendWith(EmbeddedApiServerExtension.class)
class DiscoveryAndErrorsTest {

  EmbeddedApiServer server;

  private static List<String> names(JsonNode arr, String field) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : arr) {
      out.add(n.path(field).asString());
    }
    return out;
  }

  @Test
  void discovery_listsBuiltInsAndCustomResources() {
    Http http = new Http(server);
    assertThat(http.get("/version").json().path("major").asString()).isEqualTo("1");
    JsonNode api = http.get("/api").json();
    assertThat(api.path("kind").asString()).isEqualTo("APIVersions");
    assertThat(api.path("serverAddressByClientCIDRs").get(0).path("serverAddress").asString())
        .isEqualTo("127.0.0.1:" + server.port());
    JsonNode v1 = http.get("/api/v1").json();
    assertThat(v1.path("groupVersion").asString()).isEqualTo("v1");
    assertThat(names(v1.path("resources"), "name")).contains("namespaces", "nodes", "pods",
        "pods/status", "services", "endpoints", "configmaps", "secrets", "events",
        "serviceaccounts");
    JsonNode pods = v1.path("resources").get(names(v1.path("resources"), "name").indexOf("pods"));
    assertThat(pods.path("kind").asString()).isEqualTo("Pod");
    assertThat(pods.path("namespaced").asBoolean()).isTrue();
    assertThat(names(pods.path("verbs"), "x")).hasSize(8);
    assertThat(pods.path("shortNames").get(0).asString()).isEqualTo("po");

    server.register(ServedResource.clusterScoped("example.com", "v1alpha1", "Gadget", "gadgets"));
    JsonNode apis = http.get("/apis").json();
    assertThat(apis.path("kind").asString()).isEqualTo("APIGroupList");
    assertThat(names(apis.path("groups"), "name")).contains("apps", "batch",
        "coordination.k8s.io", "example.com");
    assertThat(names(http.get("/apis/apps/v1").json().path("resources"), "name"))
        .contains("deployments", "replicasets", "statefulsets", "daemonsets");
    assertThat(http.get("/apis/example.com").json().path("preferredVersion").path("version")
        .asString()).isEqualTo("v1alpha1");
    JsonNode gadgets = http.get("/apis/example.com/v1alpha1").json().path("resources").get(0);
    assertThat(gadgets.path("namespaced").asBoolean()).isFalse();
    assertThat(http.get("/apis/example.com/v1alpha1/gadgets").code()).isEqualTo(200);
  }

  @Test
  void aggregatedDiscovery_isServedWhenAsked() {
    Http http = new Http(server);
    String accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
        + "application/json";
    Http.Reply core = http.get("/api", accept);
    assertThat(core.headers().get("Content-Type"))
        .isEqualTo("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    JsonNode v1 = core.json().path("items").get(0).path("versions").get(0);
    assertThat(v1.path("version").asString()).isEqualTo("v1");
    JsonNode pods = v1.path("resources").get(names(v1.path("resources"), "resource")
        .indexOf("pods"));
    assertThat(pods.path("scope").asString()).isEqualTo("Namespaced");
    assertThat(pods.path("responseKind").path("kind").asString()).isEqualTo("Pod");
    assertThat(pods.path("subresources").get(0).path("subresource").asString())
        .isEqualTo("status");
    JsonNode apis = http.get("/apis", accept).json();
    assertThat(apis.path("kind").asString()).isEqualTo("APIGroupDiscoveryList");
    List<String> groups = new ArrayList<>();
    apis.path("items").forEach(i -> groups.add(i.path("metadata").path("name").asString()));
    assertThat(groups).contains("apps", "batch", "coordination.k8s.io");
    assertThat(http.get("/apis").json().path("kind").asString()).isEqualTo("APIGroupList");
    String etag = core.headers().get("Etag");
    assertThat(etag).matches("\"[0-9A-F]{128}\"");
    assertThat(http.call(new okhttp3.Request.Builder().url(server.url() + "/api")
        .header("Accept", accept).header("If-None-Match", etag).build()).code()).isEqualTo(304);
  }

  @Test
  void curlAndPrettyTrue_getGoStyleIndentedJson_otherClientsCompact() {
    Http http = new Http(server);
    Http.Reply pretty = http.get("/api/v1/namespaces/default/pods/x?pretty=true");
    assertThat(pretty.body()).startsWith("{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\","
        + "\n  \"metadata\": {},\n");
    Http.Reply curl = http.call(new okhttp3.Request.Builder()
        .url(server.url() + "/api/v1/namespaces?limit=1").header("User-Agent", "curl/8.0").build());
    assertThat(curl.body()).startsWith("{\n  \"kind\": \"NamespaceList\",");
    assertThat(curl.json().path("items").size()).isEqualTo(1);
    assertThat(http.get("/api/v1/namespaces/default/pods/x").body()).startsWith("{\"kind\":");
  }

  @Test
  void unknownGroup_isAPlainText404() {
    Http.Reply r = new Http(server).get("/apis/nope.example.com/v1/namespaces/x/widgets");
    assertThat(r.code()).isEqualTo(404);
    assertThat(r.headers().get("Content-Type")).isEqualTo("text/plain; charset=utf-8");
    assertThat(r.headers().get("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.body()).isEqualTo("404 page not found\n");
  }

  @Test
  void unknownResource_missingObject_andBadMethods_areStatusBodies() {
    Http http = new Http(server);
    Http.Reply foos = http.get("/apis/apps/v1/namespaces/default/foos");
    assertThat(foos.code()).isEqualTo(404);
    assertThat(foos.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"the server could not find the requested "
        + "resource\",\"reason\":\"NotFound\",\"details\":{},\"code\":404}\n");
    Http.Reply missing = http.get("/api/v1/namespaces/default/pods/missing");
    assertThat(missing.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
        + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods \\\"missing\\\" not found\","
        + "\"reason\":\"NotFound\",\"details\":{\"name\":\"missing\",\"kind\":\"pods\"},"
        + "\"code\":404}\n");
    Http.Reply post = http.post("/api/v1/namespaces/default/pods/x", "{}");
    assertThat(post.code()).isEqualTo(405);
    assertThat(post.json().path("reason").asString()).isEqualTo("MethodNotAllowed");
    Http.Reply xml = http.get("/api/v1/namespaces/default/pods", "application/xml");
    assertThat(xml.code()).isEqualTo(406);
    assertThat(xml.json().path("reason").asString()).isEqualTo("NotAcceptable");
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=maybe")) {
      assertThat(w.code()).isEqualTo(200);
    }
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Server-side field validation ({@code fieldValidation}) of create, update and patch. */
class FieldValidationTest {

  private static final String PODS = "/api/v1/namespaces/default/pods";
  private static final String WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";
  private static final String BAD_POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
      + "\"metadata\":{\"name\":\"a\",\"name\":\"web\"},\"spec\":{\"containers\":[{\"name\":\"c\","
      + "\"image\":\"i\",\"bogus\":1}],\"foo\":true}}";
  private static final String GOOD_POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
      + "\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"x\"},\"managedFields\":[{"
      + "\"manager\":\"m\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{}}}]},"
      + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"ports\":[{"
      + "\"containerPort\":80}],\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}";

  private EmbeddedApiServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = KubectlOpenApiTest.startWithWidgets();
    server.register(ServedResource.namespaced("example.com", "v1", "Gadget", "gadgets"));
    http = new Http(server);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void strict_refusesUnknownAndDuplicateFields_inDocumentOrder() {
    Http.Reply r = http.post(PODS + "?fieldValidation=Strict", BAD_POD);
    assertThat(r.code()).isEqualTo(400);
    assertThat(r.json().path("reason").asString()).isEqualTo("BadRequest");
    assertThat(r.json().path("message").asString()).isEqualTo("Pod in version \"v1\" cannot be"
        + " handled as a Pod: strict decoding error: duplicate field \"metadata.name\", unknown"
        + " field \"spec.containers[0].bogus\", unknown field \"spec.foo\"");
    assertThat(server.get("v1", "Pod", "default", "web")).isEmpty();

    Http.Reply good = http.post(PODS + "?fieldValidation=Strict", GOOD_POD);
    assertThat(good.code()).as(good.body()).isEqualTo(201);
    assertThat(good.headers().values("Warning")).isEmpty();
  }

  @Test
  void warn_isTheDefault_andSendsOneWarningPerField() {
    Http.Reply r = http.post(PODS, BAD_POD);
    assertThat(r.code()).as(r.body()).isEqualTo(201);
    assertThat(r.headers().values("Warning")).containsExactly(
        "299 - \"duplicate field \\\"metadata.name\\\"\"",
        "299 - \"unknown field \\\"spec.containers[0].bogus\\\"\"",
        "299 - \"unknown field \\\"spec.foo\\\"\"");
    String updated = server.get("v1", "Pod", "default", "web").orElseThrow();
    Http.Reply put = http.put(PODS + "/web?fieldValidation=Warn", updated);
    assertThat(put.code()).as(put.body()).isEqualTo(200);
    assertThat(put.headers().values("Warning")).containsExactly(
        "299 - \"unknown field \\\"spec.containers[0].bogus\\\"\"",
        "299 - \"unknown field \\\"spec.foo\\\"\"");
  }

  @Test
  void ignore_acceptsSilently_andAnUnknownDirectiveIsRefused() {
    Http.Reply r = http.post(PODS + "?fieldValidation=Ignore", BAD_POD);
    assertThat(r.code()).isEqualTo(201);
    assertThat(r.headers().values("Warning")).isEmpty();

    Http.Reply bad = http.post(PODS + "?fieldValidation=strict", GOOD_POD);
    assertThat(bad.code()).isEqualTo(400);
    assertThat(bad.json().path("message").asString()).isEqualTo("fieldValidation: Unsupported"
        + " value: \"strict\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
  }

  @Test
  void updateAndPatches_areValidated() {
    assertThat(http.post(PODS, GOOD_POD).code()).isEqualTo(201);
    String stored = server.get("v1", "Pod", "default", "web").orElseThrow();

    Http.Reply put = http.put(PODS + "/web?fieldValidation=Strict",
        stored.replace("\"spec\":{", "\"spec\":{\"nodeNam\":\"n\","));
    assertThat(put.code()).isEqualTo(400);
    assertThat(put.json().path("message").asString()).isEqualTo("Pod in version \"v1\" cannot be"
        + " handled as a Pod: strict decoding error: unknown field \"spec.nodeNam\"");

    Http.Reply merge = http.patch(PODS + "/web?fieldValidation=Strict",
        "application/merge-patch+json", "{\"spec\":{\"activeDeadline\":5}}");
    assertThat(merge.code()).isEqualTo(400);
    assertThat(merge.json().path("message").asString())
        .isEqualTo("strict decoding error: unknown field \"spec.activeDeadline\"");

    // Removals (null) and strategic merge directives are not fields.
    Http.Reply smp = http.patch(PODS + "/web?fieldValidation=Strict",
        "application/strategic-merge-patch+json", "{\"metadata\":{\"labels\":{\"app\":null},"
            + "\"gone\":null},\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"c\"}],"
            + "\"containers\":[{\"name\":\"c\",\"image\":\"j\"}]}}");
    assertThat(smp.code()).as(smp.body()).isEqualTo(200);

    Http.Reply apply = http.patch(PODS + "/web?fieldValidation=Strict&fieldManager=t",
        "application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n"
            + "spec:\n  containers:\n  - name: c\n    imagee: k\n");
    assertThat(apply.code()).isEqualTo(400);
    assertThat(apply.json().path("message").asString())
        .isEqualTo("strict decoding error: unknown field \"spec.containers[0].imagee\"");
    assertThat(server.get("v1", "Pod", "default", "web").orElseThrow()).contains("\"image\":\"j\"");
  }

  @Test
  void customResource_isCheckedAgainstItsStructuralSchema() {
    String widget = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{"
        + "\"name\":\"w\"%s},\"spec\":{\"size\":1,\"labels\":{\"any\":\"key\"},"
        + "\"extra\":{\"free\":{\"form\":[1]}}%s},\"status\":{\"ready\":true%s}}";
    Http.Reply bad = http.post(WIDGETS + "?fieldValidation=Strict",
        String.format(widget, ",\"colour\":1", ",\"sise\":2", ",\"done\":true"));
    assertThat(bad.code()).isEqualTo(400);
    assertThat(bad.json().path("message").asString()).isEqualTo("Widget in version \"v1\" cannot"
        + " be handled as a Widget: strict decoding error: unknown field \"metadata.colour\","
        + " unknown field \"spec.sise\", unknown field \"status.done\"");
    Http.Reply good = http.post(WIDGETS + "?fieldValidation=Strict",
        String.format(widget, "", "", ""));
    assertThat(good.code()).as(good.body()).isEqualTo(201);
  }

  @Test
  void customResourceWithoutSchema_acceptsAnyFieldButInMetadata() {
    String gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    Http.Reply good = http.post(gadgets + "?fieldValidation=Strict", "{\"apiVersion\":"
        + "\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\"},"
        + "\"spec\":{\"anything\":{\"at\":\"all\"}},\"more\":1}");
    assertThat(good.code()).as(good.body()).isEqualTo(201);
    Http.Reply bad = http.post(gadgets + "?fieldValidation=Strict", "{\"apiVersion\":"
        + "\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"h\",\"lables\":{}}}");
    assertThat(bad.code()).isEqualTo(400);
    assertThat(bad.json().path("message").asString())
        .endsWith("strict decoding error: unknown field \"metadata.lables\"");
  }

  @Test
  void javaApiWrites_areNotValidated() {
    server.create(BAD_POD.replace("\"name\":\"a\",", ""));
    assertThat(server.get("v1", "Pod", "default", "web").orElseThrow()).contains("\"foo\":true");
  }
}

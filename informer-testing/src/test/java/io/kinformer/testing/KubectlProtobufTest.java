package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.kinformer.time.testing.FakeClock;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Kubernetes protobuf request bodies ({@code application/vnd.kubernetes.protobuf}): kubectl's typed
 * {@code create} commands send them, and the server stores what it would have stored for the same
 * object sent as JSON; hand-built bodies cover the errors.
 */
class KubectlProtobufTest {

  private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-30T10:00:00Z"));
  private final EmbeddedApiServer server = EmbeddedApiServer.builder().clock(clock)
      .resource(KubectlServerFeaturesTest.WIDGETS).start();
  private final Http http = new Http(server);

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void kubectlCreate_sendsProtobuf_andStoresWhatTheJsonPathStores(@TempDir Path dir)
      throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    String[][] commands = {
        {"configmap", "c", "--from-literal=a=b"},
        {"namespace", "n"},
        {"deployment", "web", "--image=nginx", "--replicas=2"},
    };
    for (String[] command : commands) {
      String[] create = new String[command.length + 2];
      create[0] = "create";
      System.arraycopy(command, 0, create, 1, command.length);
      create[create.length - 1] = "-v=8"; // prints the request's headers and the response status
      String out = kubectl.ok(create);
      assertThat(out).contains(command[1] + " created")
          .contains("Content-Type: " + PROTOBUF)
          .contains("Response Status: 201 Created")
          .doesNotContain("415"); // no fallback to JSON (client-go retries a 415 so)
    }
    ConfigMap cm = server.get(ConfigMap.class, "default", "c").orElseThrow();
    assertThat(cm.getData()).isEqualTo(Map.of("a", "b"));
    Namespace ns = server.get(Namespace.class, null, "n").orElseThrow();
    assertThat(ns.getMetadata().getName()).isEqualTo("n");
    JsonNode deployment = Http.JSON.readTree(
        server.get("apps/v1", "Deployment", "default", "web").orElseThrow());
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    assertThat(deployment.at("/spec/template/spec/containers/0/image").asString())
        .isEqualTo("nginx");

    // The same objects as kubectl's JSON of them makes them, on a server of their own.
    try (EmbeddedApiServer viaJson = EmbeddedApiServer.builder().clock(clock).start()) {
      String[][] stored = {
          {"v1", "ConfigMap", "default", "c"},
          {"v1", "Namespace", "", "n"},
          {"apps/v1", "Deployment", "default", "web"},
      };
      for (int i = 0; i < commands.length; i++) {
        String[] dryRun = new String[commands[i].length + 4];
        dryRun[0] = "create";
        System.arraycopy(commands[i], 0, dryRun, 1, commands[i].length);
        dryRun[dryRun.length - 3] = "--dry-run=client";
        dryRun[dryRun.length - 2] = "-o";
        dryRun[dryRun.length - 1] = "json";
        viaJson.create(kubectl.ok(dryRun));
        String[] s = stored[i];
        String ns2 = s[2].isEmpty() ? null : s[2];
        assertThat(serverSet(server.get(s[0], s[1], ns2, s[3]).orElseThrow()))
            .as(s[1] + " from protobuf, as from JSON")
            .isEqualTo(withoutNullCreationTimestamps(
                serverSet(viaJson.get(s[0], s[1], ns2, s[3]).orElseThrow())));
      }
    }
  }

  @Test
  void protobufCreateAndUpdate_storeTheObject() {
    Http.Reply created = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("v1", "ConfigMap", configMap("c", "a", "b")), "application/json");
    assertThat(created.code()).as(created.body()).isEqualTo(201);
    assertThat(created.headers().get("Content-Type")).startsWith("application/json");
    assertThat(created.json().at("/data/a").asString()).isEqualTo("b");

    Http.Reply updated = http.send("PUT", CONFIGMAPS + "/c", PROTOBUF,
        envelope("v1", "ConfigMap", configMap("c", "a", "changed")),
        PROTOBUF + ",application/json");
    assertThat(updated.code()).as(updated.body()).isEqualTo(200);
    assertThat(server.get(ConfigMap.class, "default", "c").orElseThrow().getData())
        .isEqualTo(Map.of("a", "changed"));

    // An envelope without apiVersion and kind: the endpoint's, as the server's decoder does.
    Http.Reply bare = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("", "", configMap("bare", "k", "v")), "application/json");
    assertThat(bare.code()).as(bare.body()).isEqualTo(201);
    assertThat(server.get(ConfigMap.class, "default", "bare").orElseThrow().getData())
        .isEqualTo(Map.of("k", "v"));
  }

  @Test
  void protobufOfAnotherKind_is400AsTheJsonPath() {
    Http.Reply reply = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("v1", "Secret", configMap("s", "a", "b")), "application/json");
    assertThat(reply.code()).isEqualTo(400);
    assertThat(reply.json().path("message").asString()).isEqualTo("Secret in version \"v1\""
        + " cannot be handled as a ConfigMap: converting (v1.Secret) to (ConfigMap): unknown"
        + " conversion");
    assertThat(server.get("v1", "ConfigMap", "default", "s")).isEmpty();

    Http.Reply unknown = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("example.com/v1", "Widget", configMap("w", "a", "b")), "application/json");
    assertThat(unknown.code()).isEqualTo(400);
    assertThat(unknown.json().path("message").asString()).isEqualTo("Widget in version \"v1\""
        + " cannot be handled as a ConfigMap: no kind \"Widget\" is registered for version"
        + " \"example.com/v1\"");
  }

  @Test
  void malformedProtobuf_is400NamingTheProblem() {
    Http.Reply noMagic = http.send("POST", CONFIGMAPS, PROTOBUF,
        "{\"kind\":\"ConfigMap\"}".getBytes(StandardCharsets.UTF_8), "application/json");
    assertThat(noMagic.code()).isEqualTo(400);
    assertThat(noMagic.json().path("message").asString()).isEqualTo("provided data does not"
        + " appear to be a protobuf message, expected prefix [107 56 115 0]");

    byte[] cm = configMap("c", "a", "b");
    byte[] truncated = Arrays.copyOf(cm, cm.length - 2);
    Http.Reply cut = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("v1", "ConfigMap", truncated), "application/json");
    assertThat(cut.code()).isEqualTo(400);
    assertThat(cut.json().path("message").asString())
        .startsWith("the object provided is unrecognized (must be of type ConfigMap): ")
        .contains("k8s.io.api.core.v1.ConfigMap");
    assertThat(server.list("v1", "ConfigMap", "default")).isEmpty();
  }

  @Test
  void protobufToACustomResource_is415() {
    Http.Reply reply = http.send("POST", "/apis/example.com/v1/namespaces/default/widgets",
        PROTOBUF, envelope("example.com/v1", "Widget", configMap("w", "a", "b")),
        "application/json");
    assertThat(reply.code()).isEqualTo(415);
    assertThat(reply.json().path("reason").asString()).isEqualTo("UnsupportedMediaType");
  }

  @Test
  void acceptingOnlyProtobuf_is406() {
    Http.Reply reply = http.send("POST", CONFIGMAPS, PROTOBUF,
        envelope("v1", "ConfigMap", configMap("c", "a", "b")), PROTOBUF);
    assertThat(reply.code()).isEqualTo(406);
    assertThat(server.get("v1", "ConfigMap", "default", "c")).isEmpty();
  }

  /** A stored object without what the server sets on its own (uid, resourceVersion). */
  private static JsonNode serverSet(String json) {
    ObjectNode o = (ObjectNode) Http.JSON.readTree(json);
    ObjectNode meta = (ObjectNode) o.get("metadata");
    meta.remove("uid");
    meta.remove("resourceVersion");
    return o;
  }

  /**
   * Without the {@code "creationTimestamp": null} of kubectl 1.32's JSON (a zero metav1.Time),
   * which the JSON path stores as sent; ObjectMeta's {@code omitzero} (Kubernetes 1.34 on, the
   * schema the protobuf path follows) leaves it out, as a real server's JSON does.
   */
  private static JsonNode withoutNullCreationTimestamps(JsonNode node) {
    if (node instanceof ObjectNode o) {
      if (o.has("creationTimestamp") && o.get("creationTimestamp").isNull()) {
        o.remove("creationTimestamp");
      }
      o.forEach(KubectlProtobufTest::withoutNullCreationTimestamps);
    } else if (node.isArray()) {
      node.forEach(KubectlProtobufTest::withoutNullCreationTimestamps);
    }
    return node;
  }

  /** The {@code k8s\0} envelope: a runtime.Unknown of typeMeta (1) and raw (2). */
  private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
    Proto typeMeta = new Proto();
    if (!apiVersion.isEmpty()) {
      typeMeta.string(1, apiVersion);
    }
    if (!kind.isEmpty()) {
      typeMeta.string(2, kind);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {'k', '8', 's', 0});
    out.writeBytes(new Proto().bytes(1, typeMeta.toBytes()).bytes(2, raw).toBytes());
    return out.toByteArray();
  }

  /** A v1.ConfigMap message: metadata (1, ObjectMeta's name is 1) and one data entry (2). */
  private static byte[] configMap(String name, String key, String value) {
    return new Proto().bytes(1, new Proto().string(1, name).toBytes())
        .bytes(2, new Proto().string(1, key).string(2, value).toBytes()).toBytes();
  }

  /** Just enough of a protobuf writer: length-delimited fields. */
  private static final class Proto {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Proto bytes(int number, byte[] value) {
      varint(number << 3 | 2);
      varint(value.length);
      out.writeBytes(value);
      return this;
    }

    Proto string(int number, String value) {
      return bytes(number, value.getBytes(StandardCharsets.UTF_8));
    }

    private void varint(int v) {
      while ((v & ~0x7f) != 0) {
        out.write((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.write(v);
    }

    byte[] toBytes() {
      return out.toByteArray();
    }
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kinformer.time.testing.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Drives kubectl's server-side features against the server: tables for {@code get} (and {@code
 * get -w}), the scale subresource, server dry runs, {@code diff} and {@code auth can-i}.
 */
class KubectlServerFeaturesTest {

  private static final String POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
      + "\"name\":\"%s\",\"namespace\":\"default\",\"labels\":{\"app\":\"web\"}},\"spec\":{"
      + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\"}]}}";
  private static final String DEPLOYMENT = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
      + "\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},\"spec\":{\"replicas\":2,"
      + "\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":"
      + "{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\"},"
      + "{\"name\":\"sidecar\",\"image\":\"busybox:1\"}]}}}}";
  private static final String CM_YAML = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
      + "  name: settings\ndata:\n  mode: %s\n";
  static final ServedResource WIDGETS = ServedResource
      .namespaced("example.com", "v1", "Widget", "widgets")
      .withPrinterColumns(PrinterColumn.of("Size", "integer", ".spec.size"),
          PrinterColumn.of("Color", "string", ".spec.color"),
          PrinterColumn.of("Age", "date", ".metadata.creationTimestamp"))
      .withScaleSubresource(new ScaleSubresource(".spec.count", ".status.count",
          ".status.selector"));

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-30T10:00:00Z"));
  private final EmbeddedApiServer server =
      EmbeddedApiServer.builder().clock(clock).resource(WIDGETS).start();

  @AfterEach
  void stop() {
    server.close();
  }

  /** The cells of each line, split on the runs of spaces kubectl's columns are padded with. */
  private static List<List<String>> table(String out) {
    return out.lines().filter(l -> !l.isBlank())
        .map(l -> Arrays.asList(l.trim().split("\\s{2,}"))).toList();
  }

  @Test
  void get_printsTheServersColumnsAndAges(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    server.create(String.format(POD, "web"));
    server.create(DEPLOYMENT);
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
        + "\"settings\",\"namespace\":\"default\"},\"data\":{\"a\":\"1\",\"b\":\"2\"}}");
    clock.advance(Duration.ofSeconds(90));

    assertThat(table(kubectl.ok("get", "pods"))).containsExactly(
        List.of("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
        List.of("web", "0/1", "Pending", "0", "90s"));
    assertThat(table(kubectl.ok("get", "pods", "-o", "wide"))).containsExactly(
        List.of("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
            "READINESS GATES"),
        List.of("web", "0/1", "Pending", "0", "90s", "<none>", "<none>", "<none>", "<none>"));

    String deployment = server.get("apps/v1", "Deployment", "default", "web").orElseThrow();
    server.updateStatus(deployment.replaceFirst("\\}$",
        ",\"status\":{\"readyReplicas\":1,\"updatedReplicas\":2,\"availableReplicas\":1}}"));
    clock.advance(Duration.ofMinutes(5));
    assertThat(table(kubectl.ok("get", "deploy", "-o", "wide"))).containsExactly(
        List.of("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES",
            "SELECTOR"),
        List.of("web", "1/2", "2", "1", "6m30s", "c,sidecar", "nginx:1,busybox:1", "app=web"));

    // All namespaces: kubectl adds NAMESPACE from the rows' object metadata.
    assertThat(table(kubectl.ok("get", "pods", "-A"))).containsExactly(
        List.of("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"),
        List.of("default", "web", "0/1", "Pending", "0", "6m30s"));
    assertThat(table(kubectl.ok("get", "cm"))).containsExactly(
        List.of("NAME", "DATA", "AGE"), List.of("settings", "2", "6m30s"));
    assertThat(table(kubectl.ok("get", "ns", "default"))).containsExactly(
        List.of("NAME", "STATUS", "AGE"), List.of("default", "Active", "6m30s"));
  }

  @Test
  void get_customResource_printsItsPrinterColumns(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{"
        + "\"name\":\"w1\",\"namespace\":\"default\"},\"spec\":{\"size\":3,\"color\":\"red\"}}");
    clock.advance(Duration.ofHours(2));
    server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{"
        + "\"name\":\"w2\",\"namespace\":\"default\"},\"spec\":{\"size\":1}}");
    clock.advance(Duration.ofMinutes(1));

    List<String> lines = kubectl.ok("get", "widgets").lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches("NAME\\s+SIZE\\s+COLOR\\s+AGE");
    assertThat(lines.get(1)).matches("w1\\s+3\\s+red\\s+121m");
    // A field the object lacks is an empty cell.
    assertThat(lines.get(2)).matches("w2\\s+1\\s+60s");
    assertThat(lines.get(2).indexOf("60s")).isEqualTo(lines.get(0).indexOf("AGE"));
  }

  @Test
  void getWatch_printsRowsForTheEventsUnderOneHeader(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    server.create(String.format(POD, "web"));
    try (Kubectl.Streaming watch = kubectl.start("get", "pods", "-w")) {
      assertThat(watch.nextContaining("NAME"))
          .matches("NAME\\s+READY\\s+STATUS\\s+RESTARTS\\s+AGE");
      assertThat(watch.nextContaining("web")).matches("web\\s+0/1\\s+Pending\\s+0\\s+0s");
      await().until(() -> server.faults().openWatches("pods") == 1);
      clock.advance(Duration.ofSeconds(30));
      server.create(String.format(POD, "api"));
      // The next line printed is the new pod's row: no second header.
      assertThat(watch.nextContaining("")).matches("api\\s+0/1\\s+Pending\\s+0\\s+0s");
    }
  }

  @Test
  void scale_setsTheReplicasOfADeploymentAndOfACustomResource(@TempDir Path dir)
      throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    server.create(DEPLOYMENT);
    assertThat(kubectl.ok("scale", "deployment", "web", "--replicas=3"))
        .contains("deployment.apps/web scaled");
    JsonNode stored = Http.JSON.readTree(
        server.get("apps/v1", "Deployment", "default", "web").orElseThrow());
    assertThat(stored.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(stored.path("metadata").path("generation").asInt()).isEqualTo(2);

    server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{"
        + "\"name\":\"w\",\"namespace\":\"default\"},\"spec\":{\"count\":1}}");
    assertThat(kubectl.ok("scale", "widget", "w", "--replicas=5"))
        .contains("widget.example.com/w scaled");
    assertThat(Http.JSON.readTree(server.get("example.com/v1", "Widget", "default", "w")
        .orElseThrow()).path("spec").path("count").asInt()).isEqualTo(5);
  }

  @Test
  void serverDryRun_createApplyDelete_changeNothing(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    Path cm = dir.resolve("cm.yaml");
    Files.writeString(cm, String.format(CM_YAML, "one"));
    long rv = server.resourceVersion();
    assertThat(kubectl.ok("create", "--dry-run=server", "-f", cm.toString()))
        .contains("configmap/settings created (server dry run)");
    assertThat(server.get("v1", "ConfigMap", "default", "settings")).isEmpty();
    assertThat(server.resourceVersion()).isEqualTo(rv);

    assertThat(kubectl.ok("apply", "--dry-run=server", "-f", cm.toString()))
        .contains("configmap/settings created (server dry run)");
    assertThat(server.get("v1", "ConfigMap", "default", "settings")).isEmpty();

    kubectl.ok("apply", "-f", cm.toString());
    String applied = server.get("v1", "ConfigMap", "default", "settings").orElseThrow();
    Files.writeString(cm, String.format(CM_YAML, "two"));
    rv = server.resourceVersion();
    assertThat(kubectl.ok("apply", "--dry-run=server", "-f", cm.toString()))
        .contains("configmap/settings configured (server dry run)");
    assertThat(kubectl.ok("delete", "--dry-run=server", "-f", cm.toString()))
        .contains("configmap \"settings\" deleted (server dry run)");
    assertThat(server.get("v1", "ConfigMap", "default", "settings")).contains(applied);
    assertThat(server.resourceVersion()).isEqualTo(rv);
  }

  @Test
  void diff_exitsOneWithTheDifference_zeroWhenEqual(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    Path cm = dir.resolve("cm.yaml");
    Files.writeString(cm, String.format(CM_YAML, "one"));
    kubectl.ok("apply", "-f", cm.toString());
    long rv = server.resourceVersion();

    Kubectl.Run same = kubectl.run("diff", "-f", cm.toString());
    assertThat(same.exit()).as(same.out()).isZero();
    assertThat(same.out()).isEmpty();

    Files.writeString(cm, String.format(CM_YAML, "two"));
    Kubectl.Run changed = kubectl.run("diff", "-f", cm.toString());
    assertThat(changed.exit()).as(changed.out()).isEqualTo(1);
    assertThat(changed.out()).contains("-  mode: one").contains("+  mode: two");
    assertThat(server.resourceVersion()).isEqualTo(rv);
    assertThat(server.get("v1", "ConfigMap", "default", "settings").orElseThrow())
        .contains("\"mode\":\"one\"");
  }

  @Test
  void authCanI_answersYes(@TempDir Path dir) throws Exception {
    Kubectl kubectl = Kubectl.forServer(server, dir);
    assertThat(kubectl.ok("auth", "can-i", "create", "pods").trim()).isEqualTo("yes");
    assertThat(kubectl.ok("auth", "can-i", "delete", "widgets.example.com", "-n", "kube-system")
        .trim()).isEqualTo("yes");
    List<List<String>> rules = table(kubectl.ok("auth", "can-i", "--list"));
    assertThat(rules.get(0)).containsExactly("Resources", "Non-Resource URLs", "Resource Names",
        "Verbs");
    assertThat(rules).contains(List.of("*.*", "[]", "[]", "[*]"), List.of("[*]", "[]", "[*]"));
  }
}

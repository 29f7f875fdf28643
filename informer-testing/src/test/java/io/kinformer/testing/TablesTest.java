package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Server-side tables over HTTP: their shape, columns and cells. */
class TablesTest {

  static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  private static final String T0 = "2026-11-30T10:00:00Z";

  private final FakeClock clock = new FakeClock(Instant.parse(T0));
  private final EmbeddedApiServer server = EmbeddedApiServer.builder().clock(clock).start();
  private final Http http = new Http(server);

  @AfterEach
  void stop() {
    server.close();
  }

  private static List<String> names(JsonNode table) {
    List<String> out = new ArrayList<>();
    table.path("columnDefinitions").forEach(c -> out.add(c.path("name").asString()));
    return out;
  }

  private static List<Object> cells(JsonNode row) {
    List<Object> out = new ArrayList<>();
    for (JsonNode c : row.path("cells")) {
      out.add(c.isNull() ? null : c.isNumber() ? (Object) c.asLong() : c.asString());
    }
    return out;
  }

  private JsonNode table(String path) {
    Http.Reply r = http.get(path, TABLE);
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    return r.json();
  }

  @Test
  void podList_isATableWithThePodColumnsAndMetadataRows() {
    http.createPod("default", "web", "web");
    clock.advance(Duration.ofSeconds(75));
    JsonNode t = table("/api/v1/namespaces/default/pods");
    assertThat(t.path("kind").asString()).isEqualTo("Table");
    assertThat(t.path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
    assertThat(t.path("metadata").path("resourceVersion").asLong())
        .isEqualTo(server.resourceVersion());
    assertThat(names(t)).containsExactly("Name", "Ready", "Status", "Restarts", "Age", "IP",
        "Node", "Nominated Node", "Readiness Gates");
    List<Integer> priorities = new ArrayList<>();
    t.path("columnDefinitions").forEach(c -> priorities.add(c.path("priority").asInt()));
    assertThat(priorities).containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(t.path("columnDefinitions").path(0).path("format").asString()).isEqualTo("name");
    JsonNode row = t.path("rows").path(0);
    assertThat(cells(row)).containsExactly("web", "0/1", "Pending", "0", "75s", "<none>",
        "<none>", "<none>", "<none>");
    assertThat(row.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
    assertThat(row.path("object").path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
    assertThat(row.path("object").path("metadata").path("name").asString()).isEqualTo("web");
    assertThat(row.path("object").has("spec")).isFalse();
  }

  @Test
  void includeObject_andTheV1beta1Table() {
    http.createPod("default", "web", "web");
    JsonNode none = table("/api/v1/namespaces/default/pods?includeObject=None");
    assertThat(none.path("rows").path(0).has("object")).isFalse();
    JsonNode full = table("/api/v1/namespaces/default/pods?includeObject=Object");
    assertThat(full.path("rows").path(0).path("object").path("spec").path("containers")
        .path(0).path("image").asString()).isEqualTo("i");
    Http.Reply bad = http.get("/api/v1/namespaces/default/pods?includeObject=All", TABLE);
    assertThat(bad.code()).isEqualTo(400);
    assertThat(bad.json().path("message").asString()).contains("includeObject");
    Http.Reply beta = http.get("/api/v1/namespaces/default/pods",
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
    assertThat(beta.json().path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
    // Without a Table in Accept, the plain list.
    assertThat(http.get("/api/v1/namespaces/default/pods").json().path("kind").asString())
        .isEqualTo("PodList");
  }

  @Test
  void podStatus_cells_followThePrinterRules() {
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"run\","
        + "\"namespace\":\"default\"},\"spec\":{\"nodeName\":\"n1\",\"readinessGates\":[{"
        + "\"conditionType\":\"x/ready\"}],\"containers\":[{\"name\":\"a\",\"image\":\"i\"},"
        + "{\"name\":\"b\",\"image\":\"i\"}]}}");
    String pod = server.get("v1", "Pod", "default", "run").orElseThrow();
    server.updateStatus(pod.replaceFirst("\"status\":\\{[^}]*\\}", "\"status\":{\"phase\":"
        + "\"Running\",\"podIPs\":[{\"ip\":\"10.0.0.7\"}],\"conditions\":[{\"type\":\"x/ready\","
        + "\"status\":\"True\"}],\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,"
        + "\"restartCount\":2,\"state\":{\"running\":{}},\"lastState\":{\"terminated\":{"
        + "\"exitCode\":1,\"finishedAt\":\"" + T0 + "\"}}},{\"name\":\"b\",\"ready\":false,"
        + "\"restartCount\":0,\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}"));
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"init\","
        + "\"namespace\":\"default\"},\"spec\":{\"initContainers\":[{\"name\":\"setup\","
        + "\"image\":\"i\"}],\"containers\":[{\"name\":\"a\",\"image\":\"i\"}]}}");
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"going\","
        + "\"namespace\":\"default\",\"finalizers\":[\"x/keep\"]},\"spec\":{\"containers\":[{"
        + "\"name\":\"a\",\"image\":\"i\"}]}}");
    http.delete("/api/v1/namespaces/default/pods/going");
    String init = server.get("v1", "Pod", "default", "init").orElseThrow();
    server.updateStatus(init.replaceFirst("\"status\":\\{[^}]*\\}", "\"status\":{\"phase\":"
        + "\"Pending\",\"initContainerStatuses\":[{\"name\":\"setup\",\"ready\":false,"
        + "\"restartCount\":0,\"state\":{\"running\":{}}}]}"));
    clock.advance(Duration.ofMinutes(5));

    JsonNode rows = table("/api/v1/namespaces/default/pods").path("rows");
    assertThat(cells(rows.path(0))).containsExactly("going", "0/1", "Terminating", "0", "5m",
        "<none>", "<none>", "<none>", "<none>");
    assertThat(cells(rows.path(1))).containsExactly("init", "0/1", "Init:0/1", "0", "5m",
        "<none>", "<none>", "<none>", "<none>");
    assertThat(cells(rows.path(2))).containsExactly("run", "1/2", "CrashLoopBackOff",
        "2 (5m ago)", "5m", "10.0.0.7", "n1", "<none>", "1/1");
  }

  @Test
  void builtInKinds_haveTheirClustersColumnsAndCells() {
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\","
        + "\"namespace\":\"default\"},\"spec\":{\"type\":\"NodePort\",\"clusterIP\":"
        + "\"10.96.0.10\",\"selector\":{\"app\":\"web\",\"tier\":\"a\"},\"ports\":[{\"port\":80,"
        + "\"nodePort\":30080},{\"port\":53,\"protocol\":\"UDP\"}]}}");
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"tls\","
        + "\"namespace\":\"default\"},\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"\","
        + "\"tls.key\":\"\"}}");
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\","
        + "\"labels\":{\"node-role.kubernetes.io/control-plane\":\"\"}},\"spec\":{"
        + "\"unschedulable\":true}}");
    String node = server.get("v1", "Node", "", "n1").orElseThrow();
    server.updateStatus(node.replaceFirst("\\}$", ",\"status\":{\"conditions\":[{\"type\":"
        + "\"Ready\",\"status\":\"True\"}],\"addresses\":[{\"type\":\"InternalIP\",\"address\":"
        + "\"192.168.1.2\"}],\"nodeInfo\":{\"kubeletVersion\":\"v1.36.0\",\"osImage\":\"Linux\""
        + "}}}"));
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\","
        + "\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web\"},"
        + "\"reason\":\"Started\",\"type\":\"Normal\",\"message\":\"Started container \","
        + "\"source\":{\"component\":\"kubelet\",\"host\":\"n1\"},\"firstTimestamp\":\"" + T0
        + "\",\"lastTimestamp\":\"" + T0 + "\",\"count\":3}");
    server.create("{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":"
        + "{\"name\":\"lock\",\"namespace\":\"default\"},\"spec\":{\"holderIdentity\":\"me\"}}");
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":"
        + "\"robot\",\"namespace\":\"default\"},\"secrets\":[{\"name\":\"s\"}]}");
    server.create("{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":"
        + "\"rs\",\"namespace\":\"default\"},\"spec\":{\"replicas\":3,\"selector\":{"
        + "\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":"
        + "\"In\",\"values\":[\"b\",\"a\"]}]},\"template\":{\"spec\":{\"containers\":[{\"name\":"
        + "\"c\",\"image\":\"i:1\"}]}}}}");
    clock.advance(Duration.ofHours(3));

    JsonNode svc = table("/api/v1/namespaces/default/services");
    assertThat(names(svc)).containsExactly("Name", "Type", "Cluster-IP", "External-IP",
        "Port(s)", "Age", "Selector");
    assertThat(cells(svc.path("rows").path(0))).containsExactly("web", "NodePort", "10.96.0.10",
        "<none>", "80:30080/TCP,53/UDP", "3h", "app=web,tier=a");
    JsonNode secrets = table("/api/v1/namespaces/default/secrets");
    assertThat(names(secrets)).containsExactly("Name", "Type", "Data", "Age");
    assertThat(cells(secrets.path("rows").path(0)))
        .containsExactly("tls", "kubernetes.io/tls", 2L, "3h");
    JsonNode nodes = table("/api/v1/nodes");
    assertThat(names(nodes)).containsExactly("Name", "Status", "Roles", "Age", "Version",
        "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime");
    assertThat(cells(nodes.path("rows").path(0))).containsExactly("n1",
        "Ready,SchedulingDisabled", "control-plane", "3h", "v1.36.0", "192.168.1.2", "<none>",
        "Linux", "<unknown>", "<unknown>");
    JsonNode events = table("/api/v1/namespaces/default/events");
    assertThat(names(events)).containsExactly("Last Seen", "Type", "Reason", "Object",
        "Subobject", "Source", "Message", "First Seen", "Count", "Name");
    assertThat(cells(events.path("rows").path(0))).containsExactly("3h", "Normal", "Started",
        "pod/web", "", "kubelet, n1", "Started container", "3h", 3L, "e1");
    JsonNode leases = table("/apis/coordination.k8s.io/v1/namespaces/default/leases");
    assertThat(names(leases)).containsExactly("Name", "Holder", "Age");
    assertThat(cells(leases.path("rows").path(0))).containsExactly("lock", "me", "3h");
    JsonNode sas = table("/api/v1/namespaces/default/serviceaccounts");
    assertThat(names(sas)).containsExactly("Name", "Secrets", "Age");
    assertThat(cells(sas.path("rows").path(0))).containsExactly("robot", 1L, "3h");
    JsonNode rs = table("/apis/apps/v1/namespaces/default/replicasets");
    assertThat(names(rs)).containsExactly("Name", "Desired", "Current", "Ready", "Age",
        "Containers", "Images", "Selector");
    assertThat(cells(rs.path("rows").path(0)))
        .containsExactly("rs", 3L, 0L, 0L, "3h", "c", "i:1", "app=web,tier in (a,b)");
    JsonNode ns = table("/api/v1/namespaces/kube-system");
    assertThat(cells(ns.path("rows").path(0))).containsExactly("kube-system", "Active", "3h");
  }

  @Test
  void workloadsEndpointsAndClaims_haveTheirPrintersColumns() {
    server.create("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
        + "\"agent\",\"namespace\":\"default\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":"
        + "\"agent\"}},\"template\":{\"spec\":{\"nodeSelector\":{\"kubernetes.io/os\":\"linux\"},"
        + "\"containers\":[{\"name\":\"a\",\"image\":\"agent:1\"}]}}}}");
    server.create("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
        + "\"once\",\"namespace\":\"default\"},\"spec\":{\"completions\":2,\"template\":{\"spec\":{"
        + "\"containers\":[{\"name\":\"j\",\"image\":\"job:1\"}]}}}}");
    String job = server.get("batch/v1", "Job", "default", "once").orElseThrow();
    server.updateStatus(job.replaceFirst("\\}$", ",\"status\":{\"succeeded\":1,\"startTime\":\""
        + T0 + "\"}}"));
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"web\","
        + "\"namespace\":\"default\"},\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":"
        + "\"10.0.0.2\"}],\"ports\":[{\"port\":80},{\"port\":443}]}]}");
    server.create("{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
        + "{\"name\":\"data\",\"namespace\":\"default\"},\"spec\":{\"volumeName\":\"pv-1\","
        + "\"storageClassName\":\"fast\",\"volumeMode\":\"Filesystem\"}}");
    String pvc = server.get("v1", "PersistentVolumeClaim", "default", "data").orElseThrow();
    server.updateStatus(pvc.replaceFirst("\\}$", ",\"status\":{\"phase\":\"Bound\","
        + "\"accessModes\":[\"ReadWriteMany\",\"ReadWriteOnce\"],\"capacity\":{\"storage\":"
        + "\"10Gi\"}}}"));
    clock.advance(Duration.ofSeconds(40));

    JsonNode ds = table("/apis/apps/v1/namespaces/default/daemonsets");
    assertThat(names(ds)).containsExactly("Name", "Desired", "Current", "Ready", "Up-to-date",
        "Available", "Node Selector", "Age", "Containers", "Images", "Selector");
    assertThat(cells(ds.path("rows").path(0))).containsExactly("agent", 0L, 0L, 0L, 0L, 0L,
        "kubernetes.io/os=linux", "40s", "a", "agent:1", "app=agent");
    JsonNode jobs = table("/apis/batch/v1/namespaces/default/jobs");
    assertThat(names(jobs)).containsExactly("Name", "Status", "Completions", "Duration", "Age",
        "Containers", "Images", "Selector");
    assertThat(cells(jobs.path("rows").path(0)))
        .containsExactly("once", "Running", "1/2", "40s", "40s", "j", "job:1", "");
    JsonNode pvcs = table("/api/v1/namespaces/default/persistentvolumeclaims");
    assertThat(names(pvcs)).containsExactly("Name", "Status", "Volume", "Capacity",
        "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode");
    assertThat(cells(pvcs.path("rows").path(0))).containsExactly("data", "Bound", "pv-1", "10Gi",
        "RWO,RWX", "fast", "<unset>", "40s", "Filesystem");
    JsonNode eps = table("/api/v1/namespaces/default/endpoints");
    assertThat(names(eps)).containsExactly("Name", "Endpoints", "Age");
    assertThat(cells(eps.path("rows").path(0)))
        .containsExactly("web", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...", "40s");
  }

  @Test
  void customResources_withoutPrinterColumns_getNameAndAge() {
    server.register(ServedResource.namespaced("example.com", "v1", "Gadget", "gadgets"));
    server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{"
        + "\"name\":\"g\",\"namespace\":\"default\"}}");
    clock.advance(Duration.ofDays(3).plusHours(4));
    JsonNode g = table("/apis/example.com/v1/namespaces/default/gadgets");
    assertThat(names(g)).containsExactly("Name", "Age");
    assertThat(g.path("columnDefinitions").path(1).path("type").asString()).isEqualTo("date");
    assertThat(cells(g.path("rows").path(0))).containsExactly("g", "3d4h");
    JsonNode one = table("/apis/example.com/v1/namespaces/default/gadgets/g");
    assertThat(one.path("rows")).hasSize(1);
    assertThat(cells(one.path("rows").path(0))).containsExactly("g", "3d4h");
  }

  @Test
  void watch_sendsOneRowTables_withTheColumnsOnlyInTheFirstEvent() {
    http.createPod("default", "a", "web");
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=true", TABLE)) {
      JsonNode first = w.next();
      assertThat(first.path("type").asString()).isEqualTo("ADDED");
      assertThat(first.path("object").path("kind").asString()).isEqualTo("Table");
      assertThat(names(first.path("object"))).startsWith("Name", "Ready");
      assertThat(cells(first.path("object").path("rows").path(0))).startsWith("a", "0/1");
      clock.advance(Duration.ofSeconds(4));
      http.createPod("default", "b", "web");
      JsonNode second = w.next();
      assertThat(second.path("object").path("columnDefinitions").isNull()).isTrue();
      assertThat(cells(second.path("object").path("rows").path(0)))
          .startsWith("b", "0/1", "Pending", "0", "0s");
      assertThat(second.path("object").path("metadata").path("resourceVersion").asLong())
          .isEqualTo(server.resourceVersion());
      http.delete("/api/v1/namespaces/default/pods/a");
      // An unscheduled pod's deletion: MODIFIED (now terminating), then DELETED.
      JsonNode terminating = w.next();
      assertThat(terminating.path("type").asString()).isEqualTo("MODIFIED");
      assertThat(cells(terminating.path("object").path("rows").path(0)))
          .startsWith("a", "0/1", "Terminating");
      JsonNode deleted = w.next();
      assertThat(deleted.path("type").asString()).isEqualTo("DELETED");
      assertThat(cells(deleted.path("object").path("rows").path(0))).startsWith("a", "0/1",
          "Terminating", "0", "4s");
    }
  }

  @Test
  void humanDuration_matchesApimachinery() {
    assertThat(Tables.human(Duration.ofSeconds(-5))).isEqualTo("<invalid>");
    assertThat(Tables.human(Duration.ofMillis(-500))).isEqualTo("0s");
    assertThat(Tables.human(Duration.ofSeconds(119))).isEqualTo("119s");
    assertThat(Tables.human(Duration.ofSeconds(125))).isEqualTo("2m5s");
    assertThat(Tables.human(Duration.ofMinutes(3))).isEqualTo("3m");
    assertThat(Tables.human(Duration.ofMinutes(179))).isEqualTo("179m");
    assertThat(Tables.human(Duration.ofMinutes(200))).isEqualTo("3h20m");
    assertThat(Tables.human(Duration.ofHours(30))).isEqualTo("30h");
    assertThat(Tables.human(Duration.ofHours(50))).isEqualTo("2d2h");
    assertThat(Tables.human(Duration.ofDays(40))).isEqualTo("40d");
    assertThat(Tables.human(Duration.ofDays(800))).isEqualTo("2y70d");
    assertThat(Tables.human(Duration.ofDays(365 * 9))).isEqualTo("9y");
  }
}

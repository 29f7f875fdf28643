package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives a real kubectl (see {@link Kubectl}) through the flows that read the OpenAPI documents:
 * {@code create -f} and {@code apply -f} with kubectl's default validation (no {@code
 * --validate} flag: kubectl finds {@code fieldValidation} in {@code /openapi/v3} and sends
 * {@code fieldValidation=Strict}), and {@code explain}.
 */
class KubectlOpenApiTest {

  static final String WIDGET_SCHEMA = """
      type: object
      properties:
        spec:
          type: object
          description: The desired state of the widget.
          properties:
            size:
              type: integer
              description: How many parts the widget has.
            labels:
              type: object
              additionalProperties: {type: string}
            extra:
              type: object
              x-kubernetes-preserve-unknown-fields: true
        status:
          type: object
          properties:
            ready: {type: boolean}
      """;

  static final ServedResource WIDGETS =
      ServedResource.namespaced("example.com", "v1", "Widget", "widgets");

  private static final String POD = """
      apiVersion: v1
      kind: Pod
      metadata:
        name: web
      spec:
        containers:
        - name: c
          image: %s
          %s: IfNotPresent
      """;

  private static final String DEPLOYMENT = """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        %s: %d
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: c
              image: nginx:1
      """;

  private static final String CONFIG_MAP = """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
      %s:
        colour: %s
      """;

  private static final String WIDGET = """
      apiVersion: example.com/v1
      kind: Widget
      metadata:
        name: w
      spec:
        %s: %d
        extra: {anything: [1, 2]}
      """;

  @TempDir Path dir;
  private EmbeddedApiServer server;
  private Kubectl kubectl;

  /** A server with the defaults that also serves {@link #WIDGETS} with its schema. */
  static EmbeddedApiServer startWithWidgets() {
    EmbeddedApiServer s = EmbeddedApiServer.start();
    s.register(WIDGETS, WIDGET_SCHEMA);
    return s;
  }

  @BeforeEach
  void start() {
    server = startWithWidgets();
    kubectl = Kubectl.forServer(server, dir);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String file(String name, String yaml) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, yaml);
    return p.toString();
  }

  /** Creates, applies a change, and fails both with a typo'd field; the object is unchanged. */
  private void createApplyAndReject(String resource, String valid, String changed,
      String typo, String unknownField, String apiVersion, String kind, String name,
      String changedText) throws Exception {
    assertThat(kubectl.ok("create", "-f", file("valid.yaml", valid)))
        .contains(resource + "/" + name + " created");
    assertThat(kubectl.ok("apply", "-f", file("changed.yaml", changed)))
        .contains(resource + "/" + name + " configured");
    String stored = server.get(apiVersion, kind, "default", name).orElseThrow();
    assertThat(stored).contains(changedText);

    String typoFile = file("typo.yaml", typo);
    String message = "strict decoding error: unknown field \"" + unknownField + "\"";
    Kubectl.Run apply = kubectl.run("apply", "-f", typoFile);
    assertThat(apply.exit()).as(apply.out()).isNotZero();
    assertThat(apply.out()).contains("Error from server (BadRequest)").contains(message);
    assertThat(server.get(apiVersion, kind, "default", name).orElseThrow()).isEqualTo(stored);

    kubectl.ok("delete", resource, name, "--wait=false");
    Kubectl.Run create = kubectl.run("create", "-f", typoFile);
    assertThat(create.exit()).as(create.out()).isNotZero();
    assertThat(create.out()).contains(kind + " in version \"" + apiVersion.replaceAll(".*/", "")
        + "\" cannot be handled as a " + kind + ": " + message);
    assertThat(server.get(apiVersion, kind, "default", name)).isEmpty();
  }

  @Test
  void createAndApply_pod_validatedByTheServer() throws Exception {
    createApplyAndReject("pod",
        String.format(POD, "nginx:1", "imagePullPolicy"),
        String.format(POD, "nginx:2", "imagePullPolicy"),
        String.format(POD, "nginx:3", "imagePullPolicyy"),
        "spec.containers[0].imagePullPolicyy", "v1", "Pod", "web", "nginx:2");
  }

  @Test
  void createAndApply_deployment_validatedByTheServer() throws Exception {
    createApplyAndReject("deployment.apps",
        String.format(DEPLOYMENT, "replicas", 1),
        String.format(DEPLOYMENT, "replicas", 3),
        String.format(DEPLOYMENT, "replica", 4),
        "spec.replica", "apps/v1", "Deployment", "web", "\"replicas\":3");
  }

  @Test
  void createAndApply_configMap_validatedByTheServer() throws Exception {
    createApplyAndReject("configmap",
        String.format(CONFIG_MAP, "data", "red"),
        String.format(CONFIG_MAP, "data", "blue"),
        String.format(CONFIG_MAP, "dat", "green"),
        "dat", "v1", "ConfigMap", "settings", "\"colour\":\"blue\"");
  }

  @Test
  void createAndApply_customResource_validatedAgainstItsSchema() throws Exception {
    createApplyAndReject("widget.example.com",
        String.format(WIDGET, "size", 1),
        String.format(WIDGET, "size", 2),
        String.format(WIDGET, "sise", 3),
        "spec.sise", "example.com/v1", "Widget", "w", "\"size\":2");
  }

  @Test
  void explain_podContainers_printsFieldsAndDescriptions() throws Exception {
    String out = kubectl.ok("explain", "pods.spec.containers");
    assertThat(out).containsPattern("KIND:\\s+Pod").containsPattern("VERSION:\\s+v1")
        .contains("FIELD: containers <[]Container>")
        .contains("List of containers belonging to the pod.")
        .containsPattern("image\\s+<string>")
        .containsPattern("imagePullPolicy\\s+<string>")
        .contains("enum: Always, IfNotPresent, Never")
        .containsPattern("name\\s+<string> -required-")
        .containsPattern("ports\\s+<\\[\\]ContainerPort>")
        .containsPattern("resources\\s+<ResourceRequirements>");

    String deployment = kubectl.ok("explain", "deployment.spec.replicas");
    assertThat(deployment).containsPattern("GROUP:\\s+apps")
        .contains("FIELD: replicas <integer>")
        .contains("Number of desired pods.");
  }

  @Test
  void explainFromOpenApiV2_andClientSideValidationOfAList_readTheProtobufDocument()
      throws Exception {
    String out = kubectl.ok("explain", "pods.spec.containers", "--output=plaintext-openapiv2");
    assertThat(out).contains("List of containers belonging to the pod.")
        .containsPattern("imagePullPolicy\\s+<string>");

    // A List has no fieldValidation to ask the server for: kubectl validates it itself,
    // against /openapi/v2.
    String list = """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: ConfigMap
          metadata: {name: listed}
          dataa: {a: b}
        """;
    Kubectl.Run create = kubectl.run("create", "-f", file("list.yaml", list));
    assertThat(create.exit()).as(create.out()).isNotZero();
    assertThat(create.out()).contains("unknown field \"dataa\"");
    assertThat(server.get("v1", "ConfigMap", "default", "listed")).isEmpty();
  }

  @Test
  void explain_customResource_printsItsSchema() throws Exception {
    String out = kubectl.ok("explain", "widgets.spec");
    assertThat(out).containsPattern("GROUP:\\s+example.com").containsPattern("KIND:\\s+Widget")
        .contains("FIELD: spec <Object>")
        .contains("The desired state of the widget.")
        .containsPattern("size\\s+<integer>")
        .contains("How many parts the widget has.")
        .containsPattern("labels\\s+<map\\[string\\]string>");

    String top = kubectl.ok("explain", "widgets");
    assertThat(top).containsPattern("metadata\\s+<ObjectMeta>")
        .containsPattern("status\\s+<Object>");
  }
}

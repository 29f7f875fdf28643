package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import tools.jackson.databind.json.JsonMapper;

/**
 * Generates realistic pods, 2–4 KB of JSON each: labels, annotations, an owner reference, two
 * managedFields entries, one or two containers with env, ports, probes and resources, volumes and
 * a status with four conditions and container statuses. Pod {@code i} is the same in every run:
 * generation is a pure function of {@code (i, seed)}.
 *
 * <p>Every pod carries the annotation {@value #SENT_ANNOTATION} whose value is {@value
 * #SENT_DIGITS} digits wide, so a server can patch a send timestamp into pre-encoded bytes.
 *
 * <p>Thread safety: immutable (stateless).
 */
public final class Pods {

  /** The annotation that carries the server's send timestamp (System.nanoTime, zero-padded). */
  public static final String SENT_ANNOTATION = "bench.kinformer.io/sent-nanos";

  /** Width of the send timestamp. */
  public static final int SENT_DIGITS = 19;

  /** The first resourceVersion used; all versions have 10 digits. */
  public static final long FIRST_RESOURCE_VERSION = 1_000_000_000L;

  /** Number of namespaces pods are spread over. */
  public static final int NAMESPACES = 50;

  /** Number of nodes pods are spread over. */
  public static final int NODES = 200;

  private static final String[] APPS = {
    "web", "api", "worker", "cache", "db", "gateway", "auth", "search", "billing", "metrics"
  };
  private static final String[] TIERS = {"frontend", "backend", "data"};
  private static final String ZERO_SENT = "0".repeat(SENT_DIGITS);

  private Pods() {}

  /** A JSON mapper able to write and read fabric8 model objects. */
  public static JsonMapper mapper() {
    return JsonMapper.builder().build();
  }

  /** The namespace of pod {@code i}. */
  public static String namespace(int i) {
    return "ns-" + (i % NAMESPACES);
  }

  /** The app label of pod {@code i}. */
  public static String app(int i) {
    return APPS[(i / NAMESPACES) % APPS.length];
  }

  /** The node of pod {@code i}. */
  public static String node(int i) {
    return "node-" + (i % NODES);
  }

  /** Pod {@code i} at {@code resourceVersion}. */
  public static Pod pod(int i, long resourceVersion) {
    SplittableRandom r = new SplittableRandom(0x5eedL * 31 + i);
    String ns = namespace(i);
    String app = app(i);
    String hash = hex(r, 10);
    String name = app + "-" + hash + "-" + hex(r, 5) + "-" + i;
    String uid = hex(r, 8) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 12);
    String created = "2026-11-" + (10 + r.nextInt(18)) + "T0" + r.nextInt(10) + ":1"
        + r.nextInt(10) + ":2" + r.nextInt(10) + "Z";

    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", app);
    labels.put("app.kubernetes.io/name", app);
    labels.put("app.kubernetes.io/part-of", "shop");
    labels.put("tier", TIERS[i % TIERS.length]);
    labels.put("pod-template-hash", hash);
    labels.put("version", "v" + (1 + r.nextInt(5)));
    labels.put("team", "team-" + r.nextInt(12));

    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("prometheus.io/scrape", "true");
    annotations.put("prometheus.io/port", "9090");
    annotations.put("kubectl.kubernetes.io/restartedAt", created);
    annotations.put(SENT_ANNOTATION, ZERO_SENT);

    int containerCount = 1 + (i % 2);
    List<io.fabric8.kubernetes.api.model.Container> containers = new ArrayList<>();
    List<io.fabric8.kubernetes.api.model.ContainerStatus> statuses = new ArrayList<>();
    for (int c = 0; c < containerCount; c++) {
      String cname = c == 0 ? app : "sidecar";
      List<EnvVar> env = new ArrayList<>();
      env.add(new EnvVar("APP_NAME", app, null));
      env.add(new EnvVar("LOG_LEVEL", r.nextBoolean() ? "info" : "debug", null));
      if (c == 0) {
        env.add(new EnvVar("JAVA_OPTS", "-Xmx" + (256 << r.nextInt(3)) + "m -XX:+UseG1GC", null));
        env.add(new EnvVar("UPSTREAM_URL", "http://" + APPS[r.nextInt(APPS.length)] + "." + ns
            + ".svc.cluster.local:8080", null));
      }
      containers.add(new ContainerBuilder()
          .withName(cname)
          .withImage("registry.example.com/shop/" + cname + ":1." + r.nextInt(40) + "." + r.nextInt(9))
          .withImagePullPolicy(c == 0 ? "IfNotPresent" : null)
          .withEnv(env)
          .withPorts(c == 0
              ? List.of(new io.fabric8.kubernetes.api.model.ContainerPortBuilder().withName("http")
                  .withContainerPort(8080).withProtocol("TCP").build())
              : List.of())
          .withNewResources()
          .addToRequests("cpu", new Quantity((100 + 50 * r.nextInt(8)) + "m"))
          .addToRequests("memory", new Quantity((128 << r.nextInt(4)) + "Mi"))
          .addToLimits("cpu", new Quantity("1"))
          .addToLimits("memory", new Quantity((256 << r.nextInt(4)) + "Mi"))
          .endResources()
          .withReadinessProbe(c == 0 ? readiness() : null)
          .addNewVolumeMount().withName("config").withMountPath("/etc/" + cname).endVolumeMount()
          .withTerminationMessagePath(c == 0 ? "/dev/termination-log" : null)
          .withTerminationMessagePolicy(c == 0 ? "File" : null)
          .build());
      statuses.add(new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
          .withName(cname)
          .withReady(true)
          .withStarted(true)
          .withRestartCount(r.nextInt(3))
          .withImage("registry.example.com/shop/" + cname)
          .withImageID("registry.example.com/shop/" + cname + "@sha256:" + hex(r, 64))
          .withContainerID("containerd://" + hex(r, 64))
          .withNewState().withNewRunning().withStartedAt(created).endRunning().endState()
          .build());
    }

    List<PodCondition> conditions = new ArrayList<>();
    for (String type : new String[] {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
      conditions.add(new PodConditionBuilder()
          .withType(type).withStatus("True").withLastTransitionTime(created).build());
    }

    FieldsV1 specFields = new FieldsV1();
    specFields.setAdditionalProperty("f:metadata", Map.of(
        "f:labels", Map.of("f:app", Map.of(), "f:pod-template-hash", Map.of(), "f:tier", Map.of()),
        "f:ownerReferences", Map.of("k:{\"uid\":\"" + uid + "\"}", Map.of())));
    specFields.setAdditionalProperty("f:spec", Map.of(
        "f:containers", Map.of("k:{\"name\":\"" + app + "\"}", Map.of(
            "f:env", Map.of(), "f:image", Map.of(), "f:resources", Map.of())),
        "f:restartPolicy", Map.of(), "f:schedulerName", Map.of()));
    FieldsV1 statusFields = new FieldsV1();
    statusFields.setAdditionalProperty("f:status", Map.of(
        "f:conditions", Map.of("k:{\"type\":\"Ready\"}", Map.of("f:status", Map.of())),
        "f:containerStatuses", Map.of(), "f:phase", Map.of(), "f:podIP", Map.of()));

    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .withUid(uid)
        .withResourceVersion(Long.toString(resourceVersion))
        .withCreationTimestamp(created)
        .withGenerateName(app + "-" + hash + "-")
        .withLabels(labels)
        .withAnnotations(annotations)
        .addNewOwnerReference()
        .withApiVersion("apps/v1").withKind("ReplicaSet").withName(app + "-" + hash)
        .withUid(hex(r, 8) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 4) + "-" + hex(r, 12))
        .withController(true).withBlockOwnerDeletion(true)
        .endOwnerReference()
        .withManagedFields(
            new ManagedFieldsEntryBuilder().withManager("kube-controller-manager")
                .withOperation("Update").withApiVersion("v1").withTime(created)
                .withFieldsType("FieldsV1").withFieldsV1(specFields).build(),
            new ManagedFieldsEntryBuilder().withManager("kubelet")
                .withOperation("Update").withApiVersion("v1").withTime(created)
                .withFieldsType("FieldsV1").withFieldsV1(statusFields).withSubresource("status")
                .build())
        .endMetadata()
        .withNewSpec()
        .withContainers(containers)
        .addNewVolume().withName("config").withNewConfigMap().withName(app + "-config")
        .endConfigMap().endVolume()
        .withNodeName(node(i))
        .withServiceAccountName(app)
        .withRestartPolicy("Always")
        .withDnsPolicy("ClusterFirst")
        .withSchedulerName("default-scheduler")
        .withTerminationGracePeriodSeconds(30L)
        .withPriority(0)
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withConditions(conditions)
        .withHostIP("10.0." + (i % NODES / 250) + "." + (i % NODES % 250))
        .withPodIP("10." + (1 + (i >> 16 & 0xff)) + "." + (i >> 8 & 0xff) + "." + (i & 0xff))
        .withStartTime(created)
        .withQosClass("Burstable")
        .withContainerStatuses(statuses)
        .endStatus()
        .build();
  }

  /** {@code n} pods, {@code 0..n-1}, all at {@link #FIRST_RESOURCE_VERSION}. */
  public static List<Pod> pods(int n) {
    List<Pod> pods = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      pods.add(pod(i, FIRST_RESOURCE_VERSION + i));
    }
    return pods;
  }

  private static io.fabric8.kubernetes.api.model.Probe readiness() {
    return new io.fabric8.kubernetes.api.model.ProbeBuilder()
        .withNewHttpGet().withPath("/healthz").withNewPort("http").endHttpGet()
        .withPeriodSeconds(10)
        .build();
  }

  private static String hex(SplittableRandom r, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int k = 0; k < length; k++) {
      sb.append(Character.forDigit(r.nextInt(16), 16));
    }
    return sb.toString();
  }
}

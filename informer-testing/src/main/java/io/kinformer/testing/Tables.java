package io.kinformer.testing;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side tables: the meta.k8s.io Table that {@code kubectl get} asks for with {@code
 * Accept: application/json;as=Table;v=v1;g=meta.k8s.io}, with the columns and cells a cluster
 * prints. Built-in kinds get the columns of kube-apiserver's printers (every column, the {@code
 * -o wide} ones with priority 1, as the server always generates them); a custom resource with
 * {@link ServedResource#printerColumns()} gets NAME and those columns, one without gets NAME and
 * AGE (as a CRD's default). A built-in kind without a printer here would get the generic
 * registry's NAME and CREATED AT. Ages are computed from the server's clock.
 *
 * <p>Rows carry {@code object} as {@code includeObject} asks: {@code None}, {@code Metadata} (a
 * PartialObjectMetadata, the default) or {@code Object}.
 *
 * <p>Thread safety: immutable.
 */
final class Tables {

  private static final String NAME_DOC = "Name must be unique within a namespace. Is required "
      + "when creating resources, although some resources may allow a client to request the "
      + "generation of an appropriate name automatically. Name is primarily intended for "
      + "creation idempotence and configuration definition. Cannot be updated. More info: "
      + "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  private static final String AGE_DOC = "CreationTimestamp is a timestamp representing the "
      + "server time when this object was created. It is not guaranteed to be set in "
      + "happens-before order across separate operations. Clients may not set this value. It is "
      + "represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null "
      + "for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
      + "api-conventions.md#metadata";
  private static final String CONTAINERS_DOC = "Names of each container in the template.";
  private static final String IMAGES_DOC = "Images referenced by each container in the template.";
  private static final String NONE = "<none>";

  /** One column: header, type, format, description, priority. */
  record Column(String name, String type, String format, String description, int priority) {
    static Column of(String name, String type, String description) {
      return new Column(name, type, "", description, 0);
    }

    static Column wide(String name, String type, String description) {
      return new Column(name, type, "", description, 1);
    }
  }

  /** What a row embeds as its {@code object}. */
  enum Include { NONE, METADATA, OBJECT }

  /** A table request: the Table apiVersion and what rows embed. */
  record Request(String apiVersion, Include include) {}

  private static final Column NAME = new Column("Name", "string", "name", NAME_DOC, 0);
  private static final Column AGE = Column.of("Age", "string", AGE_DOC);

  private final ServedResource type;
  private final Request request;
  private final Clock clock;

  Tables(ServedResource type, Request request, Clock clock) {
    this.type = type;
    this.request = request;
    this.clock = clock;
  }

  /**
   * The table request in {@code accept} (lower-cased, without spaces, as ApiHandler reads it),
   * or null when the client did not ask for a Table.
   *
   * @throws ApiError 400 for an {@code includeObject} other than None, Metadata or Object
   */
  static @Nullable Request requested(String accept, @Nullable String includeObject) {
    String version = null;
    for (String range : accept.split(",")) {
      List<String> params = List.of(range.split(";"));
      if (params.contains("as=table") && params.contains("g=meta.k8s.io")
          && (params.contains("v=v1") || params.contains("v=v1beta1"))) {
        version = params.contains("v=v1") ? "meta.k8s.io/v1" : "meta.k8s.io/v1beta1";
        break;
      }
    }
    if (version == null) {
      return null;
    }
    Include include;
    if (includeObject == null || includeObject.isEmpty() || includeObject.equals("Metadata")) {
      include = Include.METADATA;
    } else if (includeObject.equals("None")) {
      include = Include.NONE;
    } else if (includeObject.equals("Object")) {
      include = Include.OBJECT;
    } else {
      throw ApiError.badRequest("includeObject: Unsupported value: \"" + includeObject
          + "\": supported values: \"Metadata\", \"None\", \"Object\"");
    }
    return new Request(version, include);
  }

  /** A list's Table. */
  byte[] list(List<StoredObject> items, long rv, @Nullable String next, long remaining) {
    ObjectNode table = head(true);
    ObjectNode md = (ObjectNode) table.get("metadata");
    md.put("resourceVersion", Long.toString(rv));
    if (next != null) {
      md.put("continue", next);
      if (remaining >= 0) {
        md.put("remainingItemCount", remaining);
      }
    }
    ArrayNode rows = table.putArray("rows");
    for (StoredObject o : items) {
      rows.add(row(o));
    }
    return Json.bytes(table);
  }

  /**
   * One object's Table: for a GET, and for each watch event ({@code columns} false after the
   * first, as the real server saves the bandwidth and kubectl reuses the last definitions).
   */
  byte[] single(StoredObject o, boolean columns) {
    ObjectNode table = head(columns);
    ((ObjectNode) table.get("metadata")).put("resourceVersion", Long.toString(o.rv));
    table.putArray("rows").add(row(o));
    return Json.bytes(table);
  }

  private ObjectNode head(boolean columns) {
    ObjectNode table = Json.MAPPER.createObjectNode();
    table.put("kind", "Table");
    table.put("apiVersion", request.apiVersion());
    table.putObject("metadata");
    if (columns) {
      ArrayNode defs = table.putArray("columnDefinitions");
      for (Column c : columns()) {
        defs.addObject().put("name", c.name()).put("type", c.type()).put("format", c.format())
            .put("description", c.description()).put("priority", c.priority());
      }
    } else {
      table.putNull("columnDefinitions");
    }
    return table;
  }

  private ObjectNode row(StoredObject o) {
    ObjectNode tree = o.tree();
    ObjectNode row = Json.MAPPER.createObjectNode();
    ArrayNode cells = row.putArray("cells");
    for (Object cell : cells(tree)) {
      if (cell == null) {
        cells.addNull();
      } else if (cell instanceof Long l) {
        cells.add(l);
      } else if (cell instanceof Integer i) {
        cells.add(i.longValue());
      } else if (cell instanceof Double d) {
        cells.add(d);
      } else if (cell instanceof Boolean b) {
        cells.add(b);
      } else {
        cells.add(cell.toString());
      }
    }
    if (builtIn("", "pods")) {
      String phase = tree.path("status").path("phase").asString("");
      if (phase.equals("Succeeded") || phase.equals("Failed")) {
        row.putArray("conditions").addObject().put("type", "Completed").put("status", "True")
            .put("reason", phase).put("message", phase.equals("Succeeded")
                ? "The pod has completed successfully." : "The pod failed.");
      }
    }
    switch (request.include()) {
      case OBJECT:
        row.set("object", tree);
        break;
      case METADATA:
        row.set("object", Json.MAPPER.readTree(o.partialMetadata(StoredObject.META_V1)));
        break;
      default:
        break;
    }
    return row;
  }

  private boolean builtIn(String group, String plural) {
    return type.group().equals(group) && type.plural().equals(plural)
        && Registry.builtIns().contains(type);
  }

  private String kindKey() {
    if (!Registry.builtIns().contains(type)) {
      return type.printerColumns().isEmpty() ? "crd" : "crd-columns";
    }
    return type.group() + "/" + type.plural();
  }

  // ---- columns -------------------------------------------------------------------------------

  List<Column> columns() {
    switch (kindKey()) {
      case "/pods":
        return List.of(NAME,
            Column.of("Ready", "string",
                "The aggregate readiness state of this pod for accepting traffic."),
            Column.of("Status", "string", "The aggregate status of the containers in this pod."),
            Column.of("Restarts", "string", "The number of times the containers in this pod have "
                + "been restarted and when the last container in this pod has restarted."),
            AGE,
            Column.wide("IP", "string", "podIP address allocated to the pod. Routable at least "
                + "within the cluster. Empty if not yet allocated."),
            Column.wide("Node", "string", "NodeName indicates in which node this pod is "
                + "scheduled. If empty, this pod is a candidate for preemption or scheduling."),
            Column.wide("Nominated Node", "string", "nominatedNodeName is set only when this pod "
                + "preempts other pods on the node, but it cannot be scheduled right away as "
                + "preemption victims receive their graceful termination periods."),
            Column.wide("Readiness Gates", "string", "If specified, all readiness gates will be "
                + "evaluated for pod readiness."));
      case "apps/deployments":
        return List.of(NAME,
            Column.of("Ready", "string", "Number of the pod with ready state"),
            Column.of("Up-to-date", "integer", "Total number of non-terminating pods targeted by "
                + "this deployment that have the desired template spec."),
            Column.of("Available", "integer", "Total number of available non-terminating pods "
                + "(ready for at least minReadySeconds) targeted by this deployment."),
            AGE,
            Column.wide("Containers", "string", CONTAINERS_DOC),
            Column.wide("Images", "string", IMAGES_DOC),
            Column.wide("Selector", "string", "Label selector for pods. Existing ReplicaSets "
                + "whose pods are selected by this will be the ones affected by this "
                + "deployment."));
      case "apps/replicasets":
        return List.of(NAME,
            Column.of("Desired", "integer", "Replicas is the number of desired pods."),
            Column.of("Current", "integer", "Replicas is the most recently observed number of "
                + "non-terminating pods."),
            Column.of("Ready", "integer", "The number of non-terminating pods targeted by this "
                + "ReplicaSet with a Ready Condition."),
            AGE,
            Column.wide("Containers", "string", CONTAINERS_DOC),
            Column.wide("Images", "string", IMAGES_DOC),
            Column.wide("Selector", "string", "Selector is a label query over pods that should "
                + "match the replica count."));
      case "apps/statefulsets":
        return List.of(NAME,
            Column.of("Ready", "string", "Number of the pod with ready state"),
            AGE,
            Column.wide("Containers", "string", CONTAINERS_DOC),
            Column.wide("Images", "string", IMAGES_DOC));
      case "apps/daemonsets":
        return List.of(NAME,
            Column.of("Desired", "integer", "The total number of nodes that should be running the "
                + "daemon pod (including nodes correctly running the daemon pod)."),
            Column.of("Current", "integer", "The number of nodes that are running at least 1 "
                + "daemon pod and are supposed to run the daemon pod."),
            Column.of("Ready", "integer", "numberReady is the number of nodes that should be "
                + "running the daemon pod and have one or more of the daemon pod running with a "
                + "Ready Condition."),
            Column.of("Up-to-date", "integer", "The total number of nodes that are running "
                + "updated daemon pod"),
            Column.of("Available", "integer", "The number of nodes that should be running the "
                + "daemon pod and have one or more of the daemon pod running and available "
                + "(ready for at least spec.minReadySeconds)"),
            Column.of("Node Selector", "string", "NodeSelector is a selector which must be true "
                + "for the pod to fit on a node."),
            AGE,
            Column.wide("Containers", "string", CONTAINERS_DOC),
            Column.wide("Images", "string", IMAGES_DOC),
            Column.wide("Selector", "string", "A label query over pods that are managed by the "
                + "daemon set."));
      case "batch/jobs":
        return List.of(NAME,
            Column.of("Status", "string", "Status of the job."),
            Column.of("Completions", "string", "The completion status of the job."),
            Column.of("Duration", "string", "Time required to complete the job."),
            AGE,
            Column.wide("Containers", "string", CONTAINERS_DOC),
            Column.wide("Images", "string", IMAGES_DOC),
            Column.wide("Selector", "string", "A label query over pods that should match the pod "
                + "count."));
      case "/persistentvolumeclaims":
        return List.of(NAME,
            Column.of("Status", "string", "phase represents the current phase of "
                + "PersistentVolumeClaim."),
            Column.of("Volume", "string", "volumeName is the binding reference to the "
                + "PersistentVolume backing this claim."),
            Column.of("Capacity", "string", "capacity represents the actual resources of the "
                + "underlying volume."),
            Column.of("Access Modes", "string", "accessModes contains the actual access modes "
                + "the volume backing the PVC has."),
            Column.of("StorageClass", "string", "storageClassName is the name of the "
                + "StorageClass required by the claim."),
            Column.of("VolumeAttributesClass", "string", "volumeAttributesClassName may be used "
                + "to set the VolumeAttributesClass used by this claim."),
            AGE,
            Column.wide("VolumeMode", "string", "volumeMode defines what type of volume is "
                + "required by the claim."));
      case "/endpoints":
        return List.of(NAME,
            Column.of("Endpoints", "string", "The set of all endpoints is the union of all "
                + "subsets."),
            AGE);
      case "/services":
        return List.of(NAME,
            Column.of("Type", "string", "type determines how the Service is exposed."),
            Column.of("Cluster-IP", "string", "clusterIP is the IP address of the service."),
            Column.of("External-IP", "string", "externalIPs is a list of IP addresses for which "
                + "nodes in the cluster will also accept traffic for this service."),
            Column.of("Port(s)", "string", "The list of ports that are exposed by this service."),
            AGE,
            Column.wide("Selector", "string", "Route service traffic to pods with label keys and "
                + "values matching this selector."));
      case "/configmaps":
        return List.of(NAME, Column.of("Data", "integer", "Data contains the configuration data."),
            AGE);
      case "/secrets":
        return List.of(NAME,
            Column.of("Type", "string", "Used to facilitate programmatic handling of secret data."),
            Column.of("Data", "integer", "Data contains the secret data."), AGE);
      case "/namespaces":
        return List.of(NAME,
            Column.of("Status", "string", "The status of the namespace"), AGE);
      case "/nodes":
        return List.of(NAME,
            Column.of("Status", "string", "The status of the node"),
            Column.of("Roles", "string", "The roles of the node"),
            AGE,
            Column.of("Version", "string", "Kubelet Version reported by the node."),
            Column.wide("Internal-IP", "string", "List of addresses reachable to the node."),
            Column.wide("External-IP", "string", "List of addresses reachable to the node."),
            Column.wide("OS-Image", "string", "OS Image reported by the node from "
                + "/etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
            Column.wide("Kernel-Version", "string",
                "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
            Column.wide("Container-Runtime", "string", "ContainerRuntime Version reported by the "
                + "node through runtime remote API (e.g. containerd://1.4.2)."));
      case "/events":
        return List.of(
            Column.of("Last Seen", "string",
                "The time at which the most recent occurrence of this event was recorded."),
            Column.of("Type", "string", "Type of this event (Normal, Warning), new types could "
                + "be added in the future"),
            Column.of("Reason", "string", "This should be a short, machine understandable string "
                + "that gives the reason for the transition into the object's current status."),
            Column.of("Object", "string", "The object that this event is about."),
            Column.wide("Subobject", "string", "If referring to a piece of an object instead of "
                + "an entire object, this string should contain a valid JSON/Go field access "
                + "statement, such as desiredState.manifest.containers[2]."),
            Column.wide("Source", "string",
                "The component reporting this event. Should be a short machine understandable "
                    + "string."),
            Column.of("Message", "string",
                "A human-readable description of the status of this operation."),
            Column.wide("First Seen", "string",
                "The time at which the event was first recorded. (Time of server receipt is in "
                    + "TypeMeta.)"),
            Column.wide("Count", "string", "The number of times this event has occurred."),
            new Column("Name", "string", "name", NAME_DOC, 1));
      case "coordination.k8s.io/leases":
        return List.of(NAME,
            Column.of("Holder", "string", "holderIdentity contains the identity of the holder of "
                + "a current lease."),
            AGE);
      case "/serviceaccounts":
        return List.of(NAME,
            Column.of("Secrets", "integer", "Secrets is a list of the secrets in the same "
                + "namespace that pods running using this ServiceAccount are allowed to use."),
            AGE);
      case "crd":
        return List.of(NAME, new Column("Age", "date", "", AGE_DOC, 0));
      case "crd-columns": {
        List<Column> l = new ArrayList<>();
        l.add(NAME);
        for (PrinterColumn c : type.printerColumns()) {
          l.add(new Column(c.name(), c.type(), c.format(), c.description(), c.priority()));
        }
        return l;
      }
      default:
        return List.of(NAME, new Column("Created At", "date", "", AGE_DOC, 0));
    }
  }

  // ---- cells ---------------------------------------------------------------------------------

  private List<@Nullable Object> cells(ObjectNode o) {
    String name = o.path("metadata").path("name").asString("");
    String age = since(o.path("metadata").path("creationTimestamp"));
    JsonNode spec = o.path("spec");
    JsonNode status = o.path("status");
    List<@Nullable Object> c = new ArrayList<>();
    switch (kindKey()) {
      case "/pods":
        pod(o, c);
        break;
      case "apps/deployments":
        c.add(name);
        c.add(status.path("readyReplicas").asLong(0) + "/" + replicas(spec));
        c.add(status.path("updatedReplicas").asLong(0));
        c.add(status.path("availableReplicas").asLong(0));
        c.add(age);
        containerCells(spec, c);
        c.add(Scales.selectorString(spec.path("selector")));
        break;
      case "apps/replicasets":
        c.add(name);
        c.add(replicas(spec));
        c.add(status.path("replicas").asLong(0));
        c.add(status.path("readyReplicas").asLong(0));
        c.add(age);
        containerCells(spec, c);
        c.add(Scales.selectorString(spec.path("selector")));
        break;
      case "apps/statefulsets":
        c.add(name);
        c.add(status.path("readyReplicas").asLong(0) + "/" + replicas(spec));
        c.add(age);
        containerCells(spec, c);
        break;
      case "apps/daemonsets":
        c.add(name);
        for (String f : List.of("desiredNumberScheduled", "currentNumberScheduled",
            "numberReady", "updatedNumberScheduled", "numberAvailable")) {
          c.add(status.path(f).asLong(0));
        }
        c.add(formatLabels(spec.path("template").path("spec").path("nodeSelector")));
        c.add(age);
        containerCells(spec, c);
        c.add(Scales.selectorString(spec.path("selector")));
        break;
      case "batch/jobs":
        job(o, c, age);
        break;
      case "/persistentvolumeclaims":
        claim(o, c, age);
        break;
      case "/endpoints":
        c.add(name);
        c.add(endpoints(o));
        c.add(age);
        break;
      case "/services":
        service(o, c, age);
        break;
      case "/configmaps":
        c.add(name);
        c.add((long) (o.path("data").size() + o.path("binaryData").size()));
        c.add(age);
        break;
      case "/secrets":
        c.add(name);
        c.add(o.path("type").asString("Opaque"));
        c.add((long) o.path("data").size());
        c.add(age);
        break;
      case "/namespaces":
        c.add(name);
        c.add(status.path("phase").asString(""));
        c.add(age);
        break;
      case "/nodes":
        node(o, c, age);
        break;
      case "/events":
        event(o, c);
        break;
      case "coordination.k8s.io/leases":
        c.add(name);
        c.add(spec.path("holderIdentity").asString(""));
        c.add(age);
        break;
      case "/serviceaccounts":
        c.add(name);
        c.add((long) o.path("secrets").size());
        c.add(age);
        break;
      case "crd":
        c.add(name);
        c.add(age);
        break;
      case "crd-columns":
        c.add(name);
        for (PrinterColumn col : type.printerColumns()) {
          c.add(customCell(col, o));
        }
        break;
      default:
        c.add(name);
        c.add(o.path("metadata").path("creationTimestamp").asString(""));
        break;
    }
    return c;
  }

  /** spec.replicas, which the real server defaults to 1 for the workloads. */
  private static long replicas(JsonNode spec) {
    JsonNode r = spec.get("replicas");
    return r == null || r.isNull() ? 1 : r.asLong();
  }

  private static void containerCells(JsonNode spec, List<@Nullable Object> c) {
    List<String> names = new ArrayList<>();
    List<String> images = new ArrayList<>();
    for (JsonNode k : spec.path("template").path("spec").path("containers")) {
      names.add(k.path("name").asString(""));
      images.add(k.path("image").asString(""));
    }
    c.add(String.join(",", names));
    c.add(String.join(",", images));
  }

  private void pod(ObjectNode pod, List<@Nullable Object> c) {
    JsonNode spec = pod.path("spec");
    JsonNode status = pod.path("status");
    long restarts = 0;
    long restartableInitRestarts = 0;
    Instant lastRestart = null;
    Instant lastRestartableInitRestart = null;
    int total = spec.path("containers").size();
    int ready = 0;
    String phase = status.path("phase").asString("");
    String reason = status.path("reason").asString("").isEmpty() ? phase
        : status.path("reason").asString("");
    for (JsonNode cond : status.path("conditions")) {
      if (cond.path("type").asString("").equals("PodScheduled")
          && cond.path("reason").asString("").equals("SchedulingGated")) {
        reason = "SchedulingGated";
      }
    }
    Map<String, Boolean> restartableInit = new TreeMap<>();
    for (JsonNode ic : spec.path("initContainers")) {
      boolean restartable = ic.path("restartPolicy").asString("").equals("Always");
      restartableInit.put(ic.path("name").asString(""), restartable);
      if (restartable) {
        total++;
      }
    }
    boolean initializing = false;
    JsonNode initStatuses = status.path("initContainerStatuses");
    int initCount = spec.path("initContainers").size();
    for (int i = 0; i < initStatuses.size(); i++) {
      JsonNode cs = initStatuses.get(i);
      restarts += cs.path("restartCount").asLong(0);
      Instant finished = instant(cs.path("lastState").path("terminated").path("finishedAt"));
      lastRestart = later(lastRestart, finished);
      boolean restartable = restartableInit.getOrDefault(cs.path("name").asString(""), false);
      if (restartable) {
        restartableInitRestarts += cs.path("restartCount").asLong(0);
        lastRestartableInitRestart = later(lastRestartableInitRestart, finished);
      }
      JsonNode terminated = cs.path("state").path("terminated");
      JsonNode waiting = cs.path("state").path("waiting");
      if (terminated.isObject() && terminated.path("exitCode").asLong(0) == 0) {
        continue;
      }
      if (restartable && cs.path("started").asBoolean(false)) {
        if (cs.path("ready").asBoolean(false)) {
          ready++;
        }
        continue;
      }
      if (terminated.isObject()) {
        String r = terminated.path("reason").asString("");
        if (r.isEmpty()) {
          long signal = terminated.path("signal").asLong(0);
          reason = signal != 0 ? "Init:Signal:" + signal
              : "Init:ExitCode:" + terminated.path("exitCode").asLong(0);
        } else {
          reason = "Init:" + r;
        }
      } else if (waiting.isObject() && !waiting.path("reason").asString("").isEmpty()
          && !waiting.path("reason").asString("").equals("PodInitializing")) {
        reason = "Init:" + waiting.path("reason").asString("");
      } else {
        reason = "Init:" + i + "/" + initCount;
      }
      initializing = true;
      break;
    }
    if (!initializing || conditionTrue(status, "Initialized")) {
      restarts = restartableInitRestarts;
      lastRestart = lastRestartableInitRestart;
      boolean hasRunning = false;
      JsonNode statuses = status.path("containerStatuses");
      for (int i = statuses.size() - 1; i >= 0; i--) {
        JsonNode cs = statuses.get(i);
        restarts += cs.path("restartCount").asLong(0);
        lastRestart = later(lastRestart,
            instant(cs.path("lastState").path("terminated").path("finishedAt")));
        JsonNode waiting = cs.path("state").path("waiting");
        JsonNode terminated = cs.path("state").path("terminated");
        if (waiting.isObject() && !waiting.path("reason").asString("").isEmpty()) {
          reason = waiting.path("reason").asString("");
        } else if (terminated.isObject() && !terminated.path("reason").asString("").isEmpty()) {
          reason = terminated.path("reason").asString("");
        } else if (terminated.isObject()) {
          long signal = terminated.path("signal").asLong(0);
          reason = signal != 0 ? "Signal:" + signal
              : "ExitCode:" + terminated.path("exitCode").asLong(0);
        } else if (cs.path("ready").asBoolean(false) && cs.path("state").path("running")
            .isObject()) {
          hasRunning = true;
          ready++;
        }
      }
      if (reason.equals("Completed") && hasRunning) {
        reason = conditionTrue(status, "Ready") ? "Running" : "NotReady";
      }
    }
    boolean deleting = pod.path("metadata").hasNonNull("deletionTimestamp");
    if (deleting && status.path("reason").asString("").equals("NodeLost")) {
      reason = "Unknown";
    } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
      reason = "Terminating";
    }
    String restartCell = Long.toString(restarts);
    if (restarts != 0 && lastRestart != null) {
      restartCell =
          restarts + " (" + human(Duration.between(lastRestart, clock.now())) + " ago)";
    }
    c.add(pod.path("metadata").path("name").asString(""));
    c.add(ready + "/" + total);
    c.add(reason);
    c.add(restartCell);
    c.add(since(pod.path("metadata").path("creationTimestamp")));
    String ip = status.path("podIPs").path(0).path("ip").asString("");
    c.add(ip.isEmpty() ? NONE : ip);
    String node = spec.path("nodeName").asString("");
    c.add(node.isEmpty() ? NONE : node);
    String nominated = status.path("nominatedNodeName").asString("");
    c.add(nominated.isEmpty() ? NONE : nominated);
    JsonNode gates = spec.path("readinessGates");
    if (gates.isEmpty()) {
      c.add(NONE);
    } else {
      int trueGates = 0;
      for (JsonNode g : gates) {
        if (conditionTrue(status, g.path("conditionType").asString(""))) {
          trueGates++;
        }
      }
      c.add(trueGates + "/" + gates.size());
    }
  }

  private static boolean conditionTrue(JsonNode status, String type) {
    for (JsonNode cond : status.path("conditions")) {
      if (cond.path("type").asString("").equals(type)) {
        return cond.path("status").asString("").equals("True");
      }
    }
    return false;
  }

  private void job(ObjectNode job, List<@Nullable Object> c, String age) {
    JsonNode spec = job.path("spec");
    JsonNode status = job.path("status");
    String state;
    if (conditionTrue(status, "Complete")) {
      state = "Complete";
    } else if (conditionTrue(status, "Failed")) {
      state = "Failed";
    } else if (job.path("metadata").hasNonNull("deletionTimestamp")) {
      state = "Terminating";
    } else if (conditionTrue(status, "Suspended")) {
      state = "Suspended";
    } else if (conditionTrue(status, "FailureTarget")) {
      state = "FailureTarget";
    } else if (conditionTrue(status, "SuccessCriteriaMet")) {
      state = "SuccessCriteriaMet";
    } else {
      state = "Running";
    }
    long succeeded = status.path("succeeded").asLong(0);
    String completions;
    if (spec.hasNonNull("completions")) {
      completions = succeeded + "/" + spec.get("completions").asLong();
    } else if (spec.path("parallelism").asLong(1) > 1) {
      completions = succeeded + "/1 of " + spec.get("parallelism").asLong();
    } else {
      completions = succeeded + "/1";
    }
    Instant start = instant(status.path("startTime"));
    Instant end = instant(status.path("completionTime"));
    String duration = start == null ? ""
        : human(Duration.between(start, end == null ? clock.now() : end));
    c.add(job.path("metadata").path("name").asString(""));
    c.add(state);
    c.add(completions);
    c.add(duration);
    c.add(age);
    containerCells(spec, c);
    c.add(Scales.selectorString(spec.path("selector")));
  }

  private static void claim(ObjectNode pvc, List<@Nullable Object> c, String age) {
    JsonNode spec = pvc.path("spec");
    JsonNode status = pvc.path("status");
    String phase = pvc.path("metadata").hasNonNull("deletionTimestamp") ? "Terminating"
        : status.path("phase").asString("");
    String volume = spec.path("volumeName").asString("");
    String capacity = "";
    String modes = "";
    if (!volume.isEmpty()) {
      capacity = status.path("capacity").path("storage").asString("");
      List<String> held = new ArrayList<>();
      status.path("accessModes").forEach(m -> held.add(m.asString("")));
      List<String> shown = new ArrayList<>();
      String[][] abbreviations = {{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"},
          {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}};
      for (String[] a : abbreviations) {
        if (held.contains(a[0])) {
          shown.add(a[1]);
        }
      }
      modes = String.join(",", shown);
    }
    String storageClass = pvc.path("metadata").path("annotations")
        .path("volume.beta.kubernetes.io/storage-class").asString("");
    if (storageClass.isEmpty()) {
      storageClass = spec.path("storageClassName").asString("");
    }
    String attributesClass = spec.path("volumeAttributesClassName").asString("");
    c.add(pvc.path("metadata").path("name").asString(""));
    c.add(phase);
    c.add(volume);
    c.add(capacity);
    c.add(modes);
    c.add(storageClass);
    c.add(attributesClass.isEmpty() ? "<unset>" : attributesClass);
    c.add(age);
    c.add(spec.path("volumeMode").asString("<unset>"));
  }

  /** The first three endpoints ({@code ip:port}), and how many more. */
  private static String endpoints(ObjectNode ep) {
    JsonNode subsets = ep.path("subsets");
    if (subsets.isEmpty()) {
      return NONE;
    }
    List<String> list = new ArrayList<>();
    int max = 3;
    int count = 0;
    boolean more = false;
    for (JsonNode ss : subsets) {
      JsonNode addresses = ss.path("addresses");
      JsonNode ports = ss.path("ports");
      if (ports.isEmpty()) {
        count += addresses.size();
        for (JsonNode a : addresses) {
          if (list.size() == max) {
            more = true;
            break;
          }
          list.add(a.path("ip").asString(""));
        }
        continue;
      }
      for (JsonNode port : ports) {
        count += addresses.size();
        for (JsonNode a : addresses) {
          if (list.size() == max) {
            more = true;
            break;
          }
          String ip = a.path("ip").asString("");
          list.add((ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port.path("port").asLong());
        }
      }
    }
    String joined = String.join(",", list);
    return more ? joined + " + " + (count - max) + " more..." : joined;
  }

  private static void service(ObjectNode svc, List<@Nullable Object> c, String age) {
    JsonNode spec = svc.path("spec");
    String type = spec.path("type").asString("ClusterIP");
    String clusterIp = spec.path("clusterIPs").path(0).asString(
        spec.path("clusterIP").asString(""));
    List<String> external = new ArrayList<>();
    spec.path("externalIPs").forEach(ip -> external.add(ip.asString("")));
    String externalCell;
    switch (type) {
      case "LoadBalancer": {
        List<String> lb = new ArrayList<>();
        for (JsonNode in : svc.path("status").path("loadBalancer").path("ingress")) {
          String v = in.path("ip").asString("");
          lb.add(v.isEmpty() ? in.path("hostname").asString("") : v);
        }
        lb.addAll(external);
        externalCell = lb.isEmpty() ? "<pending>" : String.join(",", lb);
        break;
      }
      case "ExternalName":
        externalCell = spec.path("externalName").asString("");
        break;
      default:
        externalCell = external.isEmpty() ? NONE : String.join(",", external);
        break;
    }
    List<String> ports = new ArrayList<>();
    for (JsonNode p : spec.path("ports")) {
      String protocol = p.path("protocol").asString("TCP");
      long nodePort = p.path("nodePort").asLong(0);
      ports.add(nodePort > 0 ? p.path("port").asLong() + ":" + nodePort + "/" + protocol
          : p.path("port").asLong() + "/" + protocol);
    }
    c.add(svc.path("metadata").path("name").asString(""));
    c.add(type);
    c.add(clusterIp.isEmpty() ? NONE : clusterIp);
    c.add(externalCell);
    c.add(ports.isEmpty() ? NONE : String.join(",", ports));
    c.add(age);
    c.add(formatLabels(spec.path("selector")));
  }

  private static String formatLabels(JsonNode labels) {
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : labels.properties()) {
      sorted.put(e.getKey(), e.getValue().asString(""));
    }
    if (sorted.isEmpty()) {
      return NONE;
    }
    List<String> parts = new ArrayList<>();
    sorted.forEach((k, v) -> parts.add(k + "=" + v));
    return String.join(",", parts);
  }

  private static void node(ObjectNode node, List<@Nullable Object> c, String age) {
    JsonNode status = node.path("status");
    String state = "Unknown";
    for (JsonNode cond : status.path("conditions")) {
      if (cond.path("type").asString("").equals("Ready")) {
        state = cond.path("status").asString("").equals("True") ? "Ready" : "NotReady";
      }
    }
    if (node.path("spec").path("unschedulable").asBoolean(false)) {
      state += ",SchedulingDisabled";
    }
    TreeSet<String> roles = new TreeSet<>();
    for (Map.Entry<String, JsonNode> e : node.path("metadata").path("labels").properties()) {
      if (e.getKey().startsWith("node-role.kubernetes.io/")) {
        String role = e.getKey().substring("node-role.kubernetes.io/".length());
        if (!role.isEmpty()) {
          roles.add(role);
        }
      } else if (e.getKey().equals("kubernetes.io/role") && !e.getValue().asString("").isEmpty()) {
        roles.add(e.getValue().asString(""));
      }
    }
    JsonNode info = status.path("nodeInfo");
    c.add(node.path("metadata").path("name").asString(""));
    c.add(state);
    c.add(roles.isEmpty() ? NONE : String.join(",", roles));
    c.add(age);
    c.add(info.path("kubeletVersion").asString(""));
    c.add(address(status, "InternalIP"));
    c.add(address(status, "ExternalIP"));
    for (String f : List.of("osImage", "kernelVersion", "containerRuntimeVersion")) {
      String v = info.path(f).asString("");
      c.add(v.isEmpty() ? "<unknown>" : v);
    }
  }

  private static String address(JsonNode status, String type) {
    for (JsonNode a : status.path("addresses")) {
      if (a.path("type").asString("").equals(type)) {
        return a.path("address").asString("");
      }
    }
    return NONE;
  }

  private void event(ObjectNode ev, List<@Nullable Object> c) {
    String first = ev.hasNonNull("firstTimestamp") ? since(ev.get("firstTimestamp"))
        : since(ev.path("eventTime"));
    String last = ev.hasNonNull("lastTimestamp") ? since(ev.get("lastTimestamp")) : first;
    long count = ev.path("count").asLong(0);
    if (ev.path("series").isObject()) {
      last = since(ev.path("series").path("lastObservedTime"));
      count = ev.path("series").path("count").asLong(0);
    } else if (count == 0) {
      count = 1;
    }
    JsonNode io = ev.path("involvedObject");
    String kind = io.path("kind").asString("").toLowerCase(Locale.ROOT);
    String target = io.path("name").asString("").isEmpty() ? kind
        : kind + "/" + io.path("name").asString("");
    String component = firstNonEmpty(ev.path("source").path("component").asString(""),
        ev.path("reportingComponent").asString(""));
    String instance = firstNonEmpty(ev.path("source").path("host").asString(""),
        ev.path("reportingInstance").asString(""));
    c.add(last);
    c.add(ev.path("type").asString(""));
    c.add(ev.path("reason").asString(""));
    c.add(target);
    c.add(io.path("fieldPath").asString(""));
    c.add(instance.isEmpty() ? component : component + ", " + instance);
    c.add(ev.path("message").asString("").strip());
    c.add(first);
    c.add(count);
    c.add(ev.path("metadata").path("name").asString(""));
  }

  private static String firstNonEmpty(String a, String b) {
    return a.isEmpty() ? b : a;
  }

  /** A CRD column's cell: the value at its JSONPath as its type prints it; null if absent. */
  private @Nullable Object customCell(PrinterColumn col, ObjectNode o) {
    JsonNode v = find(o, col.jsonPath());
    if (v == null || v.isNull()) {
      return null;
    }
    switch (col.type()) {
      case "string":
        return v.isString() ? v.asString() : Json.MAPPER.writeValueAsString(v);
      case "integer":
        return v.isNumber() ? (Object) v.asLong() : null;
      case "number":
        return v.isIntegralNumber() ? (Object) v.asLong() : v.isNumber() ? v.asDouble() : null;
      case "boolean":
        return v.isBoolean() ? v.asBoolean() : null;
      case "date":
        return v.isString() && instant(v) != null ? since(v) : null;
      default:
        return null;
    }
  }

  /**
   * The value at a simple JSONPath (what CRDs allow: {@code .a.b}, {@code .a[0].b}, {@code
   * .a['b.c']}), or null when it is absent.
   */
  static @Nullable JsonNode find(JsonNode root, String path) {
    JsonNode n = root;
    int i = 0;
    while (i < path.length() && n != null) {
      char ch = path.charAt(i);
      if (ch == '.') {
        int end = i + 1;
        while (end < path.length() && path.charAt(end) != '.' && path.charAt(end) != '[') {
          end++;
        }
        n = n.get(path.substring(i + 1, end));
        i = end;
      } else if (ch == '[') {
        int end = path.indexOf(']', i);
        if (end < 0) {
          return null;
        }
        String inner = path.substring(i + 1, end).trim();
        if (inner.length() >= 2 && (inner.charAt(0) == '\'' || inner.charAt(0) == '"')) {
          n = n.get(inner.substring(1, inner.length() - 1));
        } else {
          try {
            n = n.get(Integer.parseInt(inner));
          } catch (NumberFormatException e) {
            return null;
          }
        }
        i = end + 1;
      } else {
        return null;
      }
    }
    return n;
  }

  // ---- ages ----------------------------------------------------------------------------------

  private static @Nullable Instant instant(JsonNode timestamp) {
    if (!timestamp.isString()) {
      return null;
    }
    try {
      return Instant.parse(timestamp.asString());
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static @Nullable Instant later(@Nullable Instant a, @Nullable Instant b) {
    if (a == null) {
      return b;
    }
    return b != null && b.isAfter(a) ? b : a;
  }

  /** The age of a timestamp as kubectl prints it, or {@code <unknown>} without one. */
  private String since(JsonNode timestamp) {
    Instant t = instant(timestamp);
    return t == null ? "<unknown>" : human(Duration.between(t, clock.now()));
  }

  /** apimachinery's {@code duration.HumanDuration}. */
  static String human(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 60 * 2) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    } else if (minutes < 60 * 3) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    } else if (hours < 48) {
      return hours + "h";
    } else if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
    } else if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    } else if (hours < 24 * 365 * 8) {
      long dy = (hours / 24) % 365;
      return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
    }
    return hours / 24 / 365 + "y";
  }
}

package io.kinformer.examples;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.Lister;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * Several informers from one {@link SharedInformerFactory}: pods (typed, with a custom index of
 * pods by node), nodes (typed, cluster-scoped), a custom resource {@code widgets.example.com}
 * through the dynamic informer, and secrets through a metadata-only informer (their data is never
 * fetched nor cached). It prints, every few seconds, each node with its readiness and pod count,
 * widgets per namespace and secrets per namespace, all read from the caches.
 *
 * <pre>
 * java -cp informer-examples/target/kinformer-demo.jar io.kinformer.examples.ClusterOverview
 * </pre>
 *
 * <p>Against a real cluster ({@code --kubeconfig}/{@code --context}, read-only) it skips the
 * widgets if the cluster has no such resource.
 *
 * <p>Threads: the factory's. Thread safety: thread-safe.
 */
public final class ClusterOverview implements AutoCloseable {

  /** The custom resource this example watches. */
  public static final Gvr WIDGETS =
      Gvr.of("example.com", "v1", "widgets");
  /** The name of the pods-by-node index. */
  public static final String PODS_BY_NODE = "byNode";

  private final SharedInformerFactory factory;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Node> nodes;
  private final @Nullable SharedIndexInformer<GenericKubernetesResource> widgets;
  private final SharedIndexInformer<PartialObjectMetadata> secrets;

  /** Creates the informers (nothing starts yet); the widgets one only if {@code withWidgets}. */
  public ClusterOverview(KubeClient client, boolean withWidgets) {
    // tag::factory[]
    SharedInformerFactory factory =
        SharedInformerFactory.builder(client)
            .defaultResync(Duration.ZERO) // handlers ask for resyncs if they want them
            .build();
    SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class); // typed, all namespaces
    SharedIndexInformer<Node> nodes = factory.informerFor(Node.class); // cluster-scoped
    pods.addIndexers(
        Map.of(
            "byNode",
            pod -> {
              String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
              return node == null ? List.of() : List.of(node);
            }));
    pods.setTransform(Transforms.stripManagedFields()); // before start
    // end::factory[]
    this.factory = factory;
    this.pods = pods;
    this.nodes = nodes;
    if (withWidgets) {
      // tag::dynamic-informer[]
      SharedIndexInformer<GenericKubernetesResource> widgets =
          factory.informerFor(Gvr.of("example.com", "v1", "widgets"));
      // Discovery told the factory the kind (Widget) and scope; objects arrive as
      // GenericKubernetesResource: widget.get("spec", "size"), widget.getAdditionalProperties()
      // end::dynamic-informer[]
      this.widgets = widgets;
    } else {
      this.widgets = null;
    }
    // tag::metadata-informer[]
    SharedIndexInformer<PartialObjectMetadata> secrets =
        factory.metadataInformerFor(Gvr.of("", "v1", "secrets"));
    // Names, labels, annotations, owners: no data, so no secret values in this process's heap.
    // end::metadata-informer[]
    this.secrets = secrets;
  }

  /**
   * Starts every informer and waits for all caches.
   *
   * @return whether all synced within {@code timeout}
   */
  public boolean start(Duration timeout) {
    factory.start();
    return factory.waitForCacheSync(timeout);
  }

  /** What the caches say now. */
  public Snapshot snapshot() {
    Lister<Pod> podLister = new Lister<>(pods.getIndexer());
    Map<String, NodeRow> nodeRows = new TreeMap<>();
    for (Node node : new Lister<>(nodes.getIndexer()).list()) {
      String name = node.getMetadata().getName();
      int podCount = podLister.byIndex(PODS_BY_NODE, name).size();
      nodeRows.put(name, new NodeRow(name, ready(node), podCount));
    }
    int unscheduled = 0;
    for (Pod pod : podLister.list()) {
      if (pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
        unscheduled++;
      }
    }
    return new Snapshot(
        List.copyOf(nodeRows.values()),
        unscheduled,
        widgets == null ? Optional.empty() : Optional.of(countByNamespace(widgets.getIndexer())),
        countByNamespace(secrets.getIndexer()));
  }

  private static Map<String, Integer> countByNamespace(io.kinformer.cache.ReadOnlyIndexer<?> indexer) {
    Map<String, Integer> counts = new TreeMap<>();
    for (String ns : indexer.listIndexFuncValues(Indexers.NAMESPACE)) {
      int n = indexer.indexKeys(Indexers.NAMESPACE, ns).size();
      if (n > 0) {
        counts.put(ns, n);
      }
    }
    return counts;
  }

  private static String ready(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return "Unknown";
    }
    for (NodeCondition c : node.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus()) ? "Ready" : "NotReady";
      }
    }
    return "Unknown";
  }

  /**
   * One node of the overview.
   *
   * <p>Thread safety: immutable.
   *
   * @param name the node's name
   * @param ready {@code Ready}, {@code NotReady} or {@code Unknown}
   * @param pods how many cached pods name this node (from the pods-by-node index)
   */
  public record NodeRow(String name, String ready, int pods) {}

  /**
   * The overview at one moment.
   *
   * <p>Thread safety: immutable.
   *
   * @param nodes every node, by name
   * @param unscheduledPods pods without a node
   * @param widgetsByNamespace widgets per namespace; empty if the cluster has no widgets resource
   * @param secretsByNamespace secrets per namespace, from the metadata-only informer
   */
  public record Snapshot(
      List<NodeRow> nodes,
      int unscheduledPods,
      Optional<Map<String, Integer>> widgetsByNamespace,
      Map<String, Integer> secretsByNamespace) {}

  @Override
  public void close() {
    factory.close();
  }

  /** Runs the overview; see the class comment. */
  public static void main(String[] args) {
    Main.run(
        "cluster-overview",
        "Shows nodes with their pods (an index), widgets (a dynamic informer) and secrets"
            + " (a metadata-only informer) from one informer factory.",
        args,
        ClusterOverview::runMain);
  }

  private static void runMain(
      Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
      throws InterruptedException {
    console.line("cluster-overview: " + cluster.description());
    boolean withWidgets = true;
    if (cluster.server().isPresent()) {
      seed(cluster.server().get(), cluster.client());
    } else {
      try {
        cluster.client().resources(WIDGETS).list();
      } catch (ApiException e) {
        console.line("(no " + WIDGETS + " in this cluster: HTTP " + e.code() + "; skipping)");
        withWidgets = false;
      }
    }
    try (ClusterOverview overview = new ClusterOverview(cluster.client(), withWidgets)) {
      if (!overview.start(Duration.ofSeconds(60))) {
        throw new IllegalStateException("caches did not sync within 60 s");
      }
      Clock clock = Clock.system();
      long deadline = Main.deadline(clock, commandLine.duration());
      do {
        print(console, overview.snapshot());
      } while (!Main.waitOrEnd(stop, clock, deadline, Duration.ofSeconds(5)));
    }
  }

  private static void print(Console console, Snapshot s) {
    console.line("");
    console.header("TIME", "", "NODE", "READY     PODS");
    for (NodeRow n : s.nodes()) {
      console.row("", n.name(), String.format("%-9s %4d", n.ready(), n.pods()));
    }
    console.row("", "(no node)", String.format("%-9s %4d", "", s.unscheduledPods()));
    s.widgetsByNamespace().ifPresent(w -> console.row("WIDGETS", "by namespace", w.toString()));
    console.row("SECRETS", "by namespace", s.secretsByNamespace() + " (metadata only)");
  }

  /** Registers widgets with the embedded server and creates nodes, pods, widgets and secrets. */
  static void seed(EmbeddedApiServer server, KubeClient client) {
    server.register(
        io.kinformer.testing.ServedResource.namespaced("example.com", "v1", "Widget", "widgets"));
    seedObjects(client);
  }

  /**
   * Creates namespaces shop and blog, three nodes (node-3 not ready), twelve pods (one
   * unscheduled), four widgets and three secrets; the server must serve {@link #WIDGETS}.
   */
  static void seedObjects(KubeClient client) {
    for (String ns : List.of("shop", "blog")) {
      client
          .resources(Namespace.class)
          .create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }
    var nodeClient = client.resources(Node.class);
    for (int i = 1; i <= 3; i++) {
      Node node =
          nodeClient.create(
              new NodeBuilder().withNewMetadata().withName("node-" + i).endMetadata().build());
      nodeClient.updateStatus(
          new NodeBuilder(node)
              .withNewStatus()
              .addNewCondition()
              .withType("Ready")
              .withStatus(i == 3 ? "False" : "True")
              .endCondition()
              .endStatus()
              .build());
    }
    for (int i = 0; i < 12; i++) {
      PodBuilder pod =
          new PodBuilder()
              .withNewMetadata()
              .withNamespace(i % 3 == 0 ? "blog" : "shop")
              .withName("web-" + i)
              .endMetadata()
              .withNewSpec()
              .addNewContainer()
              .withName("web")
              .withImage("registry.example/web:1.0")
              .endContainer()
              .endSpec();
      if (i < 11) { // the last one stays unscheduled
        pod.editSpec().withNodeName("node-" + (1 + i % 3)).endSpec();
      }
      client.resources(Pod.class).create(pod.build());
    }
    for (int i = 0; i < 4; i++) {
      client
          .resources(WIDGETS)
          .inNamespace(i == 0 ? "blog" : "shop")
          .create(
              new GenericKubernetesResourceBuilder()
                  .withApiVersion("example.com/v1")
                  .withKind("Widget")
                  .withNewMetadata()
                  .withName("widget-" + i)
                  .endMetadata()
                  .addToAdditionalProperties("spec", Map.of("size", i))
                  .build());
    }
    for (String ns : List.of("shop", "shop", "blog")) {
      client
          .resources(Secret.class)
          .inNamespace(ns)
          .create(
              new SecretBuilder()
                  .withNewMetadata()
                  .withGenerateName("token-")
                  .endMetadata()
                  .addToStringData("token", "not-for-your-heap")
                  .build());
    }
  }
}

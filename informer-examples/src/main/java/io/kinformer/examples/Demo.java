package io.kinformer.examples;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.IndexFunc;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.Keys;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.Lister;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.client.ResourceClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.time.Clock;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

/**
 * The kinformer demo: one pod informer at work, printed as it happens.
 *
 * <p>Without flags it starts an embedded API server, creates a few dozen pods, and keeps creating,
 * changing and deleting them while it runs. It shows the initial sync with a progress line, every
 * add, update and delete as it arrives, Lister queries by namespace, label selector and index, and
 * a rate-limited work queue retrying keys whose reconcile "fails". With {@code --kubeconfig} or
 * {@code --context} it does the same against a real cluster, read-only (no changes, no simulated
 * failures). It exits after {@code --duration} (default 20 s) or on Ctrl-C.
 *
 * <pre>
 * mvn -q -B -pl informer-examples -am package -DskipTests
 * java -jar informer-examples/target/kinformer-demo.jar [--kubeconfig FILE] [--context NAME]
 *     [--duration 20s] [-v]
 * </pre>
 *
 * <p>Threads: the informer's ({@code kinformer-...}), two work-queue workers ({@code
 * kinformer-demo-pods-worker-N}) and one ({@code kinformer-demo-driver}) that makes the changes
 * and prints the queries. {@link #close()} stops them all.
 *
 * <p>Thread safety: {@link #run} is called once, from one thread; {@link #close()} from any.
 */
public final class Demo implements AutoCloseable {

  static final String BY_NODE = "byNode";
  static final String FLAKY_LABEL = "demo.kinformer.io/flaky";
  private static final List<String> NAMESPACES = List.of("shop", "blog", "ops");
  private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
  private static final List<String> APPS = List.of("web", "api", "db", "cache");
  private static final int SEED_PODS = 30;
  private static final int MIN_PODS = 20;
  private static final int MAX_PODS = 45;
  private static final Duration QUERY_PERIOD = Duration.ofSeconds(5);

  private final Cluster cluster;
  private final Console console;
  private final RandomGenerator random;
  private final SharedInformerFactory factory;
  private final SharedIndexInformer<Pod> pods;
  private final Lister<Pod> lister;
  private final RateLimitingQueue<String> queue;
  private final Workers workers;
  private final ScheduledExecutorService driver;
  private final ResourceClient<Pod> podClient;

  private final AtomicInteger initialAdds = new AtomicInteger();
  private final AtomicInteger adds = new AtomicInteger();
  private final AtomicInteger updates = new AtomicInteger();
  private final AtomicInteger deletes = new AtomicInteger();
  private final AtomicInteger reconciled = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();
  private final AtomicInteger writes = new AtomicInteger();
  private final AtomicInteger nextPod = new AtomicInteger();
  private final Set<String> recovered = ConcurrentHashMap.newKeySet();

  /** Events of the initial list are counted, not printed; live ones are printed. */
  private volatile boolean live;

  Demo(Cluster cluster, Console console, RandomGenerator random) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.console = Objects.requireNonNull(console, "console");
    this.random = Objects.requireNonNull(random, "random");
    this.podClient = cluster.client().resources(Pod.class);
    this.factory = SharedInformerFactory.builder(cluster.client()).build();
    this.pods = factory.informerFor(Pod.class);
    IndexFunc<Pod> byNode =
        pod -> {
          String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
          return node == null || node.isEmpty() ? List.of() : List.of(node);
        };
    pods.addIndexers(Map.of(BY_NODE, byNode));
    pods.setTransform(Transforms.stripManagedFields());
    this.lister = new Lister<>(pods.getIndexer());
    this.queue =
        RateLimitingQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(250), Duration.ofSeconds(10)),
            QueueOptions.builder().name("demo-pods").build());
    this.workers = Workers.builder("demo-pods", queue, this::reconcile).threads(2).build();
    pods.addEventHandler(new Printer());
    this.driver =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kinformer-demo-driver");
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs the demo; see the class comment for the flags. */
  public static void main(String[] args) {
    Main.run("kinformer-demo", "Shows an informer, its Lister and a work queue at work.", args,
        (cluster, console, commandLine, stop) -> {
          try (Demo demo = new Demo(cluster, console, RandomGenerator.of("L64X128MixRandom"))) {
            demo.run(commandLine.duration(), stop);
          }
        });
  }

  /**
   * Runs until {@code duration} has passed (zero: forever) or {@code stop} is counted down.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  void run(Duration duration, CountDownLatch stop) throws InterruptedException {
    console.line("kinformer demo: " + cluster.description());
    if (cluster.writable()) {
      for (String ns : NAMESPACES) {
        cluster.client().resources(Namespace.class)
            .create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
      }
      for (int i = 0; i < SEED_PODS; i++) {
        createPod();
      }
      console.line("created " + SEED_PODS + " pods in namespaces " + String.join(", ", NAMESPACES));
    }

    long startNanos = Clock.system().nanoTime();
    factory.start();
    while (!pods.awaitSynced(Duration.ofMillis(100))) {
      console.progress("syncing pods: " + initialAdds.get() + " so far ...");
      if (stop.getCount() == 0) {
        return;
      }
    }
    long millis = (Clock.system().nanoTime() - startNanos) / 1_000_000;
    console.line(
        "synced " + pods.getIndexer().listKeys().size() + " pods in " + millis
            + " ms (one streaming list; the same watch then follows every change)");
    live = true;
    console.line("");
    console.header("TIME", "EVENT", "KEY", "DETAIL");
    query();
    workers.start(); // as controllers do: act only on a synced cache

    if (cluster.writable()) {
      scheduleChurn();
    }
    driver.scheduleAtFixedRate(
        this::query, QUERY_PERIOD.toMillis(), QUERY_PERIOD.toMillis(), TimeUnit.MILLISECONDS);

    if (duration.isZero()) {
      stop.await();
    } else {
      stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
    }
    live = false;
    driver.shutdownNow();
    driver.awaitTermination(10, TimeUnit.SECONDS);
    console.line("");
    console.line(
        String.format(
            "done: %d pods in the initial list, then %d added, %d updated and %d deleted"
                + " (%d changes made); %d keys reconciled, %d retries",
            initialAdds.get(), adds.get(), updates.get(), deletes.get(), writes.get(),
            reconciled.get(), retries.get()));
  }

  /** The informer's handler: counts the initial list, prints and enqueues everything after it. */
  private final class Printer implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod, boolean isInInitialList) {
      queue.add(Keys.metaNamespaceKey(pod));
      if (isInInitialList) {
        initialAdds.incrementAndGet();
        return;
      }
      adds.incrementAndGet();
      if (live) {
        console.row("ADDED", Keys.metaNamespaceKey(pod), describe(pod));
      }
    }

    @Override
    public void onUpdate(Pod oldPod, Pod newPod) {
      queue.add(Keys.metaNamespaceKey(newPod));
      updates.incrementAndGet();
      if (live) {
        console.row("UPDATED", Keys.metaNamespaceKey(newPod), changes(oldPod, newPod));
      }
    }

    @Override
    public void onDelete(Pod pod, boolean finalStateUnknown) {
      queue.add(Keys.metaNamespaceKey(pod));
      deletes.incrementAndGet();
      if (live) {
        console.row(
            "DELETED",
            Keys.metaNamespaceKey(pod),
            finalStateUnknown ? "missed by the watch, found by a relist" : describe(pod));
      }
    }
  }

  /** The work queue's reconciler: "fails" twice for pods labelled flaky, to show the retries. */
  private Reconciler.Result reconcile(String key) {
    Keys.NamespacedName name = Keys.split(key);
    Optional<Pod> pod = lister.namespace(name.namespace()).get(name.name());
    int failures = queue.numRequeues(key);
    boolean flaky = pod.map(p -> p.getMetadata().getLabels()).map(l -> l.containsKey(FLAKY_LABEL))
        .orElse(false);
    if (flaky && failures < 2 && !recovered.contains(key)) {
      retries.incrementAndGet();
      console.row(
          "RETRY", key,
          "reconcile failed (simulated), attempt " + (failures + 1) + "; back off and retry");
      return Reconciler.Result.requeue();
    }
    reconciled.incrementAndGet();
    if (failures > 0) {
      recovered.add(key); // fail only once per pod: later changes reconcile at the first try
      console.row("RECONCILED", key, "after " + failures + " retries");
    }
    return Reconciler.Result.done();
  }

  private void query() {
    try {
      Map<String, Integer> byNamespace = new LinkedHashMap<>();
      for (String ns : topValues(Indexers.NAMESPACE, 3)) {
        byNamespace.put(ns, lister.namespace(ns).list().size());
      }
      console.row("LISTER", "namespace", format(byNamespace));
      LabelSelector selector =
          cluster.writable()
              ? LabelSelector.parse("app in (web,api),tier=frontend")
              : LabelSelector.parse("k8s-app");
      console.row("LISTER", selector.toString(), lister.list(selector).size() + " pods");
      Map<String, Integer> byNode = new LinkedHashMap<>();
      for (String node : topValues(BY_NODE, 4)) {
        byNode.put(node, lister.byIndex(BY_NODE, node).size());
      }
      console.row("LISTER", "index " + BY_NODE, format(byNode));
    } catch (RuntimeException e) {
      console.row("ERROR", "query", e.toString());
    }
  }

  private List<String> topValues(String index, int n) {
    return pods.getIndexer().listIndexFuncValues(index).stream()
        .sorted(
            Comparator.comparingInt((String v) -> -pods.getIndexer().indexKeys(index, v).size())
                .thenComparing(Comparator.naturalOrder()))
        .limit(n)
        .toList();
  }

  private static String format(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  // ---- the changes made to an embedded server -----------------------------------------------

  private void scheduleChurn() {
    long delay = 250 + random.nextLong(400);
    driver.schedule(
        () -> {
          churn();
          scheduleChurn();
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  private void churn() {
    List<Pod> all = new ArrayList<>(lister.list());
    all.sort(Comparator.comparing(Keys::metaNamespaceKey));
    int roll = random.nextInt(100);
    try {
      Optional<Pod> terminating =
          all.stream().filter(p -> p.getMetadata().getDeletionTimestamp() != null).findFirst();
      if (roll < 20 && terminating.isPresent()) {
        deletePod(terminating.get()); // as a kubelet does once the containers have stopped
      } else if (all.size() < MIN_PODS || (roll < 45 && all.size() < MAX_PODS)) {
        createPod();
        writes.incrementAndGet();
      } else if (roll < 85) {
        updatePod(all.get(random.nextInt(all.size())));
      } else {
        deletePod(all.get(random.nextInt(all.size())));
      }
    } catch (ApiException e) {
      // A write from a stale cache (409 Conflict, 404 Not Found) is normal; say so and go on.
      console.row("WRITE", "HTTP " + e.code(), e.getMessage());
    }
  }

  private void createPod() {
    int n = nextPod.getAndIncrement();
    String app = APPS.get(random.nextInt(APPS.size()));
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(NAMESPACES.get(random.nextInt(NAMESPACES.size())))
            .withName(app + "-" + n)
            .addToLabels("app", app)
            .addToLabels("tier", app.equals("web") || app.equals("api") ? "frontend" : "backend")
            .addToLabels(n % 6 == 5 ? Map.of(FLAKY_LABEL, "true") : Map.of())
            .endMetadata()
            .withNewSpec()
            .withNodeName(NODES.get(random.nextInt(NODES.size())))
            .addNewContainer()
            .withName(app)
            .withImage("registry.example/" + app + ":1.0")
            .endContainer()
            .endSpec()
            .build();
    podClient.create(pod);
  }

  /**
   * Deletes a pod as kubectl does: a pod on a node first only gets a deletionTimestamp (an update:
   * "terminating"); deleting it again with a zero grace period, as the kubelet does once its
   * containers stopped, removes it.
   */
  private void deletePod(Pod pod) {
    var inNamespace = podClient.inNamespace(pod.getMetadata().getNamespace());
    if (pod.getMetadata().getDeletionTimestamp() == null) {
      inNamespace.delete(pod.getMetadata().getName());
    } else {
      inNamespace.delete(
          pod.getMetadata().getName(),
          new DeleteOptionsBuilder().withGracePeriodSeconds(0L).build());
    }
    writes.incrementAndGet();
  }

  private void updatePod(Pod cached) {
    // Objects from the cache are shared: change a copy, never the cached object.
    String phase = cached.getStatus() == null ? null : cached.getStatus().getPhase();
    ResourceClient<Pod> inNamespace = podClient.inNamespace(cached.getMetadata().getNamespace());
    if (phase == null || phase.isEmpty() || phase.equals("Pending")) {
      Pod copy = new PodBuilder(cached).editOrNewStatus().withPhase("Running").endStatus().build();
      inNamespace.updateStatus(copy);
    } else {
      String version = "v" + (1 + random.nextInt(9));
      Pod copy = new PodBuilder(cached).editMetadata().addToLabels("version", version).endMetadata()
          .build();
      inNamespace.update(copy);
    }
    writes.incrementAndGet();
  }

  private static String describe(Pod pod) {
    String node = pod.getSpec() == null ? "" : Objects.toString(pod.getSpec().getNodeName(), "");
    String phase = pod.getStatus() == null ? "" : Objects.toString(pod.getStatus().getPhase(), "");
    return String.format("%-8s %s", node, phase.isEmpty() ? "-" : phase).strip();
  }

  private static String changes(Pod oldPod, Pod newPod) {
    if (Objects.equals(
        oldPod.getMetadata().getResourceVersion(), newPod.getMetadata().getResourceVersion())) {
      return "resync (unchanged)";
    }
    List<String> changes = new ArrayList<>();
    if (oldPod.getMetadata().getDeletionTimestamp() == null
        && newPod.getMetadata().getDeletionTimestamp() != null) {
      changes.add("terminating (deletionTimestamp set)");
    }
    String oldPhase = oldPod.getStatus() == null ? null : oldPod.getStatus().getPhase();
    String newPhase = newPod.getStatus() == null ? null : newPod.getStatus().getPhase();
    if (!Objects.equals(oldPhase, newPhase)) {
      changes.add("phase " + Objects.toString(oldPhase, "-") + " -> " + newPhase);
    }
    Map<String, String> oldLabels = labels(oldPod);
    Map<String, String> newLabels = labels(newPod);
    for (Map.Entry<String, String> e : newLabels.entrySet()) {
      if (!e.getValue().equals(oldLabels.get(e.getKey()))) {
        changes.add("label " + e.getKey() + "=" + e.getValue());
      }
    }
    for (String key : oldLabels.keySet()) {
      if (!newLabels.containsKey(key)) {
        changes.add("label " + key + " removed");
      }
    }
    Long oldGrace = oldPod.getMetadata().getDeletionGracePeriodSeconds();
    Long newGrace = newPod.getMetadata().getDeletionGracePeriodSeconds();
    if (oldGrace != null && newGrace != null && !oldGrace.equals(newGrace)) {
      changes.add("grace period " + oldGrace + "s -> " + newGrace + "s");
    }
    return changes.isEmpty()
        ? "resourceVersion " + newPod.getMetadata().getResourceVersion()
        : String.join(", ", changes);
  }

  private static Map<String, String> labels(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  @Override
  public void close() {
    driver.shutdownNow();
    try {
      workers.close();
    } finally {
      factory.close();
    }
  }
}

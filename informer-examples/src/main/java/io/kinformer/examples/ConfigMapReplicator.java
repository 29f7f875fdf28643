package io.kinformer.examples;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.Keys;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.Lister;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.time.Clock;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A controller that copies ConfigMaps from one source namespace into every target namespace, and
 * keeps the copies in line: a source ConfigMap labelled {@value #REPLICATE_LABEL}{@code =true} is
 * replicated into every namespace labelled {@value #TARGET_LABEL}{@code =true}. Copies carry the
 * label {@value #REPLICA_OF_LABEL}; the controller updates them when the source changes, restores
 * them when someone edits or deletes them, and deletes them when the source goes away, loses its
 * label, or the namespace stops being a target. A ConfigMap of the same name that is not a copy
 * (no {@value #REPLICA_OF_LABEL} label) is left alone.
 *
 * <p>How: two informers from one {@link SharedInformerFactory} (ConfigMaps and Namespaces, all
 * namespaces) feed handlers that turn every change into keys {@code "<target-namespace>/<name>"}
 * of the copies it may affect; a {@link RateLimitingQueue} deduplicates the keys; {@link Workers}
 * reconcile each key by comparing the desired copy (computed from the Listers) with the actual one
 * (also from the Lister) and writing the difference through the REST client. A failed write
 * throws, and the key is retried with per-key exponential backoff.
 *
 * <p>Run it against an embedded API server with a few namespaces and ConfigMaps to play with (or,
 * given {@code --kubeconfig}/{@code --context}, against a real cluster, where it writes):
 *
 * <pre>
 * java -cp informer-examples/target/kinformer-demo.jar io.kinformer.examples.ConfigMapReplicator
 * </pre>
 *
 * <p>Threads: the factory's informers and delivery pool, and {@code kinformer-configmap-replicator
 * -worker-N}. {@link #close()} stops the workers; the factory belongs to the caller.
 *
 * <p>Thread safety: thread-safe; {@link #start()} and {@link #close()} once each.
 */
public final class ConfigMapReplicator implements AutoCloseable {

  /** On a ConfigMap of the source namespace: {@code "true"} to replicate it. */
  public static final String REPLICATE_LABEL = "replicator.kinformer.io/replicate";
  /** On a namespace: {@code "true"} to receive copies. */
  public static final String TARGET_LABEL = "replicator.kinformer.io/target";
  /** On a copy: the source namespace it was copied from. */
  public static final String REPLICA_OF_LABEL = "replicator.kinformer.io/replica-of";

  private final KubeClient client;
  private final String sourceNamespace;
  private final Lister<ConfigMap> configMaps;
  private final Lister<Namespace> namespaces;
  private final RateLimitingQueue<String> queue;
  private final Workers workers;
  private final Consumer<String> journal;
  private final Predicate<String> mayReconcile;
  private final AtomicInteger writes = new AtomicInteger();

  /**
   * A replicator of the ConfigMaps of {@code sourceNamespace}, registering its handlers with
   * {@code factory}'s informers; nothing runs until {@link #start()}.
   *
   * @param journal told, in one line, about every write the controller makes (for the demo output)
   */
  public ConfigMapReplicator(
      KubeClient client,
      SharedInformerFactory factory,
      String sourceNamespace,
      int workerThreads,
      Consumer<String> journal) {
    this(client, factory, sourceNamespace, workerThreads, journal, key -> true);
  }

  /**
   * As the other constructor, for a replica that is responsible for some copies only: a copy
   * whose key ("target-namespace/name") {@code mayReconcile} refuses is another replica's to
   * write (see {@link ShardedConfigMapReplicator}); it is asked before each reconcile, and must
   * be cheap.
   */
  public ConfigMapReplicator(
      KubeClient client,
      SharedInformerFactory factory,
      String sourceNamespace,
      int workerThreads,
      Consumer<String> journal,
      Predicate<String> mayReconcile) {
    this.mayReconcile = Objects.requireNonNull(mayReconcile, "mayReconcile");
    this.client = Objects.requireNonNull(client, "client");
    this.sourceNamespace = Objects.requireNonNull(sourceNamespace, "sourceNamespace");
    this.journal = Objects.requireNonNull(journal, "journal");
    // tag::controller-wiring[]
    SharedIndexInformer<ConfigMap> configMapInformer = factory.informerFor(ConfigMap.class);
    SharedIndexInformer<Namespace> namespaceInformer = factory.informerFor(Namespace.class);
    this.configMaps = new Lister<>(configMapInformer.getIndexer());
    this.namespaces = new Lister<>(namespaceInformer.getIndexer());
    this.queue =
        RateLimitingQueue.create(
            RateLimiters.defaultControllerRateLimiter(), // per key 5 ms doubling to 1000 s
            QueueOptions.builder().name("configmap-replicator").build());
    this.workers =
        Workers.builder("configmap-replicator", queue, this::reconcile)
            .threads(workerThreads)
            .build();

    // Handlers only compute keys and enqueue them: quick, and never blocked by the API server.
    configMapInformer.addEventHandler(
        new ResourceEventHandler<ConfigMap>() {
          @Override
          public void onAdd(ConfigMap cm, boolean isInInitialList) {
            enqueueCopiesOf(cm);
          }

          @Override
          public void onUpdate(ConfigMap oldCm, ConfigMap newCm) {
            enqueueCopiesOf(newCm);
          }

          @Override
          public void onDelete(ConfigMap cm, boolean finalStateUnknown) {
            enqueueCopiesOf(cm);
          }
        });
    namespaceInformer.addEventHandler(
        new ResourceEventHandler<Namespace>() {
          @Override
          public void onAdd(Namespace ns, boolean isInInitialList) {
            enqueueNamespace(ns.getMetadata().getName());
          }

          @Override
          public void onUpdate(Namespace oldNs, Namespace newNs) {
            enqueueNamespace(newNs.getMetadata().getName());
          }

          @Override
          public void onDelete(Namespace ns, boolean finalStateUnknown) {
            enqueueNamespace(ns.getMetadata().getName());
          }
        });
    // end::controller-wiring[]
  }

  /** Starts the workers; call it once the factory's caches have synced. */
  public void start() {
    workers.start();
  }

  /** How many writes (create, update, delete) the controller has made. */
  public int writes() {
    return writes.get();
  }

  // ---- handlers: from a change to the keys of the copies it may affect ------------------------

  private void enqueueCopiesOf(ConfigMap cm) {
    String ns = cm.getMetadata().getNamespace();
    String name = cm.getMetadata().getName();
    if (sourceNamespace.equals(ns)) {
      for (Namespace target : namespaces.list()) {
        String targetName = target.getMetadata().getName();
        if (!targetName.equals(sourceNamespace)) {
          queue.add(targetName + "/" + name); // reconcile decides whether a copy belongs there
        }
      }
    } else if (isCopy(cm)) {
      queue.add(ns + "/" + name); // someone changed or deleted a copy: check it
    }
  }

  /**
   * Queues every copy, existing or due, whose key {@code which} selects: for a replica that just
   * became responsible for them.
   */
  public void requeue(Predicate<String> which) {
    for (Namespace ns : namespaces.list()) {
      String target = ns.getMetadata().getName();
      if (target.equals(sourceNamespace)) {
        continue;
      }
      List<ConfigMap> candidates = new ArrayList<>(configMaps.namespace(sourceNamespace).list());
      candidates.addAll(configMaps.namespace(target).list(LabelSelector.parse(REPLICA_OF_LABEL)));
      for (ConfigMap cm : candidates) {
        String key = target + "/" + cm.getMetadata().getName();
        if (which.test(key)) {
          queue.add(key);
        }
      }
    }
  }

  private void enqueueNamespace(String ns) {
    if (ns.equals(sourceNamespace)) {
      return;
    }
    for (ConfigMap source : configMaps.namespace(sourceNamespace).list()) {
      queue.add(ns + "/" + source.getMetadata().getName());
    }
    for (ConfigMap copy : configMaps.namespace(ns).list(LabelSelector.parse(REPLICA_OF_LABEL))) {
      queue.add(ns + "/" + copy.getMetadata().getName()); // copies of sources that are gone
    }
  }

  // ---- the reconciler: one key at a time, never two workers on the same key -------------------

  // tag::controller-reconcile[]
  /** Makes the copy {@code key} ("target-namespace/name") what it should be. */
  private Reconciler.Result reconcile(String key) {
    Keys.NamespacedName copyName = Keys.split(key);
    String ns = copyName.namespace();
    String name = copyName.name();
    if (!mayReconcile.test(key)) {
      return Reconciler.Result.done(); // another replica's copy, when replicas share the work
    }
    Optional<ConfigMap> source =
        configMaps.namespace(sourceNamespace).get(name).filter(ConfigMapReplicator::replicated);
    boolean target = namespaces.get(ns).filter(ConfigMapReplicator::isTarget).isPresent();
    Optional<ConfigMap> actual = configMaps.namespace(ns).get(name);
    if (actual.isPresent() && !isCopy(actual.get())) {
      return Reconciler.Result.done(); // someone else's ConfigMap: leave it alone
    }

    var inNamespace = client.resources(ConfigMap.class).inNamespace(ns);
    if (source.isEmpty() || !target) {
      if (actual.isPresent()) {
        inNamespace.delete(name); // false if already gone; errors throw and are retried
        record("deleted " + key);
      }
      return Reconciler.Result.done();
    }
    ConfigMap desired = copyOf(source.get(), ns);
    try {
      if (actual.isEmpty()) {
        inNamespace.create(desired);
        record("created " + key);
      } else if (!sameContent(actual.get(), desired)) {
        desired.getMetadata().setResourceVersion(actual.get().getMetadata().getResourceVersion());
        inNamespace.update(desired); // optimistic concurrency: 409 if it changed meanwhile
        record("updated " + key);
      }
    } catch (ApiException e) {
      if (e.code() == 409) { // Conflict, or AlreadyExists
        // Our cache is behind the server (the copy exists already, or changed meanwhile):
        // look again, with backoff, once the informer has caught up.
        return Reconciler.Result.requeue();
      }
      throw e; // retried with backoff, and logged
    }
    return Reconciler.Result.done();
  }
  // end::controller-reconcile[]

  private ConfigMap copyOf(ConfigMap source, String ns) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(source.getMetadata().getName())
        .addToLabels(REPLICA_OF_LABEL, sourceNamespace)
        .endMetadata()
        .withData(source.getData())
        .withBinaryData(source.getBinaryData())
        .build();
  }

  private static boolean sameContent(ConfigMap a, ConfigMap b) {
    return emptyIfNull(a.getData()).equals(emptyIfNull(b.getData()))
        && emptyIfNull(a.getBinaryData()).equals(emptyIfNull(b.getBinaryData()))
        && Objects.equals(label(a, REPLICA_OF_LABEL), label(b, REPLICA_OF_LABEL));
  }

  private static Map<String, String> emptyIfNull(@Nullable Map<String, String> m) {
    return m == null ? Map.of() : m;
  }

  private static @Nullable String label(ConfigMap cm, String key) {
    Map<String, String> labels = cm.getMetadata().getLabels();
    return labels == null ? null : labels.get(key);
  }

  static boolean replicated(ConfigMap cm) {
    return "true".equals(label(cm, REPLICATE_LABEL));
  }

  static boolean isCopy(ConfigMap cm) {
    return label(cm, REPLICA_OF_LABEL) != null;
  }

  static boolean isTarget(Namespace ns) {
    Map<String, String> labels = ns.getMetadata().getLabels();
    boolean terminating = ns.getMetadata().getDeletionTimestamp() != null;
    return !terminating && labels != null && "true".equals(labels.get(TARGET_LABEL));
  }

  private void record(String what) {
    writes.incrementAndGet();
    journal.accept(what);
  }

  /** Stops the workers (they finish the keys in hand). The factory is the caller's to close. */
  @Override
  public void close() {
    workers.close();
  }

  /**
   * Runs the replicator. Against the embedded server it first creates namespaces {@code source},
   * {@code team-a}, {@code team-b} (targets) and {@code scratch} (not a target) and a few
   * ConfigMaps, then changes them while it runs, so that the controller has work to do.
   */
  public static void main(String[] args) {
    Main.run(
        "configmap-replicator",
        "Copies ConfigMaps labelled " + REPLICATE_LABEL + "=true from namespace 'source' into"
            + " every namespace labelled " + TARGET_LABEL + "=true.",
        args,
        ConfigMapReplicator::runMain);
  }

  private static void runMain(
      Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
      throws InterruptedException {
    console.line("configmap-replicator: " + cluster.description().replace(", read-only", ""));
    KubeClient client = cluster.client();
    if (cluster.writable()) {
      Scenario.seed(client);
    }
    Consumer<String> journal = write -> console.row("WRITE", "", write);
    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        ConfigMapReplicator replicator =
            new ConfigMapReplicator(client, factory, "source", 2, journal)) {
      factory.start();
      if (!factory.waitForCacheSync(Duration.ofSeconds(60))) {
        throw new IllegalStateException("caches did not sync within 60 s");
      }
      console.line("caches synced; reconciling");
      replicator.start();
      Scenario.play(cluster, client, console, commandLine, stop, null);
      console.line("done: " + replicator.writes() + " writes");
    }
  }

  /** The namespaces and ConfigMaps the embedded run starts with, and its later changes. */
  static final class Scenario {
    private Scenario() {}

    static void seed(KubeClient client) {
      for (String ns : List.of("source", "team-a", "team-b", "scratch")) {
        NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata();
        if (ns.startsWith("team-")) {
          b.editMetadata().addToLabels(TARGET_LABEL, "true").endMetadata();
        }
        client.resources(Namespace.class).create(b.build());
      }
      var source = client.resources(ConfigMap.class).inNamespace("source");
      source.create(configMap("source", "app-settings", true, Map.of("log.level", "info")));
      source.create(configMap("source", "feature-flags", true, Map.of("new-ui", "false")));
      source.create(configMap("source", "local-only", false, Map.of("secret-ish", "stays here")));
    }

    /**
     * Plays the changes on a writable cluster, 2 s apart ({@code crash}, if any, after the second),
     * then keeps going until the run's deadline or Ctrl-C.
     */
    static void play(Cluster cluster, KubeClient client, Console console,
        CommandLine commandLine, CountDownLatch stop, @Nullable Runnable crash)
        throws InterruptedException {
      Clock clock = Clock.system();
      long deadline = Main.deadline(clock, commandLine.duration());
      List<Runnable> steps = new ArrayList<>();
      if (cluster.writable()) {
        List<Runnable> changes = steps(client, console);
        steps.addAll(changes.subList(0, 2));
        if (crash != null) {
          steps.add(crash);
        }
        steps.addAll(changes.subList(2, changes.size()));
      }
      for (Runnable step : steps) {
        if (Main.waitOrEnd(stop, clock, deadline, Duration.ofSeconds(2))) {
          break;
        }
        step.run();
      }
      while (!Main.waitOrEnd(stop, clock, deadline, Duration.ofSeconds(60))) {
        // keep going until the deadline or Ctrl-C
      }
    }

    static List<Runnable> steps(KubeClient client, Console console) {
      var source = client.resources(ConfigMap.class).inNamespace("source");
      var namespaceClient = client.resources(Namespace.class);
      List<Runnable> steps = new ArrayList<>();
      steps.add(
          () -> {
            console.row("CHANGE", "source/feature-flags", "new-ui=true");
            ConfigMap cm = source.get("feature-flags").orElseThrow();
            source.update(new ConfigMapBuilder(cm).addToData("new-ui", "true").build());
          });
      steps.add(
          () -> {
            console.row("CHANGE", "namespace scratch", "becomes a target");
            Namespace ns = namespaceClient.get("scratch").orElseThrow();
            namespaceClient.update(
                new NamespaceBuilder(ns).editMetadata().addToLabels(TARGET_LABEL, "true")
                    .endMetadata().build());
          });
      steps.add(
          () -> {
            console.row("CHANGE", "team-a/app-settings", "someone deletes the copy");
            client.resources(ConfigMap.class).inNamespace("team-a").delete("app-settings");
          });
      steps.add(
          () -> {
            console.row("CHANGE", "source/app-settings", "deleted at the source");
            source.delete("app-settings");
          });
      return steps;
    }

    static ConfigMap configMap(
        String ns, String name, boolean replicate, Map<String, String> data) {
      ConfigMapBuilder b =
          new ConfigMapBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
              .withData(data);
      if (replicate) {
        b.editMetadata().addToLabels(REPLICATE_LABEL, "true").endMetadata();
      }
      return b.build();
    }
  }
}

package io.kinformer.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerHealth;
import io.kinformer.cache.InformerMetricsProvider;
import io.kinformer.cache.Informers;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.MultiNamespaceInformer;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.cache.WatchErrorHandler;
import io.kinformer.client.internal.codec.UndecodableObjects;
import io.kinformer.client.internal.http.Discovery;
import io.kinformer.client.internal.http.FieldSelectors;
import io.kinformer.time.Backoff;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out one shared informer per resource and option set, starts them together, waits for
 * their caches, and shuts them all down (client-go's {@code SharedInformerFactory}).
 *
 * <pre>{@code
 * try (KubeClient client = KubeClient.create(KubeConfig.load());
 *      SharedInformerFactory factory = SharedInformerFactory.builder(client)
 *          .defaultResync(Duration.ofMinutes(10))
 *          .build()) {
 *   SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
 *   pods.addEventHandler(handler);
 *   factory.start();
 *   if (!factory.waitForCacheSync(Duration.ofSeconds(30))) {
 *     throw new IllegalStateException("caches did not sync");
 *   }
 *   ...
 * }
 * }</pre>
 *
 * <p>What each informer caches: {@link CacheOptions} per resource ({@link Builder#byObject},
 * {@link Builder#byResource}) over the factory's defaults ({@link Builder#defaultCacheOptions}) say
 * which namespaces, selectors, transform, resync period and page size it uses, as
 * controller-runtime's {@code cache.Options{DefaultNamespaces, ByObject}}. An informer over
 * several namespaces is a {@link MultiNamespaceInformer}: one watch per namespace behind one
 * handle, with a merged cache, whose namespaces can change at run time.
 *
 * <p>Sharing: asking twice for the same resource with the same effective options returns the
 * same informer, so a process that needs pods in three places still holds one cache and one
 * watch. Informers of one factory share the client's HTTP connection pool (one HTTP/2 connection
 * carries all their watches when the server speaks HTTP/2) and one bounded pool of delivery
 * threads ({@code kinformer-delivery-N}, one less than the processors, at least 1: see {@link
 * Informers#newDeliveryExecutor(String, int)}) that also runs their processing, so the thread count
 * grows with informers (one each: its reflector), not with handlers. Handlers take turns on that
 * pool: a handler
 * that blocks holds one of its threads, and when all are held for over a second the pool adds
 * temporary ones and logs a WARN naming the handlers; keep handlers quick.
 *
 * <p>Thread safety: thread-safe.
 */
public final class SharedInformerFactory implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SharedInformerFactory.class);

  private final KubeClient client;
  private final CacheOptions defaults;
  private final Map<Gvr, CacheOptions> byResource;
  private final @Nullable WatchErrorHandler watchErrorHandler;
  private final StartPolicy startPolicy;
  private final boolean stopWhenResourceRemoved;
  private final Clock clock;
  private final Scheduler scheduler;
  private final boolean streamingList;
  private final Backoff.Policy backoff;
  private final @Nullable InformerMetricsProvider metrics;
  private final ExecutorService deliveryExecutor;
  private final Discovery discovery;

  private final Object lock = new Object();
  // @GuardedBy("lock")
  private final Map<Key, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
  // @GuardedBy("lock"): how many informerFor calls handed out each informer, less its releases.
  private final Map<SharedIndexInformer<?>, Integer> references = new IdentityHashMap<>();
  // @GuardedBy("lock")
  private boolean closed;

  private SharedInformerFactory(Builder b) {
    this.client = b.client;
    this.defaults = b.defaults;
    this.byResource = Map.copyOf(b.byResource);
    this.watchErrorHandler =
        b.watchErrorHandler == null ? null : oneCallAtATime(b.watchErrorHandler);
    this.startPolicy = b.startPolicy;
    this.stopWhenResourceRemoved = b.stopWhenResourceRemoved;
    this.clock = b.clock;
    this.scheduler = b.scheduler;
    this.streamingList = b.streamingList;
    this.backoff = b.backoff;
    this.metrics = b.metrics;
    this.deliveryExecutor = Informers.newDeliveryExecutor("kinformer-delivery-");
    this.discovery = client.discovery();
  }

  /**
   * {@code handler}, called by one thread at a time although every informer's reflector reports to
   * it, as {@link WatchErrorHandler} promises its implementations. A reflector waiting for its turn
   * gives it up when interrupted (its informer is closing), so that a close() made from the
   * handler, which joins the other reflectors, does not wait for them.
   */
  private static WatchErrorHandler oneCallAtATime(WatchErrorHandler handler) {
    ReentrantLock turn = new ReentrantLock();
    return error -> {
      try {
        turn.lockInterruptibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      try {
        handler.onWatchError(error);
      } finally {
        turn.unlock();
      }
    };
  }

  /** A builder for a factory whose informers use {@code client}. */
  public static Builder builder(KubeClient client) {
    return new Builder(client);
  }

  /**
   * The options of one informer: which objects it watches. Informers are shared per resource and
   * equal options.
   *
   * <p>Thread safety: immutable.
   *
   * @param namespace the namespace to watch, or null for all namespaces (ignored for
   *     cluster-scoped resources); {@code ""} also means all namespaces, as client-go's {@code
   *     metav1.NamespaceAll}, and is stored as null
   * @param labelSelector a label selector, or null; {@code ""} (select everything) is stored as null
   * @param fieldSelector a field selector, or null; {@code ""} is stored as null
   */
  public record InformerOptions(
      @Nullable String namespace, @Nullable String labelSelector, @Nullable String fieldSelector) {

    /**
     * Stores empty strings as null, so that equal listings share one informer.
     *
     * @throws IllegalArgumentException if a selector's syntax is wrong (checked here, as the API
     *     server would, so that it is not refused with a 400 on every list)
     */
    public InformerOptions {
      namespace = emptyToNull(namespace);
      labelSelector = emptyToNull(labelSelector);
      fieldSelector = emptyToNull(fieldSelector);
      if (labelSelector != null) {
        LabelSelector.parse(labelSelector);
      }
      if (fieldSelector != null) {
        FieldSelectors.validate(fieldSelector);
      }
    }

    private static @Nullable String emptyToNull(@Nullable String s) {
      return s == null || s.isEmpty() ? null : s;
    }

    /** All namespaces, no selectors. */
    public static InformerOptions all() {
      return new InformerOptions(null, null, null);
    }

    /** One namespace, no selectors. */
    public static InformerOptions inNamespace(String namespace) {
      return new InformerOptions(namespace, null, null);
    }

    /** These options with another label selector. */
    public InformerOptions withLabelSelector(@Nullable String selector) {
      return new InformerOptions(namespace, selector, fieldSelector);
    }

    /** These options with another field selector. */
    public InformerOptions withFieldSelector(@Nullable String selector) {
      return new InformerOptions(namespace, labelSelector, selector);
    }
  }

  /**
   * An informer's options once resolved: the resource's {@link CacheOptions} over the factory's
   * defaults, and explicit {@link InformerOptions} over both. Informers are shared per resource and
   * equal effective options.
   *
   * @param namespaces sorted; empty for all namespaces (and for cluster-scoped resources)
   * @param multi whether the informer is a {@link MultiNamespaceInformer}
   */
  private record Effective(
      List<String> namespaces,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      @Nullable UnaryOperator<HasMetadata> transform,
      Duration resync,
      long pageSize,
      boolean multi) {}

  private record Key(ResourceType<?> type, Effective options) {}

  /**
   * The informer for a fabric8 model class, with the options configured for its resource ({@link
   * Builder#byObject}, {@link Builder#byResource}) over the factory's defaults. With two or more
   * namespaces it is a {@link MultiNamespaceInformer}.
   */
  public <T extends HasMetadata> SharedIndexInformer<T> informerFor(Class<T> modelClass) {
    return informerFor(ResourceType.of(modelClass), null, false);
  }

  /**
   * The informer for a fabric8 model class over the namespaces configured for its resource, as a
   * {@link MultiNamespaceInformer} whose namespaces can change at run time, even when one namespace
   * is configured. With two or more namespaces it is the instance {@link #informerFor(Class)}
   * returns.
   *
   * @throws IllegalArgumentException if no namespace is configured for the resource (all
   *     namespaces), or it is cluster-scoped
   * @throws IllegalStateException if the factory is closed
   */
  public <T extends HasMetadata> MultiNamespaceInformer<T> multiNamespaceInformerFor(
      Class<T> modelClass) {
    return (MultiNamespaceInformer<T>) informerFor(ResourceType.of(modelClass), null, true);
  }

  /**
   * As {@link #multiNamespaceInformerFor(Class)}, for the dynamic informer of any resource.
   *
   * @throws io.kinformer.cache.ApiException if discovery fails or the server has no such resource
   */
  public MultiNamespaceInformer<GenericKubernetesResource> multiNamespaceInformerFor(
      Gvr gvr) {
    requireOpen(gvr);
    Discovery.Resource r = discovery.resource(gvr);
    return (MultiNamespaceInformer<GenericKubernetesResource>)
        informerFor(ResourceType.dynamic(gvr, r.kind(), r.namespaced()), null, true);
  }

  /**
   * The informer for a fabric8 model class in the namespace and with the selectors of {@code
   * options} (which override the resource's {@link CacheOptions} for these); the transform, resync
   * period and page size come from the resource's {@link CacheOptions} and the defaults.
   */
  public <T extends HasMetadata> SharedIndexInformer<T> informerFor(
      Class<T> modelClass, InformerOptions options) {
    return informerFor(ResourceType.of(modelClass), options);
  }

  /**
   * The dynamic informer for any resource, objects as {@link GenericKubernetesResource}. The
   * resource's kind and scope are looked up once by API discovery.
   *
   * @throws io.kinformer.cache.ApiException if discovery fails or the server has no such resource
   * @throws IllegalStateException if the factory is closed
   */
  public SharedIndexInformer<GenericKubernetesResource> informerFor(Gvr gvr) {
    requireOpen(gvr);
    Discovery.Resource r = discovery.resource(gvr);
    return informerFor(ResourceType.dynamic(gvr, r.kind(), r.namespaced()), null, false);
  }

  /** As {@link #informerFor(Gvr)}, with the given options. */
  public SharedIndexInformer<GenericKubernetesResource> informerFor(
      Gvr gvr, InformerOptions options) {
    requireOpen(gvr);
    Discovery.Resource r = discovery.resource(gvr);
    return informerFor(ResourceType.dynamic(gvr, r.kind(), r.namespaced()), options);
  }

  /**
   * A metadata-only informer: objects as {@link PartialObjectMetadata} (name, namespace, labels,
   * annotations, owners, resourceVersion...), which costs a fraction of the memory of full objects.
   */
  public SharedIndexInformer<PartialObjectMetadata> metadataInformerFor(Gvr gvr) {
    requireOpen(gvr);
    Discovery.Resource r = discovery.resource(gvr);
    return informerFor(ResourceType.metadataOnly(gvr, r.kind(), r.namespaced()), null, false);
  }

  /** As {@link #metadataInformerFor(Gvr)}, with the given options. */
  public SharedIndexInformer<PartialObjectMetadata> metadataInformerFor(
      Gvr gvr, InformerOptions options) {
    requireOpen(gvr);
    Discovery.Resource r = discovery.resource(gvr);
    return informerFor(ResourceType.metadataOnly(gvr, r.kind(), r.namespaced()), options);
  }

  /**
   * The informer for any {@link ResourceType} and options: created on first request, the same
   * instance afterwards. {@code options} decide the namespace and selectors; the transform, resync
   * period and page size come from the resource's {@link CacheOptions} and the defaults.
   *
   * @throws IllegalStateException if the factory is closed
   */
  public <T extends HasMetadata> SharedIndexInformer<T> informerFor(
      ResourceType<T> type, InformerOptions options) {
    return informerFor(type, Objects.requireNonNull(options, "options"), false);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> informerFor(
      ResourceType<T> type, @Nullable InformerOptions explicit, boolean multiWanted) {
    Objects.requireNonNull(type, "type");
    Effective effective = resolve(type, explicit, multiWanted);
    Key key = new Key(type, effective);
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("factory is closed: no informer for " + type);
      }
      @SuppressWarnings("unchecked")
      SharedIndexInformer<T> existing = (SharedIndexInformer<T>) informers.get(key);
      if (existing != null) {
        references.merge(existing, 1, Integer::sum);
        return existing;
      }
      String nsPart =
          effective.multi()
              ? "{" + String.join(",", effective.namespaces()) + "}"
              : effective.namespaces().isEmpty() ? null : effective.namespaces().get(0);
      SharedIndexInformer<T> created =
          create(type, effective, uniqueNameLocked(informerName(type, nsPart, effective)));
      informers.put(key, created);
      references.put(created, 1);
      return created;
    }
  }

  /**
   * Gives up one reference to {@code informer}: every {@code informerFor} (or {@code
   * metadataInformerFor}, {@code multiNamespaceInformerFor}) call that returned it took one. When
   * the last one is given up, the informer is closed and forgotten, so that a later request makes
   * a new one; the factory's other informers go on. A component that asks for an informer when it
   * starts and releases it when it stops thus never stops an informer another component still
   * uses. client-go's factory has no such call; an informer that nobody releases lives until the
   * factory is closed, as there.
   *
   * @return true if this was the last reference and the informer is now closed
   * @throws IllegalArgumentException if {@code informer} is not this factory's, or was released as
   *     often as it was handed out
   */
  public boolean release(SharedIndexInformer<?> informer) {
    Objects.requireNonNull(informer, "informer");
    synchronized (lock) {
      Integer refs = references.get(informer);
      if (refs == null) {
        throw new IllegalArgumentException(
            informer.name() + " is not an informer of this factory, or was released already");
      }
      if (refs > 1) {
        references.put(informer, refs - 1);
        return false;
      }
      references.remove(informer);
      informers.values().removeIf(i -> i == informer);
    }
    informer.close();
    log.debug("released and closed informer {}", informer.name());
    return true;
  }

  /** Refuses a closed factory before discovery, which would otherwise fail first or go unused. */
  private void requireOpen(Gvr gvr) {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("factory is closed: no informer for " + gvr);
      }
    }
  }

  /** The options of {@code type}'s informer: see {@link Effective}. */
  private Effective resolve(
      ResourceType<?> type, @Nullable InformerOptions explicit, boolean multiWanted) {
    CacheOptions o = byResource.getOrDefault(type.gvr(), CacheOptions.unset()).orElse(defaults);
    if (explicit != null) {
      o =
          o.toBuilder()
              .namespaces(explicit.namespace() == null ? List.of() : List.of(explicit.namespace()))
              .labelSelector(Objects.requireNonNullElse(explicit.labelSelector(), ""))
              .fieldSelector(Objects.requireNonNullElse(explicit.fieldSelector(), ""))
              .build();
    }
    List<String> namespaces =
        type.namespaced() && o.namespaces() != null
            ? List.copyOf(new TreeSet<>(o.namespaces()))
            : List.of();
    if (multiWanted && namespaces.isEmpty()) {
      throw new IllegalArgumentException(
          "no namespaces configured for "
              + type.gvr()
              + (type.namespaced() ? "" : " (cluster-scoped)")
              + ": a multi-namespace informer needs CacheOptions.namespaces, set by"
              + " defaultCacheOptions, byResource or byObject");
    }
    UnaryOperator<HasMetadata> transform =
        o.transform() == UnaryOperator.<HasMetadata>identity() ? null : o.transform();
    return new Effective(
        namespaces,
        emptyToNull(o.labelSelector()),
        emptyToNull(o.fieldSelector()),
        transform,
        Objects.requireNonNullElse(o.resyncPeriod(), Duration.ZERO),
        o.pageSize() == null ? -1 : o.pageSize(),
        multiWanted || namespaces.size() > 1);
  }

  private static @Nullable String emptyToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private <T extends HasMetadata> SharedIndexInformer<T> create(
      ResourceType<T> type, Effective options, String name) {
    if (!options.multi()) {
      String ns = options.namespaces().isEmpty() ? null : options.namespaces().get(0);
      return createOne(type, options, ns, name);
    }
    MultiNamespaceInformer<T> informer =
        MultiNamespaceInformer.create(
            name, options.namespaces(), ns -> createPart(type, options, ns), deliveryExecutor);
    log.debug("created informer {}", name);
    return informer;
  }

  /** A namespace's informer of a multi-namespace informer, named as a one-namespace informer. */
  private <T extends HasMetadata> SharedIndexInformer<T> createPart(
      ResourceType<T> type, Effective options, String namespace) {
    String name;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("factory is closed: no informer for " + type);
      }
      name = uniqueNameLocked(informerName(type, namespace, options));
    }
    return createOne(type, options, namespace, name);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> createOne(
      ResourceType<T> type, Effective options, @Nullable String namespace, String name) {
    ResourceClient<T> resources = client.resources(type);
    resources = namespace != null ? resources.inNamespace(namespace) : resources.inAnyNamespace();
    resources = resources.withLabelSelector(options.labelSelector()).withFieldSelector(options.fieldSelector());
    SharedIndexInformer.Builder<T> builder =
        SharedIndexInformer.builder(name, listerWatcher(resources, type, name))
            .defaultResync(options.resync())
            .clock(clock)
            .scheduler(scheduler)
            .deliveryExecutor(deliveryExecutor)
            .streamingList(streamingList)
            .backoff(backoff)
            .expectedKind(type.watchApiVersion(), type.watchKind());
    if (metrics != null) {
      builder.metrics(metrics, informerId(type, name));
    }
    if (options.pageSize() >= 0) {
      builder.pageSize(options.pageSize());
    }
    SharedIndexInformer<T> informer = builder.build();
    if (options.transform() != null) {
      UnaryOperator<HasMetadata> t = options.transform();
      informer.setTransform(obj -> type.javaType().cast(t.apply(obj)));
    }
    if (watchErrorHandler != null || startPolicy != StartPolicy.RETRY || stopWhenResourceRemoved) {
      informer.setWatchErrorHandler(withPolicies(informer, watchErrorHandler));
    }
    log.debug("created informer {}", name);
    return informer;
  }

  /**
   * What an informer does when its first list is refused (403: RBAC; 404: the resource is not
   * served, a CustomResourceDefinition not installed).
   *
   * <p>Thread safety: immutable.
   */
  public enum StartPolicy {
    /**
     * Retry with backoff and report each failure to the watch error handler and in {@link
     * SharedIndexInformer#health()}, as client-go does: an RBAC rule or a CRD added later is picked
     * up without a restart. The default.
     */
    RETRY,
    /**
     * Stop the informer at the first 403 or 404 before it has synced, with a WARN naming it and the
     * error: {@code waitForCacheSync} then returns false without waiting out its timeout, {@link
     * SyncResult} names the error, and the informer's health is terminal (so {@link
     * InformerProbes}' liveness fails). For applications that would rather exit than run without
     * that cache.
     */
    FAIL_FAST
  }

  /** {@code user} (may be null), then the factory's failure policies for {@code informer}. */
  private WatchErrorHandler withPolicies(
      SharedIndexInformer<?> informer, @Nullable WatchErrorHandler user) {
    return error -> {
      if (user != null) {
        user.onWatchError(error);
      }
      int code = error.apiError().map(ApiException::code).orElse(0);
      boolean synced = informer.hasSynced();
      String why = null;
      if (!synced && startPolicy == StartPolicy.FAIL_FAST && (code == 403 || code == 404)) {
        why = "its first list was refused (start policy FAIL_FAST)";
      } else if (synced && stopWhenResourceRemoved && code == 404) {
        why = "its resource is no longer served (stopWhenResourceRemoved)";
      }
      if (why != null && !informer.isStopped()) {
        log.warn("{}: stopped: {}: {}", informer.name(), why, error.getMessage());
        informer.close();
      }
    };
  }

  /**
   * The informer's list and watch: objects that do not bind to the model class are skipped with a
   * WARN naming the informer, and counted in its metrics.
   */
  private <T extends HasMetadata> ListerWatcher<T> listerWatcher(
      ResourceClient<T> resources, ResourceType<T> type, String name) {
    InformerMetricsProvider.CounterMetric skipped = InformerMetricsProvider.NO_COUNTER;
    InformerMetricsProvider.AmountMetric bytes = InformerMetricsProvider.NO_AMOUNT;
    if (metrics != null) {
      InformerMetricsProvider.InformerId id = informerId(type, name);
      skipped = metrics.newUndecodableObjectsMetric(id);
      bytes = metrics.newDecodedBytesMetric(id);
    }
    return resources.listerWatcher(
        UnaryOperator.identity(), new UndecodableObjects(name, skipped::inc), bytes::add);
  }


  private static InformerMetricsProvider.InformerId informerId(ResourceType<?> type, String name) {
    Gvr gvr = type.gvr();
    return new InformerMetricsProvider.InformerId(name, gvr.group(), gvr.version(), gvr.resource());
  }

  /**
   * The informer's name, unique in this factory: it keys {@link #informers()} and {@link
   * #waitForCacheSyncByInformer}, and names threads. A typed and a dynamic informer of the same
   * resource are told apart by {@code (dynamic)}; any other clash (two model classes of one
   * resource) by a {@code #N} suffix.
   */
  private String uniqueNameLocked(String base) {
    String name = base;
    for (int n = 2; nameTakenLocked(name); n++) {
      name = base + "#" + n;
    }
    return name;
  }

  private boolean nameTakenLocked(String name) {
    for (SharedIndexInformer<?> i : informers.values()) {
      if (i.name().equals(name)) {
        return true;
      }
      if (i instanceof MultiNamespaceInformer<?> m) {
        for (String ns : m.namespaces()) {
          if (m.informerFor(ns).map(p -> p.name().equals(name)).orElse(false)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * {@code group/version/resource}, then {@code (metadata)} or {@code (dynamic)}, {@code @ns} (or
   * {@code @{a,b}} for several), {@code [labels]} and <code>{fields}</code>.
   */
  private static String informerName(
      ResourceType<?> type, @Nullable String namespaces, Effective o) {
    StringBuilder sb = new StringBuilder(type.gvr().toString());
    if (type.isMetadataOnly()) {
      sb.append("(metadata)");
    } else if (type.javaType() == GenericKubernetesResource.class) {
      sb.append("(dynamic)");
    }
    if (namespaces != null) {
      sb.append('@').append(namespaces);
    }
    if (o.labelSelector() != null) {
      sb.append('[').append(o.labelSelector()).append(']');
    }
    if (o.fieldSelector() != null) {
      sb.append('{').append(o.fieldSelector()).append('}');
    }
    return sb.toString();
  }

  /**
   * Starts every informer not started yet, including ones requested after an earlier start.
   * Returns at once. An informer closed on its own ({@link SharedIndexInformer#close()}) is left
   * closed, as client-go's factory never runs an informer twice.
   *
   * @throws IllegalStateException if the factory is closed
   */
  public void start() {
    List<SharedIndexInformer<?>> toStart;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("factory is closed");
      }
      toStart = new ArrayList<>(informers.values());
    }
    for (SharedIndexInformer<?> i : toStart) {
      if (i.isStopped()) {
        continue;
      }
      try {
        i.start();
      } catch (IllegalStateException closedMeanwhile) {
        if (!i.isStopped()) {
          throw closedMeanwhile;
        }
      }
    }
  }

  /**
   * Waits until every started informer has synced.
   *
   * @return true if all synced within {@code timeout}
   */
  public boolean waitForCacheSync(Duration timeout) {
    return Informers.waitForCacheSync(timeout, startedInformers());
  }

  /**
   * Waits until every started informer has synced, or the timeout passes, and tells which did.
   *
   * @return each started informer's name and whether it synced in time
   */
  public Map<String, Boolean> waitForCacheSyncByInformer(Duration timeout) {
    SharedIndexInformer<?>[] started = startedInformers();
    Informers.waitForCacheSync(timeout, started);
    Map<String, Boolean> result = new LinkedHashMap<>();
    for (SharedIndexInformer<?> i : started) {
      result.put(i.name(), i.hasSynced());
    }
    return result;
  }

  /**
   * Waits until every started informer has synced, or the timeout passes, and returns each one's
   * health: {@link SyncResult#notSynced()} names every informer that did not sync and its last
   * error (a 403 on the list, say).
   */
  public SyncResult waitForCacheSyncResult(Duration timeout) {
    SharedIndexInformer<?>[] started = startedInformers();
    Informers.waitForCacheSync(timeout, started);
    List<InformerHealth> health = new ArrayList<>(started.length);
    for (SharedIndexInformer<?> i : started) {
      health.add(i.health());
    }
    return new SyncResult(health);
  }

  /**
   * Every informer's health (started or not), ordered by name: a snapshot from {@link
   * SharedIndexInformer#health()} each, taken after the factory's lock is released; for probes see
   * {@link InformerProbes}.
   */
  public List<InformerHealth> health() {
    List<SharedIndexInformer<?>> all;
    synchronized (lock) {
      all = new ArrayList<>(informers.values());
    }
    List<InformerHealth> health = new ArrayList<>(all.size());
    for (SharedIndexInformer<?> i : all) {
      health.add(i.health());
    }
    health.sort(Comparator.comparing(InformerHealth::name));
    return List.copyOf(health);
  }

  /** The clock every informer of this factory runs on. */
  Clock clock() {
    return clock;
  }

  private SharedIndexInformer<?>[] startedInformers() {
    List<SharedIndexInformer<?>> started = new ArrayList<>();
    synchronized (lock) {
      for (SharedIndexInformer<?> i : informers.values()) {
        if (i.isStarted()) {
          started.add(i);
        }
      }
    }
    return started.toArray(SharedIndexInformer<?>[]::new);
  }

  /** The informers created so far, by name; an unmodifiable snapshot. */
  public Map<String, SharedIndexInformer<?>> informers() {
    synchronized (lock) {
      Map<String, SharedIndexInformer<?>> m = new HashMap<>();
      informers.values().forEach(i -> m.put(i.name(), i));
      return Map.copyOf(m);
    }
  }

  /** Same as {@link #close()}. */
  public void shutdown() {
    close();
  }

  /**
   * Closes every informer and the delivery threads, and returns once none of their threads runs.
   * The {@link KubeClient} stays open (it is the caller's). Idempotent, and as client-go's {@code
   * Shutdown}, every call returns only once everything has stopped, also when calls overlap: a
   * second call waits for the first one's work instead of returning at once. Called from a handler
   * (or a watch error handler), it does not wait for the call it is made from.
   */
  @Override
  public void close() {
    List<SharedIndexInformer<?>> all;
    synchronized (lock) {
      closed = true;
      all = new ArrayList<>(informers.values());
    }
    // Every call does the whole work: each step is idempotent, and a repeated step waits for the
    // one in progress (an informer's second close() waits for its first, except on that
    // informer's own threads; the pool's awaitTermination on one of its workers waits for the
    // others only), so no call returns early and none waits for itself.
    for (SharedIndexInformer<?> i : all) {
      i.close();
    }
    deliveryExecutor.shutdown();
    try {
      if (!deliveryExecutor.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("delivery threads still running 30 s after close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Builds a {@link SharedInformerFactory}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private final KubeClient client;
    private CacheOptions defaults = CacheOptions.unset();
    private final Map<Gvr, CacheOptions> byResource = new HashMap<>();
    private @Nullable WatchErrorHandler watchErrorHandler;
    private StartPolicy startPolicy = StartPolicy.RETRY;
    private boolean stopWhenResourceRemoved;
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private boolean streamingList = true;
    private Backoff.Policy backoff = Backoff.Policy.clientGoDefault();
    private @Nullable InformerMetricsProvider metrics;

    private Builder(KubeClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * The resync period of every informer's handlers by default (the default {@link
     * CacheOptions#resyncPeriod()}). Default zero (none).
     */
    public Builder defaultResync(Duration period) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("resync period must not be negative: " + period);
      }
      this.defaults = defaults.toBuilder().resyncPeriod(period).build();
      return this;
    }

    /**
     * A resync period for one resource, overriding the default (the same as {@link #byResource}
     * with only {@link CacheOptions#resyncPeriod()} set).
     */
    public Builder resync(Gvr gvr, Duration period) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("resync period must not be negative: " + period);
      }
      return byResource(gvr, CacheOptions.builder().resyncPeriod(period).build());
    }

    /**
     * Informers requested without options watch only this namespace (client-go's {@code
     * WithNamespace}). Default, and {@code ""} ({@code metav1.NamespaceAll}): all namespaces.
     */
    public Builder namespace(String namespace) {
      Objects.requireNonNull(namespace, "namespace");
      this.defaults =
          defaults.toBuilder()
              .namespaces(namespace.isEmpty() ? List.of() : List.of(namespace))
              .build();
      return this;
    }

    /**
     * Informers requested without options use this namespace and these selectors by default (a
     * resource's {@link #byResource} entry still overrides them).
     */
    public Builder defaultOptions(InformerOptions options) {
      Objects.requireNonNull(options, "options");
      this.defaults =
          defaults.toBuilder()
              .namespaces(options.namespace() == null ? List.of() : List.of(options.namespace()))
              .labelSelector(Objects.requireNonNullElse(options.labelSelector(), ""))
              .fieldSelector(Objects.requireNonNullElse(options.fieldSelector(), ""))
              .build();
      return this;
    }

    /**
     * The factory-wide defaults of every resource's {@link CacheOptions} (controller-runtime's
     * {@code DefaultNamespaces}, {@code DefaultLabelSelector}...): each field set in {@code
     * options} replaces the default, fields it leaves unset keep theirs. {@link #defaultResync},
     * {@link #namespace}, {@link #defaultOptions} and {@link #transform} set fields of the same
     * defaults; the last call setting a field wins.
     */
    public Builder defaultCacheOptions(CacheOptions options) {
      this.defaults = Objects.requireNonNull(options, "options").orElse(defaults);
      return this;
    }

    /**
     * Options for one resource (controller-runtime's {@code ByObject}): the fields {@code options}
     * sets override the defaults for that resource's informers (typed, dynamic and metadata-only
     * alike); fields it leaves unset fall back to {@link #defaultCacheOptions}. Calls for the same
     * resource add up: a later call's set fields replace an earlier call's.
     */
    public Builder byResource(Gvr gvr, CacheOptions options) {
      Objects.requireNonNull(gvr, "gvr");
      Objects.requireNonNull(options, "options");
      byResource.merge(gvr, options, (earlier, later) -> later.orElse(earlier));
      return this;
    }

    /**
     * As {@link #byResource}, for the resource of a fabric8 model class.
     *
     * @throws IllegalArgumentException if the class has no {@code @Group}/{@code @Version}
     */
    public Builder byObject(Class<? extends HasMetadata> modelClass, CacheOptions options) {
      return byResource(ResourceType.of(modelClass).gvr(), options);
    }

    /**
     * A transform applied to every object of every informer before caching (see {@link
     * SharedIndexInformer#setTransform}), unless a resource's {@link CacheOptions#transform()}
     * replaces it; e.g. {@link Transforms#stripManagedFields()}. The default {@link
     * CacheOptions#transform()}. Every
     * informer's reflector thread calls it, concurrently: it must be thread-safe (as client-go's
     * {@code WithTransform} function, shared the same way).
     */
    public Builder transform(UnaryOperator<HasMetadata> transform) {
      Objects.requireNonNull(transform, "transform");
      this.defaults = defaults.toBuilder().transform(transform).build();
      return this;
    }

    /**
     * Told about every failed list/watch attempt of every informer (see {@link
     * ReflectorException#reflectorName()} for which). Calls come from the informers' reflector
     * threads but one at a time, as for a single informer; a slow handler therefore delays the
     * other informers' retries.
     */
    public Builder watchErrorHandler(WatchErrorHandler handler) {
      this.watchErrorHandler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * What informers do when their first list gets a 403 or 404. Default {@link
     * StartPolicy#RETRY}, as client-go.
     */
    public Builder startPolicy(StartPolicy policy) {
      this.startPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Stop an informer, instead of retrying for ever, when its resource is no longer served after
     * it synced (a 404 on a relist or watch: its CustomResourceDefinition was deleted), with a
     * WARN; its health is then terminal. The factory's other informers go on. Default false: retry,
     * as client-go, so that a CRD that is recreated is picked up again.
     */
    public Builder stopWhenResourceRemoved(boolean stop) {
      this.stopWhenResourceRemoved = stop;
      return this;
    }

    /**
     * Begin each informer's list-and-watch cycle with a streaming list ({@code sendInitialEvents}),
     * falling back to a list when the server refuses it (servers before 1.27, or with the
     * WatchList gate off). Default true, as client-go 1.36.
     */
    public Builder streamingList(boolean streamingList) {
      this.streamingList = streamingList;
      return this;
    }

    /**
     * The backoff of every informer between failed list/watch attempts, each its own from {@code
     * policy}. Default {@link Backoff.Policy#clientGoDefault} (0.8 s doubling to 30 s, with
     * jitter); tests that provoke failures may shorten it.
     */
    public Builder backoff(Backoff.Policy policy) {
      this.backoff = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Publishes client-go's informer metrics of every informer through {@code provider} (for
     * example informer-micrometer's {@code MicrometerMetrics}), labelled with the informer's name
     * in this factory (as {@link SharedInformerFactory#informers()} keys it, such as {@code
     * apps/v1/deployments@ns}) and its resource's group, version and resource. An informer's
     * metrics name must be unique in the process while the informer lives: two factories with
     * metrics in one process must not make informers of the same name (the second one's creation
     * fails). Default none.
     */
    public Builder metrics(InformerMetricsProvider provider) {
      this.metrics = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** The clock of every informer. Default {@link Clock#system()}. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The scheduler of every informer. Default {@link Scheduler#system()}. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Builds the factory. */
    public SharedInformerFactory build() {
      return new SharedInformerFactory(this);
    }
  }
}

package io.kinformer.micrometer;

import io.kinformer.cache.InformerMetricsProvider;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.ResourceEventHandlerRegistration;
import io.kinformer.cache.ReflectorMetrics;
import io.kinformer.cache.WatchEventType;
import io.kinformer.workqueue.MetricsProvider;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Publishes kinformer's metrics through a Micrometer {@link MeterRegistry}: the work-queue metrics
 * of {@link MetricsProvider} and client-go's informer metrics of {@link InformerMetricsProvider},
 * under names that a Prometheus registry renders exactly as client-go's.
 *
 * <p>Give it to queues and informers:
 *
 * <pre>{@code
 * MicrometerMetrics metrics = new MicrometerMetrics(registry);
 * WorkQueue<String> queue =
 *     WorkQueue.create(QueueOptions.builder().name("pods").metricsProvider(metrics).build());
 * SharedIndexInformer<Pod> informer = SharedIndexInformer.builder("pods", listerWatcher)
 *     .metrics(metrics, new InformerId("pods", "", "v1", "pods"))
 *     .build();
 * }</pre>
 *
 * <p>Micrometer names are dot-separated and carry no unit or {@code _total} suffix: each registry
 * applies its own naming convention. Under Prometheus's convention dots become underscores, a
 * counter gets {@code _total} and a timer its base unit, {@code _seconds}, so that:
 *
 * <table>
 *   <caption>Meters and their Prometheus names</caption>
 *   <tr><th>Micrometer name</th><th>type</th><th>Prometheus (client-go) name</th><th>tags</th></tr>
 *   <tr><td>{@code workqueue.depth}</td><td>gauge</td><td>{@code workqueue_depth}</td>
 *       <td>{@code name}; {@code name priority} for a {@link
 *       io.kinformer.workqueue.PriorityQueue}</td></tr>
 *   <tr><td>{@code workqueue.adds}</td><td>counter</td><td>{@code workqueue_adds_total}</td>
 *       <td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue.queue.duration}</td><td>timer</td>
 *       <td>{@code workqueue_queue_duration_seconds}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue.work.duration}</td><td>timer</td>
 *       <td>{@code workqueue_work_duration_seconds}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue.unfinished.work.seconds}</td><td>gauge</td>
 *       <td>{@code workqueue_unfinished_work_seconds}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue.longest.running.processor.seconds}</td><td>gauge</td>
 *       <td>{@code workqueue_longest_running_processor_seconds}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue.retries}</td><td>counter</td><td>{@code workqueue_retries_total}</td>
 *       <td>{@code name}</td></tr>
 *   <tr><td>{@code informer.queued.items}</td><td>gauge</td><td>{@code informer_queued_items}</td>
 *       <td>{@code name group version resource}</td></tr>
 *   <tr><td>{@code informer.processing.latency}</td><td>timer</td>
 *       <td>{@code informer_processing_latency_seconds}</td>
 *       <td>{@code name group version resource}</td></tr>
 *   <tr><td>{@code informer.store.resource.version}</td><td>gauge</td>
 *       <td>{@code informer_store_resource_version}</td>
 *       <td>{@code name group version resource}</td></tr>
 *   <tr><td>{@code informer.undecodable.objects}</td><td>counter</td>
 *       <td>{@code informer_undecodable_objects_total} (kinformer's own)</td>
 *       <td>{@code name group version resource}</td></tr>
 *   <tr><td>{@code informer.decoded.bytes}</td><td>counter</td>
 *       <td>{@code informer_decoded_bytes_total} (kinformer's own)</td>
 *       <td>{@code name group version resource}</td></tr>
 *   <tr><td>{@code informer.handler.pending.notifications}</td><td>gauge</td>
 *       <td>{@code informer_handler_pending_notifications} (kinformer's own)</td>
 *       <td>the informer's, and {@code handler}</td></tr>
 *   <tr><td>{@code informer.handler.delivery.latency}</td><td>timer</td>
 *       <td>{@code informer_handler_delivery_latency_seconds} (kinformer's own)</td>
 *       <td>the informer's, and {@code handler}</td></tr>
 *   <tr><td>{@code informer.handler.call.duration}</td><td>timer</td>
 *       <td>{@code informer_handler_call_duration_seconds} (kinformer's own)</td>
 *       <td>the informer's, and {@code handler}</td></tr>
 *   <tr><td>{@code reflector.lists}, {@code reflector.watches}</td><td>counters</td>
 *       <td>{@code reflector_lists_total}, {@code reflector_watches_total} (kinformer's own)</td>
 *       <td>the informer's, and {@code kind} (list/stream, watch/stream)</td></tr>
 *   <tr><td>{@code reflector.items.per.list}</td><td>summary</td>
 *       <td>{@code reflector_items_per_list} (kinformer's own)</td>
 *       <td>the informer's</td></tr>
 *   <tr><td>{@code reflector.events}, {@code reflector.failures}</td><td>counters</td>
 *       <td>{@code reflector_events_total}, {@code reflector_failures_total} (kinformer's own)</td>
 *       <td>the informer's, and {@code type}; {@code phase} and {@code code}</td></tr>
 * </table>
 *
 * <p>The timers publish histograms with client-go's buckets: {@link #WORKQUEUE_BUCKETS} (10 ns to
 * 1000 s, by factors of ten) for the queue's durations, {@link #INFORMER_PROCESSING_BUCKETS} (1 ms
 * to 10 s) for the informer's processing latency. Queues of the same name, like client-go's
 * vectors, share one series per metric: their depths add up, and a settable gauge shows the last
 * value set. Meters stay registered after their queue or informer is gone, showing their last
 * value, as client-go's do.
 *
 * <p>Thread safety: thread-safe. Every metric it returns may be updated from any thread; updates
 * do not block (they are atomic updates of Micrometer meters and of this class's gauge values).
 */
public final class MicrometerMetrics implements MetricsProvider, InformerMetricsProvider {

  /** {@code workqueue_depth}. */
  public static final String WORKQUEUE_DEPTH = "workqueue.depth";
  /** {@code workqueue_adds_total}. */
  public static final String WORKQUEUE_ADDS = "workqueue.adds";
  /** {@code workqueue_queue_duration_seconds}. */
  public static final String WORKQUEUE_QUEUE_DURATION = "workqueue.queue.duration";
  /** {@code workqueue_work_duration_seconds}. */
  public static final String WORKQUEUE_WORK_DURATION = "workqueue.work.duration";
  /** {@code workqueue_unfinished_work_seconds}. */
  public static final String WORKQUEUE_UNFINISHED_WORK = "workqueue.unfinished.work.seconds";
  /** {@code workqueue_longest_running_processor_seconds}. */
  public static final String WORKQUEUE_LONGEST_RUNNING_PROCESSOR =
      "workqueue.longest.running.processor.seconds";
  /** {@code workqueue_retries_total}. */
  public static final String WORKQUEUE_RETRIES = "workqueue.retries";
  /** {@code informer_queued_items}. */
  public static final String INFORMER_QUEUED_ITEMS = "informer.queued.items";
  /** {@code informer_processing_latency_seconds}. */
  public static final String INFORMER_PROCESSING_LATENCY = "informer.processing.latency";
  /** {@code informer_store_resource_version}. */
  public static final String INFORMER_STORE_RESOURCE_VERSION = "informer.store.resource.version";
  /** {@code informer_decoded_bytes_total}: kinformer's own. */
  public static final String INFORMER_DECODED_BYTES = "informer.decoded.bytes";
  /** {@code informer_handler_pending_notifications}, tagged {@code handler}: kinformer's own. */
  public static final String INFORMER_HANDLER_PENDING = "informer.handler.pending.notifications";
  /** {@code informer_handler_delivery_latency_seconds}, tagged {@code handler}: kinformer's own. */
  public static final String INFORMER_HANDLER_DELIVERY_LATENCY = "informer.handler.delivery.latency";
  /** {@code informer_handler_call_duration_seconds}, tagged {@code handler}: kinformer's own. */
  public static final String INFORMER_HANDLER_CALL_DURATION = "informer.handler.call.duration";
  /** {@code reflector_lists_total}, tagged {@code kind} list or stream: kinformer's own. */
  public static final String REFLECTOR_LISTS = "reflector.lists";
  /** {@code reflector_items_per_list} (a summary): kinformer's own. */
  public static final String REFLECTOR_ITEMS_PER_LIST = "reflector.items.per.list";
  /** {@code reflector_watches_total}, tagged {@code kind} watch or stream: kinformer's own. */
  public static final String REFLECTOR_WATCHES = "reflector.watches";
  /** {@code reflector_events_total}, tagged {@code type}: kinformer's own. */
  public static final String REFLECTOR_EVENTS = "reflector.events";
  /** {@code reflector_failures_total}, tagged {@code phase} and {@code code}: kinformer's own. */
  public static final String REFLECTOR_FAILURES = "reflector.failures";
  /** {@code informer_undecodable_objects_total}: kinformer's own, not client-go's. */
  public static final String INFORMER_UNDECODABLE_OBJECTS = "informer.undecodable.objects";

  /** client-go's buckets of the work queue's durations: 10 ns to 1000 s, 12 by factors of ten. */
  public static final List<Duration> WORKQUEUE_BUCKETS = exponentialNanos(10, 10, 12);

  /** client-go's buckets of {@code informer_processing_latency_seconds}: 1 ms to 10 s. */
  public static final List<Duration> INFORMER_PROCESSING_BUCKETS =
      List.of(
          Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
          Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
          Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
          Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10));

  private final MeterRegistry registry;
  /** The value of every gauge made, by its name and tags: shared by all that update it. */
  private final ConcurrentHashMap<GaugeKey, GaugeValue> gauges = new ConcurrentHashMap<>();

  /** Publishes into {@code registry}. */
  public MicrometerMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The registry the meters are published into. */
  public MeterRegistry registry() {
    return registry;
  }

  // ---- work queue ------------------------------------------------------------------------------

  @Override
  public MetricsProvider.GaugeMetric newDepthMetric(String name) {
    GaugeValue depth = gauge(WORKQUEUE_DEPTH, queueTags(name), "Current depth of workqueue", null);
    return new MetricsProvider.GaugeMetric() {
      @Override
      public void inc() {
        depth.add(1);
      }

      @Override
      public void dec() {
        depth.add(-1);
      }
    };
  }

  /**
   * The depth of a {@link io.kinformer.workqueue.PriorityQueue}: one {@code workqueue.depth} gauge
   * per priority, tagged {@code name} and {@code priority} (controller-runtime's {@code priority}
   * label, a decimal integer), registered when the queue first holds a key of that priority.
   */
  @Override
  public MetricsProvider.DepthMetricWithPriority newDepthMetricWithPriority(String name) {
    ConcurrentHashMap<Integer, GaugeValue> byPriority = new ConcurrentHashMap<>();
    return new MetricsProvider.DepthMetricWithPriority() {
      @Override
      public void inc(int priority) {
        depth(priority).add(1);
      }

      @Override
      public void dec(int priority) {
        depth(priority).add(-1);
      }

      private GaugeValue depth(int priority) {
        return byPriority.computeIfAbsent(
            priority,
            p ->
                gauge(
                    WORKQUEUE_DEPTH,
                    queueTags(name).and("priority", p.toString()),
                    "Current depth of workqueue",
                    null));
      }
    };
  }

  @Override
  public MetricsProvider.CounterMetric newAddsMetric(String name) {
    return counter(WORKQUEUE_ADDS, name, "Total number of adds handled by workqueue")::increment;
  }

  @Override
  public MetricsProvider.HistogramMetric newLatencyMetric(String name) {
    Timer t =
        queueTimer(
            WORKQUEUE_QUEUE_DURATION,
            name,
            "How long in seconds an item stays in workqueue before being requested");
    return v -> record(t, v);
  }

  @Override
  public MetricsProvider.HistogramMetric newWorkDurationMetric(String name) {
    Timer t =
        queueTimer(
            WORKQUEUE_WORK_DURATION, name, "How long in seconds processing an item from workqueue takes");
    return v -> record(t, v);
  }

  @Override
  public SettableGaugeMetric newUnfinishedWorkSecondsMetric(String name) {
    String help =
        "How many seconds of work has done that is in progress and hasn't been observed by"
            + " work_duration. Large values indicate stuck threads. One can deduce the number"
            + " of stuck threads by observing the rate at which this increases.";
    return gauge(WORKQUEUE_UNFINISHED_WORK, queueTags(name), help, "seconds")::set;
  }

  @Override
  public SettableGaugeMetric newLongestRunningProcessorSecondsMetric(String name) {
    String help = "How many seconds has the longest running processor for workqueue been running.";
    return gauge(WORKQUEUE_LONGEST_RUNNING_PROCESSOR, queueTags(name), help, "seconds")::set;
  }

  @Override
  public MetricsProvider.CounterMetric newRetriesMetric(String name) {
    return counter(WORKQUEUE_RETRIES, name, "Total number of retries handled by workqueue")
        ::increment;
  }

  // ---- informer --------------------------------------------------------------------------------

  @Override
  public InformerMetricsProvider.GaugeMetric newQueuedItemMetric(InformerId id) {
    String help = "Number of items currently queued in the FIFO.";
    return gauge(INFORMER_QUEUED_ITEMS, informerTags(id), help, null)::set;
  }

  @Override
  public InformerMetricsProvider.HistogramMetric newProcessingLatencyMetric(InformerId id) {
    Timer t =
        timer(
            INFORMER_PROCESSING_LATENCY,
            informerTags(id),
            "Time taken to process events after popping from the queue.",
            INFORMER_PROCESSING_BUCKETS);
    return v -> record(t, v);
  }

  @Override
  public InformerMetricsProvider.GaugeMetric newStoreResourceVersionMetric(InformerId id) {
    String help = "The 15 least significant digits of the resource version of the store.";
    return gauge(INFORMER_STORE_RESOURCE_VERSION, informerTags(id), help, null)::set;
  }

  @Override
  public InformerMetricsProvider.CounterMetric newUndecodableObjectsMetric(InformerId id) {
    return Counter.builder(INFORMER_UNDECODABLE_OBJECTS)
        .tags(informerTags(id))
        .description("Objects skipped because they did not decode into their model class.")
        .register(registry)::increment;
  }

  @Override
  public InformerMetricsProvider.AmountMetric newDecodedBytesMetric(InformerId id) {
    Counter c = Counter.builder(INFORMER_DECODED_BYTES)
        .tags(informerTags(id))
        .description("Bytes of list and watch responses the informer decoded.")
        .register(registry);
    return c::increment;
  }

  @Override
  public InformerMetricsProvider.HandlerMetrics newHandlerMetrics(
      InformerId id, String handler, ResourceEventHandlerRegistration registration) {
    Tags tags = informerTags(id).and("handler", handler);
    // Weakly held, as Micrometer does by default: a removed handler's gauge then reads NaN.
    Gauge.builder(INFORMER_HANDLER_PENDING, registration,
            ResourceEventHandlerRegistration::pendingNotifications)
        .tags(tags)
        .description("Notifications queued for the handler and not yet delivered.")
        .register(registry);
    Timer calls = timer(INFORMER_HANDLER_CALL_DURATION, tags,
        "How long the handler took per notification.", WORKQUEUE_BUCKETS);
    Timer latency = timer(INFORMER_HANDLER_DELIVERY_LATENCY, tags,
        "How long a notification waited for the handler to be called with it.",
        WORKQUEUE_BUCKETS);
    return new InformerMetricsProvider.HandlerMetrics(
        v -> record(latency, v), v -> record(calls, v));
  }

  @Override
  public ReflectorMetrics newReflectorMetrics(InformerId id) {
    return new MicrometerReflectorMetrics(registry, informerTags(id));
  }

  /** kinformer's reflector counters, registered with an informer's tags. */
  private static final class MicrometerReflectorMetrics implements ReflectorMetrics {
    private final MeterRegistry registry;
    private final Tags tags;
    private final Counter lists;
    private final Counter streamedLists;
    private final DistributionSummary itemsPerList;
    private final Counter watches;
    private final Counter streams;
    private final Map<WatchEventType, Counter> events = new EnumMap<>(WatchEventType.class);

    MicrometerReflectorMetrics(MeterRegistry registry, Tags tags) {
      this.registry = registry;
      this.tags = tags;
      String listHelp = "Lists stored by the reflector: first lists and relists.";
      lists = counter(REFLECTOR_LISTS, tags.and("kind", "list"), listHelp);
      streamedLists = counter(REFLECTOR_LISTS, tags.and("kind", "stream"), listHelp);
      itemsPerList = DistributionSummary.builder(REFLECTOR_ITEMS_PER_LIST).tags(tags)
          .description("Objects per list stored by the reflector.").register(registry);
      String watchHelp = "Watches opened by the reflector.";
      watches = counter(REFLECTOR_WATCHES, tags.and("kind", "watch"), watchHelp);
      streams = counter(REFLECTOR_WATCHES, tags.and("kind", "stream"), watchHelp);
      for (WatchEventType t : WatchEventType.values()) {
        if (t != WatchEventType.ERROR) {
          events.put(t, counter(REFLECTOR_EVENTS, tags.and("type", t.name()),
              "Watch events received by the reflector, by type."));
        }
      }
    }

    private Counter counter(String name, Tags t, String help) {
      return Counter.builder(name).tags(t).description(help).register(registry);
    }

    @Override
    public void listed(boolean streamed, int items) {
      (streamed ? streamedLists : lists).increment();
      itemsPerList.record(items);
    }

    @Override
    public void watchOpened(boolean streaming) {
      (streaming ? streams : watches).increment();
    }

    @Override
    public void event(WatchEventType type) {
      Counter c = events.get(type);
      if (c != null) {
        c.increment();
      }
    }

    @Override
    public void failed(ReflectorException.Phase phase, int status) {
      counter(REFLECTOR_FAILURES,
          tags.and("phase", phase.name(), "code", status == 0 ? "none" : Integer.toString(status)),
          "Failed list and watch attempts of the reflector, by phase and HTTP status.")
          .increment();
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static Tags queueTags(String name) {
    return Tags.of("name", name);
  }

  private static Tags informerTags(InformerId id) {
    return Tags.of(
        "name", id.name(), "group", id.group(), "version", id.version(), "resource", id.resource());
  }

  private Counter counter(String meter, String queue, String help) {
    return Counter.builder(meter).tags(queueTags(queue)).description(help).register(registry);
  }

  private Timer timer(String meter, Tags tags, String help, List<Duration> buckets) {
    return Timer.builder(meter)
        .tags(tags)
        .description(help)
        .serviceLevelObjectives(buckets.toArray(Duration[]::new))
        .register(registry);
  }

  private Timer queueTimer(String meter, String queue, String help) {
    return timer(meter, queueTags(queue), help, WORKQUEUE_BUCKETS);
  }

  /** Records {@code seconds}, to the nanosecond; a negative or non-finite value is dropped. */
  private static void record(Timer t, double seconds) {
    if (seconds >= 0 && Double.isFinite(seconds)) {
      t.record(Math.round(seconds * 1e9), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The value of the gauge {@code meter} with {@code tags}: made and registered the first time,
   * shared after (registering a second gauge of the same name and tags would return the first
   * one, which reads the first value only).
   */
  private GaugeValue gauge(String meter, Tags tags, String help, @Nullable String baseUnit) {
    return gauges.computeIfAbsent(
        new GaugeKey(meter, tags),
        k -> {
          GaugeValue value = new GaugeValue();
          Gauge.builder(meter, value, GaugeValue::get)
              .tags(tags)
              .description(help)
              .baseUnit(baseUnit)
              .strongReference(true)
              .register(registry);
          return value;
        });
  }

  private static List<Duration> exponentialNanos(long start, long factor, int count) {
    List<Duration> d = new ArrayList<>(count);
    long v = start;
    for (int i = 0; i < count; i++) {
      d.add(Duration.ofNanos(v));
      v *= factor;
    }
    return List.copyOf(d);
  }

  private record GaugeKey(String meter, Tags tags) {}

  /** A double updated atomically, without locks. */
  private static final class GaugeValue {
    private final AtomicLong bits = new AtomicLong(Double.doubleToRawLongBits(0));

    double get() {
      return Double.longBitsToDouble(bits.get());
    }

    void set(double value) {
      bits.set(Double.doubleToRawLongBits(value));
    }

    void add(double delta) {
      long prev;
      long next;
      do {
        prev = bits.get();
        next = Double.doubleToRawLongBits(Double.longBitsToDouble(prev) + delta);
      } while (!bits.compareAndSet(prev, next));
    }
  }
}

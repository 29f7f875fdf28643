package io.kinformer.cache;

import java.util.Objects;

/**
 * Makes the metrics of an informer (client-go 1.36's {@code InformerMetricsProvider}, {@code
 * tools/cache/fifo_metrics.go}), under client-go's names and labels:
 *
 * <ul>
 *   <li>{@code informer_queued_items} (gauge): the deltas waiting in the informer's queue;
 *   <li>{@code informer_processing_latency_seconds} (histogram, client-go's buckets from 1 ms to
 *       10 s): how long processing a popped batch took, from pop to the notifications queued;
 *   <li>{@code informer_store_resource_version} (gauge): the cache's resourceVersion, as a number
 *       (its last 15 digits, as client-go).
 * </ul>
 *
 * <p>and one of kinformer's own, which client-go does not have (a Go client binds untyped objects
 * or fails the whole watch): {@code informer_undecodable_objects_total} (counter), the listed or
 * watched objects skipped because they did not bind to their Java model class.
 *
 * each labelled {@code name}, {@code group}, {@code version}, {@code resource} from the {@link
 * InformerId}. As in client-go, an informer publishes metrics only when it is given an identity
 * ({@link SharedIndexInformer.Builder#metrics}), whose name must then be unique in the process
 * while the informer lives. Module {@code informer-micrometer}'s {@code
 * io.kinformer.micrometer.MicrometerMetrics} maps each call to a Micrometer meter with those names
 * and tags.
 *
 * <p>Thread safety: implementations and the metrics they return must be thread-safe; the metrics
 * are updated from the informer's reflector and processing task. The queued-items gauge and the
 * latency histogram are updated holding none of the informer's locks; the store's
 * resourceVersion gauge is set while the store's write lock is held, as client-go's is. So they
 * must be fast and must not block or call back into the informer.
 */
public interface InformerMetricsProvider {

  /** {@code informer_queued_items} for {@code id}. */
  GaugeMetric newQueuedItemMetric(InformerId id);

  /** {@code informer_processing_latency_seconds} for {@code id}. */
  HistogramMetric newProcessingLatencyMetric(InformerId id);

  /** {@code informer_store_resource_version} for {@code id}. */
  GaugeMetric newStoreResourceVersionMetric(InformerId id);

  /**
   * {@code informer_undecodable_objects_total} for {@code id}: counts objects skipped because
   * they did not bind to the model class. Default: records nothing.
   */
  default CounterMetric newUndecodableObjectsMetric(InformerId id) {
    return NO_COUNTER;
  }

  /**
   * {@code informer_decoded_bytes_total} for {@code id} (kinformer's own): the bytes of list and
   * watch responses the informer decoded. Default: records nothing.
   */
  default AmountMetric newDecodedBytesMetric(InformerId id) {
    return NO_AMOUNT;
  }

  /**
   * The reflector's counters for {@code id} (kinformer's own: lists, watches, events by type,
   * failures by phase and status). Default: records nothing.
   */
  default ReflectorMetrics newReflectorMetrics(InformerId id) {
    return ReflectorMetrics.NONE;
  }

  /**
   * Per-handler metrics for one handler of {@code id} (kinformer's own): its backlog, to be read
   * from {@code registration.pendingNotifications()} when the metrics are collected (hold the
   * registration weakly: it is dropped when the handler is removed), and the returned
   * histograms: how long each notification waited for its call, and how long each call took, in
   * seconds. {@code handler} is the handler's name as logs show it ({@code toString()} if its class
   * declares one, else its class name). Called when the handler is added, holding none of the
   * informer's locks. Default: records nothing.
   */
  default HandlerMetrics newHandlerMetrics(
      InformerId id, String handler, ResourceEventHandlerRegistration registration) {
    return HandlerMetrics.NONE;
  }

  /**
   * The histograms of one handler.
   *
   * <p>Thread safety: immutable; the metrics must be thread-safe.
   *
   * @param deliveryLatency from a notification being queued for the handler to its call
   * @param callDuration how long a call of the handler took
   */
  record HandlerMetrics(HistogramMetric deliveryLatency, HistogramMetric callDuration) {
    /** The metrics that record nothing. */
    public static final HandlerMetrics NONE = new HandlerMetrics(NO_HISTOGRAM, NO_HISTOGRAM);

    /** Requires both. */
    public HandlerMetrics {
      Objects.requireNonNull(deliveryLatency, "deliveryLatency");
      Objects.requireNonNull(callDuration, "callDuration");
    }
  }

  /**
   * Who an informer is, for its metrics' labels (client-go's {@code InformerNameAndResource}).
   *
   * <p>Thread safety: immutable.
   *
   * @param name the informer's name, unique in the process while it lives
   * @param group the resource's API group ({@code ""} for the core group)
   * @param version the API version
   * @param resource the resource, plural (for example {@code pods})
   */
  record InformerId(String name, String group, String version, String resource) {
    /** Checks for null and a blank name. */
    public InformerId {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(group, "group");
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(resource, "resource");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
    }
  }

  /**
   * A value that is set.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface GaugeMetric {
    /** Sets the value. */
    void set(double value);
  }

  /**
   * Observations, in seconds.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface HistogramMetric {
    /** Records one observation. */
    void observe(double value);
  }

  /**
   * A count that goes up.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface CounterMetric {
    /** Adds one. */
    void inc();
  }

  /** The metric that records nothing. */
  GaugeMetric NO_GAUGE = v -> {};

  /**
   * A total that grows by varying amounts.
   *
   * <p>Thread safety: implementations must be thread-safe.
   */
  @FunctionalInterface
  interface AmountMetric {
    /** Adds {@code amount} (not negative). */
    void add(long amount);
  }

  /** The metric that records nothing. */
  CounterMetric NO_COUNTER = () -> {};

  /** The metric that records nothing. */
  AmountMetric NO_AMOUNT = n -> {};

  /** The metric that records nothing. */
  HistogramMetric NO_HISTOGRAM = v -> {};
}

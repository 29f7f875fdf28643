package io.kinformer.workqueue;

import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.util.Objects;

/**
 * How a queue is built (client-go's {@code TypedQueueConfig}): its name, its time source and
 * scheduler, and where its metrics go.
 *
 * <pre>{@code
 * QueueOptions options = QueueOptions.builder()
 *     .name("widgets")
 *     .metricsProvider(myProvider)
 *     .build();
 * RateLimitingQueue<String> queue =
 *     RateLimitingQueue.create(RateLimiters.defaultControllerRateLimiter(), options);
 * }</pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param name the queue's name, passed to the metrics provider; empty for an unnamed queue
 * @param clock the time source for delays and metrics
 * @param scheduler runs delayed additions and the periodic metrics update
 * @param metricsProvider receives the queue's metrics; {@link MetricsProvider#noop()} for none
 */
public record QueueOptions(
    String name, Clock clock, Scheduler scheduler, MetricsProvider metricsProvider) {

  private static final QueueOptions DEFAULTS = builder().build();

  /**
   * Validates the options.
   *
   * @throws IllegalArgumentException if a metrics provider other than {@link
   *     MetricsProvider#noop()} is given to an unnamed queue (metrics need a name, and client-go
   *     silently drops the metrics of unnamed queues instead)
   */
  public QueueOptions {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(metricsProvider, "metricsProvider");
    if (name.isBlank() && metricsProvider != MetricsProvider.noop()) {
      throw new IllegalArgumentException(
          "a queue with a metrics provider needs a name, got '" + name + "'");
    }
  }

  /** An unnamed queue on the system clock and scheduler, without metrics. */
  public static QueueOptions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder()
        .name(name)
        .clock(clock)
        .scheduler(scheduler)
        .metricsProvider(metricsProvider);
  }

  /** Whether metrics are reported at all. */
  boolean metricsEnabled() {
    return metricsProvider != MetricsProvider.noop();
  }

  /**
   * Builds {@link QueueOptions}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private String name = "";
    private Clock clock = Clock.system();
    private Scheduler scheduler = Scheduler.system();
    private MetricsProvider metricsProvider = MetricsProvider.noop();

    private Builder() {}

    /** The queue's name (default: empty, unnamed). */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** The time source (default {@link Clock#system()}). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The scheduler (default {@link Scheduler#system()}). */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets both the clock and the scheduler to {@code time}, as tests do with {@code
     * FakeClock}.
     */
    public <C extends Clock & Scheduler> Builder clockAndScheduler(C time) {
      return clock(time).scheduler(time);
    }

    /** Where metrics go (default {@link MetricsProvider#noop()}); needs a {@link #name}. */
    public Builder metricsProvider(MetricsProvider metricsProvider) {
      this.metricsProvider = Objects.requireNonNull(metricsProvider, "metricsProvider");
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException if a metrics provider is set without a name
     */
    public QueueOptions build() {
      return new QueueOptions(name, clock, scheduler, metricsProvider);
    }
  }
}

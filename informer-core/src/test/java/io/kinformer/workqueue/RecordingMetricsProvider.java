package io.kinformer.workqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** A metrics provider for tests: remembers every value each metric of each queue saw. */
final class RecordingMetricsProvider implements MetricsProvider {

  /** One recorded metric; thread-safe. */
  static final class Metric
      implements GaugeMetric, CounterMetric, SettableGaugeMetric, HistogramMetric {
    private final List<Double> observations = new CopyOnWriteArrayList<>();
    private long incs;
    private long decs;
    private double set;
    private boolean wasSet;

    @Override
    public synchronized void inc() {
      incs++;
    }

    @Override
    public synchronized void dec() {
      decs++;
    }

    @Override
    public synchronized void set(double value) {
      set = value;
      wasSet = true;
    }

    @Override
    public void observe(double value) {
      observations.add(value);
    }

    /** inc - dec, or the last value set. */
    synchronized double value() {
      return wasSet ? set : incs - decs;
    }

    synchronized boolean wasSet() {
      return wasSet;
    }

    List<Double> observations() {
      return new ArrayList<>(observations);
    }
  }

  private final ConcurrentHashMap<String, Metric> metrics = new ConcurrentHashMap<>();

  /** The metric {@code kind} ("depth", "adds", ...) of queue {@code name}. */
  Metric get(String name, String kind) {
    return metrics.computeIfAbsent(name + "/" + kind, k -> new Metric());
  }

  @Override
  public GaugeMetric newDepthMetric(String name) {
    return get(name, "depth");
  }

  /** Per priority: the metric {@code "depth/<priority>"}. */
  @Override
  public DepthMetricWithPriority newDepthMetricWithPriority(String name) {
    return new DepthMetricWithPriority() {
      @Override
      public void inc(int priority) {
        get(name, "depth/" + priority).inc();
      }

      @Override
      public void dec(int priority) {
        get(name, "depth/" + priority).dec();
      }
    };
  }

  @Override
  public CounterMetric newAddsMetric(String name) {
    return get(name, "adds");
  }

  @Override
  public HistogramMetric newLatencyMetric(String name) {
    return get(name, "latency");
  }

  @Override
  public HistogramMetric newWorkDurationMetric(String name) {
    return get(name, "workDuration");
  }

  @Override
  public SettableGaugeMetric newUnfinishedWorkSecondsMetric(String name) {
    return get(name, "unfinished");
  }

  @Override
  public SettableGaugeMetric newLongestRunningProcessorSecondsMetric(String name) {
    return get(name, "longest");
  }

  @Override
  public CounterMetric newRetriesMetric(String name) {
    return get(name, "retries");
  }
}

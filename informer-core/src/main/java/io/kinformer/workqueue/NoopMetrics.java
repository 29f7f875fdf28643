package io.kinformer.workqueue;

/** The provider, and the metric, that record nothing. Immutable. */
enum NoopMetrics
    implements
        MetricsProvider, MetricsProvider.GaugeMetric, MetricsProvider.SettableGaugeMetric,
        MetricsProvider.CounterMetric, MetricsProvider.HistogramMetric {
  INSTANCE;

  @Override
  public void inc() {}

  @Override
  public void dec() {}

  @Override
  public void set(double value) {}

  @Override
  public void observe(double value) {}
}

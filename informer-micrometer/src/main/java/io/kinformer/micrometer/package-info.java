/**
 * kinformer's metrics through Micrometer: {@link io.kinformer.micrometer.MicrometerMetrics} is
 * the work queue's {@link io.kinformer.workqueue.MetricsProvider} and the informer's {@link
 * io.kinformer.cache.InformerMetricsProvider} over a {@link
 * io.micrometer.core.instrument.MeterRegistry}, with client-go's metric names, labels, help texts
 * and histogram buckets once a Prometheus registry renders them.
 *
 * <p>Thread safety: every type here is thread-safe.
 */
@NullMarked
package io.kinformer.micrometer;

import org.jspecify.annotations.NullMarked;

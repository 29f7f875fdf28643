package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.time.Backoff;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * A {@link SharedIndexInformer.Builder}'s settings, copied at {@link
 * SharedIndexInformer.Builder#build()}: changing the builder afterwards does not change an
 * informer built from it, and informers built from one builder share no mutable state. The
 * randomness is the informer's own (see {@link io.kinformer.internal.Randoms#independent}); the backoff is a policy from
 * which each reflector makes its own.
 *
 * <p>Thread safety: immutable (the indexers map is an unmodifiable copy); the clock, scheduler,
 * executors, thread factory and metrics provider are the caller's, shared as given.
 *
 * @param random the informer's own randomness, or {@code null} for a new one per reflector
 * @param pageSize negative: not set, the reflector pages as client-go's decides
 */
record InformerSettings<T extends HasMetadata>(
    String name,
    ListerWatcher<T> listerWatcher,
    Duration defaultResync,
    Map<String, IndexFunc<T>> indexers,
    Clock clock,
    Scheduler scheduler,
    @Nullable RandomGenerator random,
    Backoff.Policy backoff,
    @Nullable Executor deliveryExecutor,
    @Nullable Executor processingExecutor,
    @Nullable Executor reflectorExecutor,
    @Nullable InformerMetricsProvider metricsProvider,
    InformerMetricsProvider.@Nullable InformerId metricsId,
    @Nullable ThreadFactory threadFactory,
    long pageSize,
    boolean streamingList,
    Duration minWatchTimeout,
    @Nullable String expectedApiVersion,
    @Nullable String expectedKind,
    Duration maxInternalErrorRetryDuration,
    boolean rewatchOnWatchError) {

  InformerSettings {
    indexers = Collections.unmodifiableMap(new LinkedHashMap<>(indexers));
  }
}

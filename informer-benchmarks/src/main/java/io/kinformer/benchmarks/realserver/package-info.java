/**
 * The real-server benchmark: kinformer against client-go 0.36 on Kubernetes' own API server
 * machinery (informer-envtest's {@code ApiServer}), each driver in its own process. See {@link
 * io.kinformer.benchmarks.realserver.RealServerBenchmark}.
 */
@NullMarked
package io.kinformer.benchmarks.realserver;

import org.jspecify.annotations.NullMarked;

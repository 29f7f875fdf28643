/**
 * An embedded, in-process Kubernetes API server for tests, examples and benchmarks.
 *
 * <p>{@link io.kinformer.testing.EmbeddedApiServer} speaks the real list/watch protocol over real
 * HTTP (HTTP/1.1 with chunked watches, h2 over TLS and h2c), keeps objects in an MVCC store with a
 * cluster-wide resourceVersion, and exposes a {@link io.kinformer.testing.Faults} handle for
 * reliability tests. {@link io.kinformer.testing.EmbeddedApiServerExtension} starts one per JUnit 5
 * test class.
 */
@NullMarked
package io.kinformer.testing;

import org.jspecify.annotations.NullMarked;

/**
 * The end-to-end harness: a purpose-built pod server ({@link io.kinformer.benchmarks.e2e.PodServer})
 * that serves the same pre-encoded bytes to every driver, one driver process per library ({@link
 * io.kinformer.benchmarks.e2e.Driver}), and the orchestrator ({@link
 * io.kinformer.benchmarks.e2e.Harness}) that runs them alternately and writes the report. See
 * docs/benchmarks.md.
 */
@NullMarked
package io.kinformer.benchmarks.e2e;

import org.jspecify.annotations.NullMarked;

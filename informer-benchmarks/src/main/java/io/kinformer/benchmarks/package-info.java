/**
 * JMH micro-benchmarks of kinformer's hot paths, the realistic pod generator they share with the
 * end-to-end harness ({@code io.kinformer.benchmarks.e2e}), and nothing else. Not published.
 */
@NullMarked
package io.kinformer.benchmarks;

import org.jspecify.annotations.NullMarked;

/** The memory soak: a long run of changes and faults, sampling the heap after full GCs. */
@NullMarked
package io.kinformer.benchmarks.soak;

import org.jspecify.annotations.NullMarked;

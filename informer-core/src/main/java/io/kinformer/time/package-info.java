/**
 * Time, scheduling and backoff, injected everywhere the library waits.
 *
 * <p>Main code never reads the system clock or sleeps directly: it asks a {@link
 * io.kinformer.time.Clock} for the time and a {@link io.kinformer.time.Scheduler} to run something
 * later. Production code uses {@link io.kinformer.time.Clock#system()} and {@link
 * io.kinformer.time.Scheduler#system()}; tests use {@code FakeClock} (informer-core's test fixtures), which is
 * both, and advance time by hand so that backoff, resync and rate limiting are tested without
 * sleeping.
 */
@NullMarked
package io.kinformer.time;

import org.jspecify.annotations.NullMarked;

/**
 * Leader election over {@code coordination.k8s.io/v1} Leases, with the semantics of client-go's
 * {@code tools/leaderelection}: of the replicas that run a {@link
 * io.kinformer.leaderelection.LeaderElector} on the same {@link
 * io.kinformer.leaderelection.LeaseLock}, at most one holds a valid lease at a time, and a standby
 * takes over within about one lease duration after the leader stops renewing.
 *
 * <p>Like client-go's, this election is not fencing: it trusts each replica's own clock to
 * measure how long it has seen a lease unchanged, so it tolerates any clock offset between
 * replicas but not clocks that run at very different rates, and a leader that is paused (a long
 * garbage collection, a suspended VM) may act for a moment after another replica took over.
 * Writes that must never be made by two replicas need their own guard (an optimistic
 * resourceVersion, for example).
 */
@NullMarked
package io.kinformer.leaderelection;

import org.jspecify.annotations.NullMarked;

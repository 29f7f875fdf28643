/**
 * Rate-limited work queues for controllers: a port of client-go's {@code util/workqueue}.
 *
 * <p>The queues have client-go's properties:
 *
 * <ul>
 *   <li><b>Fair</b>: distinct items are handed out in the order they were added (FIFO).
 *   <li><b>Stingy</b>: an item is processed by at most one worker at a time, and an item added
 *       several times before a worker takes it is processed once.
 *   <li><b>Re-entrant</b>: an item added while it is being processed is marked dirty and handed out
 *       again once the worker calls {@link io.kinformer.workqueue.WorkQueue#done done}.
 *   <li><b>Shutdown-aware</b>: {@link io.kinformer.workqueue.WorkQueue#get get} returns empty once
 *       the queue is shut down and has no more items.
 * </ul>
 *
 * <p>Start with {@link io.kinformer.workqueue.RateLimitingQueue#create(RateLimiter, QueueOptions)}
 * and {@link io.kinformer.workqueue.RateLimiters#defaultControllerRateLimiter()}, and drain the
 * queue with {@link io.kinformer.workqueue.Workers}: docs/work-queues.md shows the whole controller
 * loop. {@link io.kinformer.workqueue.PriorityQueue} (controller-runtime's priority queue) hands out
 * the highest priority first, FIFO within a priority, and {@link
 * io.kinformer.workqueue.PriorityEnqueueHandler} queues the keys of initial lists and resyncs at low
 * priority, so that real changes go first.
 *
 * <p>Items are compared with {@code equals}/{@code hashCode} (client-go requires {@code
 * comparable}): use immutable values such as {@code "namespace/name"} keys, never mutable objects.
 * Time is read from an injected {@link io.kinformer.time.Clock} and waits are scheduled on an
 * injected {@link io.kinformer.time.Scheduler}, so tests drive delays and rate limits with {@code
 * FakeClock}.
 */
@NullMarked
package io.kinformer.workqueue;

import org.jspecify.annotations.NullMarked;

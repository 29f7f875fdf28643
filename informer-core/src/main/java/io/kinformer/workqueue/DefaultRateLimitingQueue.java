package io.kinformer.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The rate-limiting queue, ported from client-go's {@code util/workqueue/rate_limiting_queue.go}: a
 * delaying queue plus a limiter. No locks or threads of its own.
 */
final class DefaultRateLimitingQueue<T> implements RateLimitingQueue<T> {

  private final DefaultDelayingQueue<T> delaying;
  private final RateLimiter<T> rateLimiter;

  DefaultRateLimitingQueue(DefaultDelayingQueue<T> delaying, RateLimiter<T> rateLimiter) {
    this.delaying = delaying;
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
  }

  @Override
  public void addRateLimited(T item) {
    Objects.requireNonNull(item, "item");
    delaying.addAfter(item, rateLimiter.when(item));
  }

  @Override
  public void forget(T item) {
    Objects.requireNonNull(item, "item");
    rateLimiter.forget(item);
  }

  @Override
  public int numRequeues(T item) {
    Objects.requireNonNull(item, "item");
    return rateLimiter.numRequeues(item);
  }

  @Override
  public void addAfter(T item, Duration delay) {
    delaying.addAfter(item, delay);
  }

  @Override
  public void add(T item) {
    delaying.add(item);
  }

  @Override
  public int len() {
    return delaying.len();
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    return delaying.get();
  }

  @Override
  public void done(T item) {
    delaying.done(item);
  }

  @Override
  public void shutDown() {
    delaying.shutDown();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    delaying.shutDownWithDrain();
  }

  @Override
  public boolean isShuttingDown() {
    return delaying.isShuttingDown();
  }

  /** The delaying queue underneath; for tests. */
  DefaultDelayingQueue<T> delaying() {
    return delaying;
  }
}

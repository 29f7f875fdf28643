package io.kinformer.leaderelection;

import java.util.concurrent.CompletableFuture;

/**
 * One period of leadership, from {@link LeaderCallbacks#onStartedLeading} until this candidate
 * stops leading: the Java form of the context client-go hands to {@code OnStartedLeading}, which
 * is cancelled when leadership ends.
 *
 * <pre>{@code
 * public void onStartedLeading(LeaderTerm term) {
 *   controller.start();
 *   term.ended().thenRun(controller::close);
 * }
 * }</pre>
 *
 * <p>The term ends before {@link LeaderCallbacks#onStoppedLeading()} is called and before a
 * release on close is written. Actions attached to {@link #ended()} without an executor run on
 * the thread that ends the term (the election thread, or the thread calling {@link
 * LeaderElector#close()}), outside every lock of the elector; keep them short, or attach them
 * with {@code thenRunAsync}.
 *
 * <p>Thread safety: thread-safe.
 */
public final class LeaderTerm {

  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  LeaderTerm() {}

  /** Whether the term is still running. */
  public boolean isActive() {
    return !ended.isDone();
  }

  /**
   * Completes (normally) when the term ends. Each call returns a new future; completing or
   * cancelling it does not end the term.
   */
  public CompletableFuture<Void> ended() {
    return ended.copy();
  }

  /** Ends the term; call it outside every lock, as it runs the actions attached to it. */
  void end() {
    ended.complete(null);
  }

  @Override
  public String toString() {
    return isActive() ? "LeaderTerm[active]" : "LeaderTerm[ended]";
  }
}

package io.kinformer.cache;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A signal that the requests made under it should stop, passed to {@link ListerWatcher#list} and
 * {@link ListerWatcher#watch} (client-go passes a {@code context.Context} to {@code List} and
 * {@code Watch} for the same purpose). Whoever creates it cancels it: a {@link Reflector} makes one
 * for its run and cancels it on {@link Reflector#close()}. Whoever receives it observes it: a
 * {@link ListerWatcher} registers with {@link #onCancel} what ends its request (cancelling the HTTP
 * call, closing the watch) and unregisters once the request is done.
 *
 * <p>A cancellation is for good: once {@link #cancel()} was called, {@link #isCancelled()} stays
 * true and every action registered later runs at once. So a cancel that comes just before a
 * request starts still reaches it.
 *
 * <pre>{@code
 * Call call = client.newCall(request);
 * try (Cancellation.Registration r = cancellation.onCancel(call::cancel)) {
 *   return read(call.execute()); // fails at once, from another thread, when cancelled
 * }
 * }</pre>
 *
 * <p>Thread safety: thread-safe; any method may be called from any thread at any time. The
 * actions run on the thread that calls {@link #cancel()} (or {@link #onCancel}, if that comes
 * after the cancel), never while this holds its lock, so an action may call back into this
 * cancellation. Locks: {@code lock}, held only to update the registered actions.
 */
public final class Cancellation {

  private static final Logger log = LoggerFactory.getLogger(Cancellation.class);

  private static final Cancellation NONE = new Cancellation(false);

  /** The unregistration of an action that was never stored (already run, or never to run). */
  private static final Registration NOTHING = () -> {};

  private final boolean cancellable;

  private final Object lock = new Object();

  /** The actions to run on cancel, in registration order; null once cancelled. */
  // @GuardedBy("lock")
  private @Nullable Set<Action> actions = new LinkedHashSet<>();

  /** A cancellation not cancelled yet. */
  public Cancellation() {
    this(true);
  }

  private Cancellation(boolean cancellable) {
    this.cancellable = cancellable;
  }

  /**
   * The cancellation that never happens, for requests made outside a reflector that nothing needs
   * to stop (client-go's {@code context.Background()}). {@link #onCancel} on it stores nothing, and
   * {@link #cancel()} on it throws.
   */
  public static Cancellation none() {
    return NONE;
  }

  /**
   * Cancels: runs every registered action once, in the order they were registered, on this thread,
   * and makes every action registered from now on run at once. An action that throws a {@link
   * RuntimeException} is logged and the others still run. Idempotent: a later call, or one racing
   * this, runs nothing and returns at once (possibly before the first call's actions have
   * finished).
   *
   * @throws UnsupportedOperationException on {@link #none()}
   */
  public void cancel() {
    if (!cancellable) {
      throw new UnsupportedOperationException(
          "Cancellation.none() cannot be cancelled: create one with new Cancellation()");
    }
    Set<Action> toRun;
    synchronized (lock) {
      toRun = actions;
      actions = null;
    }
    if (toRun != null) {
      for (Action a : toRun) {
        a.runQuietly();
      }
    }
  }

  /** Whether {@link #cancel()} was called. */
  public boolean isCancelled() {
    synchronized (lock) {
      return actions == null;
    }
  }

  /**
   * Registers {@code action} to run on {@link #cancel()}, or runs it at once on this thread if the
   * cancel already happened (then a {@link RuntimeException} it throws is logged, as on cancel).
   * Close the returned registration once the request it ends is over, so that actions do not pile
   * up on a long-lived cancellation; once the action ran, closing it does nothing.
   *
   * <p>The action should be quick and must not block: it runs on the cancelling thread, before
   * {@link #cancel()} returns. It runs at most once.
   */
  public Registration onCancel(Runnable action) {
    Objects.requireNonNull(action, "action");
    if (!cancellable) {
      return NOTHING;
    }
    Action a = new Action(action);
    synchronized (lock) {
      if (actions != null) {
        actions.add(a);
        return a;
      }
    }
    a.runQuietly();
    return NOTHING;
  }

  @Override
  public String toString() {
    return !cancellable ? "Cancellation.none()"
        : isCancelled() ? "Cancellation[cancelled]" : "Cancellation[active]";
  }

  /**
   * An action registered with {@link #onCancel}. {@link #close()} unregisters it: it will not run
   * on a cancel that has not begun yet. Idempotent.
   *
   * <p>Thread safety: thread-safe.
   */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /** One registration: identity-keyed, so the same Runnable may be registered twice. */
  private final class Action implements Registration {
    private final Runnable action;

    Action(Runnable action) {
      this.action = action;
    }

    @Override
    public void close() {
      synchronized (lock) {
        if (actions != null) {
          actions.remove(this);
        }
      }
    }

    void runQuietly() {
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn("an action run on cancel threw: {}", action, e);
      }
    }
  }
}

package io.kinformer.cache;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one informer's health, from {@link SharedIndexInformer#health()}: where its
 * reflector is, whether it has synced, when it last made progress, and its last error.
 *
 * <p>A quiet resource is healthy: an informer whose objects do not change for hours still opens a
 * new watch every few minutes and, on a real server, receives a bookmark about every minute. Judge
 * health by {@link #consecutiveFailures()}, {@link #state()} and {@link #synced()}, not by the age
 * of {@link #lastEventTime()} alone.
 *
 * <p>Thread safety: immutable.
 *
 * @param name the informer's name
 * @param state the reflector's state ({@link ReflectorState.Idle} with no failure before start)
 * @param synced whether the informer has synced ({@link SharedIndexInformer#hasSynced()})
 * @param lastEventTime when the last watch event or bookmark arrived (the informer's clock); null
 *     before any
 * @param lastProgressTime when the reflector last made progress: started its first cycle, stored a
 *     full list, opened a watch, or received an event; null before it starts
 * @param lastError a one-line summary of the last list or watch failure (its phase, message and
 *     cause, never request headers or credentials); null before any
 * @param lastErrorTime when {@code lastError} happened; null before any
 * @param consecutiveFailures failures since the last success (a stored list, an opened watch or
 *     an event); 0 while healthy
 * @param terminal whether the informer will not recover by policy: it was closed or stopped
 */
public record InformerHealth(
    String name,
    ReflectorState state,
    boolean synced,
    @Nullable Instant lastEventTime,
    @Nullable Instant lastProgressTime,
    @Nullable String lastError,
    @Nullable Instant lastErrorTime,
    int consecutiveFailures,
    boolean terminal) {

  public InformerHealth {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    if (consecutiveFailures < 0) {
      throw new IllegalArgumentException(
          "consecutiveFailures must not be negative: " + consecutiveFailures);
    }
  }

  /** The health of an informer whose reflector has not started (yet). */
  static InformerHealth notStarted(String name, boolean terminal) {
    return new InformerHealth(
        name, new ReflectorState.Idle(null), false, null, null, null, null, 0, terminal);
  }

  /** Whether the last list or watch attempt failed and none succeeded since. */
  public boolean failing() {
    return consecutiveFailures > 0;
  }

  /**
   * Whether this informer is stuck at {@code now}: it is {@link #terminal()}, or it is failing or
   * not yet synced and has made no progress for longer than {@code threshold}. An informer that
   * has not started is not stuck (it is not ready either). A synced informer without failures is
   * never stuck, however long ago its last event was.
   */
  public boolean stuck(Instant now, Duration threshold) {
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(threshold, "threshold");
    if (terminal) {
      return true;
    }
    if (lastProgressTime == null || (synced && !failing())) {
      return false;
    }
    return Duration.between(lastProgressTime, now).compareTo(threshold) > 0;
  }

  /** A one-line description: name, state, synced, failures and the last error. */
  public String describe() {
    StringBuilder s = new StringBuilder(name).append(": ");
    if (terminal) {
      s.append("stopped");
    } else {
      s.append(synced ? "synced" : "not synced").append(", ").append(stateName(state));
    }
    if (consecutiveFailures > 0) {
      s.append(", ").append(consecutiveFailures).append(" consecutive failures");
    }
    if (lastError != null) {
      s.append(", last error at ").append(lastErrorTime).append(": ").append(lastError);
    }
    return s.toString();
  }

  private static String stateName(ReflectorState state) {
    return state.getClass().getSimpleName().toLowerCase(Locale.ROOT);
  }
}

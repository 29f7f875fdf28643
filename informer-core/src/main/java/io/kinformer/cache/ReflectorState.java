package io.kinformer.cache;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link Reflector} is in its list-and-watch cycle ({@link Reflector#state()}): one value
 * of a closed set, changed only by the reflector's transition function. Read it to tell whether an
 * informer is healthy: {@link Watching} is the steady state; {@link BackingOff} says why it is not.
 *
 * <p>A cycle (client-go's {@code ListAndWatch}) starts from {@link Idle} with a {@link Streaming}
 * list (the default) or a {@link Listing}, which may go on as {@link Paging}; once the store holds
 * the full state it goes on {@link Watching} until an error ends it. See {@link Reflector} for every
 * transition.
 *
 * <p>Thread safety: immutable.
 */
public sealed interface ReflectorState {

  /**
   * No cycle is under way: before the first, or after one ended ({@code lastFailure} says why; it
   * is null before the first cycle).
   */
  record Idle(@Nullable ReflectorException lastFailure) implements ReflectorState {}

  /**
   * Listing: the first (or only) page of a list at {@code resourceVersion} ({@code ""}: the most
   * recent state, read consistently; {@code "0"}: any cached state) is asked for, or a full list
   * after an expired continue token.
   */
  record Listing(String resourceVersion) implements ReflectorState {
    public Listing {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
    }
  }

  /**
   * Paging: a paged list at {@code resourceVersion} has read {@code pages} pages holding {@code
   * items} objects and asks for the next with {@code continueToken}.
   */
  record Paging(String resourceVersion, String continueToken, int pages, int items)
      implements ReflectorState {
    public Paging {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
      Objects.requireNonNull(continueToken, "continueToken");
    }
  }

  /**
   * Streaming: a streaming list ({@code sendInitialEvents=true}) from {@code resourceVersion} is
   * open or being opened, and has brought {@code objects} objects so far; it ends with the {@code
   * k8s.io/initial-events-end} bookmark.
   */
  record Streaming(String resourceVersion, int objects) implements ReflectorState {
    public Streaming {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
    }
  }

  /**
   * Watching: the store holds the full state, and a watch from {@code resourceVersion} (the last
   * one seen) is open or being opened.
   */
  record Watching(String resourceVersion) implements ReflectorState {
    public Watching {
      Objects.requireNonNull(resourceVersion, "resourceVersion");
    }
  }

  /** Waiting {@code delay} after {@code cause}, then going on as {@code then} says. */
  record BackingOff(ReflectorException cause, Duration delay, Then then)
      implements ReflectorState {
    public BackingOff {
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(delay, "delay");
      Objects.requireNonNull(then, "then");
    }
  }

  /** What a {@link BackingOff} reflector does once its delay is over. */
  enum Then {
    /** Open the watch again from the last resourceVersion, within the same cycle. */
    REWATCH,
    /** Open the streaming list again, within the same cycle. */
    RESTREAM,
    /** Start a new cycle: stream or list the full state again. */
    NEXT_CYCLE
  }

  /** Closed: the reflector does nothing more. */
  record Stopped() implements ReflectorState {}
}

package io.kinformer.cache;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event of a watch stream.
 *
 * <p>Thread safety: immutable (the object is shared and must be treated as read-only).
 *
 * @param type the event type
 * @param object the object, for every type but {@link WatchEventType#ERROR}
 * @param error the server's error, for {@link WatchEventType#ERROR} only
 * @param <T> the object type
 */
public record WatchEvent<T>(WatchEventType type, @Nullable T object, @Nullable ApiException error) {

  /** The annotation that marks the bookmark ending a streaming list's initial events. */
  public static final String INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

  /** Checks that exactly the right component is present for the type. */
  public WatchEvent {
    Objects.requireNonNull(type, "type");
    if (type == WatchEventType.ERROR) {
      Objects.requireNonNull(error, "an ERROR event needs its error");
      if (object != null) {
        throw new IllegalArgumentException("an ERROR event carries no object");
      }
    } else {
      Objects.requireNonNull(object, () -> "a " + type + " event needs its object");
      if (error != null) {
        throw new IllegalArgumentException("a " + type + " event carries no error");
      }
    }
  }

  /** An ADDED, MODIFIED, DELETED or BOOKMARK event. */
  public static <T> WatchEvent<T> of(WatchEventType type, T object) {
    return new WatchEvent<>(type, object, null);
  }

  /** An ERROR event. */
  public static <T> WatchEvent<T> error(ApiException error) {
    return new WatchEvent<>(WatchEventType.ERROR, null, error);
  }
}

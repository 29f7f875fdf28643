package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Ready-made transforms for {@link SharedIndexInformer#setTransform}, to keep caches small.
 *
 * <p>Thread safety: stateless; the returned functions are thread-safe.
 */
public final class Transforms {

  private Transforms() {}

  /**
   * Drops {@code metadata.managedFields}, the server-side-apply bookkeeping that often makes up a
   * third or more of an object's size and that controllers rarely read. Modifies the object in
   * place (it has not been cached yet when a transform runs) and returns it.
   */
  public static <T extends HasMetadata> UnaryOperator<T> stripManagedFields() {
    return obj -> {
      if (obj.getMetadata() != null) {
        obj.getMetadata().setManagedFields(null);
      }
      return obj;
    };
  }

  /**
   * What an informer's queue applies to each object: the user's {@code transform} (if any), then
   * the source's {@link ListerWatcher#prepareForCache}. A null from the transform is passed on, for
   * the queue to refuse with its message.
   */
  static <T> UnaryOperator<T> thenPrepare(
      @Nullable UnaryOperator<T> transform, ListerWatcher<T> source) {
    if (transform == null) {
      return source::prepareForCache;
    }
    return obj -> {
      T out = transform.apply(obj);
      return out == null ? null : source.prepareForCache(out);
    };
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.function.UnaryOperator;

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
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Objects;

/**
 * A store or queue could not compute the key of an object (client-go's {@code KeyError}): {@link
 * #obj()} is the object at fault and {@link #getCause()} what the key function threw. The queues
 * and stores of this package throw it before changing anything.
 *
 * <p>Two causes come from this package itself: an object that is not a Kubernetes object given to
 * {@link Keys#keyOf} (an {@link IllegalArgumentException} saying {@code object has no meta}), and
 * an empty delta list given to {@link DeltaFifo#keyOf} (client-go's {@code
 * ErrZeroLengthDeltasObject}; {@link #obj()} is then the empty list).
 *
 * <p>The message names the object by kind, namespace and name (or by class), never by its
 * content, which may be secret. The object is not serialized with the exception.
 *
 * <p>Thread safety: immutable once thrown (the object it holds is shared and must be treated as
 * read-only).
 */
public final class KeyException extends InformerException {

  private static final long serialVersionUID = 1L;

  // Not serialized: the object need not be serializable, and is only meaningful in-process.
  private final transient Object obj;

  /**
   * A key failure for {@code obj}, caused by {@code cause}.
   *
   * @param obj the object whose key could not be computed
   * @param cause what the key function threw
   */
  public KeyException(Object obj, Throwable cause) {
    super(
        "couldn't create key for object "
            + describe(Objects.requireNonNull(obj, "obj"))
            + ": "
            + Objects.requireNonNull(cause, "cause").getMessage(),
        cause);
    this.obj = obj;
  }

  /** The object whose key could not be computed (client-go's {@code KeyError.Obj}). */
  public Object obj() {
    return obj;
  }

  /** What the key function threw (client-go's {@code KeyError.Err}); never null. */
  @Override
  public synchronized Throwable getCause() {
    return Objects.requireNonNull(super.getCause());
  }

  private static String describe(Object obj) {
    if (obj instanceof HasMetadata m) {
      ObjectMeta meta = m.getMetadata();
      String kind = m.getKind() == null ? obj.getClass().getSimpleName() : m.getKind();
      if (meta == null) {
        return kind + " without metadata";
      }
      return kind + " namespace=\"" + meta.getNamespace() + "\" name=\"" + meta.getName() + "\"";
    }
    if (obj instanceof List<?> list) {
      return "list of size " + list.size();
    }
    return "of type " + obj.getClass().getName();
  }
}

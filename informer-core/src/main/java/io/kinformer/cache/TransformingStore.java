package io.kinformer.cache;

import java.util.Collection;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Store} that transforms every object it is given before keeping it (client-go's {@code
 * TransformingStore}): the informer's queues, which apply the informer's transform.
 *
 * <p>A {@link Reflector} that streams the initial state ({@code sendInitialEvents=true}) collects
 * the objects into a buffer of its own until the initial-events-end bookmark. With a transforming
 * store it applies {@link #transformer()} to each object as it arrives, so the buffer holds the
 * transformed objects only (a transform that strips managed fields then keeps a relist from holding
 * two full copies of the collection), and hands them over with {@link #replaceTransformed}, which
 * does not transform them again. client-go passes them to {@code Replace}, which transforms a
 * second time and so needs an idempotent transform; calling the transform once is what it intends.
 *
 * <p>Thread safety: as {@link Store}; implementations are thread-safe.
 *
 * @param <T> the object type
 */
public interface TransformingStore<T> extends Store<T> {

  /** The transform applied to objects given to this store, or null if there is none. */
  @Nullable UnaryOperator<T> transformer();

  /**
   * As {@link #replace}, for objects that {@link #transformer()} was already applied to: they are
   * kept as they are.
   */
  void replaceTransformed(Collection<? extends T> objects, String resourceVersion);
}

package io.kinformer.workqueue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ResourceEventHandler;
import java.util.Objects;
import java.util.function.Function;

/**
 * An event handler that puts the key of every changed object on a {@link PriorityQueue}, at {@link
 * PriorityQueue#LOW_PRIORITY} when nothing really changed (controller-runtime's {@code
 * handler.WithLowPriorityWhenUnchanged} around its {@code EnqueueRequestForObject}):
 *
 * <ul>
 *   <li>{@code onAdd(obj, isInInitialList)}: low priority for the objects of the initial list (and
 *       of the cache replayed to a handler added late), priority 0 for objects created later;
 *   <li>{@code onUpdate(old, new)}: low priority when both have the same resourceVersion (a
 *       periodic resync, or a relist that found the object unchanged), priority 0 otherwise; the
 *       key is the new object's;
 *   <li>{@code onDelete}: priority 0.
 * </ul>
 *
 * <p>So a controller that starts, or resyncs, with thousands of objects still handles a change that
 * happens meanwhile first. A key already queued at low priority is raised by a real change (the
 * queue keeps the higher priority).
 *
 * <pre>{@code
 * PriorityQueue<String> queue = PriorityQueue.create(RateLimiters.defaultControllerRateLimiter());
 * informer.addEventHandler(PriorityEnqueueHandler.lowPriorityWhenUnchanged(queue));
 * }</pre>
 *
 * <p>Thread safety: thread-safe (it only adds to the thread-safe queue); the informer calls it from
 * one thread at a time anyway.
 *
 * @param <T> the object type
 * @param <K> the key type
 */
public final class PriorityEnqueueHandler<T extends HasMetadata, K>
    implements ResourceEventHandler<T> {

  private final PriorityQueue<K> queue;
  private final Function<? super T, ? extends K> keyFunction;

  private PriorityEnqueueHandler(
      PriorityQueue<K> queue, Function<? super T, ? extends K> keyFunction) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.keyFunction = Objects.requireNonNull(keyFunction, "keyFunction");
  }

  /** Enqueues {@link Keys#metaNamespaceKey} ({@code "namespace/name"}) keys into {@code queue}. */
  public static <T extends HasMetadata> PriorityEnqueueHandler<T, String> lowPriorityWhenUnchanged(
      PriorityQueue<String> queue) {
    return new PriorityEnqueueHandler<>(queue, Keys::metaNamespaceKey);
  }

  /**
   * Enqueues the keys {@code keyFunction} computes into {@code queue}.
   *
   * @param keyFunction runs on the informer's delivery thread; must be fast and must not return
   *     null
   */
  public static <T extends HasMetadata, K> PriorityEnqueueHandler<T, K> lowPriorityWhenUnchanged(
      PriorityQueue<K> queue, Function<? super T, ? extends K> keyFunction) {
    return new PriorityEnqueueHandler<>(queue, keyFunction);
  }

  @Override
  public void onAdd(T obj, boolean isInInitialList) {
    queue.add(key(obj), isInInitialList ? PriorityQueue.LOW_PRIORITY : 0);
  }

  @Override
  public void onUpdate(T oldObj, T newObj) {
    boolean unchanged = Objects.equals(resourceVersion(oldObj), resourceVersion(newObj));
    queue.add(key(newObj), unchanged ? PriorityQueue.LOW_PRIORITY : 0);
  }

  @Override
  public void onDelete(T obj, boolean finalStateUnknown) {
    queue.add(key(obj), 0);
  }

  private K key(T obj) {
    K key = keyFunction.apply(obj);
    if (key == null) {
      throw new IllegalStateException(
          "key function returned null for " + Keys.metaNamespaceKey(obj));
    }
    return key;
  }

  private static String resourceVersion(HasMetadata obj) {
    return obj.getMetadata() == null
        ? ""
        : Objects.requireNonNullElse(obj.getMetadata().getResourceVersion(), "");
  }

  @Override
  public String toString() {
    return "lowPriorityWhenUnchanged(" + queue + ")";
  }
}

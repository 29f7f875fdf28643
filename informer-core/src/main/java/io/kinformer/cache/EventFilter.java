package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Decides which events reach a handler: the handler predicates controllers put in front of their
 * work queue, for example to ignore status-only updates and resyncs. Wrap a handler with {@link
 * ResourceEventHandlers#filtered}; each event the filter rejects is dropped, each it accepts is
 * passed on unchanged.
 *
 * <p>The three methods mirror {@link ResourceEventHandler}'s; each accepts by default, so a filter
 * that cares only about updates overrides only {@link #acceptsUpdate}. The factories cover the
 * usual cases:
 *
 * <ul>
 *   <li>{@link #generationChanged()}, {@link #resourceVersionChanged()}, {@link #labelsChanged()},
 *       {@link #annotationsChanged()}, {@link #finalizersChanged()}: an update passes when that part
 *       of the object differs between the old and the new state; adds and deletes pass;
 *   <li>{@link #changed(Function)} for any other part of an object, {@link #updates(BiPredicate)}
 *       for any test of an update, {@link #objects(Predicate)} and {@link #labelsMatching} to test
 *       the object of every event;
 *   <li>{@link #and}, {@link #or} and {@link #not} to combine them;
 *   <li>{@link #generationChangedSinceAccepted(int)} and {@link #changedSinceAccepted(Function,
 *       int)}, which compare an update with what the filter last let through rather than with the
 *       update's old state, and so keep a bounded memory per key.
 * </ul>
 *
 * <p>Objects or metadata that are absent count as empty, as the zero value of a Go object does: a
 * missing {@code metadata}, generation, resourceVersion, label or annotation map or finalizer list
 * equals an empty one (a generation of {@code 0}, an empty resourceVersion). Only a {@code null}
 * object, which an informer never delivers, makes the "changed" filters reject an update.
 *
 * <p>Thread safety: implementations must be safe to call from any thread, one event at a time per
 * handler; the filters made here are stateless and thread-safe, except the {@code
 * ...SinceAccepted} ones, which are thread-safe but remember what they accepted, so each belongs
 * to one handler.
 *
 * @param <T> the object type
 */
public interface EventFilter<T> {

  /**
   * Whether the handler hears of an added object.
   *
   * @param obj the object
   * @param isInInitialList as {@link ResourceEventHandler#onAdd}
   */
  default boolean acceptsAdd(T obj, boolean isInInitialList) {
    return true;
  }

  /**
   * Whether the handler hears of an update, including a resync (old and new with the same
   * resourceVersion).
   *
   * @param oldObj the previous state
   * @param newObj the new state
   */
  default boolean acceptsUpdate(T oldObj, T newObj) {
    return true;
  }

  /**
   * Whether the handler hears of a deletion.
   *
   * @param obj the final, or last known, state
   * @param finalStateUnknown as {@link ResourceEventHandler#onDelete}
   */
  default boolean acceptsDelete(T obj, boolean finalStateUnknown) {
    return true;
  }

  // ---- updates that changed a part of the object ----------------------------------------------

  /**
   * Passes an update only when {@code metadata.generation} changed (controller-runtime's {@code
   * GenerationChangedPredicate}); adds and deletes pass. The API server raises the generation on
   * changes to an object's spec, not its status, so this drops status-only updates and resyncs.
   *
   * <p>Objects whose type has no generation (ConfigMaps and Secrets, say: it stays absent, or
   * {@code 0}) never change it: this filter drops every update of them. Some types also raise it
   * for other changes (a Deployment for its annotations; any object that has a generation when its
   * deletion starts while finalizers hold it; a custom resource without a status subresource for
   * status changes too).
   */
  static <T extends HasMetadata> EventFilter<T> generationChanged() {
    return changed("generationChanged", EventFilter::generationOf);
  }

  /**
   * Passes an update only when {@code metadata.resourceVersion} changed (controller-runtime's
   * {@code ResourceVersionChangedPredicate}); adds and deletes pass. This drops resyncs, including
   * those for the unchanged objects of a relist, and nothing else.
   */
  static <T extends HasMetadata> EventFilter<T> resourceVersionChanged() {
    return changed("resourceVersionChanged", EventFilter::resourceVersionOf);
  }

  /**
   * Passes an update only when {@code metadata.labels} changed (controller-runtime's {@code
   * LabelChangedPredicate}); adds and deletes pass. An absent map equals an empty one.
   */
  static <T extends HasMetadata> EventFilter<T> labelsChanged() {
    return changed("labelsChanged", EventFilter::labelsOf);
  }

  /**
   * Passes an update only when {@code metadata.annotations} changed (controller-runtime's {@code
   * AnnotationChangedPredicate}); adds and deletes pass. An absent map equals an empty one.
   */
  static <T extends HasMetadata> EventFilter<T> annotationsChanged() {
    return changed("annotationsChanged", EventFilter::annotationsOf);
  }

  /**
   * Passes an update only when {@code metadata.finalizers} changed, in content or order; adds and
   * deletes pass. An absent list equals an empty one.
   */
  static <T extends HasMetadata> EventFilter<T> finalizersChanged() {
    return changed("finalizersChanged", EventFilter::finalizersOf);
  }

  /**
   * Passes an update only when {@code value} differs ({@link Objects#equals}) between the old and
   * the new object; adds and deletes pass. For example {@code changed(pod -> pod.getSpec())}.
   *
   * @param value computes the part compared; it must be fast and free of side effects, and may
   *     return {@code null}
   */
  static <T> EventFilter<T> changed(Function<? super T, ?> value) {
    return changed("changed(" + ProcessorListener.nameOf(value) + ")", value);
  }

  private static <T> EventFilter<T> changed(String name, Function<? super T, ?> value) {
    Objects.requireNonNull(value, "value");
    return new EventFilter<>() {
      @Override
      public boolean acceptsUpdate(@Nullable T oldObj, @Nullable T newObj) {
        if (oldObj == null || newObj == null) {
          return false;
        }
        return !Objects.equals(value.apply(oldObj), value.apply(newObj));
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /**
   * Passes an update only when {@code test} accepts its old and new state; adds and deletes pass.
   *
   * @param test must be fast and free of side effects
   */
  static <T> EventFilter<T> updates(BiPredicate<? super T, ? super T> test) {
    Objects.requireNonNull(test, "test");
    return new EventFilter<>() {
      @Override
      public boolean acceptsUpdate(T oldObj, T newObj) {
        return test.test(oldObj, newObj);
      }

      @Override
      public String toString() {
        return "updates(" + ProcessorListener.nameOf(test) + ")";
      }
    };
  }

  // ---- the object of every event --------------------------------------------------------------

  /**
   * Passes the events whose object {@code test} accepts: an add's object, an update's new state, a
   * deletion's last state (controller-runtime's {@code NewPredicateFuncs}). Unlike {@link
   * ResourceEventHandlers#filtering}, an update is passed or dropped as it is, never turned into
   * an add or a delete.
   *
   * @param test must be fast and free of side effects
   */
  static <T> EventFilter<T> objects(Predicate<? super T> test) {
    Objects.requireNonNull(test, "test");
    return objects("objects(" + ProcessorListener.nameOf(test) + ")", test);
  }

  private static <T> EventFilter<T> objects(String name, Predicate<? super T> test) {
    return new EventFilter<>() {
      @Override
      public boolean acceptsAdd(T obj, boolean isInInitialList) {
        return test.test(obj);
      }

      @Override
      public boolean acceptsUpdate(T oldObj, T newObj) {
        return test.test(newObj);
      }

      @Override
      public boolean acceptsDelete(T obj, boolean finalStateUnknown) {
        return test.test(obj);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /**
   * Passes the events whose object's labels {@code selector} matches, as {@link #objects} does
   * (controller-runtime's {@code LabelSelectorPredicate}).
   */
  static <T extends HasMetadata> EventFilter<T> labelsMatching(LabelSelector selector) {
    Objects.requireNonNull(selector, "selector");
    return objects("labelsMatching(" + selector + ")", obj -> selector.matches(labelsOf(obj)));
  }

  // ---- composition ----------------------------------------------------------------------------

  /**
   * Passes an event only when every filter does, asking them in order and stopping at the first
   * that rejects it (controller-runtime's {@code And}); with no filters, passes everything.
   */
  @SafeVarargs
  static <T> EventFilter<T> and(EventFilter<? super T>... filters) {
    List<EventFilter<? super T>> list = new ArrayList<>(filters.length);
    for (EventFilter<? super T> f : filters) {
      list.add(f);
    }
    return CompositeEventFilter.of(true, list);
  }

  /**
   * Passes an event when any filter does, asking them in order and stopping at the first that
   * accepts it (controller-runtime's {@code Or}); with no filters, passes nothing.
   */
  @SafeVarargs
  static <T> EventFilter<T> or(EventFilter<? super T>... filters) {
    List<EventFilter<? super T>> list = new ArrayList<>(filters.length);
    for (EventFilter<? super T> f : filters) {
      list.add(f);
    }
    return CompositeEventFilter.of(false, list);
  }

  /**
   * Passes each event that {@code filter} rejects (controller-runtime's {@code Not}). Every kind of
   * event is negated: {@code not(generationChanged())} passes the updates that kept their
   * generation, and no add or delete.
   */
  static <T> EventFilter<T> not(EventFilter<? super T> filter) {
    Objects.requireNonNull(filter, "filter");
    return new EventFilter<>() {
      @Override
      public boolean acceptsAdd(T obj, boolean isInInitialList) {
        return !filter.acceptsAdd(obj, isInInitialList);
      }

      @Override
      public boolean acceptsUpdate(T oldObj, T newObj) {
        return !filter.acceptsUpdate(oldObj, newObj);
      }

      @Override
      public boolean acceptsDelete(T obj, boolean finalStateUnknown) {
        return !filter.acceptsDelete(obj, finalStateUnknown);
      }

      @Override
      public String toString() {
        return "not(" + filter + ")";
      }
    };
  }

  // ---- filters with a memory ------------------------------------------------------------------

  /**
   * Like {@link #generationChanged()}, but compares an update's new generation with the last
   * generation this filter accepted for the object's key, not with the update's old state. The
   * difference shows in a composition: in {@code and(labelsMatching(s), generationChanged())} a
   * spec change made while the labels did not match is never passed, not even once they match
   * again (that update keeps the generation); with {@code generationChangedSinceAccepted} last, it
   * is. See {@link #changedSinceAccepted} for the memory.
   *
   * @param capacity the most keys remembered; make it at least the number of objects
   */
  static <T extends HasMetadata> EventFilter<T> generationChangedSinceAccepted(int capacity) {
    return new RememberingEventFilter<>(
        "generationChangedSinceAccepted", EventFilter::generationOf, capacity);
  }

  /**
   * Passes an update only when {@code value} of its new state differs from the value of the state
   * this filter last accepted for the object's key ({@link Keys#metaNamespaceKey}). Adds and
   * deletes pass; an add records its value, a delete forgets the key. An update of a key it does
   * not remember passes and is recorded: with a filter that is evicted or added late, a handler
   * may hear of an update it would have been spared, never miss one.
   *
   * <p>The memory holds one value per key, at most {@code capacity} of them, forgetting the key
   * used least recently to take a new one. It records what this filter accepted, which is what the
   * handler receives when the filter is used alone or last in an {@link #and} (earlier filters
   * decide first, and it is asked only about what they passed); inside {@link #or} or {@link #not}
   * it may remember what the handler never got.
   *
   * <p>Thread safety: thread-safe; the memory belongs to one handler, so do not share the filter.
   *
   * @param value computes the part compared (e.g. the generation); fast, free of side effects, may
   *     return {@code null}; the memory keeps what it returns, so return a small value
   * @param capacity the most keys remembered, at least 1
   */
  static <T extends HasMetadata> EventFilter<T> changedSinceAccepted(
      Function<? super T, ?> value, int capacity) {
    return new RememberingEventFilter<>(
        "changedSinceAccepted(" + ProcessorListener.nameOf(value) + ")", value, capacity);
  }

  // ---- metadata, absent counting as empty -----------------------------------------------------

  private static long generationOf(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    Long g = m == null ? null : m.getGeneration();
    return g == null ? 0L : g;
  }

  private static String resourceVersionOf(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    String rv = m == null ? null : m.getResourceVersion();
    return rv == null ? "" : rv;
  }

  private static Map<String, String> labelsOf(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    Map<String, String> l = m == null ? null : m.getLabels();
    return l == null ? Map.of() : l;
  }

  private static Map<String, String> annotationsOf(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    Map<String, String> a = m == null ? null : m.getAnnotations();
    return a == null ? Map.of() : a;
  }

  private static List<String> finalizersOf(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    List<String> f = m == null ? null : m.getFinalizers();
    return f == null ? List.of() : f;
  }
}

package io.kinformer.client.internal.codec;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Makes a decoded fabric8 model object ready to be cached, after the informer's transform: every
 * list and map in it, however deep, becomes read-only, so that a change to any collection of a
 * cached object throws {@link UnsupportedOperationException}, whether it is empty, small or large,
 * and whether or not the call would change anything.
 *
 * <ul>
 *   <li>a list becomes a {@link FrozenList} copy (an empty one the shared empty one), which,
 *       unlike {@link List#of}, answers {@code contains(null)} as an ordinary list does; an empty
 *       map becomes the shared frozen {@link #EMPTY_MAP} (the JDK's empty maps let their key and
 *       value views be "cleared");
 *   <li>a {@link SmallMap} is frozen; another map of at most {@value SmallMap#MAX_SIZE} entries
 *       Jackson built becomes a frozen {@code SmallMap}; a larger one is wrapped unmodifiable;
 *   <li>model objects and untyped values inside are frozen the same way.
 * </ul>
 *
 * Only fields that a public setter of the same name and type exposes are replaced, so nothing is
 * set that a user could not set (the fields visited are listed in {@link ModelFields#frozen()}).
 * Freezing again does nothing more.
 *
 * <p>Thread safety: thread-safe (field tables are built once per class, {@link ModelFields}); an
 * object is frozen by one thread, before it is published to the cache.
 */
final class CacheFreezer {

  /** The map every empty map of a frozen object is: a frozen, empty {@link SmallMap}. */
  static final Map<Object, Object> EMPTY_MAP = emptyMap();

  private static final CacheFreezer COMPACTING = new CacheFreezer(true);
  private static final CacheFreezer PLAIN = new CacheFreezer(false);

  /** Whether small maps become frozen {@link SmallMap}s (else every map is wrapped unmodifiable). */
  private final boolean compactMaps;

  private CacheFreezer(boolean compactMaps) {
    this.compactMaps = compactMaps;
  }

  private static Map<Object, Object> emptyMap() {
    SmallMap<Object, Object> m = new SmallMap<>(new Object[0], 0);
    m.freeze();
    return m;
  }

  /** Freezes {@code obj} in place (see the class comment) and returns it. */
  static <T> T freeze(T obj) {
    COMPACTING.freezeValue(obj);
    return obj;
  }

  /**
   * Freezes {@code obj} in place as {@link #freeze} does, but without turning maps into {@link
   * SmallMap}s: every map, empty or not, is wrapped by {@link Collections#unmodifiableMap}, for a
   * client whose decoding optimizations are off.
   */
  static <T> T freezePlain(T obj) {
    PLAIN.freezeValue(obj);
    return obj;
  }

  private static boolean isModel(Class<?> type) {
    return ModelFields.isModel(type);
  }

  private void freezeModel(Object bean) {
    try {
      for (Field f : ModelFields.of(bean.getClass()).frozen()) {
        Object value = f.get(bean);
        if (value != null) {
          Object frozen = freezeValue(value);
          if (frozen != value) {
            f.set(bean, frozen);
          }
        }
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("freezing " + bean.getClass().getName(), e);
    }
  }

  /** {@code value} frozen: the same object, or a read-only replacement for a collection. */
  private @Nullable Object freezeValue(@Nullable Object value) {
    if (value instanceof List<?> l) {
      return freezeList(l);
    }
    if (value instanceof Map<?, ?> m) {
      return freezeMap(m);
    }
    if (value != null && isModel(value.getClass())) {
      freezeModel(value);
    }
    return value;
  }

  private List<?> freezeList(List<?> list) {
    if (list instanceof FrozenList<?>) {
      list.forEach(this::freezeValue); // nested model objects still get frozen in place
      return list;
    }
    Object[] a = list.toArray();
    for (int i = 0; i < a.length; i++) {
      a[i] = freezeValue(a[i]);
    }
    return FrozenList.of(a);
  }

  private Map<?, ?> freezeMap(Map<?, ?> map) {
    if (map.isEmpty() && compactMaps) {
      return EMPTY_MAP;
    }
    if (map instanceof SmallMap<?, ?> s) {
      @SuppressWarnings("unchecked")
      SmallMap<Object, Object> small = (SmallMap<Object, Object>) s;
      if (!small.isFrozen()) {
        small.replaceAll((k, v) -> freezeValue(v));
        small.freeze();
      }
      return small;
    }
    if (isUnmodifiableView(map)) {
      map.values().forEach(this::freezeValue);
      return map;
    }
    @SuppressWarnings("unchecked")
    Map<Object, Object> m = isJdkImmutable(map)
        ? new LinkedHashMap<>(map) // a transform's Map.of: answer null queries as other maps do
        : (Map<Object, Object>) map;
    m.replaceAll((k, v) -> freezeValue(v));
    if (compactMaps && m.size() <= SmallMap.MAX_SIZE
        && (m.getClass() == LinkedHashMap.class || m.getClass() == HashMap.class)) {
      SmallMap<Object, Object> small = new SmallMap<>(m);
      small.freeze();
      return small;
    }
    return Collections.unmodifiableMap(m);
  }

  /** A map of {@link java.util.Collections#unmodifiableMap}, as a larger frozen map is. */
  private static boolean isUnmodifiableView(Map<?, ?> map) {
    return map.getClass().getName().startsWith("java.util.Collections$Unmodifiable");
  }

  /** A map of {@link Map#of} or {@link Map#copyOf}, which throw for null keys in queries. */
  private static boolean isJdkImmutable(Map<?, ?> map) {
    return map.getClass().getName().startsWith("java.util.ImmutableCollections$");
  }
}

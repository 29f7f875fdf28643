package io.kinformer.client.internal.codec;

import java.lang.reflect.Field;
import java.util.Arrays;
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
 *   <li>an empty list becomes the shared {@link List#of()}, an empty map the shared frozen
 *       {@link #EMPTY_MAP} (the JDK's empty maps let their key and value views be "cleared");
 *   <li>a list becomes an immutable copy ({@link List#of}; with nulls, an unmodifiable one);
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

  private CacheFreezer() {}

  private static Map<Object, Object> emptyMap() {
    SmallMap<Object, Object> m = new SmallMap<>(new Object[0], 0);
    m.freeze();
    return m;
  }

  /** Freezes {@code obj} in place (see the class comment) and returns it. */
  static <T> T freeze(T obj) {
    freezeValue(obj);
    return obj;
  }

  private static boolean isModel(Class<?> type) {
    return ModelFields.isModel(type);
  }

  private static void freezeModel(Object bean) {
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
  private static @Nullable Object freezeValue(@Nullable Object value) {
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

  private static List<?> freezeList(List<?> list) {
    if (list.isEmpty()) {
      return List.of();
    }
    if (isReadOnly(list)) {
      list.forEach(CacheFreezer::freezeValue); // nested model objects still get frozen in place
      return list;
    }
    Object[] a = list.toArray();
    boolean nulls = false;
    for (int i = 0; i < a.length; i++) {
      a[i] = freezeValue(a[i]);
      nulls |= a[i] == null;
    }
    return nulls ? Collections.unmodifiableList(Arrays.asList(a)) : List.of(a);
  }

  private static Map<?, ?> freezeMap(Map<?, ?> map) {
    if (map.isEmpty()) {
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
    if (isReadOnly(map)) {
      map.values().forEach(CacheFreezer::freezeValue);
      return map;
    }
    @SuppressWarnings("unchecked")
    Map<Object, Object> m = (Map<Object, Object>) map;
    m.replaceAll((k, v) -> freezeValue(v));
    if (m.size() <= SmallMap.MAX_SIZE
        && (m.getClass() == LinkedHashMap.class || m.getClass() == HashMap.class)) {
      SmallMap<Object, Object> small = new SmallMap<>(m);
      small.freeze();
      return small;
    }
    return Collections.unmodifiableMap(m);
  }

  /** The JDK's immutable and unmodifiable collections, and a frozen {@link SmallMap}. */
  private static boolean isReadOnly(Object collection) {
    String name = collection.getClass().getName();
    return name.startsWith("java.util.ImmutableCollections$")
        || name.startsWith("java.util.Collections$Unmodifiable")
        || (collection instanceof SmallMap<?, ?> s && s.isFrozen());
  }
}

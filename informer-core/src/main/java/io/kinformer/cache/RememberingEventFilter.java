package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * {@link EventFilter#changedSinceAccepted}: passes an update when its value differs from the value
 * last accepted for the key; remembers at most {@code capacity} keys, least recently used first
 * out.
 *
 * <p>Thread safety: thread-safe; every method holds the instance's lock while it reads or writes
 * the memory (the value function runs outside it).
 */
final class RememberingEventFilter<T extends HasMetadata> implements EventFilter<T> {

  /** Stands for a remembered {@code null} value, which the map cannot tell from a missing key. */
  private static final Object NULL = new Object();

  private final String name;
  private final Function<? super T, ?> value;
  private final int capacity;
  private final LinkedHashMap<String, Object> accepted;

  RememberingEventFilter(String name, Function<? super T, ?> value, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.name = name;
    this.value = Objects.requireNonNull(value, "value");
    this.capacity = capacity;
    this.accepted =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
            return size() > RememberingEventFilter.this.capacity;
          }
        };
  }

  @Override
  public boolean acceptsAdd(T obj, boolean isInInitialList) {
    Object v = valueOf(obj);
    String key = Keys.metaNamespaceKey(obj);
    synchronized (this) {
      accepted.put(key, v);
    }
    return true;
  }

  @Override
  public boolean acceptsUpdate(@Nullable T oldObj, @Nullable T newObj) {
    if (oldObj == null || newObj == null) {
      return false;
    }
    Object v = valueOf(newObj);
    String key = Keys.metaNamespaceKey(newObj);
    synchronized (this) {
      Object last = accepted.get(key);
      if (v.equals(last)) {
        return false;
      }
      accepted.put(key, v);
      return true;
    }
  }

  @Override
  public boolean acceptsDelete(T obj, boolean finalStateUnknown) {
    String key = Keys.metaNamespaceKey(obj);
    synchronized (this) {
      accepted.remove(key);
    }
    return true;
  }

  /** How many keys the filter remembers now. */
  synchronized int remembered() {
    return accepted.size();
  }

  private Object valueOf(T obj) {
    Object v = value.apply(obj);
    return v == null ? NULL : v;
  }

  @Override
  public String toString() {
    return name + "[capacity " + capacity + "]";
  }
}

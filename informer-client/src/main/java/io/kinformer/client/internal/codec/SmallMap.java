package io.kinformer.client.internal.codec;

import java.io.Serializable;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A small insertion-ordered map in one array ({@code k0, v0, k1, v1, ...}): the informers' codecs
 * copy decoded maps of up to {@value #MAX_SIZE} entries (labels, annotations, resource quantities,
 * the nodes of {@code managedFields}' {@code FieldsV1} trees) into it. A {@code LinkedHashMap} of
 * n entries costs 56 bytes, a table of at least 16 slots (80 bytes) and 40 bytes per entry; this
 * costs 16 bytes plus 16 + 8n.
 *
 * <p>It is a complete {@link Map} (null keys and values allowed), ordered like the {@code
 * LinkedHashMap} it replaces, with {@link AbstractMap}'s {@code equals}, {@code hashCode} and
 * {@code toString}: lookups scan the keys, which for at most {@value #MAX_SIZE} keys is as fast as
 * hashing. It is modifiable until {@link #freeze()}, as decoded objects are while the informer's
 * transform runs; entries handed out by {@link #entrySet()} write through until the next
 * structural change. Once frozen (cached), every method that could change it throws {@link
 * UnsupportedOperationException}, whether or not the call would change anything, as the JDK's
 * immutable maps do.
 *
 * <p>Thread safety: not thread-safe, like {@code LinkedHashMap}; cached objects are only read.
 */
final class SmallMap<K, V> extends AbstractMap<K, V> implements Serializable {

  /** Larger maps are left as they are. */
  static final int MAX_SIZE = 16;

  private static final long serialVersionUID = 1L;
  private static final Object[] EMPTY = {};

  private Object[] kv;
  private int size;

  /** Structural changes so far (never negative), or {@link #FROZEN}. */
  private int modCount;

  private static final int FROZEN = -1;

  /** A copy of {@code source}, in its iteration order. */
  SmallMap(Map<? extends K, ? extends V> source) {
    kv = source.isEmpty() ? EMPTY : new Object[2 * source.size()];
    source.forEach((k, v) -> {
      kv[2 * size] = k;
      kv[2 * size + 1] = v;
      size++;
    });
  }

  /**
   * A map of the first {@code size} pairs of {@code kv} ({@code k0, v0, k1, v1, ...}, keys
   * distinct), which it takes over: the caller must not touch the array afterwards.
   *
   * @throws IllegalArgumentException if the array's length is odd or holds fewer pairs
   */
  SmallMap(Object[] kv, int size) {
    if (size < 0 || 2 * size > kv.length || kv.length % 2 != 0) {
      throw new IllegalArgumentException("size " + size + " for " + kv.length + " slots");
    }
    this.kv = size == 0 ? EMPTY : kv;
    this.size = size;
  }

  /** Makes this map read-only for good. Idempotent. */
  void freeze() {
    modCount = FROZEN;
  }

  /** Whether {@link #freeze()} was called. */
  boolean isFrozen() {
    return modCount == FROZEN;
  }

  private void requireModifiable() {
    if (modCount == FROZEN) {
      throw new UnsupportedOperationException(
          "a cached object's maps are read-only: copy the object before changing it");
    }
  }

  private void modified() {
    modCount = (modCount + 1) & Integer.MAX_VALUE;
  }

  private int indexOf(@Nullable Object key) {
    for (int i = 0; i < size; i++) {
      if (Objects.equals(key, kv[2 * i])) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public boolean containsKey(@Nullable Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public @Nullable V get(@Nullable Object key) {
    int i = indexOf(key);
    return i < 0 ? null : (V) kv[2 * i + 1];
  }

  @Override
  @SuppressWarnings("unchecked")
  public @Nullable V put(K key, V value) {
    requireModifiable();
    int i = indexOf(key);
    if (i >= 0) {
      V old = (V) kv[2 * i + 1];
      kv[2 * i + 1] = value;
      return old;
    }
    if (2 * size == kv.length) {
      kv = Arrays.copyOf(kv, Math.max(4, 2 * kv.length));
    }
    kv[2 * size] = key;
    kv[2 * size + 1] = value;
    size++;
    modified();
    return null;
  }

  @Override
  @SuppressWarnings("unchecked")
  public @Nullable V remove(@Nullable Object key) {
    requireModifiable();
    int i = indexOf(key);
    if (i < 0) {
      return null;
    }
    V old = (V) kv[2 * i + 1];
    removeAt(i);
    return old;
  }

  private void removeAt(int i) {
    requireModifiable();
    System.arraycopy(kv, 2 * i + 2, kv, 2 * i, 2 * (size - i - 1));
    size--;
    kv[2 * size] = null;
    kv[2 * size + 1] = null;
    modified();
  }

  @Override
  public void clear() {
    requireModifiable();
    Arrays.fill(kv, 0, 2 * size, null);
    size = 0;
    modified();
  }

  @Override
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<? super K, ? super V> action) {
    int expected = modCount;
    for (int i = 0; i < size; i++) {
      action.accept((K) kv[2 * i], (V) kv[2 * i + 1]);
      if (modCount != expected) {
        throw new ConcurrentModificationException();
      }
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    requireModifiable();
    int expected = modCount;
    for (int i = 0; i < size; i++) {
      kv[2 * i + 1] = function.apply((K) kv[2 * i], (V) kv[2 * i + 1]);
      if (modCount != expected) {
        throw new ConcurrentModificationException();
      }
    }
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    requireModifiable();
    super.putAll(m);
  }

  @Override
  public @Nullable V putIfAbsent(K key, V value) {
    requireModifiable();
    return super.putIfAbsent(key, value);
  }

  @Override
  public boolean remove(@Nullable Object key, @Nullable Object value) {
    requireModifiable();
    return super.remove(key, value);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    requireModifiable();
    return super.replace(key, oldValue, newValue);
  }

  @Override
  public @Nullable V replace(K key, V value) {
    requireModifiable();
    return super.replace(key, value);
  }

  @Override
  public @Nullable V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
    requireModifiable();
    return super.computeIfAbsent(key, mappingFunction);
  }

  @Override
  public @Nullable V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends @Nullable V> remappingFunction) {
    requireModifiable();
    return super.computeIfPresent(key, remappingFunction);
  }

  @Override
  public @Nullable V compute(
      K key, BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remappingFunction) {
    requireModifiable();
    return super.compute(key, remappingFunction);
  }

  @Override
  public @Nullable V merge(
      K key, V value, BiFunction<? super V, ? super V, ? extends @Nullable V> remappingFunction) {
    requireModifiable();
    return super.merge(key, value, remappingFunction);
  }

  /** Once frozen, read-only views: their removals throw even when nothing matches. */
  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    Set<Map.Entry<K, V>> entries = entries();
    return isFrozen() ? Collections.unmodifiableSet(entries) : entries;
  }

  @Override
  public Set<K> keySet() {
    return isFrozen() ? Collections.unmodifiableSet(super.keySet()) : super.keySet();
  }

  @Override
  public Collection<V> values() {
    return isFrozen() ? Collections.unmodifiableCollection(super.values()) : super.values();
  }

  private Set<Map.Entry<K, V>> entries() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<K, V>> iterator() {
        return new Iterator<>() {
          private int next;
          private int last = -1;
          private int expected = modCount;

          @Override
          public boolean hasNext() {
            return next < size;
          }

          @Override
          public Map.Entry<K, V> next() {
            if (modCount != expected) {
              throw new ConcurrentModificationException();
            }
            if (next >= size) {
              throw new NoSuchElementException();
            }
            last = next++;
            return new Entry(last);
          }

          @Override
          public void remove() {
            if (last < 0) {
              throw new IllegalStateException("next() was not called");
            }
            if (modCount != expected) {
              throw new ConcurrentModificationException();
            }
            removeAt(last);
            next = last;
            last = -1;
            expected = modCount;
          }
        };
      }

      @Override
      public int size() {
        return size;
      }

      @Override
      public void clear() {
        SmallMap.this.clear();
      }

    };
  }

  /** A view of the entry at one index. */
  private final class Entry implements Map.Entry<K, V> {
    private final int index;

    Entry(int index) {
      this.index = index;
    }

    @Override
    @SuppressWarnings("unchecked")
    public K getKey() {
      return (K) kv[2 * index];
    }

    @Override
    @SuppressWarnings("unchecked")
    public V getValue() {
      return (V) kv[2 * index + 1];
    }

    @Override
    public V setValue(V value) {
      requireModifiable();
      V old = getValue();
      kv[2 * index + 1] = value;
      return old;
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Map.Entry<?, ?> e
          && Objects.equals(getKey(), e.getKey())
          && Objects.equals(getValue(), e.getValue());
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(getKey()) ^ Objects.hashCode(getValue());
    }

    @Override
    public String toString() {
      return getKey() + "=" + getValue();
    }
  }
}

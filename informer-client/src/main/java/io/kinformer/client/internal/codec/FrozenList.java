package io.kinformer.client.internal.codec;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The list a cached object holds in place of a non-empty decoded list: read-only, and otherwise an
 * ordinary list. Every method that could change it throws {@link UnsupportedOperationException},
 * even when the call would change nothing ({@code addAll} of an empty collection, {@code removeIf}
 * matching nothing); queries accept {@code null} ({@code contains(null)} is false or true, as for an
 * {@link java.util.ArrayList}), unlike the JDK's {@link List#of}, which throws for them.
 *
 * <p>One and two elements are held in fields, more in an array: as small as {@code List.of}'s
 * lists (24 bytes and the array with compressed references), so that the one-container,
 * one-port, one-condition lists of most pods cost no more than before they were frozen.
 *
 * <p>Thread safety: immutable once built; safe to share between threads.
 *
 * @param <E> the element type
 */
abstract sealed class FrozenList<E> extends AbstractList<E> implements RandomAccess {

  private static final FrozenList<?> EMPTY = new Many<>(new Object[0]);

  /** The empty frozen list, shared. */
  @SuppressWarnings("unchecked")
  static <E> List<E> empty() {
    return (List<E>) EMPTY;
  }

  /** A frozen list of {@code elements} (which it keeps: the caller must not change the array). */
  static <E> List<E> of(@Nullable Object[] elements) {
    return switch (elements.length) {
      case 0 -> empty();
      case 1 -> new One<>(elements[0]);
      case 2 -> new Two<>(elements[0], elements[1]);
      default -> new Many<>(elements);
    };
  }

  private static UnsupportedOperationException readOnly() {
    return new UnsupportedOperationException(
        "a cached object is read-only: copy it (for example with its builder) before changing it");
  }

  @Override
  public final int indexOf(@Nullable Object o) {
    for (int i = 0, n = size(); i < n; i++) {
      if (Objects.equals(o, get(i))) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public final int lastIndexOf(@Nullable Object o) {
    for (int i = size() - 1; i >= 0; i--) {
      if (Objects.equals(o, get(i))) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public final boolean contains(@Nullable Object o) {
    return indexOf(o) >= 0;
  }

  @Override
  public final List<E> subList(int fromIndex, int toIndex) {
    Objects.checkFromToIndex(fromIndex, toIndex, size());
    return of(Arrays.copyOfRange(toArray(), fromIndex, toIndex));
  }

  @Override
  public final Iterator<E> iterator() {
    return listIterator(0);
  }

  @Override
  public final ListIterator<E> listIterator() {
    return listIterator(0);
  }

  @Override
  public final ListIterator<E> listIterator(int index) {
    Objects.checkIndex(index, size() + 1);
    return new ListIterator<>() {
      private int next = index;

      @Override
      public boolean hasNext() {
        return next < size();
      }

      @Override
      public E next() {
        if (next >= size()) {
          throw new NoSuchElementException();
        }
        return get(next++);
      }

      @Override
      public boolean hasPrevious() {
        return next > 0;
      }

      @Override
      public E previous() {
        if (next <= 0) {
          throw new NoSuchElementException();
        }
        return get(--next);
      }

      @Override
      public int nextIndex() {
        return next;
      }

      @Override
      public int previousIndex() {
        return next - 1;
      }

      @Override
      public void remove() {
        throw readOnly();
      }

      @Override
      public void set(E e) {
        throw readOnly();
      }

      @Override
      public void add(E e) {
        throw readOnly();
      }
    };
  }

  @Override
  public final boolean add(E e) {
    throw readOnly();
  }

  @Override
  public final void add(int index, E element) {
    throw readOnly();
  }

  @Override
  public final boolean addAll(Collection<? extends E> c) {
    throw readOnly();
  }

  @Override
  public final boolean addAll(int index, Collection<? extends E> c) {
    throw readOnly();
  }

  @Override
  public final E set(int index, E element) {
    throw readOnly();
  }

  @Override
  public final E remove(int index) {
    throw readOnly();
  }

  @Override
  public final boolean remove(@Nullable Object o) {
    throw readOnly();
  }

  @Override
  public final boolean removeAll(Collection<?> c) {
    throw readOnly();
  }

  @Override
  public final boolean retainAll(Collection<?> c) {
    throw readOnly();
  }

  @Override
  public final boolean removeIf(Predicate<? super E> filter) {
    throw readOnly();
  }

  @Override
  public final void replaceAll(UnaryOperator<E> operator) {
    throw readOnly();
  }

  @Override
  public final void sort(@Nullable Comparator<? super E> c) {
    throw readOnly();
  }

  @Override
  public final void clear() {
    throw readOnly();
  }

  @Override
  protected final void removeRange(int fromIndex, int toIndex) {
    throw readOnly();
  }

  private static final class One<E> extends FrozenList<E> {
    private final @Nullable Object e0;

    One(@Nullable Object e0) {
      this.e0 = e0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public E get(int index) {
      Objects.checkIndex(index, 1);
      return (E) e0;
    }

    @Override
    public int size() {
      return 1;
    }
  }

  private static final class Two<E> extends FrozenList<E> {
    private final @Nullable Object e0;
    private final @Nullable Object e1;

    Two(@Nullable Object e0, @Nullable Object e1) {
      this.e0 = e0;
      this.e1 = e1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public E get(int index) {
      Objects.checkIndex(index, 2);
      return (E) (index == 0 ? e0 : e1);
    }

    @Override
    public int size() {
      return 2;
    }
  }

  private static final class Many<E> extends FrozenList<E> {
    private final @Nullable Object[] elements;

    Many(@Nullable Object[] elements) {
      this.elements = elements;
    }

    @Override
    @SuppressWarnings("unchecked")
    public E get(int index) {
      return (E) elements[index];
    }

    @Override
    public int size() {
      return elements.length;
    }

    @Override
    public Object[] toArray() {
      return elements.length == 0 ? elements : elements.clone();
    }
  }
}

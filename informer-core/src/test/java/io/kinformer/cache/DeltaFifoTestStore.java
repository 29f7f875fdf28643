package io.kinformer.cache;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A minimal {@link Store} for DeltaFifo tests, used as its {@code knownObjects}: a map in insertion
 * order, so that the order of inferred deletions is predictable.
 *
 * <p>Thread safety: thread-safe (every method is synchronized).
 */
final class DeltaFifoTestStore<T> implements Store<T> {

  private final KeyFunc<T> keyFunc;
  private final Map<String, T> objects = new LinkedHashMap<>();

  DeltaFifoTestStore(KeyFunc<T> keyFunc) {
    this.keyFunc = keyFunc;
  }

  @Override
  public synchronized void add(T obj) {
    objects.put(keyFunc.key(obj), obj);
  }

  @Override
  public synchronized void update(T obj) {
    add(obj);
  }

  @Override
  public synchronized void delete(T obj) {
    objects.remove(keyFunc.key(obj));
  }

  @Override
  public synchronized List<T> list() {
    return List.copyOf(objects.values());
  }

  @Override
  public synchronized List<String> listKeys() {
    return List.copyOf(objects.keySet());
  }

  @Override
  public synchronized Optional<T> get(T obj) {
    return getByKey(keyFunc.key(obj));
  }

  @Override
  public synchronized Optional<T> getByKey(String key) {
    return Optional.ofNullable(objects.get(key));
  }

  @Override
  public synchronized void replace(Collection<? extends T> replacement, String resourceVersion) {
    objects.clear();
    replacement.forEach(this::add);
  }

  @Override
  public void resync() {}
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * A map-backed store for tests that records every call as a line like {@code "add ns/a 5"}. With a
 * {@link #transform} it is a {@link TransformingStore} that applies it to what it is given.
 */
final class RecordingStore<T extends HasMetadata> implements TransformingStore<T> {

  private final Map<String, T> items = new LinkedHashMap<>();
  final List<String> calls = new CopyOnWriteArrayList<>();
  volatile int resyncs;
  volatile RuntimeException failResync;
  /** Thrown, once, by the next add (a transform or key function with a bug). */
  volatile Error failNextAdd;
  /** Thrown, once, by the next add (a store whose key function refuses the object). */
  volatile RuntimeException refuseNextAdd;
  /** The transform, if any; {@link #transformCalls} counts its calls. */
  volatile UnaryOperator<T> transform;
  volatile int transformCalls;

  private static String rv(HasMetadata o) {
    return o.getMetadata().getResourceVersion();
  }

  @Override
  public synchronized void add(T obj) {
    Error e = failNextAdd;
    if (e != null) {
      failNextAdd = null;
      throw e;
    }
    RuntimeException refusal = refuseNextAdd;
    if (refusal != null) {
      refuseNextAdd = null;
      throw refusal;
    }
    items.put(Keys.metaNamespaceKey(obj), obj);
    calls.add("add " + Keys.metaNamespaceKey(obj) + " " + rv(obj));
  }

  @Override
  public synchronized void update(T obj) {
    items.put(Keys.metaNamespaceKey(obj), obj);
    calls.add("update " + Keys.metaNamespaceKey(obj) + " " + rv(obj));
  }

  @Override
  public synchronized void delete(T obj) {
    items.remove(Keys.metaNamespaceKey(obj));
    calls.add("delete " + Keys.metaNamespaceKey(obj) + " " + rv(obj));
  }

  @Override
  public synchronized List<T> list() {
    return List.copyOf(items.values());
  }

  @Override
  public synchronized List<String> listKeys() {
    return List.copyOf(items.keySet());
  }

  @Override
  public synchronized Optional<T> get(T obj) {
    return getByKey(Keys.metaNamespaceKey(obj));
  }

  @Override
  public synchronized Optional<T> getByKey(String key) {
    return Optional.ofNullable(items.get(key));
  }

  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    replaceRecorded("replace", objects, resourceVersion);
  }

  @Override
  public void replaceTransformed(Collection<? extends T> objects, String resourceVersion) {
    replaceRecorded("replaceTransformed", objects, resourceVersion);
  }

  private synchronized void replaceRecorded(
      String call, Collection<? extends T> objects, String resourceVersion) {
    items.clear();
    List<String> keys = new ArrayList<>();
    for (T o : objects) {
      items.put(Keys.metaNamespaceKey(o), o);
      keys.add(Keys.metaNamespaceKey(o));
    }
    calls.add(call + " " + keys + " " + resourceVersion);
  }

  @Override
  public UnaryOperator<T> transformer() {
    UnaryOperator<T> t = transform;
    if (t == null) {
      return null;
    }
    return obj -> {
      transformCalls++;
      return t.apply(obj);
    };
  }

  @Override
  public void bookmark(String resourceVersion) {
    calls.add("bookmark " + resourceVersion);
  }

  @Override
  public void resync() {
    resyncs++;
    RuntimeException f = failResync;
    if (f != null) {
      throw f;
    }
  }

  synchronized Map<String, String> keysToRv() {
    Map<String, String> m = new LinkedHashMap<>();
    items.forEach((k, v) -> m.put(k, rv(v)));
    return m;
  }
}

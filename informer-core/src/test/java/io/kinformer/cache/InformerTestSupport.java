package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/** Shared helpers for the informer scenario tests. */
final class InformerTestSupport {
  private InformerTestSupport() {}

  /** Awaitility polling fast: these waits are for other threads to catch up, not for time. */
  static ConditionFactory await() {
    return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
  }

  /**
   * How many times {@code src} was asked for the full state: the first page of a list, or a
   * streaming list (a watch with {@code sendInitialEvents}).
   */
  static long fullStateRequests(FakeListerWatcher<?> src) {
    return src.listCalls().stream().filter(o -> o.continueToken() == null).count()
        + src.watchCalls().stream().filter(o -> Boolean.TRUE.equals(o.sendInitialEvents())).count();
  }

  static long rv(HasMetadata o) {
    return Long.parseLong(o.getMetadata().getResourceVersion());
  }

  /** key → resourceVersion of some objects, in key order. */
  static Map<String, String> keysToRv(Iterable<? extends HasMetadata> objects) {
    Map<String, String> m = new TreeMap<>();
    for (HasMetadata o : objects) {
      m.put(Keys.metaNamespaceKey(o), o.getMetadata().getResourceVersion());
    }
    return m;
  }

  /**
   * A handler that replays its calls into a map (its "view" of the cache) and records every
   * violation of the delivery contract it can see: an add for a key it already has, an update or
   * delete for a key it does not have, an update whose old object is not the state it was told
   * last, and an object older than one already seen for the same key (allowed only through a
   * deletion with {@code finalStateUnknown}).
   */
  static final class ReplayingHandler implements ResourceEventHandler<Pod> {
    final String name;
    private final Map<String, Pod> view = new ConcurrentHashMap<>();
    // Touched only by delivery (calls to one handler are sequential).
    private final Map<String, Long> newestRv = new HashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger finalStateUnknownDeletes = new AtomicInteger();
    final AtomicInteger initialAdds = new AtomicInteger();
    private volatile Thread lastThread;

    ReplayingHandler(String name) {
      this.name = name;
    }

    Map<String, String> view() {
      return keysToRv(view.values());
    }

    private void checkNotOlder(String what, String key, Pod obj) {
      Long newest = newestRv.get(key);
      if (newest != null && rv(obj) < newest) {
        violations.add(what + " " + key + "@" + rv(obj) + " after @" + newest);
      }
      newestRv.merge(key, rv(obj), Math::max);
    }

    private void enter() {
      calls.incrementAndGet();
      lastThread = Thread.currentThread();
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      enter();
      String key = Keys.metaNamespaceKey(obj);
      if (isInInitialList) {
        initialAdds.incrementAndGet();
      }
      if (view.containsKey(key)) {
        violations.add("add for a key already known: " + key + "@" + rv(obj));
      }
      checkNotOlder("add", key, obj);
      view.put(key, obj);
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      enter();
      String key = Keys.metaNamespaceKey(newObj);
      Pod known = view.get(key);
      if (known == null) {
        violations.add("update for an unknown key: " + key + "@" + rv(newObj));
      } else if (rv(known) != rv(oldObj)) {
        violations.add("update of " + key + " from @" + rv(oldObj) + " but I had @" + rv(known));
      }
      checkNotOlder("update", key, newObj);
      view.put(key, newObj);
    }

    @Override
    public void onDelete(Pod obj, boolean finalStateUnknown) {
      enter();
      String key = Keys.metaNamespaceKey(obj);
      if (view.remove(key) == null) {
        violations.add("delete for an unknown key: " + key + "@" + rv(obj));
      }
      if (finalStateUnknown) {
        finalStateUnknownDeletes.incrementAndGet();
        newestRv.remove(key);
      } else {
        checkNotOlder("delete", key, obj);
      }
    }

    Thread lastThread() {
      return lastThread;
    }

    @Override
    public String toString() {
      return name;
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jspecify.annotations.Nullable;

/**
 * The thread-safe {@link Store} and {@link Indexer} behind {@link Indexers#newStore} and {@link
 * Indexers#newIndexer}: a port of client-go's {@code threadSafeMap} and {@code storeIndex}
 * ({@code tools/cache/thread_safe_store.go}) with {@code cache.NewStore}/{@code NewIndexer}'s key
 * function folded in ({@code store.go}).
 *
 * <h2>Structure</h2>
 *
 * <p>{@code items} maps each key to its object (the object itself, never a copy). {@code indices}
 * maps each index name to a map from indexed value to the keys filed under it. To keep the common
 * case cheap, a value with exactly one key stores that key as a bare {@code String}; only values
 * with two or more keys get a {@link KeySet}. A value with no key is removed, so values that no
 * object has any more do not accumulate. Per object that is one {@code items} entry plus, per
 * index value, one set entry (or one map entry for a unique value).
 *
 * <h2>Locking</h2>
 *
 * <p>One {@link ReentrantReadWriteLock} (non-fair) guards {@code items} and {@code indices}
 * together, so a reader never sees an index entry whose object is missing or stale. Readers
 * (listers on any number of controller threads) run in parallel; there is usually one writer (the
 * informer's processing thread). Reads copy what they return while holding the read lock, which
 * is O(result) and never blocks on anything but a write in progress. A {@code ConcurrentHashMap}
 * per structure would let readers skip the lock but could not update an object and its index
 * entries atomically; a {@code StampedLock} optimistic read cannot iterate a {@code HashMap}
 * safely. The non-fair lock does not starve the writer: a new reader queues behind a waiting
 * writer.
 *
 * <p>User code (key and index functions) runs outside the lock where it can: the key of every
 * write, the index values of the new object on add/update, and the whole rebuild of {@link
 * #replace}, which is built aside and swapped in. The index values of the object being replaced or
 * deleted, and of existing objects in {@link #addIndexers}, are computed under the write lock, as
 * in client-go (they depend on what is stored).
 *
 * <h2>Failures</h2>
 *
 * <p>Every index value is computed before anything is changed, so a key or index function that
 * throws (or returns null) fails the write with an {@link IllegalArgumentException} naming the
 * index and the key, and leaves the store exactly as it was. client-go panics instead.
 *
 * <p>Thread safety: thread-safe.
 *
 * @param <T> the object type
 */
final class ThreadSafeIndexer<T> implements Indexer<T>, TransactionStore<T> {

  private final KeyFunc<T> keyFunc;

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Lock readLock = lock.readLock();
  private final Lock writeLock = lock.writeLock();

  /** Key to object. No null keys or values. Guarded by {@link #lock}; replaced by replace(). */
  private HashMap<String, T> items = new HashMap<>();

  /**
   * The index functions: immutable, replaced (copy on write) under the write lock together with
   * {@link #indices}. Volatile so that writers can snapshot it before taking the lock and readers
   * can return it without one.
   */
  private volatile IndexerSet<T> indexers;

  /**
   * Index name to (indexed value to keys). Has exactly the names of {@link #indexers}. Each value
   * maps to a {@code String} (the only key filed under it) or a {@link KeySet} of at least two
   * keys; never to an empty set. Every key appears under exactly the values its stored object's
   * index function returns, and only those. Guarded by {@link #lock}; replaced by replace().
   */
  private HashMap<String, HashMap<String, Object>> indices;

  /**
   * The resourceVersion of the last write or bookmark (client-go's {@code threadSafeMap.rv}); see
   * {@link #lastStoreSyncResourceVersion()}. Written under the write lock, read without it.
   */
  private volatile String resourceVersion = "";

  /** {@code informer_store_resource_version}, set with every change of {@link #resourceVersion}. */
  private volatile InformerMetricsProvider.GaugeMetric resourceVersionGauge =
      InformerMetricsProvider.NO_GAUGE;

  ThreadSafeIndexer(KeyFunc<T> keyFunc, Map<String, IndexFunc<T>> indexers) {
    this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
    this.indexers = IndexerSet.of(indexers);
    this.indices = emptyIndices(this.indexers);
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  @Override
  public void add(T obj) {
    upsert(obj);
  }

  @Override
  public void update(T obj) {
    upsert(obj);
  }

  /**
   * Inserts {@code obj} or replaces the object with its key, and returns the object it replaced
   * (null if none): {@code get} followed by {@code add} or {@code update}, with one key computation
   * and one lock instead of two. The informer's processing loop uses it for every object it
   * stores.
   */
  @Nullable T upsert(T obj) {
    Objects.requireNonNull(obj, "obj");
    String key = keyOf(obj);
    IndexerSet<T> fns = indexers;
    List<List<String>> newValues = fns.valuesOf(obj, key);
    writeLock.lock();
    try {
      if (fns != indexers) { // an index was added meanwhile: recompute with the current set
        fns = indexers;
        newValues = fns.valuesOf(obj, key);
      }
      T old = items.get(key);
      List<List<String>> oldValues = old == null ? null : fns.valuesOf(old, key);
      // Every user function has run: nothing below can throw.
      putLocked(fns, key, obj, old, oldValues, newValues);
      noteResourceVersionLocked(obj);
      return old;
    } finally {
      writeLock.unlock();
    }
  }

  private void putLocked(
      IndexerSet<T> fns,
      String key,
      T obj,
      @Nullable T old,
      @Nullable List<List<String>> oldValues,
      List<List<String>> newValues) {
    assert lock.isWriteLockedByCurrentThread();
    items.put(key, obj);
    for (int i = 0; i < fns.size(); i++) {
      updateIndexLocked(
          fns.name(i), key, oldValues == null ? null : oldValues.get(i), newValues.get(i));
    }
  }

  /** Records the resourceVersion of {@code obj}, if it has metadata (client-go's rvFromObject). */
  private void noteResourceVersionLocked(Object obj) {
    assert lock.isWriteLockedByCurrentThread();
    if (obj instanceof HasMetadata m && m.getMetadata() != null) {
      String rv = m.getMetadata().getResourceVersion();
      setResourceVersionLocked(rv == null ? "" : rv);
    }
  }

  private void setResourceVersionLocked(String rv) {
    assert lock.isWriteLockedByCurrentThread();
    resourceVersion = rv;
    InformerMetricsProvider.GaugeMetric g = resourceVersionGauge;
    if (g != InformerMetricsProvider.NO_GAUGE && !rv.isEmpty()) {
      // client-go's parseRVForMetricsWithTruncation: the last 15 digits, if they are a number.
      String tail = rv.length() > 15 ? rv.substring(rv.length() - 15) : rv;
      try {
        g.set(Long.parseLong(tail));
      } catch (NumberFormatException notANumber) {
        // an opaque resourceVersion: nothing to publish
      }
    }
  }

  /** Publishes the resourceVersion to {@code gauge} from now on. */
  void resourceVersionGauge(InformerMetricsProvider.GaugeMetric gauge) {
    this.resourceVersionGauge = Objects.requireNonNull(gauge, "gauge");
  }

  @Override
  public void delete(T obj) {
    Objects.requireNonNull(obj, "obj");
    String key = keyOf(obj);
    writeLock.lock();
    try {
      deleteLocked(key);
      noteResourceVersionLocked(obj);
    } finally {
      writeLock.unlock();
    }
  }

  /** Removes what is stored under {@code key}, if anything; returns it. */
  private @Nullable T deleteLocked(String key) {
    assert lock.isWriteLockedByCurrentThread();
    T old = items.get(key);
    if (old == null) {
      return null;
    }
    // Unindex what is stored under the key (client-go's deleteLocked), not the argument, which
    // may be a newer state with different index values.
    IndexerSet<T> fns = indexers;
    List<List<String>> oldValues = fns.valuesOf(old, key);
    items.remove(key);
    for (int i = 0; i < fns.size(); i++) {
      updateIndexLocked(fns.name(i), key, oldValues.get(i), null);
    }
    return old;
  }

  @Override
  public void transaction(List<Transaction<T>> transactions) {
    RuntimeException[] errors = new RuntimeException[transactions.size()];
    applyBatch(transactions, new Object[transactions.size()], errors);
    List<Integer> ok = new ArrayList<>(transactions.size());
    List<RuntimeException> failures = new ArrayList<>();
    for (int i = 0; i < errors.length; i++) {
      if (errors[i] == null) {
        ok.add(i);
      } else {
        failures.add(errors[i]);
      }
    }
    if (!failures.isEmpty()) {
      throw new TransactionException(ok, transactions.size(), failures);
    }
  }

  /** {@link #commit} of {@link #prepare}: the whole batch in one call. */
  void applyBatch(List<Transaction<T>> txns, Object[] previous, RuntimeException[] errors) {
    commit(prepare(txns), previous, errors);
  }

  /**
   * The first half of a batch write, which takes no write lock and so may run while the caller
   * holds none of its own: computes each transaction's key, the index values of its new object,
   * and those of the object it will replace (read under the read lock). A key or index function
   * that fails marks its transaction failed. {@link #commit} then applies the batch.
   */
  Prepared<T> prepare(List<Transaction<T>> txns) {
    int n = txns.size();
    Prepared<T> p = new Prepared<>(List.copyOf(txns), indexers);
    for (int i = 0; i < n; i++) {
      Transaction<T> txn = p.txns.get(i);
      try {
        p.keys[i] = keyOf(txn.object());
        if (txn.type() != Transaction.Type.DELETE) {
          p.newValues[i] = p.fns.valuesOf(txn.object(), p.keys[i]);
        }
      } catch (RuntimeException e) {
        p.errors[i] = e;
      }
    }
    readLock.lock();
    try {
      for (int i = 0; i < n; i++) {
        if (p.errors[i] == null) {
          p.olds[i] = items.get(p.keys[i]);
        }
      }
    } finally {
      readLock.unlock();
    }
    for (int i = 0; i < n; i++) {
      @SuppressWarnings("unchecked")
      T old = (T) p.olds[i];
      if (p.errors[i] == null && old != null) {
        try {
          p.oldValues[i] = p.fns.valuesOf(old, p.keys[i]);
        } catch (RuntimeException e) {
          p.errors[i] = e;
        }
      }
    }
    return p;
  }

  /**
   * Applies a {@link #prepare prepared} batch in order under one write lock (client-go's {@code
   * threadSafeMap.Transaction}). For each transaction {@code previous[i]} receives the object it
   * replaced or deleted (null if the key was absent), or {@code errors[i]} why it was skipped (a key
   * or index function failed; nothing was changed for it). The resourceVersion becomes the last
   * transaction's object's. Index values computed by {@code prepare} are used as they are unless
   * another write or an added index made them stale; only then are they computed again, under the
   * lock (never the case for the informer, the only writer of its indexer).
   */
  void commit(Prepared<T> p, Object[] previous, RuntimeException[] errors) {
    int n = p.txns.size();
    System.arraycopy(p.errors, 0, errors, 0, n);
    if (n == 0) {
      return;
    }
    writeLock.lock();
    try {
      IndexerSet<T> fns = indexers;
      boolean indexersChanged = fns != p.fns;
      for (int i = 0; i < n; i++) {
        if (errors[i] != null) {
          continue;
        }
        Transaction<T> txn = p.txns.get(i);
        String key = p.keys[i];
        try {
          if (txn.type() == Transaction.Type.DELETE) {
            previous[i] = deleteLocked(key);
          } else {
            T old = items.get(key);
            List<List<String>> oldValues;
            List<List<String>> values;
            if (indexersChanged || old != p.olds[i]) {
              oldValues = old == null ? null : fns.valuesOf(old, key);
              values = indexersChanged ? fns.valuesOf(txn.object(), key) : p.newValues[i];
            } else {
              oldValues = p.oldValues[i];
              values = p.newValues[i];
            }
            putLocked(fns, key, txn.object(), old, oldValues, values);
            previous[i] = old;
          }
        } catch (RuntimeException e) {
          errors[i] = e; // an index function failed before anything changed for this one
        }
      }
      noteResourceVersionLocked(p.txns.get(n - 1).object());
    } finally {
      writeLock.unlock();
    }
  }

  /** A batch between {@link #prepare} and {@link #commit}; parallel arrays, one slot a write. */
  static final class Prepared<T> {
    private final List<Transaction<T>> txns;
    private final IndexerSet<T> fns;
    private final String[] keys;
    private final List<List<String>>[] newValues;
    private final Object[] olds;
    private final List<List<String>>[] oldValues;
    private final RuntimeException[] errors;

    @SuppressWarnings("unchecked")
    private Prepared(List<Transaction<T>> txns, IndexerSet<T> fns) {
      int n = txns.size();
      this.txns = txns;
      this.fns = fns;
      this.keys = new String[n];
      this.newValues = new List[n];
      this.olds = new Object[n];
      this.oldValues = new List[n];
      this.errors = new RuntimeException[n];
    }
  }

  @Override
  public void bookmark(String resourceVersion) {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    writeLock.lock();
    try {
      setResourceVersionLocked(resourceVersion);
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public String lastStoreSyncResourceVersion() {
    return resourceVersion;
  }

  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    replaceReturningPrevious(objects, resourceVersion);
  }

  /**
   * {@link #replace}, returning the content it replaced, which nothing references or changes any
   * more, and the keys of {@code objects}: the informer works out a relist's deletions and updates
   * from them without computing every key a second time. Everything is built by {@link
   * #prepareReplace}, which takes no write lock; {@link #commitReplace} swaps it in.
   */
  Replacement<T> replaceReturningPrevious(
      Collection<? extends T> objects, String resourceVersion) {
    return commitReplace(prepareReplace(objects), resourceVersion);
  }

  /** Builds the content of a {@link #replace} aside: keys, items and every index. */
  PreparedReplace<T> prepareReplace(Collection<? extends T> objects) {
    Objects.requireNonNull(objects, "objects");
    IndexerSet<T> fns = indexers;
    String[] keys = new String[objects.size()];
    HashMap<String, T> newItems = new HashMap<>(capacityFor(objects.size()));
    int k = 0;
    for (T obj : objects) {
      Objects.requireNonNull(obj, "replace: null object in the list");
      keys[k] = keyOf(obj);
      newItems.put(keys[k++], obj); // a repeated key keeps the last object, as in Go
    }
    return new PreparedReplace<>(fns, keys, newItems, buildIndices(fns, newItems));
  }

  /**
   * {@link #prepareReplace} for the informer, where one bad object must not keep the others out
   * of the cache: an object whose key or index function fails is left out of the new content
   * (its slot in the keys is null) and its failure added to {@code failures}.
   */
  PreparedReplace<T> prepareReplaceSkippingFailures(
      List<? extends T> objects, List<RuntimeException> failures) {
    Objects.requireNonNull(objects, "objects");
    IndexerSet<T> fns = indexers;
    String[] keys = new String[objects.size()];
    HashMap<String, T> newItems = new HashMap<>(capacityFor(objects.size()));
    HashMap<String, List<List<String>>> values = new HashMap<>(capacityFor(objects.size()));
    for (int k = 0; k < keys.length; k++) {
      T obj = Objects.requireNonNull(objects.get(k), "replace: null object in the list");
      try {
        String key = keyOf(obj);
        List<List<String>> v = fns.valuesOf(obj, key);
        keys[k] = key;
        newItems.put(key, obj); // a repeated key keeps the last object, as in Go
        values.put(key, v);
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    HashMap<String, HashMap<String, Object>> newIndices = emptyIndices(fns);
    for (Map.Entry<String, List<List<String>>> e : values.entrySet()) {
      for (int i = 0; i < fns.size(); i++) {
        HashMap<String, Object> index = newIndices.get(fns.name(i));
        for (String value : e.getValue().get(i)) {
          addKey(index, value, e.getKey());
        }
      }
    }
    return new PreparedReplace<>(fns, keys, newItems, newIndices);
  }

  private HashMap<String, HashMap<String, Object>> buildIndices(
      IndexerSet<T> fns, HashMap<String, T> newItems) {
    HashMap<String, HashMap<String, Object>> newIndices = emptyIndices(fns);
    for (Map.Entry<String, T> e : newItems.entrySet()) {
      List<List<String>> values = fns.valuesOf(e.getValue(), e.getKey());
      for (int i = 0; i < fns.size(); i++) {
        HashMap<String, Object> index = newIndices.get(fns.name(i));
        for (String value : values.get(i)) {
          addKey(index, value, e.getKey());
        }
      }
    }
    return newIndices;
  }

  /**
   * Swaps in a {@link #prepareReplace prepared} content. If an index was added since it was
   * prepared (rare), the indices are built again under the lock.
   */
  Replacement<T> commitReplace(PreparedReplace<T> p, String resourceVersion) {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    writeLock.lock();
    try {
      HashMap<String, T> old = items;
      indices = p.fns == indexers ? p.indices : buildIndices(indexers, p.items);
      items = p.items;
      setResourceVersionLocked(resourceVersion);
      return new Replacement<>(old, p.keys);
    } finally {
      writeLock.unlock();
    }
  }

  /** A replace's content, built aside by {@link #prepareReplace}. */
  record PreparedReplace<T>(
      IndexerSet<T> fns,
      String[] keys,
      HashMap<String, T> items,
      HashMap<String, HashMap<String, Object>> indices) {}

  /**
   * What a replace replaced: the previous content, keyed, owned by the caller now; and the keys of
   * the objects given, in their order (null for an object {@link #prepareReplaceSkippingFailures}
   * left out).
   */
  record Replacement<T>(Map<String, T> previous, String[] keys) {}

  @Override
  public void resync() {
    // Nothing to do: only queues re-deliver on resync (client-go's threadSafeMap.Resync).
  }

  @Override
  public void addIndexers(Map<String, IndexFunc<T>> newIndexers) {
    Objects.requireNonNull(newIndexers, "newIndexers");
    if (newIndexers.isEmpty()) {
      return;
    }
    writeLock.lock();
    try {
      IndexerSet<T> old = indexers;
      Set<String> conflicts = new TreeSet<>(newIndexers.keySet());
      conflicts.retainAll(old.byName().keySet());
      if (!conflicts.isEmpty()) {
        throw new IllegalArgumentException(
            "cannot add indexers: index names already in use: " + conflicts);
      }
      IndexerSet<T> added = IndexerSet.of(newIndexers);
      HashMap<String, HashMap<String, Object>> addedIndices = emptyIndices(added);
      for (Map.Entry<String, T> e : items.entrySet()) {
        List<List<String>> values = added.valuesOf(e.getValue(), e.getKey());
        for (int i = 0; i < added.size(); i++) {
          HashMap<String, Object> index = addedIndices.get(added.name(i));
          for (String value : values.get(i)) {
            addKey(index, value, e.getKey());
          }
        }
      }
      Map<String, IndexFunc<T>> merged = new LinkedHashMap<>(old.byName());
      merged.putAll(added.byName());
      indices.putAll(addedIndices);
      indexers = IndexerSet.of(merged);
    } finally {
      writeLock.unlock();
    }
  }

  /** Moves {@code key} from {@code oldValues} to {@code newValues} in index {@code name}. */
  private void updateIndexLocked(
      String name, String key, @Nullable List<String> oldValues, @Nullable List<String> newValues) {
    assert lock.isWriteLockedByCurrentThread();
    if (Objects.equals(oldValues, newValues)) {
      return; // the usual update: index values unchanged
    }
    HashMap<String, Object> index = indices.get(name);
    if (oldValues != null) {
      for (String value : oldValues) {
        removeKey(index, value, key);
      }
    }
    if (newValues != null) {
      for (String value : newValues) {
        addKey(index, value, key);
      }
    }
  }

  private static void addKey(HashMap<String, Object> index, String value, String key) {
    Object current = index.get(value);
    if (current == null) {
      index.put(value, key);
    } else if (current instanceof KeySet set) {
      set.add(key);
    } else if (!current.equals(key)) {
      KeySet set = new KeySet();
      set.add((String) current);
      set.add(key);
      index.put(value, set);
    }
  }

  private static void removeKey(HashMap<String, Object> index, String value, String key) {
    Object current = index.get(value);
    if (current instanceof KeySet set) {
      if (set.remove(key) && set.size() == 1) {
        index.put(value, set.iterator().next());
      }
    } else if (key.equals(current)) {
      index.remove(value);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  @Override
  public List<T> list() {
    readLock.lock();
    try {
      return Collections.unmodifiableList(new ArrayList<>(items.values()));
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public List<String> listKeys() {
    readLock.lock();
    try {
      return Collections.unmodifiableList(new ArrayList<>(items.keySet()));
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public Optional<T> get(T obj) {
    return getByKey(keyOf(Objects.requireNonNull(obj, "obj")));
  }

  @Override
  public Optional<T> getByKey(String key) {
    Objects.requireNonNull(key, "key");
    readLock.lock();
    try {
      return Optional.ofNullable(items.get(key));
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public List<T> index(String indexName, T obj) {
    Objects.requireNonNull(obj, "obj");
    IndexFunc<T> fn = requireIndex(indexers, indexName);
    List<String> values = IndexerSet.valuesOf(indexName, fn, obj, "the given object");
    readLock.lock();
    try {
      HashMap<String, Object> index = indices.get(indexName);
      Collection<String> keys;
      if (values.size() == 1) {
        keys = keysOf(index.get(values.get(0)));
      } else {
        Set<String> union = new LinkedHashSet<>();
        for (String value : values) {
          union.addAll(keysOf(index.get(value)));
        }
        keys = union;
      }
      return objectsLocked(keys);
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public List<String> indexKeys(String indexName, String indexedValue) {
    Objects.requireNonNull(indexedValue, "indexedValue");
    readLock.lock();
    try {
      requireIndex(indexers, indexName);
      // Sorted, as client-go's IndexKeys (sets.List).
      List<String> keys = new ArrayList<>(keysOf(indices.get(indexName).get(indexedValue)));
      Collections.sort(keys);
      return Collections.unmodifiableList(keys);
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public List<String> listIndexFuncValues(String indexName) {
    Objects.requireNonNull(indexName, "indexName");
    readLock.lock();
    try {
      // An unknown index has no values (client-go's getIndexValues), rather than an error.
      HashMap<String, Object> index = indices.get(indexName);
      return index == null
          ? List.of()
          : Collections.unmodifiableList(new ArrayList<>(index.keySet()));
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public List<T> byIndex(String indexName, String indexedValue) {
    Objects.requireNonNull(indexedValue, "indexedValue");
    readLock.lock();
    try {
      requireIndex(indexers, indexName);
      return objectsLocked(keysOf(indices.get(indexName).get(indexedValue)));
    } finally {
      readLock.unlock();
    }
  }

  @Override
  public Map<String, IndexFunc<T>> getIndexers() {
    return indexers.byName();
  }

  private List<T> objectsLocked(Collection<String> keys) {
    List<T> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(items.get(key));
    }
    return Collections.unmodifiableList(out);
  }

  private static Collection<String> keysOf(@Nullable Object entry) {
    if (entry == null) {
      return List.of();
    }
    if (entry instanceof KeySet set) {
      return set;
    }
    return List.of((String) entry);
  }

  private static <T> IndexFunc<T> requireIndex(IndexerSet<T> fns, String indexName) {
    Objects.requireNonNull(indexName, "indexName");
    IndexFunc<T> fn = fns.byName().get(indexName);
    if (fn == null) {
      throw new IllegalArgumentException(
          "no index named \"" + indexName + "\"; the indexer has " + fns.byName().keySet());
    }
    return fn;
  }

  // ---------------------------------------------------------------------------------------------
  // Inspection for tests

  /** Whether the calling thread holds the lock, to read or to write; for tests. */
  boolean holdsLock() {
    return lock.getReadHoldCount() > 0 || lock.isWriteLockedByCurrentThread();
  }

  /**
   * The content of index {@code indexName} as sorted value to sorted keys; for tests.
   *
   * @throws IllegalArgumentException if there is no such index
   */
  Map<String, Set<String>> indexContents(String indexName) {
    readLock.lock();
    try {
      requireIndex(indexers, indexName);
      Map<String, Set<String>> out = new TreeMap<>();
      indices.get(indexName).forEach((v, keys) -> out.put(v, new TreeSet<>(keysOf(keys))));
      return out;
    } finally {
      readLock.unlock();
    }
  }

  /**
   * Checks the invariants of the internal structure (as Caffeine's validation interceptor does):
   * the indices have exactly the indexers' names; every index holds exactly the entries its
   * function gives for the stored objects; no value maps to an empty set; a value with a single key
   * holds a bare String. Runs the index functions, so call it from tests only.
   *
   * @throws IllegalStateException describing the first violation found
   */
  void checkInvariants() {
    readLock.lock();
    try {
      IndexerSet<T> fns = indexers;
      if (!indices.keySet().equals(fns.byName().keySet())) {
        throw new IllegalStateException(
            "indices " + indices.keySet() + " != indexers " + fns.byName().keySet());
      }
      for (int i = 0; i < fns.size(); i++) {
        String name = fns.name(i);
        Map<String, Set<String>> expected = new TreeMap<>();
        for (Map.Entry<String, T> e : items.entrySet()) {
          for (String value : fns.valuesOf(e.getValue(), e.getKey()).get(i)) {
            expected.computeIfAbsent(value, v -> new TreeSet<>()).add(e.getKey());
          }
        }
        for (Map.Entry<String, Object> e : indices.get(name).entrySet()) {
          Object entry = e.getValue();
          if (entry instanceof KeySet set && set.size() < 2) {
            throw new IllegalStateException(
                "index " + name + " value \"" + e.getKey() + "\" has a set of " + set.size()
                    + " key(s); expected a bare key or at least two");
          }
          if (!(entry instanceof KeySet) && !(entry instanceof String)) {
            throw new IllegalStateException("index " + name + " holds a " + entry.getClass());
          }
        }
        Map<String, Set<String>> actual = new TreeMap<>();
        indices.get(name).forEach((v, keys) -> actual.put(v, new TreeSet<>(keysOf(keys))));
        if (!actual.equals(expected)) {
          throw new IllegalStateException(
              "index " + name + " is " + actual + " but the stored objects give " + expected);
        }
      }
    } finally {
      readLock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private String keyOf(T obj) {
    String key = keyFunc.key(obj);
    if (key == null) {
      throw new IllegalArgumentException(
          "the key function returned null for a " + obj.getClass().getName());
    }
    return key;
  }

  private static <T> HashMap<String, HashMap<String, Object>> emptyIndices(IndexerSet<T> fns) {
    HashMap<String, HashMap<String, Object>> out = new HashMap<>();
    for (int i = 0; i < fns.size(); i++) {
      out.put(fns.name(i), new HashMap<>());
    }
    return out;
  }

  private static int capacityFor(int size) {
    return (int) Math.min(Integer.MAX_VALUE - 8, (long) (size / 0.75f) + 1);
  }

  /** The keys filed under one index value when there are two or more (see {@link #indices}). */
  private static final class KeySet extends HashSet<String> {
    KeySet() {
      super(4);
    }
  }

  /**
   * An immutable snapshot of the index functions, with their names in a fixed order so that
   * computed values can be kept in a list parallel to it.
   *
   * @param byName the functions by name (unmodifiable, insertion-ordered)
   * @param names the names, in the order of {@code byName}
   * @param functions the functions, parallel to {@code names}
   */
  record IndexerSet<T>(
      Map<String, IndexFunc<T>> byName, List<String> names, List<IndexFunc<T>> functions) {

    static <T> IndexerSet<T> of(Map<String, IndexFunc<T>> indexers) {
      Objects.requireNonNull(indexers, "indexers");
      Map<String, IndexFunc<T>> copy = new LinkedHashMap<>();
      indexers.forEach(
          (name, fn) -> {
            Objects.requireNonNull(name, "index name");
            Objects.requireNonNull(fn, () -> "index function for \"" + name + "\"");
            copy.put(name, fn);
          });
      return new IndexerSet<>(
          Collections.unmodifiableMap(copy),
          List.copyOf(copy.keySet()),
          List.copyOf(copy.values()));
    }

    int size() {
      return names.size();
    }

    String name(int i) {
      return names.get(i);
    }

    /** The values of every index for {@code obj}, parallel to {@link #names}. */
    List<List<String>> valuesOf(T obj, String key) {
      if (names.isEmpty()) {
        return List.of();
      }
      List<List<String>> out = new ArrayList<>(names.size());
      for (int i = 0; i < names.size(); i++) {
        out.add(valuesOf(names.get(i), functions.get(i), obj, "key \"" + key + "\""));
      }
      return out;
    }

    /** Runs one index function, turning any failure into an IllegalArgumentException. */
    static <T> List<String> valuesOf(String name, IndexFunc<T> fn, T obj, String what) {
      List<String> values;
      try {
        values = fn.values(obj);
      } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
        // A bug in the user's function fails this object's write alone. Other Errors (out of
        // memory, an internal JVM error) leave nothing to recover and propagate.
        throw new IllegalArgumentException(
            "index function \"" + name + "\" failed for " + what + ": " + e, e);
      }
      if (values == null) {
        throw new IllegalArgumentException(
            "index function \"" + name + "\" returned null for " + what);
      }
      for (String v : values) {
        if (v == null) {
          throw new IllegalArgumentException(
              "index function \"" + name + "\" returned a null value for " + what);
        }
      }
      return values;
    }
  }
}

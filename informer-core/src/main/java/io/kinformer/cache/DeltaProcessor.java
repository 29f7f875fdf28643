package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link RealFifo}'s deltas to an indexer and turns them into notifications: client-go's
 * {@code processDeltas}, {@code processDeltasInBatch} and {@code processReplacedAllInfo} ({@code
 * tools/cache/controller.go}), shared by the {@link SharedIndexInformer} and the simple informers
 * of {@link SimpleInformer}.
 *
 * <ul>
 *   <li>A batch of per-object deltas goes into the indexer in one transaction; then one
 *       notification per delta, in order: an add, or an update of the object it replaced, or a
 *       delete. A delta whose key or index function fails is logged and skipped.
 *   <li>A {@code REPLACED_ALL} replaces the indexer's content first, then gives a delete ({@code
 *       finalStateUnknown}) for every key the list lacks, then an add or update per listed object
 *       in list order. A listed object whose key or index function fails is logged and left out,
 *       so one bad object does not keep a relist's others out of the cache (client-go's store
 *       would panic; its error would leave the whole list out).
 *   <li>A {@code SYNC_ALL} gives an update of every cached object to itself; a {@code BOOKMARK}
 *       moves the indexer's resourceVersion.
 * </ul>
 *
 * <p>Keys and index values are computed first, holding no lock. Then, under {@code commitLock} if
 * there is one (the shared informer's {@code blockDeltas}), the indexer is changed and the
 * notifications handed to {@link Sink#underLock}; {@link Sink#afterUnlock} follows once it is
 * released. So the sink decides where user code runs: never in {@code underLock}.
 *
 * <p>Thread safety: confine to the consumer of one queue.
 */
final class DeltaProcessor<T extends HasMetadata> {

  private static final Logger log = LoggerFactory.getLogger(DeltaProcessor.class);

  /** Where notifications go. */
  interface Sink<T> {
    /**
     * The notifications of one step, in order, with the indexer already changed; called holding
     * the commit lock, so it must only queue them (never call user code).
     */
    void underLock(List<Notification<T>> notifications);

    /**
     * Called once the commit lock is released (or right after underLock if there is none), and
     * after a bookmark has moved the store's resourceVersion.
     */
    void afterUnlock();
  }

  private final String name;
  private final ThreadSafeIndexer<T> indexer;
  private final @Nullable Lock commitLock;
  private final Sink<T> sink;

  DeltaProcessor(String name, ThreadSafeIndexer<T> indexer, @Nullable Lock commitLock, Sink<T> sink) {
    this.name = name;
    this.indexer = indexer;
    this.commitLock = commitLock;
    this.sink = sink;
  }

  /** One delta: a relist, a resync, a bookmark, or a single object's change. */
  void process(Delta<T> d, boolean isInInitialList) {
    switch (d.type()) {
      case REPLACED_ALL -> {
        @SuppressWarnings("unchecked")
        Delta.ReplacedAllInfo<T> info = (Delta.ReplacedAllInfo<T>) d.object();
        replacedAll(info, isInInitialList);
      }
      case SYNC_ALL -> syncAll();
      case BOOKMARK -> {
        indexer.bookmark(((Delta.BookmarkInfo) d.object()).resourceVersion());
        sink.afterUnlock(); // nothing to notify, but the store's resourceVersion moved
      }
      default -> processBatch(List.of(d), isInInitialList);
    }
  }

  /** A batch of per-object deltas with distinct keys. */
  void processBatch(List<Delta<T>> deltas, boolean isInInitialList) {
    int n = deltas.size();
    List<TransactionStore.Transaction<T>> txns = new ArrayList<>(n);
    boolean[] unknown = new boolean[n];
    for (Delta<T> d : deltas) {
      T obj = d.unwrap();
      if (obj == null) {
        // A tombstone without an object (a non-atomic queue's): the key is gone from the cache.
        log.debug("informer={} skipping a deletion without a known object", name);
        continue;
      }
      TransactionStore.Transaction.Type type =
          d.type() == DeltaType.DELETED
              ? TransactionStore.Transaction.Type.DELETE
              : TransactionStore.Transaction.Type.UPDATE;
      unknown[txns.size()] = d.isFinalStateUnknown();
      txns.add(new TransactionStore.Transaction<>(type, obj));
    }
    ThreadSafeIndexer.Prepared<T> prepared = indexer.prepare(txns);
    int m = txns.size();
    Object[] previous = new Object[m];
    RuntimeException[] errors = new RuntimeException[m];
    List<Notification<T>> out = new ArrayList<>(m);
    lock();
    try {
      indexer.commit(prepared, previous, errors);
      for (int i = 0; i < m; i++) {
        TransactionStore.Transaction<T> txn = txns.get(i);
        if (errors[i] != null) {
          log.warn(
              "informer={} could not apply {} of {}; skipping it",
              name, txn.type(), keyOrUnknown(txn.object()), errors[i]);
          continue;
        }
        if (txn.type() == TransactionStore.Transaction.Type.DELETE) {
          out.add(new Notification.Delete<>(txn.object(), unknown[i]));
        } else {
          @SuppressWarnings("unchecked")
          T old = (T) previous[i];
          out.add(upsert(old, txn.object(), isInInitialList));
        }
      }
      sink.underLock(out);
    } finally {
      unlock();
    }
  }

  private static <T> Notification<T> upsert(@Nullable T old, T obj, boolean isInInitialList) {
    return old != null ? new Notification.Update<>(old, obj) : new Notification.Add<>(obj, isInInitialList);
  }

  private void replacedAll(Delta.ReplacedAllInfo<T> info, boolean isInInitialList) {
    List<T> objects = info.objects();
    List<RuntimeException> failures = new ArrayList<>();
    ThreadSafeIndexer.PreparedReplace<T> prepared =
        indexer.prepareReplaceSkippingFailures(objects, failures);
    for (RuntimeException e : failures) {
      log.warn("informer={} could not cache a listed object; leaving it out", name, e);
    }
    lock();
    try {
      ThreadSafeIndexer.Replacement<T> r = indexer.commitReplace(prepared, info.resourceVersion());
      Map<String, T> previous = r.previous();
      String[] keys = r.keys();
      Object[] olds = new Object[keys.length];
      for (int i = 0; i < keys.length; i++) {
        olds[i] = keys[i] == null ? null : previous.get(keys[i]);
      }
      for (String key : keys) {
        if (key != null) {
          previous.remove(key);
        }
      }
      List<Notification<T>> out = new ArrayList<>(previous.size() + keys.length);
      for (T gone : previous.values()) {
        out.add(new Notification.Delete<>(gone, true));
      }
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == null) {
          continue; // left out: logged above
        }
        @SuppressWarnings("unchecked")
        T old = (T) olds[i];
        out.add(upsert(old, objects.get(i), isInInitialList));
      }
      sink.underLock(out);
    } finally {
      unlock();
    }
  }

  private void syncAll() {
    lock();
    try {
      List<T> all = indexer.list();
      List<Notification<T>> out = new ArrayList<>(all.size());
      for (T obj : all) {
        out.add(new Notification.Update<>(obj, obj));
      }
      sink.underLock(out);
    } finally {
      unlock();
    }
  }

  private void lock() {
    if (commitLock != null) {
      commitLock.lock();
    }
  }

  private void unlock() {
    if (commitLock != null) {
      commitLock.unlock();
    }
    sink.afterUnlock();
  }

  static String keyOrUnknown(HasMetadata obj) {
    try {
      return Keys.metaNamespaceKey(obj);
    } catch (RuntimeException e) {
      return "<no key>";
    }
  }
}

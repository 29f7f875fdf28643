package io.kinformer.cache;

import java.util.List;
import java.util.Objects;

/**
 * A {@link Store} that applies several writes under one lock acquisition (client-go's {@code
 * TransactionStore}). The informer applies each batch of watch events to its indexer this way, so
 * a reader sees either none or all of a batch, and the writer takes the lock once per batch
 * instead of once per event.
 *
 * <p>Thread safety: thread-safe, as {@link Store}.
 *
 * @param <T> the object type
 */
public interface TransactionStore<T> extends Store<T> {

  /**
   * Applies {@code transactions} in order, under one lock. A transaction whose key or index
   * function fails is skipped and the others are applied; then a {@link TransactionException}
   * names the failed ones. {@link #lastStoreSyncResourceVersion()} becomes the resourceVersion of
   * the last transaction's object.
   *
   * @throws TransactionException if any transaction failed (the others were applied)
   */
  void transaction(List<Transaction<T>> transactions);

  /**
   * One write of a {@link #transaction}.
   *
   * <p>Thread safety: immutable (the object is shared and must be treated as read-only).
   *
   * @param type what to do
   * @param object the object to add, update or delete
   * @param <T> the object type
   */
  record Transaction<T>(Type type, T object) {

    /** Checks both components for null. */
    public Transaction {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(object, "object");
    }

    /** The kinds of write (client-go's {@code TransactionType}). */
    public enum Type {
      /** {@link Store#add}. */
      ADD,
      /** {@link Store#update}. */
      UPDATE,
      /** {@link Store#delete}. */
      DELETE
    }
  }

  /**
   * Some transactions of a {@link #transaction} failed; the others were applied (client-go's
   * {@code TransactionError}).
   *
   * <p>Thread safety: immutable.
   */
  final class TransactionException extends InformerException {
    private static final long serialVersionUID = 1L;

    private final transient List<Integer> successfulIndices;
    private final int total;

    /**
     * @param successfulIndices the indices of the transactions that were applied, ascending
     * @param total how many transactions there were
     * @param failures why the others failed, in index order (added as suppressed exceptions)
     */
    public TransactionException(
        List<Integer> successfulIndices, int total, List<? extends RuntimeException> failures) {
      super(
          (total - successfulIndices.size()) + " of " + total + " transactions failed"
              + (failures.isEmpty() ? "" : ": " + failures.get(0).getMessage()));
      this.successfulIndices = List.copyOf(successfulIndices);
      this.total = total;
      failures.forEach(this::addSuppressed);
    }

    /** The indices of the transactions that were applied, ascending. */
    public List<Integer> successfulIndices() {
      return successfulIndices;
    }

    /** How many transactions there were. */
    public int total() {
      return total;
    }
  }
}

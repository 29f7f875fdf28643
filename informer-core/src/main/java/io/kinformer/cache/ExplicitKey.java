package io.kinformer.cache;

import java.util.Objects;

/**
 * A key standing in for an object (client-go's {@code ExplicitKey}): {@link Keys#keyOf} and {@link
 * Keys#deletionHandlingMetaNamespaceKey} give it back unchanged, so a store whose objects are
 * untyped ({@code Store<Object>} keyed by {@link Keys#keyFunc()}) can be asked for, or told to
 * delete, the object under a key one has without the object itself.
 *
 * <p>Thread safety: immutable.
 *
 * @param key the store key, as {@link Keys#metaNamespaceKey} makes it (any string is accepted)
 */
public record ExplicitKey(String key) {

  /** Checks the key for null. */
  public ExplicitKey {
    Objects.requireNonNull(key, "key");
  }

  /** The key itself. */
  @Override
  public String toString() {
    return key;
  }
}

package io.kinformer.cache;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One page of a list response.
 *
 * <p>Thread safety: immutable (items are shared and must be treated as read-only).
 *
 * @param items the objects of this page, in the server's order
 * @param resourceVersion the list's {@code metadata.resourceVersion}: the state every page of one
 *     list reflects
 * @param continueToken {@code metadata.continue}: present while more pages follow
 * @param remainingItemCount {@code metadata.remainingItemCount}, when the server sent it
 * @param shardSelector {@code metadata.shardInfo.selector}: the shard selector the server applied,
 *     echoed; null when the request had none or the server ignored it (then the items are not
 *     filtered by shard)
 * @param <T> the object type
 */
public record ListResult<T>(
    List<T> items,
    String resourceVersion,
    @Nullable String continueToken,
    @Nullable Long remainingItemCount,
    @Nullable String shardSelector) {

  /** Copies {@code items} unless already unmodifiable, and checks for nulls. */
  public ListResult {
    items = List.copyOf(items);
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    if (continueToken != null && continueToken.isEmpty()) {
      continueToken = null;
    }
  }

  /** A page with no shard echo. */
  public ListResult(List<T> items, String resourceVersion, @Nullable String continueToken,
      @Nullable Long remainingItemCount) {
    this(items, resourceVersion, continueToken, remainingItemCount, null);
  }

  /** Whether more pages follow (a non-empty continue token). */
  public boolean hasMore() {
    return continueToken != null;
  }
}

package io.kinformer.cache;

import org.jspecify.annotations.Nullable;

/**
 * The query of one list or watch request (the fields of {@code metav1.ListOptions} that list and
 * watch use). Absent fields are not sent.
 *
 * <p>Thread safety: immutable.
 *
 * @param resourceVersion {@code resourceVersion}: for a list, unset = most recent (consistent), "0"
 *     = any cached state, "N" = see {@code resourceVersionMatch}; for a watch, where to start
 * @param resourceVersionMatch {@code resourceVersionMatch}: {@code NotOlderThan} or {@code Exact}
 * @param limit {@code limit}: the page size of a list; positive
 * @param continueToken {@code continue}: the token of the next page
 * @param labelSelector {@code labelSelector}, in the API's syntax
 * @param fieldSelector {@code fieldSelector}, in the API's syntax
 * @param timeoutSeconds {@code timeoutSeconds}: the server ends the request after this; positive
 * @param allowWatchBookmarks {@code allowWatchBookmarks}: let the server send BOOKMARK events
 * @param sendInitialEvents {@code sendInitialEvents}: a streaming list (watch that starts with the
 *     current state and marks its end with a bookmark)
 * @param shardSelector {@code shardSelector} (alpha, {@code ShardedListAndWatch}), in the API's
 *     syntax (see {@link ShardSelector}): the server sends only the objects of that shard, and a
 *     server without the feature ignores it
 */
public record ListOptions(
    @Nullable String resourceVersion,
    @Nullable String resourceVersionMatch,
    @Nullable Long limit,
    @Nullable String continueToken,
    @Nullable String labelSelector,
    @Nullable String fieldSelector,
    @Nullable Long timeoutSeconds,
    boolean allowWatchBookmarks,
    @Nullable Boolean sendInitialEvents,
    @Nullable String shardSelector) {

  /** {@code resourceVersionMatch=NotOlderThan}. */
  public static final String NOT_OLDER_THAN = "NotOlderThan";

  /** {@code resourceVersionMatch=Exact}. */
  public static final String EXACT = "Exact";

  /** Validates the fields. */
  public ListOptions {
    if (limit != null && limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    if (timeoutSeconds != null && timeoutSeconds <= 0) {
      throw new IllegalArgumentException("timeoutSeconds must be positive: " + timeoutSeconds);
    }
    if (resourceVersionMatch != null
        && !resourceVersionMatch.equals(NOT_OLDER_THAN)
        && !resourceVersionMatch.equals(EXACT)) {
      throw new IllegalArgumentException(
          "resourceVersionMatch must be NotOlderThan or Exact: " + resourceVersionMatch);
    }
  }

  /** Options with nothing set. */
  public static ListOptions none() {
    return builder().build();
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.resourceVersion = resourceVersion;
    b.resourceVersionMatch = resourceVersionMatch;
    b.limit = limit;
    b.continueToken = continueToken;
    b.labelSelector = labelSelector;
    b.fieldSelector = fieldSelector;
    b.timeoutSeconds = timeoutSeconds;
    b.allowWatchBookmarks = allowWatchBookmarks;
    b.sendInitialEvents = sendInitialEvents;
    b.shardSelector = shardSelector;
    return b;
  }

  /**
   * Builds {@link ListOptions}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private @Nullable String resourceVersion;
    private @Nullable String resourceVersionMatch;
    private @Nullable Long limit;
    private @Nullable String continueToken;
    private @Nullable String labelSelector;
    private @Nullable String fieldSelector;
    private @Nullable Long timeoutSeconds;
    private boolean allowWatchBookmarks;
    private @Nullable Boolean sendInitialEvents;
    private @Nullable String shardSelector;

    private Builder() {}

    /** Sets {@code resourceVersion}; null unsets it. */
    public Builder resourceVersion(@Nullable String v) {
      this.resourceVersion = v;
      return this;
    }

    /** Sets {@code resourceVersionMatch}; null unsets it. */
    public Builder resourceVersionMatch(@Nullable String v) {
      this.resourceVersionMatch = v;
      return this;
    }

    /** Sets {@code limit}; null unsets it. */
    public Builder limit(@Nullable Long v) {
      this.limit = v;
      return this;
    }

    /** Sets {@code continue}; null unsets it. */
    public Builder continueToken(@Nullable String v) {
      this.continueToken = v;
      return this;
    }

    /** Sets {@code labelSelector}; null unsets it. */
    public Builder labelSelector(@Nullable String v) {
      this.labelSelector = v;
      return this;
    }

    /** Sets {@code fieldSelector}; null unsets it. */
    public Builder fieldSelector(@Nullable String v) {
      this.fieldSelector = v;
      return this;
    }

    /** Sets {@code timeoutSeconds}; null unsets it. */
    public Builder timeoutSeconds(@Nullable Long v) {
      this.timeoutSeconds = v;
      return this;
    }

    /** Sets {@code allowWatchBookmarks}. */
    public Builder allowWatchBookmarks(boolean v) {
      this.allowWatchBookmarks = v;
      return this;
    }

    /** Sets {@code sendInitialEvents}; null unsets it. */
    public Builder sendInitialEvents(@Nullable Boolean v) {
      this.sendInitialEvents = v;
      return this;
    }

    /** See {@link ListOptions#shardSelector()}. */
    public Builder shardSelector(@Nullable String v) {
      this.shardSelector = v;
      return this;
    }

    /**
     * Builds the options.
     *
     * @throws IllegalArgumentException if a field is invalid
     */
    public ListOptions build() {
      return new ListOptions(
          resourceVersion,
          resourceVersionMatch,
          limit,
          continueToken,
          labelSelector,
          fieldSelector,
          timeoutSeconds,
          allowWatchBookmarks,
          sendInitialEvents,
          shardSelector);
    }
  }
}

package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import org.jspecify.annotations.Nullable;

/**
 * Compares Kubernetes resourceVersions. Since Kubernetes 1.35 (KEP-5504, comparable resource
 * versions) a resourceVersion the API server hands out is a decimal integer without leading zeros,
 * and one written later is greater; before that they were opaque, and were integers only in
 * practice (etcd's revisions). Anything else, such as a version from an aggregated API server that
 * does not follow the rule, cannot be compared.
 *
 * <p>Thread safety: stateless.
 */
public final class ResourceVersions {

  private ResourceVersions() {}

  /**
   * Compares two resourceVersions as the integers they are, without parsing them (they may exceed
   * a {@code long}): a shorter one is smaller, one of equal length compares digit by digit.
   *
   * @return negative, zero or positive as {@code a} is older than, the same as or newer than {@code
   *     b}
   * @throws IllegalArgumentException if either is not comparable: empty, with a character other
   *     than a digit, or with a leading zero
   */
  public static int compare(String a, String b) {
    requireComparable(a);
    requireComparable(b);
    if (a.length() != b.length()) {
      return Integer.compare(a.length(), b.length());
    }
    return a.compareTo(b);
  }

  /**
   * Whether {@code store} has seen {@code resourceVersion}: its last synced resourceVersion is at
   * or past it, or the object it holds at {@code key} has it or a later one (what {@link
   * SharedIndexInformer#resourceVersionSeen} waits for). A store whose versions cannot be compared
   * has not seen it.
   *
   * @param key an object's key, or null for the store alone
   * @throws IllegalArgumentException if {@code resourceVersion} cannot be compared
   */
  public static boolean isSeen(
      ReadOnlyStore<? extends HasMetadata> store, @Nullable String key, String resourceVersion) {
    requireComparable(resourceVersion);
    if (isAtOrPast(store.lastStoreSyncResourceVersion(), resourceVersion)) {
      return true;
    }
    if (key == null) {
      return false;
    }
    return store
        .getByKey(key)
        .map(HasMetadata::getMetadata)
        .map(m -> isAtOrPast(m.getResourceVersion(), resourceVersion))
        .orElse(false);
  }

  private static boolean isAtOrPast(@Nullable String have, String want) {
    return have != null && isComparable(have) && compare(have, want) >= 0;
  }

  /** Whether {@code rv} can be compared by {@link #compare}. */
  public static boolean isComparable(@Nullable String rv) {
    if (rv == null || rv.isEmpty() || (rv.length() > 1 && rv.charAt(0) == '0')) {
      return false;
    }
    for (int i = 0; i < rv.length(); i++) {
      char c = rv.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** Throws the {@link #compare} refusal for {@code rv} unless it is comparable. */
  static void requireComparable(@Nullable String rv) {
    if (!isComparable(rv)) {
      throw new IllegalArgumentException(
          "resourceVersion \""
              + rv
              + "\" cannot be compared: expected a decimal integer without leading zeros, as"
              + " Kubernetes API servers hand out");
    }
  }
}

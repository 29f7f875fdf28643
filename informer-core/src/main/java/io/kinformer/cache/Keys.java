package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import org.jspecify.annotations.Nullable;

/**
 * The standard key functions, exactly as client-go's {@code MetaNamespaceKeyFunc}, {@code
 * DeletionHandlingMetaNamespaceKeyFunc} and {@code SplitMetaNamespaceKey} ({@code
 * tools/cache/store.go}, {@code controller.go}): {@code "namespace/name"} for namespaced objects
 * and {@code "name"} for cluster-scoped ones.
 *
 * <p>As in client-go, the key of an object is never refused for its content: an object without a
 * name has the key {@code "namespace/"} (or {@code ""}), and {@link #split} accepts every key with
 * at most one {@code '/'}. Objects from an API server always have a name; the lenient rules only
 * matter to objects built by hand, which then share a key.
 *
 * <p>Thread safety: stateless; all methods are thread-safe.
 */
public final class Keys {

  private Keys() {}

  /**
   * {@code "namespace/name"}, or {@code "name"} when the namespace is empty or absent (client-go's
   * {@code MetaNamespaceKeyFunc} and {@code ObjectName.String}). A missing name or missing
   * metadata count as empty, as the zero {@code ObjectMeta} of a Go object does: a nameless object
   * in namespace {@code ns} has the key {@code "ns/"}.
   */
  public static String metaNamespaceKey(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null) {
      return "";
    }
    return key(meta.getNamespace(), meta.getName());
  }

  /**
   * client-go's {@code MetaNamespaceKeyFunc} for an object of any type: an {@link ExplicitKey} is
   * its own key, a Kubernetes object's key is {@link #metaNamespaceKey}.
   *
   * @throws IllegalArgumentException if {@code obj} is neither ({@code object has no meta})
   */
  public static String keyOf(Object obj) {
    if (obj instanceof ExplicitKey k) {
      return k.key();
    }
    if (obj instanceof HasMetadata m) {
      return metaNamespaceKey(m);
    }
    throw new IllegalArgumentException(
        "object has no meta: " + obj.getClass().getName() + " is not a Kubernetes object");
  }

  /**
   * Like {@link #keyOf}, but a {@link DeletedFinalStateUnknown} yields the key it carries
   * (client-go's {@code DeletionHandlingMetaNamespaceKeyFunc}).
   *
   * @param obj a {@link HasMetadata}, an {@link ExplicitKey} or a {@link DeletedFinalStateUnknown}
   * @throws IllegalArgumentException if {@code obj} is none of these
   */
  public static String deletionHandlingMetaNamespaceKey(Object obj) {
    if (obj instanceof DeletedFinalStateUnknown<?> d) {
      return d.key();
    }
    return keyOf(obj);
  }

  /** A key function for {@code T} that is {@link #metaNamespaceKey}. */
  public static <T extends HasMetadata> KeyFunc<T> metaNamespaceKeyFunc() {
    return Keys::metaNamespaceKey;
  }

  /**
   * A key function for untyped stores that is {@link #keyOf}: it keys Kubernetes objects and
   * {@link ExplicitKey}s.
   */
  public static KeyFunc<Object> keyFunc() {
    return Keys::keyOf;
  }

  /**
   * Splits a key made by {@link #metaNamespaceKey} (client-go's {@code SplitMetaNamespaceKey}): a
   * key without {@code '/'} is a name in no namespace, a key with one {@code '/'} is the namespace
   * before it and the name after it. Either part may be empty: {@code "name"} gives ({@code ""},
   * {@code "name"}), {@code "ns/"} gives ({@code "ns"}, {@code ""}), {@code "/name"} gives ({@code
   * ""}, {@code "name"}) and {@code ""} gives ({@code ""}, {@code ""}).
   *
   * @return the namespace ({@code ""} for a cluster-scoped key) and the name
   * @throws IllegalArgumentException if the key has more than one {@code '/'}, with client-go's
   *     message {@code unexpected key format: "a/b/c"}
   */
  public static NamespacedName split(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return new NamespacedName("", key);
    }
    if (key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("unexpected key format: " + goQuote(key));
    }
    return new NamespacedName(key.substring(0, slash), key.substring(slash + 1));
  }

  /**
   * {@code keyFunc}'s key of {@code obj}, as the stores and queues of this package compute it
   * (client-go wraps key function errors in a {@code KeyError}).
   *
   * @throws KeyException if the key function throws or returns null
   */
  static <T> String checkedKey(KeyFunc<T> keyFunc, T obj) {
    String key;
    try {
      key = keyFunc.key(obj);
    } catch (RuntimeException e) {
      throw new KeyException(obj, e);
    }
    if (key == null) {
      throw new KeyException(obj, new IllegalStateException("the key function returned null"));
    }
    return key;
  }

  private static String key(@Nullable String namespace, @Nullable String name) {
    String n = name == null ? "" : name;
    return namespace == null || namespace.isEmpty() ? n : namespace + "/" + n;
  }

  /** Go's {@code %q} for what a key can hold: quotes, backslashes and controls escaped. */
  static String goQuote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\x%02x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  /**
   * A namespace and name pair, as split from a key (client-go's {@code ObjectName}).
   *
   * <p>Thread safety: immutable.
   *
   * @param namespace the namespace, {@code ""} for cluster-scoped objects
   * @param name the name
   */
  public record NamespacedName(String namespace, String name) {

    /** The key this pair stands for ({@code ObjectName.String}): the inverse of {@link #split}. */
    public String key() {
      return Keys.key(namespace, name);
    }
  }
}

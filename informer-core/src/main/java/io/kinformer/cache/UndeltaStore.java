package io.kinformer.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A store that hands its complete content to a push function after every change (client-go's
 * {@code UndeltaStore}, {@code tools/cache/undelta_store.go}): give it to a {@link Reflector} and
 * the push function sees the whole collection, as listed and then as watched, instead of
 * individual changes.
 *
 * <p>Every {@link #add}, {@link #update}, {@link #delete} and {@link #replace} (also {@link
 * #replaceTransformed}) calls the push function once, after the change, with a snapshot of {@link
 * #list()}; reads, {@link #resync} and {@link #bookmark} do not call it. The objects are kept in a
 * store of {@link Indexers#newStore}.
 *
 * <p>An optional transform (client-go's {@code NewStore(keyFunc, WithTransformer(fn))}, the store
 * that {@code NewUndeltaStore} wraps) is applied to each object given to {@code add}, {@code
 * update} and {@code replace} before it is kept, on the calling thread; not to deleted objects.
 * Keys are computed from the objects as given, before the transform, which therefore must not
 * change them. A reflector that streams its initial list applies {@link #transformer()} as the
 * objects arrive and hands them over with {@link #replaceTransformed}, which does not transform
 * them again.
 *
 * <p>Thread safety: thread-safe. The push function runs on the thread that made the change, after
 * the change and holding no lock of this store; it must itself be thread-safe. As in client-go,
 * the change and the snapshot are two steps: with concurrent writers, a push may already include a
 * later change, two pushes may carry the same content, and pushes may arrive in a different order
 * than their changes (so the last push is not always the newest state). Write from one thread, as
 * a reflector does, for an ordered stream of states. If the push function throws, the exception
 * propagates to the writer; the change has been made. Objects kept and pushed are shared: treat
 * them as read-only.
 *
 * @param <T> the object type
 */
public final class UndeltaStore<T> implements TransformingStore<T> {

  private final KeyFunc<T> keyFunc;
  private final Store<T> store;
  private final Consumer<? super List<T>> push;
  private final @Nullable UnaryOperator<T> transform;

  private UndeltaStore(Builder<T> builder) {
    this.keyFunc = builder.keyFunc;
    this.store = Indexers.newStore(builder.keyFunc);
    this.push = builder.push;
    this.transform = builder.transform;
  }

  /**
   * A new, empty store that files objects under {@code keyFunc} and calls {@code push} with its
   * content after every change (client-go's {@code NewUndeltaStore(pushFunc, keyFunc)}).
   */
  public static <T> UndeltaStore<T> create(KeyFunc<T> keyFunc, Consumer<? super List<T>> push) {
    return builder(keyFunc, push).build();
  }

  /** Starts building a store, for example to give it a transform. */
  public static <T> Builder<T> builder(KeyFunc<T> keyFunc, Consumer<? super List<T>> push) {
    return new Builder<>(keyFunc, push);
  }

  /**
   * Keeps {@code obj} (transformed), replacing the object with the same key, then pushes.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes and nothing
   *     is pushed
   */
  @Override
  public void add(T obj) {
    store.add(transformed(obj));
    pushContent();
  }

  /**
   * The same as {@link #add}.
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes and nothing
   *     is pushed
   */
  @Override
  public void update(T obj) {
    store.update(transformed(obj));
    pushContent();
  }

  /**
   * Removes the object with {@code obj}'s key, if any, then pushes (also when there was none, as
   * in client-go).
   *
   * @throws KeyException if the key function cannot key {@code obj}; nothing changes and nothing
   *     is pushed
   */
  @Override
  public void delete(T obj) {
    Keys.checkedKey(keyFunc, Objects.requireNonNull(obj, "obj"));
    store.delete(obj);
    pushContent();
  }

  /**
   * Replaces the whole content with {@code objects} (transformed), then pushes.
   *
   * @throws KeyException if the key function cannot key one of the objects; nothing changes and
   *     nothing is pushed
   */
  @Override
  public void replace(Collection<? extends T> objects, String resourceVersion) {
    Objects.requireNonNull(objects, "objects");
    List<T> kept = new ArrayList<>(objects.size());
    for (T obj : objects) {
      kept.add(transformed(obj));
    }
    store.replace(kept, resourceVersion);
    pushContent();
  }

  /** The transform given to the builder, or null if there is none. */
  @Override
  public @Nullable UnaryOperator<T> transformer() {
    return transform;
  }

  /**
   * As {@link #replace}, for objects that {@link #transformer()} was already applied to: they are
   * kept as given.
   *
   * @throws KeyException if the key function cannot key one of the objects; nothing changes and
   *     nothing is pushed
   */
  @Override
  public void replaceTransformed(Collection<? extends T> objects, String resourceVersion) {
    Objects.requireNonNull(objects, "objects");
    for (T obj : objects) {
      Keys.checkedKey(keyFunc, Objects.requireNonNull(obj, "an element of objects is null"));
    }
    store.replace(objects, resourceVersion);
    pushContent();
  }

  @Override
  public List<T> list() {
    return store.list();
  }

  @Override
  public List<String> listKeys() {
    return store.listKeys();
  }

  /**
   * The kept object with {@code obj}'s key.
   *
   * @throws KeyException if the key function cannot key {@code obj}
   */
  @Override
  public Optional<T> get(T obj) {
    return store.getByKey(Keys.checkedKey(keyFunc, Objects.requireNonNull(obj, "obj")));
  }

  @Override
  public Optional<T> getByKey(String key) {
    return store.getByKey(key);
  }

  /** Does nothing and pushes nothing, as a plain store. */
  @Override
  public void resync() {
    store.resync();
  }

  /** Passed on to the underlying store; pushes nothing, since the content did not change. */
  @Override
  public void bookmark(String resourceVersion) {
    store.bookmark(resourceVersion);
  }

  @Override
  public String lastStoreSyncResourceVersion() {
    return store.lastStoreSyncResourceVersion();
  }

  private void pushContent() {
    push.accept(store.list());
  }

  /** Checks {@code obj}'s key (before the transform, as client-go), then transforms it. */
  private T transformed(T obj) {
    Keys.checkedKey(keyFunc, Objects.requireNonNull(obj, "obj"));
    UnaryOperator<T> fn = transform;
    if (fn == null) {
      return obj;
    }
    T out = fn.apply(obj);
    if (out == null) {
      throw new IllegalStateException("the transform returned null");
    }
    return out;
  }

  /**
   * Builds an {@link UndeltaStore}.
   *
   * <p>Thread safety: confine to one thread.
   *
   * @param <T> the object type
   */
  public static final class Builder<T> {

    private final KeyFunc<T> keyFunc;
    private final Consumer<? super List<T>> push;
    private @Nullable UnaryOperator<T> transform;

    private Builder(KeyFunc<T> keyFunc, Consumer<? super List<T>> push) {
      this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
      this.push = Objects.requireNonNull(push, "push");
    }

    /**
     * A function applied to each object given to {@code add}, {@code update} and {@code replace}
     * before it is kept (client-go's {@code WithTransformer}), for example to strip {@code
     * managedFields}. It may change the object in place; it must not return null nor change the
     * object's key, and should be idempotent. If it throws, the call fails: {@code add} and {@code
     * update} change nothing, and neither does {@code replace}, which transforms every object
     * before it replaces anything. None by default.
     */
    public Builder<T> transform(@Nullable UnaryOperator<T> transform) {
      this.transform = transform;
      return this;
    }

    /** A new, empty store. */
    public UndeltaStore<T> build() {
      return new UndeltaStore<>(this);
    }
  }
}

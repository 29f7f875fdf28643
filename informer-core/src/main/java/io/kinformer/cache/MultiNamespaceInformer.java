package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * One informer handle over a set of namespaces, each watched by an informer of its own (one watch
 * per namespace), the way controller-runtime's multi-namespace cache works: for a process allowed
 * to read some namespaces but not the whole cluster, or that wants only a few of many.
 *
 * <h2>What the handle does</h2>
 *
 * <ul>
 *   <li>Reads ({@link #getIndexer()}, {@link #getStore()}, {@link #lister()}) are merged over the
 *       namespaces, with client-go's {@code namespace/name} keys; a key is looked up in its
 *       namespace's cache only. Each namespace's cache is consistent on its own, but a read over
 *       several namespaces is not one snapshot of all of them. The merged cache is read-only.
 *   <li>A handler added to the handle is added to every namespace's informer, including ones added
 *       later, and its calls stay sequential: the namespaces' deliveries take turns on it (a
 *       delivery waiting for its turn holds a delivery thread). Per object the order is the
 *       order its namespace's informer saw; there is no order between namespaces.
 *   <li>{@link #hasSynced()} is true once every current namespace's informer has synced; {@link
 *       #synced()} completes the first time that holds.
 *   <li>{@link #addIndexers}, {@link #setTransform} and {@link #setWatchErrorHandler} apply to every
 *       namespace's informer, including ones added later; {@link #close()} closes them all.
 *   <li>{@link #resourceVersionSeen} needs a namespaced key and waits on that namespace's cache
 *       (the namespaces' watches reach a resourceVersion independently).
 * </ul>
 *
 * <h2>Changing the namespaces</h2>
 *
 * {@link #addNamespace} makes an informer for the namespace, gives it the handle's handlers,
 * indices, transform and watch error handler, and starts it if the handle has started: its objects
 * reach the handlers as additions ({@code isInInitialList = true}, its initial list). {@link
 * #removeNamespace} closes only that namespace's informer; its objects leave the merged cache at
 * once, and then every handler is told {@code onDelete(obj, finalStateUnknown = true)} for each
 * object of that namespace it was last told exists (with the last state it was given), after the
 * namespace's informer has made its last call to it. The handle remembers, per handler and
 * namespace, the objects it delivered to that handler for this (one map entry per object and
 * handler; the objects are those of the cache). The other namespaces' informers and watches are not
 * touched.
 *
 * <p>Thread safety: thread-safe. Objects handed out are shared with the cache and read-only (see
 * {@link ReadOnlyStore}).
 *
 * @param <T> the object type
 */
public interface MultiNamespaceInformer<T extends HasMetadata> extends SharedIndexInformer<T> {

  /**
   * A handle over {@code namespaces}, each watched by the informer {@code informerForNamespace}
   * makes for it: a new, unstarted informer that lists and watches only that namespace, built with
   * the options every namespace shares (its name should name the namespace, e.g. {@code
   * v1/pods@shop}). It is called once per namespace: here for the given ones, later by {@link
   * #addNamespace}, holding no lock. The removal deliveries of {@link #removeNamespace} run on
   * {@code deliveryExecutor} (the per-namespace informers' delivery executor is a good choice); it
   * must not run tasks on the calling thread.
   *
   * @param name the handle's name, e.g. {@code v1/pods@{a,b}}
   * @throws IllegalArgumentException if a namespace is empty (all namespaces: use one informer)
   */
  static <T extends HasMetadata> MultiNamespaceInformer<T> create(
      String name,
      Collection<String> namespaces,
      Function<String, SharedIndexInformer<T>> informerForNamespace,
      Executor deliveryExecutor) {
    return new DefaultMultiNamespaceInformer<>(
        name, namespaces, informerForNamespace, deliveryExecutor);
  }

  /** The namespaces watched now; an immutable snapshot, sorted. */
  Set<String> namespaces();

  /**
   * The informer of one namespace, if it is watched: to read its own state ({@link
   * SharedIndexInformer#name()}, {@link SharedIndexInformer#lastSyncResourceVersion()}). Do not
   * close it or add handlers to it: use the handle.
   */
  java.util.Optional<SharedIndexInformer<T>> informerFor(String namespace);

  /**
   * Starts watching {@code namespace} too (see the class Javadoc); nothing happens if it is watched
   * already. The other namespaces' informers are not touched.
   *
   * @return false if the namespace was watched already
   * @throws IllegalArgumentException if {@code namespace} is empty
   * @throws IllegalStateException if the handle is closed
   */
  boolean addNamespace(String namespace);

  /**
   * Stops watching {@code namespace}: closes its informer (waiting for it as {@link
   * SharedIndexInformer#close()} does), removes its objects from the merged cache, and tells every
   * handler about them as deletions (see the class Javadoc) on the delivery executor.
   *
   * @return a future completed once every handler has been told (failed if the delivery executor
   *     refused the work, as when shutting down); already completed, with nothing told, if the
   *     namespace was not watched
   */
  CompletableFuture<Void> removeNamespace(String namespace);
}

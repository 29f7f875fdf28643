package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Waiting, through an informer, until an object satisfies a condition, is created, or is deleted
 * (client-go's {@code UntilWithSync}, kube-rs's {@code await_condition}): for tests, jobs and
 * controllers that must see a state before they go on. Each wait registers a handler on the
 * informer, looks at the object as the cache holds it (once the handler has seen the cache), then
 * at each change of it, and removes the handler once the future completes: when the condition
 * holds, or when the caller cancels it or it times out ({@link CompletableFuture#orTimeout}).
 *
 * <pre>{@code
 * Pod running =
 *     Conditions.awaitCondition(pods, "shop/web-0", p -> "Running".equals(p.getStatus().getPhase()))
 *         .get(30, TimeUnit.SECONDS);
 * Conditions.awaitDeleted(pods, "shop/web-0").orTimeout(30, TimeUnit.SECONDS).join();
 * }</pre>
 *
 * <p>The futures complete on the informer's delivery thread: dependent actions registered without
 * an executor run there, and delay the informer's other handlers while they run; use the {@code
 * ...Async} variants for anything that is not quick. A condition that throws completes the future
 * exceptionally with what it threw. If the informer is closed first, the future never completes:
 * bound the wait.
 *
 * <p>Thread safety: thread-safe; any number of waits may run at once.
 */
public final class Conditions {

  private Conditions() {}

  /**
   * Completes with the object at {@code key} once the cache holds one that satisfies {@code
   * condition} (at once if it does now).
   */
  public static <T extends HasMetadata> CompletableFuture<T> awaitCondition(
      SharedIndexInformer<T> informer, String key, Predicate<? super T> condition) {
    Objects.requireNonNull(condition, "condition");
    CompletableFuture<T> done = new CompletableFuture<>();
    watch(informer, key, state -> state.filter(condition).map(done::complete).isPresent(), done);
    return done;
  }

  /** Completes with the object at {@code key} once the cache holds one (at once if it does). */
  public static <T extends HasMetadata> CompletableFuture<T> awaitCreated(
      SharedIndexInformer<T> informer, String key) {
    return awaitCondition(informer, key, obj -> true);
  }

  /**
   * Completes once the cache holds no object at {@code key}: when it is deleted, or once the
   * cache, synced, has none.
   */
  public static <T extends HasMetadata> CompletableFuture<Void> awaitDeleted(
      SharedIndexInformer<T> informer, String key) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    watch(informer, key, state -> state.isEmpty() && done.complete(null), done);
    return done;
  }

  /**
   * Registers a handler that offers {@code check} the state of {@code key}: after the cache has
   * been seen, then after each change of the key; removes it once {@code done} completes.
   */
  private static <T extends HasMetadata> void watch(
      SharedIndexInformer<T> informer,
      String key,
      Predicate<Optional<T>> check,
      CompletableFuture<?> done) {
    Objects.requireNonNull(informer, "informer");
    Objects.requireNonNull(key, "key");
    Runnable offerCacheState =
        () -> {
          try {
            check.test(informer.getIndexer().getByKey(key));
          } catch (RuntimeException e) {
            done.completeExceptionally(e);
          }
        };
    ResourceEventHandler<T> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(T obj, boolean isInInitialList) {
            offer(obj, Optional.of(obj));
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            offer(newObj, Optional.of(newObj));
          }

          @Override
          public void onDelete(T obj, boolean finalStateUnknown) {
            offer(obj, Optional.empty());
          }

          private void offer(T obj, Optional<T> state) {
            if (done.isDone() || !key.equals(Keys.metaNamespaceKey(obj))) {
              return;
            }
            try {
              check.test(state);
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
            }
          }

          @Override
          public String toString() {
            return "condition on " + key;
          }
        };
    ResourceEventHandlerRegistration r = informer.addEventHandler(handler);
    // An object absent from the synced cache produces no event: look once the handler has seen
    // the cache (its initial adds delivered).
    r.synced().thenRun(offerCacheState);
    done.whenComplete((value, failure) -> informer.removeEventHandler(r));
  }
}

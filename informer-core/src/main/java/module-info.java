import org.jspecify.annotations.NullMarked;

/**
 * client-go's informer machinery for the JVM: caches, the reflector and shared informers
 * ({@code io.kinformer.cache}), work queues ({@code io.kinformer.workqueue}), and the injectable
 * clock, scheduler and backoff they run on ({@code io.kinformer.time}).
 *
 * <p>The fabric8 Kubernetes model is part of the API ({@code HasMetadata} and the objects that
 * informers hand out), so it is required transitively.
 */
@NullMarked
module io.kinformer.core {
  requires transitive kubernetes.model.core;
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports io.kinformer.cache;
  exports io.kinformer.time;
  exports io.kinformer.workqueue;
  exports io.kinformer.internal to io.kinformer.leaderelection;
}

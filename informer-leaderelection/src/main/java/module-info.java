import org.jspecify.annotations.NullMarked;

/**
 * Leader election over {@code coordination.k8s.io/v1} Leases ({@code LeaderElector}, {@code
 * LeaseLock}). Locks are built on informer-client's {@code KubeClient}, so it is required
 * transitively.
 */
@NullMarked
module io.kinformer.leaderelection {
  requires transitive io.kinformer.client;
  requires kubernetes.model.coordination;
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports io.kinformer.leaderelection;
}

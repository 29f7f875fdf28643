package io.kinformer.leaderelection;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kinformer.client.KubeClient;
import io.kinformer.client.ResourceClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The Lease ({@code coordination.k8s.io/v1}) that candidates compete for, and the identity this
 * candidate writes into it, as client-go's {@code resourcelock.LeaseLock}.
 *
 * <p>Every replica of one controller uses a lock on the same namespace and name, each with an
 * identity unique among them (the pod name is the usual choice). Writes go through the API
 * server's optimistic concurrency: an update carries the resourceVersion of the Lease as last
 * read or written, so of two candidates that saw the same Lease only one can take it over; the
 * other gets 409 Conflict and tries again later.
 *
 * <pre>{@code
 * LeaseLock lock = LeaseLock.create(client, "my-namespace", "my-controller", podName);
 * }</pre>
 *
 * <p>The client needs {@code get}, {@code create} and {@code update} on {@code leases} in the
 * namespace (RBAC).
 *
 * <p>Thread safety: a lock belongs to one {@link LeaderElector}, which calls it from one thread at
 * a time; {@link #identity()} and {@link #describe()} may be called from any thread.
 */
public final class LeaseLock {

  private final ResourceClient<Lease> leases;
  private final String namespace;
  private final String name;
  private final String identity;

  /**
   * The Lease as last read or written, whose resourceVersion the next update carries; null until
   * the first get or create. Written by the election loop, then by {@code close()} after the loop
   * ended.
   */
  private volatile @Nullable Lease lease;

  private LeaseLock(ResourceClient<Lease> leases, String namespace, String name, String identity) {
    this.leases = leases;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
  }

  /**
   * A lock on the Lease {@code namespace/name} for the candidate {@code identity}.
   *
   * @throws IllegalArgumentException if the namespace, name or identity is empty
   */
  public static LeaseLock create(
      KubeClient client, String namespace, String name, String identity) {
    Objects.requireNonNull(client, "client");
    requireNonEmpty(namespace, "namespace");
    requireNonEmpty(name, "name");
    requireNonEmpty(identity, "identity");
    return new LeaseLock(
        client.resources(Lease.class).inNamespace(namespace), namespace, name, identity);
  }

  private static void requireNonEmpty(String s, String what) {
    Objects.requireNonNull(s, what);
    if (s.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }

  /**
   * This lock with every Lease call bounded by {@code timeout} (whole call) instead of the
   * client's request timeout, as client-go bounds its attempts by the renew deadline; it shares
   * nothing mutable with this one.
   */
  LeaseLock withRequestTimeout(Duration timeout) {
    return new LeaseLock(leases.withRequestTimeout(timeout), namespace, name, identity);
  }

  /** The identity this candidate writes as the holder. */
  public String identity() {
    return identity;
  }

  /** {@code namespace/name} of the Lease. */
  public String describe() {
    return namespace + "/" + name;
  }

  /**
   * Reads the Lease.
   *
   * @return its record, or empty if there is no such Lease
   * @throws io.kinformer.cache.InformerException if the server could not be asked or refused
   */
  Optional<LeaderElectionRecord> get() {
    Optional<Lease> read = leases.get(name);
    read.ifPresent(l -> lease = l);
    return read.map(l -> LeaderElectionRecord.fromSpec(l.getSpec()));
  }

  /**
   * Creates the Lease with {@code record}.
   *
   * @throws io.kinformer.cache.ApiException 409 AlreadyExists if another candidate created it
   *     first
   */
  void create(LeaderElectionRecord record) {
    Lease fresh = new Lease();
    fresh.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    fresh.setSpec(record.toSpec());
    lease = leases.create(fresh);
  }

  /**
   * Replaces the Lease's spec with {@code record}, on the condition that the Lease is still the
   * one last read or written.
   *
   * @throws IllegalStateException if neither {@link #get()} nor {@link #create} succeeded yet
   * @throws io.kinformer.cache.ApiException 409 Conflict if the Lease changed meanwhile
   */
  void update(LeaderElectionRecord record) {
    Lease current = lease;
    if (current == null) {
      throw new IllegalStateException("lease " + describe() + " not read yet: get or create first");
    }
    Lease next = new Lease();
    next.setApiVersion(current.getApiVersion());
    next.setKind(current.getKind());
    next.setMetadata(current.getMetadata());
    next.setSpec(record.toSpec());
    lease = leases.update(next);
  }

  @Override
  public String toString() {
    return "LeaseLock[" + describe() + " as " + identity + "]";
  }
}

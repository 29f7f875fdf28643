package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A few replicas sharing one resource on one fake clock, driven in small steps. After every step
 * it checks the coordinator's guarantee, that no shard is owned by two replicas, and it records
 * for how long each shard had no owner.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class ShardGroup implements AutoCloseable {

  /** How far time moves between two checks of the invariant. */
  static final Duration STEP = Duration.ofMillis(50);

  final FakeClock clock = new FakeClock();
  final List<ShardReplica> replicas = new ArrayList<>();
  final int shards;
  private final EmbeddedApiServer server;
  private final String group;
  private final long seed;
  /** Per shard: the longest stretch without an owner seen so far, and the current one. */
  private final long[] longestUnownedNanos;
  private final long[] unownedSinceNanos;

  ShardGroup(EmbeddedApiServer server, String group, int size, int shards, long seed) {
    this.server = server;
    this.group = group;
    this.shards = shards;
    this.seed = seed;
    this.longestUnownedNanos = new long[shards];
    this.unownedSinceNanos = new long[shards];
    for (int i = 1; i <= size; i++) {
      add();
    }
  }

  /** Adds a replica (not started). */
  ShardReplica add() {
    int n = replicas.size() + 1;
    ShardReplica r = new ShardReplica(server, clock, group, "r" + n, shards, seed * 31 + n);
    replicas.add(r);
    return r;
  }

  ShardReplica get(int i) {
    return replicas.get(i);
  }

  /** Starts every replica, in order, at the current time. */
  ShardGroup start() {
    replicas.forEach(r -> r.coordinator.start());
    step(Duration.ZERO);
    return this;
  }

  /** Moves time on by {@code d} in {@link #STEP}s, checking the invariant after each. */
  void run(Duration d) {
    long end = clock.nanoTime() + d.toNanos();
    while (clock.nanoTime() < end) {
      step(Duration.ofNanos(Math.min(STEP.toNanos(), end - clock.nanoTime())));
    }
  }

  /** Moves time on in steps until {@code condition} holds, at most {@code limit}; how long. */
  Duration runUntil(BooleanSupplier condition, Duration limit) {
    long start = clock.nanoTime();
    while (!condition.getAsBoolean()) {
      assertThat(clock.nanoTime() - start)
          .as("condition within %s", limit).isLessThan(limit.toNanos());
      step(STEP);
    }
    return Duration.ofNanos(clock.nanoTime() - start);
  }

  private void step(Duration d) {
    clock.advance(d);
    replicas.forEach(ShardReplica::deliverCallbacks);
    long now = clock.nanoTime();
    for (int i = 0; i < shards; i++) {
      List<String> owners = owners(i);
      assertThat(owners).as("owners of shard %d at %s", i, clock.now())
          .hasSizeLessThanOrEqualTo(1);
      if (owners.isEmpty()) {
        if (unownedSinceNanos[i] < 0) {
          unownedSinceNanos[i] = now;
        }
        longestUnownedNanos[i] = Math.max(longestUnownedNanos[i], now - unownedSinceNanos[i]);
      } else {
        unownedSinceNanos[i] = -1;
      }
    }
  }

  /** The replicas that own shard {@code i} now. */
  List<String> owners(int i) {
    List<String> out = new ArrayList<>();
    for (ShardReplica r : replicas) {
      if (r.coordinator.owns(i)) {
        out.add(r.identity);
      }
    }
    return out;
  }

  Optional<ShardReplica> owner(int i) {
    return replicas.stream().filter(r -> r.coordinator.owns(i)).findFirst();
  }

  /** Whether every shard has an owner among {@code among}. */
  boolean allOwnedBy(List<ShardReplica> among) {
    for (int i = 0; i < shards; i++) {
      int shard = i;
      if (among.stream().noneMatch(r -> r.coordinator.owns(shard))) {
        return false;
      }
    }
    return true;
  }

  /** Forgets the unowned stretches seen so far. */
  void resetUnowned() {
    for (int i = 0; i < shards; i++) {
      longestUnownedNanos[i] = 0;
      unownedSinceNanos[i] = owners(i).isEmpty() ? clock.nanoTime() : -1;
    }
  }

  /** The longest stretch any shard went without an owner since the last reset. */
  Duration longestUnowned() {
    long max = 0;
    for (long l : longestUnownedNanos) {
      max = Math.max(max, l);
    }
    return Duration.ofNanos(max);
  }

  @Override
  public void close() {
    replicas.forEach(ShardReplica::close);
  }
}

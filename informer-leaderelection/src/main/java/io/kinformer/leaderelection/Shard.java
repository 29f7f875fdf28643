package io.kinformer.leaderelection;

import io.kinformer.cache.ShardSelector;
import java.util.Objects;

/**
 * One shard of the 64-bit hash space that a {@link ShardCoordinator} hands out: shard {@code
 * index} of {@code count} equal ranges, and the selector that lists and watches just its objects
 * (pass it to {@code ResourceClient.withShardSelector}).
 *
 * <p>Thread safety: immutable.
 *
 * @param index which shard, in {@code [0, count)}
 * @param count how many shards the space is split into
 * @param selector the shard's range, {@link ShardSelector#ofShard}{@code (field, index, count)}
 */
public record Shard(int index, int count, ShardSelector selector) {

  /** Checks that the selector is the shard's. */
  public Shard {
    Objects.requireNonNull(selector, "selector");
    if (!selector.equals(ShardSelector.ofShard(selector.field(), index, count))) {
      throw new IllegalArgumentException(
          "selector " + selector + " is not shard " + index + " of " + count);
    }
  }

  /** Shard {@code index} of {@code count} over {@code field}. */
  public static Shard of(ShardSelector.Field field, int index, int count) {
    return new Shard(index, count, ShardSelector.ofShard(field, index, count));
  }
}

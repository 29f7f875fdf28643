package io.kinformer.internal;

import java.util.Random;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Random generators of their own for built objects, so that objects built from one builder share
 * no generator (a {@link RandomGenerator} is mutable state, and most are not thread-safe).
 *
 * <p>Thread safety: the methods are thread-safe as far as the given generator is; builders call
 * them on their own thread, at {@code build()}.
 */
public final class Randoms {

  private Randoms() {}

  /**
   * A generator of its own for one built object, from the one its builder was given: a split of
   * a {@link RandomGenerator.SplittableGenerator}, otherwise a {@link SplittableRandom} seeded by
   * one value of {@code source} (so that a seeded builder still builds reproducible objects, each
   * with a different sequence); a new {@link Random} when {@code source} is {@code null}.
   */
  public static RandomGenerator independent(@Nullable RandomGenerator source) {
    if (source == null) {
      return new Random();
    }
    if (source instanceof RandomGenerator.SplittableGenerator splittable) {
      return splittable.split();
    }
    return new SplittableRandom(source.nextLong());
  }
}

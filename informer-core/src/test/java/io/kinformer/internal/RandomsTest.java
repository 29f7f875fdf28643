package io.kinformer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RandomsTest {

  private static long[] first(RandomGenerator g) {
    return LongStream.generate(g::nextLong).limit(8).toArray();
  }

  @Test
  void generatorsFromOneSource_areDistinct_andDrawDifferentSequences() {
    Random source = new Random(7);
    RandomGenerator one = Randoms.independent(source);
    RandomGenerator two = Randoms.independent(source);

    assertThat(one).isNotSameAs(source).isNotSameAs(two);
    assertThat(first(one)).isNotEqualTo(first(two));
  }

  @Test
  void aSeededSource_buildsReproducibleGenerators() {
    long[] a = first(Randoms.independent(new Random(7)));
    long[] b = first(Randoms.independent(new Random(7)));

    assertThat(a).isEqualTo(b);
  }

  @Test
  void aSplittableSource_isSplit() {
    SplittableRandom source = new SplittableRandom(3);
    long[] split = first(Randoms.independent(new SplittableRandom(3)));

    RandomGenerator own = Randoms.independent(source);

    assertThat(own).isInstanceOf(SplittableRandom.class).isNotSameAs(source);
    assertThat(first(own)).isEqualTo(split);
  }

  @Test
  void noSource_givesANewGeneratorEachTime() {
    assertThat(Randoms.independent(null)).isNotSameAs(Randoms.independent(null));
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class StringPoolTest {

  private final StringPool pool = new StringPool();

  @Test
  void get_whenEqualCharactersTwice_returnsTheFirstInstance() {
    char[] buffer = "xxns-7yy".toCharArray();

    String first = pool.get(buffer, 2, 4);
    String second = pool.get("ns-7".toCharArray(), 0, 4);
    String third = pool.get(new String("ns-7"));

    assertThat(first).isEqualTo("ns-7");
    assertThat(second).isSameAs(first);
    assertThat(third).isSameAs(first);
  }

  @Test
  void get_whenLongerThanMaxLength_isNotPooled() {
    char[] chars = "a".repeat(StringPool.MAX_LENGTH + 1).toCharArray();

    String first = pool.get(chars, 0, chars.length);
    String second = pool.get(chars, 0, chars.length);

    assertThat(second).isEqualTo(first).isNotSameAs(first);
    assertThat(pool.size()).isZero();
  }

  @Test
  void get_whenSlotTakenByAnotherValue_evictsAndStaysCorrect() {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 4 * StringPool.SLOTS; i++) {
      values.add("value-" + i);
    }
    for (String v : values) {
      assertThat(pool.get(v.toCharArray(), 0, v.length())).isEqualTo(v);
    }

    assertThat(pool.size()).isLessThanOrEqualTo(StringPool.SLOTS);
    for (String v : values) {
      assertThat(pool.get(v.toCharArray(), 0, v.length())).isEqualTo(v);
    }
  }

  @Test
  void get_fromManyThreads_alwaysReturnsAnEqualString() throws Exception {
    // A small vocabulary (shared) mixed with unique values (evicting), as in decoded objects.
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long seed = t;
        futures.add(threads.submit(() -> {
          SplittableRandom r = new SplittableRandom(seed);
          int wrong = 0;
          for (int i = 0; i < 200_000; i++) {
            String v = r.nextInt(4) == 0 ? "unique-" + seed + "-" + i : "ns-" + r.nextInt(300);
            char[] buffer = ("<" + v + ">").toCharArray();
            if (!pool.get(buffer, 1, v.length()).equals(v)) {
              wrong++;
            }
          }
          return wrong;
        }));
      }
      for (Future<Integer> f : futures) {
        assertThat(f.get()).isZero();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(pool.size()).isLessThanOrEqualTo(StringPool.SLOTS);
  }

  @Test
  void get_emptyString_isTheLiteral() {
    assertThat(pool.get(new char[0], 0, 0)).isSameAs("");
  }
}

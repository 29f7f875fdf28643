package io.kinformer.client.internal.codec;

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
  void get_valuesOfManyLengths_hitFromEitherEntryPoint() {
    // Short and long, ASCII, Latin-1 and not: inserted through one method, found through the other.
    List<String> values = new ArrayList<>();
    for (int length : new int[] {1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 40, StringPool.MAX_LENGTH}) {
      values.add("abcdefghijklmnopqrstuvwxyz0123456789".repeat(4).substring(0, length));
      values.add("é" + "x".repeat(length - 1)); // Latin-1, above ASCII
      values.add("€" + "x".repeat(length - 1)); // not Latin-1
    }
    for (String v : values) {
      String viaChars = pool.get(("[" + v + "]").toCharArray(), 1, v.length());
      assertThat(viaChars).isEqualTo(v);
      assertThat(pool.get(new String(v))).isSameAs(viaChars);
    }
    StringPool other = new StringPool();
    for (String v : values) {
      String viaString = other.get(new String(v));
      assertThat(other.get(("<" + v + ">").toCharArray(), 1, v.length())).isSameAs(viaString);
    }
  }

  @Test
  void get_equalHashAndLength_differentCharacters_areNotConfused() {
    // "Aa", "BB" and ";\u011B" share String.hashCode() and length, so they compete for one slot:
    // the pool must compare the characters, not trust the hash.
    String longPrefix = "y".repeat(40);
    for (String prefix : new String[] {"", "p-", longPrefix}) {
      List<String> group = List.of(prefix + "Aa", prefix + "BB", prefix + ";\u011B");
      assertThat(group).extracting(String::hashCode).containsOnly(group.get(0).hashCode());
      for (String a : group) {
        for (String b : group) {
          StringPool fresh = new StringPool();
          String first = fresh.get(a.toCharArray(), 0, a.length());
          String second = fresh.get(b.toCharArray(), 0, b.length());
          assertThat(first).isEqualTo(a);
          assertThat(second).isEqualTo(b);
          assertThat(fresh.get(new String(b))).isEqualTo(b);
          if (a.equals(b)) {
            assertThat(second).isSameAs(first);
          }
        }
      }
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

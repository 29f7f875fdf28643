package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SmallMapTest {

  @Test
  void copy_keepsOrderAndEqualsTheSource() {
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("b", 1);
    source.put("a", null);
    source.put(null, "n");

    SmallMap<String, Object> map = new SmallMap<>(source);

    assertThat(map).isEqualTo(source).hasSameHashCodeAs(source);
    assertThat(map.toString()).isEqualTo(source.toString());
    assertThat(new ArrayList<>(map.keySet())).isEqualTo(new ArrayList<>(source.keySet()));
    assertThat(map.get(null)).isEqualTo("n");
    assertThat(map.containsKey("a")).isTrue();
    assertThat(map.get("zz")).isNull();
  }

  @Test
  void fromPairs_usesTheFirstSizePairsAndStaysModifiable() {
    SmallMap<String, Object> map = new SmallMap<>(new Object[] {"a", 1, "b", null, null, null}, 2);

    assertThat(map).containsExactly(Map.entry("a", 1), new SimpleEntry<>("b", null));
    map.put("c", 3);
    assertThat(new ArrayList<>(map.keySet())).containsExactly("a", "b", "c");
    assertThat(new SmallMap<>(new Object[0], 0)).isEmpty();
    assertThatThrownBy(() -> new SmallMap<>(new Object[2], 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size 2 for 2 slots");
    // An odd-length array would leave put() without room for a value after its last key.
    assertThatThrownBy(() -> new SmallMap<>(new Object[] {"a", 1, null}, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size 1 for 3 slots");
  }

  @Test
  void randomOperations_behaveLikeLinkedHashMap() {
    SplittableRandom r = new SplittableRandom(42);
    Map<String, Integer> model = new LinkedHashMap<>();
    SmallMap<String, Integer> map = new SmallMap<>(Map.of());
    for (int step = 0; step < 20_000; step++) {
      String key = "k" + r.nextInt(12);
      switch (r.nextInt(6)) {
        case 0, 1 -> assertThat(map.put(key, step)).isEqualTo(model.put(key, step));
        case 2 -> assertThat(map.remove(key)).isEqualTo(model.remove(key));
        case 3 -> {
          Iterator<Map.Entry<String, Integer>> a = map.entrySet().iterator();
          Iterator<Map.Entry<String, Integer>> b = model.entrySet().iterator();
          while (a.hasNext()) {
            Map.Entry<String, Integer> ea = a.next();
            Map.Entry<String, Integer> eb = b.next();
            assertThat(ea).isEqualTo(eb);
            if (ea.getValue() % 3 == 0) {
              a.remove();
              b.remove();
            } else if (ea.getValue() % 3 == 1) {
              ea.setValue(ea.getValue() + 1);
              eb.setValue(eb.getValue() + 1);
            }
          }
          assertThat(b.hasNext()).isFalse();
        }
        case 4 -> {
          map.replaceAll((k, v) -> v + 1);
          model.replaceAll((k, v) -> v + 1);
        }
        default -> {
          if (r.nextInt(20) == 0) {
            map.clear();
            model.clear();
          }
        }
      }
      assertThat(map).isEqualTo(model);
      assertThat(map.size()).isEqualTo(model.size());
      assertThat(List.copyOf(map.entrySet())).isEqualTo(List.copyOf(model.entrySet()));
    }
  }

  @Test
  void iterator_whenMapChangesOutside_failsFast() {
    SmallMap<String, Integer> map = new SmallMap<>(Map.of("a", 1));
    Iterator<String> it = map.keySet().iterator();

    map.put("b", 2);

    assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
  }

  @Test
  void serialization_roundTripsToAnEqualMap() throws Exception {
    SmallMap<String, String> map = new SmallMap<>(Map.of("app", "web"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(map);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertThat(in.readObject()).isEqualTo(map);
    }
  }
}

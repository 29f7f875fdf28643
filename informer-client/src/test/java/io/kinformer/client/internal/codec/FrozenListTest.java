package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FrozenListTest {

  static Stream<List<String>> contents() {
    return Stream.of(List.of("a"), List.of("a", "b"), List.of("a", "b", "c", "b", "e"),
        Arrays.asList("a", null), Arrays.asList(null, "b", null, "d"));
  }

  private static List<String> frozen(List<String> contents) {
    return FrozenList.of(contents.toArray());
  }

  @ParameterizedTest
  @MethodSource("contents")
  void reads_asAnArrayListOfTheSameElements(List<String> contents) {
    List<String> expected = new ArrayList<>(contents);
    List<String> list = frozen(contents);

    assertThat(list).isEqualTo(expected).hasSameHashCodeAs(expected);
    assertThat(expected).isEqualTo(list);
    assertThat(list.toArray()).isEqualTo(expected.toArray());
    assertThat(list.toArray(new String[0])).isEqualTo(expected.toArray(new String[0]));
    for (String probe : new String[] {"a", "b", "z", null}) {
      assertThat(list.contains(probe)).as("contains(%s)", probe).isEqualTo(expected.contains(probe));
      assertThat(list.indexOf(probe)).as("indexOf(%s)", probe).isEqualTo(expected.indexOf(probe));
      assertThat(list.lastIndexOf(probe)).as("lastIndexOf(%s)", probe)
          .isEqualTo(expected.lastIndexOf(probe));
    }
    assertThat(list.subList(1, list.size())).isEqualTo(expected.subList(1, expected.size()));
    List<String> backwards = new ArrayList<>();
    for (ListIterator<String> it = list.listIterator(list.size()); it.hasPrevious(); ) {
      backwards.add(0, it.previous());
    }
    assertThat(backwards).isEqualTo(expected);
    assertThat(list.stream().toList()).isEqualTo(expected);
    assertThatThrownBy(() -> list.get(list.size())).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> list.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @ParameterizedTest
  @MethodSource("contents")
  void everyChange_throws_evenOneThatWouldChangeNothing(List<String> contents) {
    List<String> list = frozen(contents);
    List<Consumer<List<String>>> changes = List.of(
        x -> x.add("new"),
        x -> x.add(0, "new"),
        x -> x.addAll(List.of()),
        x -> x.addAll(0, List.of()),
        x -> x.set(0, "new"),
        x -> x.remove(0),
        x -> x.remove("absent"),
        x -> x.removeAll(List.of()),
        x -> x.retainAll(x),
        x -> x.removeIf(o -> false),
        x -> x.replaceAll(o -> o),
        x -> x.sort(null),
        List::clear,
        x -> x.subList(0, 1).clear(),
        x -> x.subList(0, 0).addAll(List.of()),
        x -> {
          Iterator<String> it = x.iterator();
          it.next();
          it.remove();
        },
        x -> x.listIterator().add("new"),
        x -> {
          ListIterator<String> it = x.listIterator();
          it.next();
          it.set("new");
        });
    for (int i = 0; i < changes.size(); i++) {
      Consumer<List<String>> change = changes.get(i);
      assertThatThrownBy(() -> change.accept(list)).as("change %d", i)
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("read-only");
    }
    assertThat(list).isEqualTo(contents);
  }
}

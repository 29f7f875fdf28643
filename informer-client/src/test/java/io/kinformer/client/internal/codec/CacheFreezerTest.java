package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CacheFreezerTest {

  /** A pod with an empty, a one-entry and a many-entry (past SmallMap's limit) map and list. */
  private static String podJson(int labels, int containers) {
    StringBuilder b = new StringBuilder("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
        + "{\"name\":\"p\",\"namespace\":\"ns\",\"labels\":{");
    for (int i = 0; i < labels; i++) {
      b.append(i == 0 ? "" : ",").append("\"l").append(i).append("\":\"v\"");
    }
    b.append("}},\"spec\":{\"containers\":[");
    for (int i = 0; i < containers; i++) {
      b.append(i == 0 ? "" : ",").append("{\"name\":\"c").append(i)
          .append("\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}");
    }
    return b.append("]}}").toString();
  }

  private static Pod frozenPod(int size) {
    return Codecs.freezeForCache(Codecs.newCacheMapper().readValue(podJson(size, size), Pod.class));
  }

  static Stream<Arguments> sizes() {
    return Stream.of(0, 1, 3, SmallMap.MAX_SIZE + 5).map(Arguments::of);
  }

  @ParameterizedTest(name = "{0} entries")
  @MethodSource("sizes")
  void frozenObject_everyMapRefusesEveryChange(int size) {
    Pod pod = frozenPod(size);
    List<Map<String, ?>> maps = new ArrayList<>();
    maps.add(pod.getMetadata().getLabels());
    maps.add(pod.getMetadata().getAnnotations());
    maps.add(pod.getAdditionalProperties());
    if (size > 0) {
      maps.add(pod.getSpec().getContainers().get(0).getResources().getLimits());
    }
    assertThat(pod.getMetadata().getLabels()).hasSize(size);
    for (Map<String, ?> m : maps) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      List<Consumer<Map<String, Object>>> changes = List.of(
          x -> x.put("new", "v"),
          x -> x.put("l0", "other"),
          x -> x.remove("absent"),
          x -> x.remove("l0"),
          Map::clear,
          x -> x.putAll(Map.of("new", "v")),
          x -> x.putIfAbsent("new", "v"),
          x -> x.computeIfAbsent("l0", k -> "v"),
          x -> x.merge("new", "v", (a, b) -> b),
          x -> x.replaceAll((k, v) -> v),
          x -> x.keySet().remove("absent"),
          x -> x.values().clear(),
          x -> x.entrySet().removeIf(e -> true));
      for (Consumer<Map<String, Object>> change : changes) {
        assertThatThrownBy(() -> change.accept(map))
            .as("%s of %d entries", map.getClass().getSimpleName(), map.size())
            .isInstanceOf(UnsupportedOperationException.class);
      }
      if (!map.isEmpty()) {
        Map.Entry<String, Object> e = map.entrySet().iterator().next();
        assertThatThrownBy(() -> e.setValue("x")).isInstanceOf(UnsupportedOperationException.class);
      }
    }
  }

  @ParameterizedTest(name = "{0} elements")
  @MethodSource("sizes")
  void frozenObject_everyListRefusesEveryChange(int size) {
    Pod pod = frozenPod(size);
    List<List<?>> lists = new ArrayList<>();
    lists.add(pod.getSpec().getContainers());
    lists.add(pod.getMetadata().getFinalizers());
    lists.add(pod.getSpec().getTolerations());
    if (size > 0) {
      lists.add(pod.getSpec().getContainers().get(0).getEnv());
    }
    assertThat(pod.getSpec().getContainers()).hasSize(size);
    for (List<?> l : lists) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) l;
      List<Consumer<List<Object>>> changes = List.of(
          x -> x.add("new"),
          x -> x.remove("absent"),
          List::clear,
          x -> x.addAll(List.of()),
          x -> x.removeIf(o -> false),
          x -> x.removeAll(List.of("absent")),
          x -> x.retainAll(x),
          x -> x.replaceAll(o -> o),
          x -> x.sort(null));
      for (Consumer<List<Object>> change : changes) {
        assertThatThrownBy(() -> change.accept(list))
            .as("%s of %d elements", list.getClass().getSimpleName(), list.size())
            .isInstanceOf(UnsupportedOperationException.class);
      }
    }
  }

  @Test
  void beforeFreezing_everyCollectionIsModifiable_andTheChangesAreKept() {
    Pod pod = Codecs.newCacheMapper().readValue(podJson(1, 3), Pod.class);

    pod.getMetadata().getLabels().put("team", "a"); // a small map (SmallMap)
    pod.getMetadata().getAnnotations().put("note", "b"); // empty
    pod.getSpec().getContainers().remove(2);
    Container first = pod.getSpec().getContainers().get(0);
    first.getEnv().add(new EnvVar("E", "v", null)); // empty
    first.getResources().getLimits().put("memory", new Quantity("1Gi"));
    Codecs.freezeForCache(pod);

    assertThat(pod.getMetadata().getLabels()).containsOnlyKeys("l0", "team");
    assertThat(pod.getMetadata().getAnnotations()).containsOnlyKeys("note");
    assertThat(pod.getSpec().getContainers()).extracting(Container::getName)
        .containsExactly("c0", "c1");
    assertThat(first.getEnv()).extracting(EnvVar::getName).containsExactly("E");
    assertThat(first.getResources().getLimits()).containsOnlyKeys("cpu", "memory");
    assertThatThrownBy(() -> first.getEnv().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void frozenObject_equalsAndSerializesAsPlainJacksons() {
    String json = podJson(SmallMap.MAX_SIZE + 1, 2);
    Pod frozen = Codecs.freezeForCache(Codecs.newCacheMapper().readValue(json, Pod.class));
    Pod plain = Codecs.newMapper().readValue(json, Pod.class);

    assertThat(frozen).isEqualTo(plain).hasSameHashCodeAs(plain);
    assertThat(Codecs.newMapper().writeValueAsString(frozen))
        .isEqualTo(Codecs.newMapper().writeValueAsString(plain));
    assertThat(new ArrayList<>(frozen.getMetadata().getLabels().keySet()))
        .containsExactlyElementsOf(IntStream.rangeClosed(0, SmallMap.MAX_SIZE)
            .mapToObj(i -> "l" + i).toList());
  }

  @Test
  void untypedValues_areFrozenAllTheWayDown() {
    GenericKubernetesResource r = Codecs.freezeForCache(Codecs.newCacheMapper().readValue(
        "{\"apiVersion\":\"x/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
            + "\"spec\":{\"list\":[1,{\"a\":[]}],\"empty\":{},\"null\":[null]}}",
        GenericKubernetesResource.class));

    Map<?, ?> spec = (Map<?, ?>) r.getAdditionalProperties().get("spec");
    List<?> list = (List<?>) spec.get("list");
    Map<?, ?> nested = (Map<?, ?>) list.get(1);
    List<Collection<?>> collections = List.of(
        spec.keySet(), list, nested.keySet(), (List<?>) nested.get("a"),
        ((Map<?, ?>) spec.get("empty")).keySet(), (List<?>) spec.get("null"));
    for (Collection<?> c : collections) {
      assertThatThrownBy(c::clear).isInstanceOf(UnsupportedOperationException.class);
    }
    assertThatThrownBy(() -> r.getAdditionalProperties().put("k", "v"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void freezingTwice_changesNothing() {
    Pod pod = frozenPod(2);
    Map<String, String> labels = pod.getMetadata().getLabels();
    List<Container> containers = pod.getSpec().getContainers();

    Codecs.freezeForCache(pod);

    assertThat(pod.getMetadata().getLabels()).isSameAs(labels);
    assertThat(pod.getSpec().getContainers()).isSameAs(containers);
    assertThat(new LinkedHashMap<>(labels)).containsOnlyKeys("l0", "l1");
  }

  @ParameterizedTest
  @MethodSource("sizes")
  void frozenCollections_answerNullQueries_asOrdinaryOnesDo(int size) {
    Pod pod = frozenPod(size);

    assertThat(pod.getSpec().getContainers().contains(null)).isFalse();
    assertThat(pod.getSpec().getContainers().indexOf(null)).isEqualTo(-1);
    assertThat(pod.getMetadata().getFinalizers().contains(null)).isFalse();
    assertThat(pod.getMetadata().getLabels().containsKey(null)).isFalse();
    assertThat(pod.getMetadata().getLabels().containsValue(null)).isFalse();
  }

  @Test
  void jdkImmutableCollections_fromATransform_becomeFrozenOnesThatAcceptNullQueries() {
    Pod pod = Codecs.newCacheMapper().readValue(podJson(1, 1), Pod.class);
    pod.getMetadata().setFinalizers(List.of("f1", "f2", "f3"));
    pod.getMetadata().setLabels(Map.of("app", "web"));
    pod.getMetadata().setAnnotations(Map.of());

    Codecs.freezeForCache(pod);

    assertThat(pod.getMetadata().getFinalizers()).containsExactly("f1", "f2", "f3");
    assertThat(pod.getMetadata().getFinalizers().contains(null)).isFalse();
    assertThat(pod.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("app", "web"));
    assertThat(pod.getMetadata().getLabels().containsKey(null)).isFalse();
    assertThat(pod.getMetadata().getAnnotations().containsKey(null)).isFalse();
    assertThatThrownBy(() -> pod.getMetadata().getLabels().remove("app"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}

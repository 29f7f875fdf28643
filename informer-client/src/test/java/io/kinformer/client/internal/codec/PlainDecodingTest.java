package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.Gvr;
import io.kinformer.client.LogCapture;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The mapper of a client with its decoding optimizations off ({@link Codecs#newPlainMapper}): the
 * list and watch codecs decode the same bytes into objects equal to the optimized mapper's, and
 * none of the optimizations' artifacts (shared strings, small maps, compacted field sets) is in
 * them.
 */
class PlainDecodingTest {

  private static final ResourceType<Pod> PODS = ResourceType.of(Pod.class);
  private static final ResourceType<GenericKubernetesResource> DYNAMIC_PODS =
      ResourceType.dynamic(new Gvr("", "v1", "pods"), "Pod", true);

  static Stream<String> lists() {
    return Stream.of("list-generated-realistic-pods.json", "list-01-full-pod-page.json",
        "list-01-page1.json");
  }

  /** The same list decoded by both mappers, with both codecs, typed and dynamic. */
  record Decoded<T extends HasMetadata>(List<T> optimized, List<T> plain) {

    static <T extends HasMetadata> Decoded<T> list(String json, ResourceType<T> type) {
      return new Decoded<>(decodeList(Codecs.newCacheMapper(), json, type),
          decodeList(Codecs.newPlainMapper(), json, type));
    }

    static <T extends HasMetadata> Decoded<T> watch(String json, ResourceType<T> type) {
      return new Decoded<>(decodeWatch(Codecs.newCacheMapper(), json, type),
          decodeWatch(Codecs.newPlainMapper(), json, type));
    }
  }

  private static <T extends HasMetadata> List<T> decodeList(
      JsonMapper mapper, String json, ResourceType<T> type) {
    return new ListCodec<>(mapper.reader(), type)
        .decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test list")
        .items();
  }

  /** The list's items as a watch stream: ADDED, MODIFIED and DELETED in turn. */
  private static <T extends HasMetadata> List<T> decodeWatch(
      JsonMapper mapper, String list, ResourceType<T> type) {
    String[] types = {"ADDED", "MODIFIED", "DELETED"};
    StringBuilder stream = new StringBuilder();
    int i = 0;
    for (JsonNode item : mapper.readTree(list).get("items")) {
      stream.append("{\"type\":\"").append(types[i++ % types.length]).append("\",\"object\":")
          .append(item).append("}\n");
    }
    WatchCodec<T> codec = new WatchCodec<>(
        new ByteArrayInputStream(stream.toString().getBytes(StandardCharsets.UTF_8)),
        mapper.reader(), type, "test watch");
    List<T> objects = new ArrayList<>();
    for (WatchEvent<T> e = codec.next(); e != null; e = codec.next()) {
      objects.add(e.object());
    }
    codec.close();
    return objects;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lists")
  void sameBytes_decodeToEqualObjects_inBothModes_beforeAndAfterFreezing(String file) {
    String json = CodecTranscripts.read(file);
    for (Decoded<?> d : List.of(Decoded.list(json, PODS), Decoded.watch(json, PODS),
        Decoded.list(json, DYNAMIC_PODS), Decoded.watch(json, DYNAMIC_PODS))) {
      assertThat(d.plain()).isNotEmpty().isEqualTo(d.optimized());
      assertThat(d.plain().toString()).isEqualTo(d.optimized().toString());

      d.plain().forEach(Codecs::freezePlainForCache);
      d.optimized().forEach(Codecs::freezeForCache);
      assertThat(d.plain()).isEqualTo(d.optimized());
      // Frozen without compaction: Jackson's maps, wrapped unmodifiable, never a SmallMap.
      assertThat(maps(d.plain())).isNotEmpty().allSatisfy(m -> assertThat(m.getClass().getName())
          .isEqualTo("java.util.Collections$UnmodifiableMap"));
    }
  }

  @Test
  void plainMapper_isJacksonsOwn_withNoModuleOfOurs() {
    JsonMapper plain = Codecs.newPlainMapper();

    assertThat(plain.tokenStreamFactory().getClass()).isEqualTo(JsonFactory.class);
    assertThat(plain.registeredModules()).isEmpty();
    // The optimized mapper is neither, so that the two assertions above can fail.
    JsonMapper cache = Codecs.newCacheMapper();
    assertThat(cache.tokenStreamFactory().getClass()).isEqualTo(CacheJsonFactory.class);
    assertThat(cache.registeredModules()).isNotEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lists")
  void plainMode_hasOnlyPlainMaps_optimizedModeHasSmallMaps(String file) {
    String json = CodecTranscripts.read(file);
    for (Decoded<?> d : List.of(Decoded.list(json, PODS), Decoded.list(json, DYNAMIC_PODS))) {
      List<Map<?, ?>> plainMaps = maps(d.plain());
      List<Map<?, ?>> optimizedMaps = maps(d.optimized());

      // The maps Jackson builds, and the HashMaps some model constructors make (Quantity).
      assertThat(plainMaps).isNotEmpty()
          .allSatisfy(m -> assertThat(m.getClass()).isIn(LinkedHashMap.class, HashMap.class));
      assertThat(plainMaps).anySatisfy(m -> assertThat(m).isNotEmpty());
      assertThat(optimizedMaps).anySatisfy(m -> assertThat(m).isInstanceOf(SmallMap.class));
    }
  }

  @Test
  void plainMode_fieldSetsAreJacksonsMapsOfMaps() {
    String json = CodecTranscripts.read("list-generated-realistic-pods.json");
    Decoded<Pod> d = Decoded.list(json, PODS);

    Map<String, Object> plain =
        d.plain().get(0).getMetadata().getManagedFields().get(0).getFieldsV1()
            .getAdditionalProperties();
    Map<String, Object> optimized =
        d.optimized().get(0).getMetadata().getManagedFields().get(0).getFieldsV1()
            .getAdditionalProperties();
    assertThat(plain).isEqualTo(optimized);
    assertThat(plain.get("f:metadata")).isExactlyInstanceOf(LinkedHashMap.class);
    assertThat(optimized.get("f:metadata")).isInstanceOf(SmallMap.class);
  }

  @Test
  void plainMode_equalValuesOfDifferentObjects_areDifferentStrings() {
    String json = CodecTranscripts.read("list-generated-realistic-pods.json");
    Decoded<Pod> d = Decoded.list(json, PODS);
    Pod plain0 = d.plain().get(0);
    Pod plain1 = d.plain().get(1);
    Pod optimized0 = d.optimized().get(0);
    Pod optimized1 = d.optimized().get(1);

    String label0 = plain0.getMetadata().getLabels().get("app");
    String label1 = plain1.getMetadata().getLabels().get("app");
    assertThat(label0).isEqualTo(label1).isNotSameAs(label1);
    assertThat(optimized0.getMetadata().getLabels().get("app"))
        .isSameAs(optimized1.getMetadata().getLabels().get("app"));

    Quantity cpu0 = requests(plain0).get("cpu");
    Quantity cpu1 = requests(plain1).get("cpu");
    assertThat(cpu0).isEqualTo(cpu1);
    assertThat(cpu0.getAmount()).isNotSameAs(cpu1.getAmount());
    assertThat(requests(optimized0).get("cpu").getAmount())
        .isSameAs(requests(optimized1).get("cpu").getAmount());

    // No string value of one object is the same instance as a value of another.
    Set<String> first = strings(plain0);
    assertThat(strings(plain1)).noneMatch(s -> first.stream().anyMatch(f -> f == s));
    Set<String> optimizedFirst = strings(optimized0);
    assertThat(strings(optimized1)).anyMatch(s -> optimizedFirst.stream().anyMatch(f -> f == s));
  }

  @Test
  void plainMode_frozenObjectIsReadOnly() {
    String json = CodecTranscripts.read("list-generated-realistic-pods.json");
    Pod pod = Codecs.freezePlainForCache(decodeList(Codecs.newPlainMapper(), json, PODS).get(0));

    assertThatThrownBy(() -> pod.getMetadata().getLabels().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> pod.getSpec().getContainers().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> requests(pod).remove("cpu"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void plainMode_stillSkipsAnObjectThatDoesNotBind_andReportsIt() throws Exception {
    String list = "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":["
        + pod("good", "80") + "," + pod("bad", "\"http\"") + "," + pod("later", "81") + "]}";
    AtomicInteger counted = new AtomicInteger();
    UndecodableObjects undecodable = new UndecodableObjects("v1/pods", counted::incrementAndGet);

    String logged = LogCapture.stderrOf(() -> {
      List<Pod> items = new ListCodec<>(Codecs.newPlainMapper().reader(), PODS, undecodable)
          .decode(new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)), "test list")
          .items();
      assertThat(items).extracting(p -> p.getMetadata().getName()).containsExactly("good", "later");
    });

    assertThat(counted).hasValue(1);
    assertThat(logged).contains("WARN").contains("skipped Pod ns/bad")
        .contains("spec.containers[0].ports[0].containerPort");
  }

  @Test
  void plainMode_watchErrorEvent_isAnApiError() {
    String stream = CodecTranscripts.read("watch-05-expired.jsonl");
    WatchCodec<Pod> codec = new WatchCodec<>(
        new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)),
        Codecs.newPlainMapper().reader(), PODS, "test watch");

    WatchEvent<Pod> event = codec.next();
    codec.close();

    assertThat(event).isNotNull();
    assertThat(event.type()).isEqualTo(WatchEventType.ERROR);
    assertThat(event.error().code()).isEqualTo(410);
    assertThat(event.error().reason()).hasValue("Expired");
  }

  private static String pod(String name, String port) {
    return "{\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"ns\"},\"spec\":{"
        + "\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":" + port + "}]}]}}";
  }

  private static Map<String, Quantity> requests(Pod pod) {
    return pod.getSpec().getContainers().get(0).getResources().getRequests();
  }

  /** Every map in the objects, however deep (model fields, map values, list elements). */
  private static List<Map<?, ?>> maps(List<?> objects) {
    List<Map<?, ?>> out = new ArrayList<>();
    walk(objects, new IdentityHashMap<>(), v -> {
      if (v instanceof Map<?, ?> m) {
        out.add(m);
      }
    });
    return out;
  }

  /**
   * Every non-empty string value of {@code pod} (not map keys, which Jackson's own name table
   * shares, and not kind and apiVersion, which the codec fills in from its resource type).
   */
  private static Set<String> strings(Pod pod) {
    Set<String> out = Collections.newSetFromMap(new IdentityHashMap<>());
    walk(pod, new IdentityHashMap<>(), v -> {
      if (v instanceof String s && !s.isEmpty() && v != pod.getKind()
          && v != pod.getApiVersion()) {
        out.add(s);
      }
    });
    return out;
  }

  private static void walk(
      Object value, IdentityHashMap<Object, Boolean> seen, Consumer<Object> visit) {
    if (value == null || seen.put(value, true) != null) {
      return;
    }
    visit.accept(value);
    if (value instanceof Map<?, ?> m) {
      m.values().forEach(v -> walk(v, seen, visit));
    } else if (value instanceof List<?> l) {
      l.forEach(v -> walk(v, seen, visit));
    } else if (value.getClass().getName().startsWith("io.fabric8.kubernetes.")
        && !value.getClass().isEnum()) {
      for (Class<?> c = value.getClass(); c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
            continue;
          }
          f.setAccessible(true);
          try {
            walk(f.get(value), seen, visit);
          } catch (IllegalAccessException e) {
            throw new AssertionError(e);
          }
        }
      }
    }
  }
}

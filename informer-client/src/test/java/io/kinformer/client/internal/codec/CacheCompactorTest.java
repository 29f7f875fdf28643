package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaSpec;
import io.fabric8.kubernetes.api.model.ResourceQuotaStatus;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.VolumeResourceRequirements;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

class CacheCompactorTest {

  /** A map field of a model class and whether it can hold quantities. */
  record MapField(Class<?> owner, String field, boolean quantities) {
    @Override
    public String toString() {
      return owner.getSimpleName() + "." + field;
    }
  }

  static Stream<MapField> mapFields() {
    return Stream.of(
        new MapField(ResourceRequirements.class, "limits", true),
        new MapField(ResourceRequirements.class, "requests", true),
        new MapField(ObjectMeta.class, "labels", false),
        new MapField(ObjectMeta.class, "annotations", false),
        new MapField(Quantity.class, "additionalProperties", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mapFields")
  void mayHoldQuantities_followsTheMapsValueType(MapField f) throws Exception {
    Field field = f.owner().getDeclaredField(f.field());

    assertThat(CacheCompactor.Accessors.mayHoldQuantities(field.getGenericType()))
        .isEqualTo(f.quantities());
  }

  /** A field shaped like {@code UserInfo.extra} of the authentication API. */
  static final class MapsOfLists {
    Map<String, List<String>> extra = Map.of();
  }

  /** Model classes that carry resource quantities in maps. */
  static Stream<Class<?>> classesWithQuantityMaps() {
    return Stream.of(ResourceRequirements.class, VolumeResourceRequirements.class,
        PodSpec.class, PodStatus.class, ContainerStatus.class, ResourceQuotaSpec.class,
        ResourceQuotaStatus.class, NodeStatus.class, LimitRangeItem.class,
        PersistentVolumeSpec.class, PersistentVolumeClaimStatus.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("classesWithQuantityMaps")
  void accessorsOf_everyQuantityMapField_isCompactedAndWalkedForQuantities(Class<?> type) {
    CacheCompactor.Accessors accessors = CacheCompactor.Accessors.of(type);
    List<Field> fields = List.of(accessors.fields());
    int found = 0;

    for (Field f : type.getDeclaredFields()) {
      if (f.getGenericType() instanceof ParameterizedType p && p.getRawType() == Map.class
          && p.getActualTypeArguments()[1] == Quantity.class) {
        found++;
        assertThat(fields).as(f.getName()).contains(f);
        assertThat(accessors.quantities()[fields.indexOf(f)]).as(f.getName()).isTrue();
      }
    }
    assertThat(found).isPositive();
  }

  @Test
  void mayHoldQuantities_mapOfLists_isNotWalked() throws Exception {
    Type extra = MapsOfLists.class.getDeclaredField("extra").getGenericType();

    assertThat(CacheCompactor.Accessors.mayHoldQuantities(extra)).isFalse();
  }

  @Test
  void cacheMapper_quantitiesOfResourceMaps_arePooledAndShareTheEmptyExtras() {
    JsonMapper mapper = Codecs.newCacheMapper();
    String json = podJson();

    Pod a = Codecs.freezeForCache(mapper.readValue(json, Pod.class));
    Pod b = Codecs.freezeForCache(mapper.readValue(json, Pod.class));

    Quantity qa = limits(a).get("cpu");
    Quantity qb = limits(b).get("cpu");
    assertThat(qa).isEqualTo(new Quantity("500m"));
    assertThat(qb.getAmount()).isSameAs(qa.getAmount());
    assertThat(qb.getFormat()).isSameAs(qa.getFormat());
    assertThat(qa.getAdditionalProperties()).isSameAs(CacheFreezer.EMPTY_MAP);
    assertThat(a.getMetadata().getLabels()).containsEntry("app", "web");
  }

  @Test
  void cacheMapper_keysOfSeparateDecodes_areOneStringEach() {
    // The cache mapper's name table is bounded (CacheJsonFactory): once it is full, new keys come
    // out of the parser as new strings, and the pool makes them one: labels, resource names,
    // FieldsV1 keys, and the keys of untyped values, small and large. Decoded from a new byte
    // array each time, so no two keys share a buffer.
    JsonMapper mapper = Codecs.newCacheMapper();
    StringBuilder filler = new StringBuilder("{");
    for (int i = 0; i < CacheJsonFactory.MAX_NAMES; i++) {
      filler.append(i == 0 ? "" : ",").append("\"filler-").append(i).append("\":0");
    }
    mapper.readTree(filler.append('}').toString().getBytes(StandardCharsets.UTF_8));
    String pod = "{\"metadata\":{\"name\":\"p\",\"labels\":{\"app.kubernetes.io/name\":\"web\"},"
        + "\"managedFields\":[{\"manager\":\"m\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
        + "{\"f:metadata\":{\"f:labels\":{\"f:app.kubernetes.io/name\":{}}}}}]},"
        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}";
    StringBuilder large = new StringBuilder("{");
    for (int i = 0; i < SmallMap.MAX_SIZE + 4; i++) {
      large.append(i == 0 ? "" : ",").append("\"key-number-").append(i).append("\":").append(i);
    }
    String generic = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Thing\",\"metadata\":"
        + "{\"name\":\"t\"},\"spec\":{\"small\":{\"replicas-wanted\":1},\"large\":" + large
        + "}}}";

    Pod a = mapper.readValue(pod.getBytes(StandardCharsets.UTF_8), Pod.class);
    Pod b = mapper.readValue(pod.getBytes(StandardCharsets.UTF_8), Pod.class);
    GenericKubernetesResource ga = mapper.readValue(
        generic.getBytes(StandardCharsets.UTF_8), GenericKubernetesResource.class);
    GenericKubernetesResource gb = mapper.readValue(
        generic.getBytes(StandardCharsets.UTF_8), GenericKubernetesResource.class);

    assertThat(onlyKey(b.getMetadata().getLabels())).isSameAs(onlyKey(a.getMetadata().getLabels()));
    assertThat(onlyKey(limits(b))).isSameAs(onlyKey(limits(a)));
    assertThat(fieldsV1Key(b)).isEqualTo("f:app.kubernetes.io/name").isSameAs(fieldsV1Key(a));
    assertThat(onlyKey(spec(gb, "small"))).isSameAs(onlyKey(spec(ga, "small")));
    assertThat(spec(gb, "large")).hasSize(SmallMap.MAX_SIZE + 4).isEqualTo(spec(ga, "large"));
    assertThat(firstKey(spec(gb, "large"))).isSameAs(firstKey(spec(ga, "large")));
    assertThat(firstKey(gb.getAdditionalProperties())).isSameAs(firstKey(ga.getAdditionalProperties()));
  }

  private static Object onlyKey(Map<?, ?> m) {
    assertThat(m).hasSize(1);
    return firstKey(m);
  }

  private static Object firstKey(Map<?, ?> m) {
    return m.keySet().iterator().next();
  }

  @SuppressWarnings("unchecked")
  private static Object fieldsV1Key(Pod pod) {
    Map<String, Object> metadata = (Map<String, Object>) pod.getMetadata().getManagedFields().get(0)
        .getFieldsV1().getAdditionalProperties().get("f:metadata");
    return firstKey((Map<String, Object>) metadata.get("f:labels"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource r, String field) {
    return (Map<String, Object>) ((Map<String, Object>) r.getAdditionalProperties().get("spec"))
        .get(field);
  }

  private static Map<String, Quantity> limits(Pod pod) {
    List<Container> containers = pod.getSpec().getContainers();
    return containers.get(0).getResources().getLimits();
  }

  /** A pod with resource limits and requests, as plain Jackson writes it. */
  private static String podJson() {
    Pod pod = new PodBuilder()
        .withNewMetadata().withName("p").withNamespace("ns").addToLabels("app", "web")
        .endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("nginx")
        .withNewResources().addToLimits("cpu", new Quantity("500m"))
        .addToRequests("memory", new Quantity("64Mi")).endResources()
        .endContainer().endSpec()
        .build();
    return JsonMapper.builder().build().writeValueAsString(pod);
  }
}

package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CodecsTest {

  /** What users would get from plain Jackson. */
  private static final JsonMapper PLAIN =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** One object of the corpus: its JSON and the class it decodes into. */
  record Case(String name, String json, Class<?> type) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * Every object of the transcript corpora, plus generated realistic pods (from
   * informer-benchmarks' generator: managedFields, containers, probes, resources, status), each
   * pod also as a GenericKubernetesResource (dynamic informers), plus an object with unknown
   * fields (additionalProperties with nested empties).
   */
  static Stream<Case> corpus() {
    List<Case> cases = new ArrayList<>();
    for (String file : List.of("list-01-full-pod-page.json", "list-01-page1.json",
        "list-01-page2.json", "list-01-page3.json", "list-generated-realistic-pods.json")) {
      JsonNode list = PLAIN.readTree(CodecTranscripts.read(file));
      int i = 0;
      for (JsonNode item : list.get("items")) {
        cases.add(new Case(file + "[" + i + "]", item.toString(), Pod.class));
        cases.add(new Case(file + "[" + i + "] dynamic", item.toString(),
            GenericKubernetesResource.class));
        i++;
      }
    }
    int i = 0;
    for (JsonNode item : PLAIN.readTree(CodecTranscripts.read("list-09-metadata.json"))
        .get("items")) {
      cases.add(new Case("list-09-metadata.json[" + i++ + "]", item.toString(),
          PartialObjectMetadata.class));
    }
    for (String file : List.of("watch-03-bookmarks.jsonl", "watch-05-expired.jsonl",
        "watch-05-too-large.jsonl", "watch-09-metadata.jsonl")) {
      String[] lines = CodecTranscripts.read(file).split("\n");
      for (int k = 0; k < lines.length; k++) {
        JsonNode object = PLAIN.readTree(lines[k]).get("object");
        String kind = object.path("kind").asString();
        Class<?> type = kind.equals("Status") ? Status.class
            : kind.equals("PartialObjectMetadata") ? PartialObjectMetadata.class : Pod.class;
        cases.add(new Case(file + "[" + k + "]", object.toString(), type));
      }
    }
    cases.add(new Case("unknown fields", UNKNOWN_FIELDS, Pod.class));
    cases.add(new Case("unknown fields dynamic", UNKNOWN_FIELDS, GenericKubernetesResource.class));
    return cases.stream();
  }

  private static final String UNKNOWN_FIELDS = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
      + "\"metadata\":{\"name\":\"x\",\"namespace\":\"ns\",\"labels\":{},\"future\":{\"a\":{},"
      + "\"b\":[],\"c\":[{}, [], \"s\", 1, 2.5, true, null]}},"
      + "\"spec\":{\"containers\":[{\"name\":\"c\",\"args\":[]}],\"futureList\":[]},"
      + "\"status\":{\"phase\":\"Running\",\"n\":12345678901234}}";

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void newMapper_decodesEqualToPlainJackson(Case c) {
    assertSameAsPlain(Codecs.newMapper(), c);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void newCacheMapper_decodesEqualToPlainJackson(Case c) {
    assertSameAsPlain(Codecs.newCacheMapper(), c);
  }

  private static void assertSameAsPlain(JsonMapper mapper, Case c) {
    Object expected = PLAIN.readValue(c.json(), c.type());
    Object actual = mapper.readValue(c.json(), c.type());
    assertThat(actual).isEqualTo(expected).hasSameHashCodeAs(expected);
    assertThat(actual.toString()).isEqualTo(expected.toString());
    // Serializes back to the same JSON (as a tree: same fields and values).
    assertThat(PLAIN.readTree(PLAIN.writeValueAsString(actual)))
        .isEqualTo(PLAIN.readTree(PLAIN.writeValueAsString(expected)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void newCacheMapper_objectsCopyIntoBuildersAndBackUnchanged(Case c) throws Exception {
    Object cached = Codecs.newCacheMapper().readValue(c.json(), c.type());
    if (!(cached instanceof HasMetadata h)) {
      return;
    }
    String before = PLAIN.writeValueAsString(cached);
    assertThat(new ObjectMetaBuilder(h.getMetadata()).build()).isEqualTo(h.getMetadata());
    if (!(cached instanceof PartialObjectMetadata)) { // which has no builder
      // new XBuilder(cached).build(), for the fabric8 model class X.
      Class<?> builder = Class.forName(cached.getClass().getName() + "Builder");
      Object copy = builder.getConstructor(cached.getClass()).newInstance(cached);
      Object built = builder.getMethod("build").invoke(copy);
      assertThat(built).isEqualTo(cached);
    }
    assertThat(PLAIN.writeValueAsString(cached)).isEqualTo(before);
  }

  @Test
  void newCacheMapper_podEditedThroughBuilder_leavesCachedPodUntouched() {
    Pod cached = Codecs.newCacheMapper().readValue(realisticPod(), Pod.class);
    Pod plain = PLAIN.readValue(realisticPod(), Pod.class);

    Pod edited = new PodBuilder(cached)
        .editMetadata().addToLabels("x", "y").addToFinalizers("f").addToAnnotations("a", "b")
        .endMetadata()
        .editSpec().addNewToleration().withKey("k").endToleration().endSpec()
        .build();

    assertThat(edited.getMetadata().getLabels()).containsEntry("x", "y");
    assertThat(edited.getMetadata().getFinalizers()).containsExactly("f");
    assertThat(edited.getSpec().getTolerations()).hasSize(1);
    assertThat(cached).isEqualTo(plain);
    // The builder's object is an ordinary, modifiable one.
    edited.getMetadata().getAdditionalProperties().put("k", "v");
    edited.getSpec().getVolumes().add(null);
  }

  @Test
  void newCacheMapper_emptyCollections_becomeTheSharedImmutableEmptiesWhenFrozen() {
    Pod pod = Codecs.freezeForCache(Codecs.newCacheMapper().readValue(realisticPod(), Pod.class));

    assertThat(pod.getAdditionalProperties()).isSameAs(CacheFreezer.EMPTY_MAP);
    assertThat(pod.getMetadata().getAdditionalProperties()).isSameAs(CacheFreezer.EMPTY_MAP);
    assertThat(pod.getSpec().getTolerations()).isSameAs(FrozenList.empty());
    FieldsV1 fields = pod.getMetadata().getManagedFields().get(0).getFieldsV1();
    Map<?, ?> metadataFields = (Map<?, ?>) fields.getAdditionalProperties().get("f:metadata");
    Map<?, ?> labelFields = (Map<?, ?>) metadataFields.get("f:labels");
    assertThat(labelFields.get("f:app")).isSameAs(CacheFreezer.EMPTY_MAP);
    // Every change throws, even one that would change nothing.
    assertThatThrownBy(() -> pod.getSpec().getTolerations().remove(null))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> pod.getMetadata().getAdditionalProperties().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void newCacheMapper_emptyMetadataCollections_stayModifiableForTransforms() {
    Pod pod = Codecs.newCacheMapper().readValue(
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}", Pod.class);

    // What a transform typically does to an object that had no labels, annotations or finalizers.
    pod.getMetadata().getLabels().put("team", "a");
    pod.getMetadata().getAnnotations().put("note", "b");
    pod.getMetadata().getFinalizers().add("f");
    pod.getMetadata().getOwnerReferences().add(null);

    assertThat(pod.getMetadata().getLabels()).containsEntry("team", "a");
    assertThat(pod.getMetadata().getFinalizers()).containsExactly("f");
  }

  @Test
  void newMapper_emptyCollections_stayModifiable() {
    Pod pod = Codecs.newMapper().readValue(realisticPod(), Pod.class);

    pod.getMetadata().getFinalizers().add("f");
    pod.getMetadata().getAdditionalProperties().put("k", "v");
    pod.getSpec().getTolerations().add(null);

    assertThat(pod.getMetadata().getFinalizers()).containsExactly("f");
  }

  @Test
  void newMapper_equalValuesOfDifferentObjects_shareOneString() {
    JsonMapper mapper = Codecs.newMapper();
    Pod a = mapper.readValue(realisticPod(), Pod.class);
    Pod b = mapper.readValue(realisticPod(), Pod.class);

    assertThat(a.getMetadata().getNamespace()).isSameAs(b.getMetadata().getNamespace());
    assertThat(a.getSpec().getContainers().get(0).getImage())
        .isSameAs(b.getSpec().getContainers().get(0).getImage());
    assertThat(a.getMetadata().getLabels().get("app"))
        .isSameAs(b.getMetadata().getLabels().get("app"));
    assertThat(a.getStatus().getConditions().get(0).getStatus())
        .isSameAs(b.getStatus().getConditions().get(1).getStatus());
  }

  @Test
  void bothMappers_valuesUniqueByNature_bypassThePool() {
    // Names, uids, resourceVersions, pod IPs and container IDs are decoded equal but never
    // shared: pooling them would only evict values that objects do have in common.
    String podIp = "{\"ip\":\"10.1.0.0\"}";
    for (JsonMapper mapper : List.of(Codecs.newMapper(), Codecs.newCacheMapper())) {
      Pod a = mapper.readValue(realisticPod(), Pod.class);
      Pod b = mapper.readValue(realisticPod(), Pod.class);

      assertThat(a).isEqualTo(b);
      assertThat(a.getMetadata().getName()).isNotSameAs(b.getMetadata().getName());
      assertThat(a.getMetadata().getUid()).isNotSameAs(b.getMetadata().getUid());
      assertThat(a.getMetadata().getResourceVersion())
          .isNotSameAs(b.getMetadata().getResourceVersion());
      assertThat(a.getStatus().getPodIP()).isNotSameAs(b.getStatus().getPodIP());
      assertThat(a.getStatus().getContainerStatuses().get(0).getContainerID())
          .isNotSameAs(b.getStatus().getContainerStatuses().get(0).getContainerID());
      assertThat(mapper.readValue(podIp, PodIP.class).getIp())
          .isEqualTo("10.1.0.0")
          .isNotSameAs(mapper.readValue(podIp, PodIP.class).getIp());
      // Shared values of the same objects still are.
      assertThat(a.getMetadata().getGenerateName()).isSameAs(b.getMetadata().getGenerateName());
      assertThat(a.getStatus().getHostIP()).isSameAs(b.getStatus().getHostIP());
      assertThat(a.getSpec().getContainers().get(0).getName())
          .isSameAs(b.getSpec().getContainers().get(0).getName());
    }
  }

  @Test
  void newCacheMapper_decodingConcurrently_givesPlainJacksonObjects() throws Exception {
    JsonMapper shared = Codecs.newCacheMapper();
    List<Case> cases = corpus().toList();
    List<Object> expected = new ArrayList<>();
    for (Case c : cases) {
      expected.add(PLAIN.readValue(c.json(), c.type()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int offset = t;
        futures.add(pool.submit(() -> {
          for (int round = 0; round < 50; round++) {
            for (int k = 0; k < cases.size(); k++) {
              Case c = cases.get((k + offset * 7) % cases.size());
              Object actual = shared.readValue(c.json(), c.type());
              assertThat(actual).as(c.name())
                  .isEqualTo(expected.get((k + offset * 7) % cases.size()));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static String realisticPod() {
    return PLAIN.readTree(CodecTranscripts.read("list-generated-realistic-pods.json"))
        .get("items").get(0).toString();
  }
}

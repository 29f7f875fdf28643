package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.client.Gvr;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

class ListCodecTest {

  private static final JsonMapper MAPPER = Codecs.newMapper();
  private static final Gvr PODS = Gvr.of("", "v1", "pods");

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> ListResult<T> decode(
      ResourceType<T> type, String body) {
    return new ListCodec<>(MAPPER.reader(), type).decode(stream(body), "GET http://test/pods");
  }

  private static InputStream stream(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void decode_typedFullPodPage_bindsItemsFillsKindAndParsesListMeta() {
    ListResult<Pod> page =
        decode(ResourceType.of(Pod.class), CodecTranscripts.read("list-01-full-pod-page.json"));

    assertThat(page.resourceVersion()).isEqualTo("127");
    assertThat(page.continueToken())
        .isEqualTo("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTI3LCJzdGFydCI6Ii9hXHUwMDAwIn0");
    assertThat(page.remainingItemCount()).isEqualTo(4L);
    assertThat(page.items()).hasSize(1);
    Pod pod = page.items().get(0);
    assertThat(pod.getKind()).isEqualTo("Pod");
    assertThat(pod.getApiVersion()).isEqualTo("v1");
    assertThat(pod.getMetadata().getName()).isEqualTo("a");
    assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("123");
    assertThat(pod.getSpec().getContainers()).isNotEmpty();
  }

  @Test
  void decode_dynamic_fillsKindAndApiVersionTheServerLeftOut() {
    ListResult<GenericKubernetesResource> page = decode(
        ResourceType.dynamic(PODS, "Pod", true), CodecTranscripts.read("list-01-page1.json"));

    assertThat(page.items()).extracting(o -> o.getMetadata().getName()).containsExactly("a", "b");
    assertThat(page.items()).allSatisfy(o -> {
      assertThat(o.getKind()).isEqualTo("Pod");
      assertThat(o.getApiVersion()).isEqualTo("v1");
    });
    assertThat(page.remainingItemCount()).isEqualTo(3L);
    assertThat(page.hasMore()).isTrue();
  }

  @Test
  void decode_lastPage_hasNoContinueToken() {
    ListResult<Pod> page =
        decode(ResourceType.of(Pod.class), CodecTranscripts.read("list-01-page3.json"));

    assertThat(page.hasMore()).isFalse();
    assertThat(page.remainingItemCount()).isNull();
    assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("e");
  }

  @Test
  void decode_metadataOnly_keepsPartialObjectMetadataKind() {
    ListResult<PartialObjectMetadata> page = decode(
        ResourceType.metadataOnly(PODS, "Pod", true), CodecTranscripts.read("list-09-metadata.json"));

    assertThat(page.resourceVersion()).isEqualTo("336");
    assertThat(page.items()).extracting(o -> o.getMetadata().getName()).containsExactly("a", "b");
    assertThat(page.items()).allSatisfy(o -> {
      assertThat(o.getKind()).isEqualTo("PartialObjectMetadata");
      assertThat(o.getApiVersion()).isEqualTo("meta.k8s.io/v1");
      assertThat(o.getMetadata().getLabels()).containsEntry("app", "demo");
    });
  }

  @Test
  void decode_itemsBeforeMetadataAndUnknownFields_areHandled() {
    String body = "{\"items\":[{\"metadata\":{\"name\":\"x\"},\"extra\":[1,{\"a\":2}]}],"
        + "\"other\":{\"deep\":[true]},\"metadata\":{\"resourceVersion\":\"9\"},"
        + "\"kind\":\"PodList\"}";

    ListResult<GenericKubernetesResource> page =
        decode(ResourceType.dynamic(PODS, "Pod", true), body);

    assertThat(page.resourceVersion()).isEqualTo("9");
    assertThat(page.items()).singleElement()
        .satisfies(o -> assertThat(o.getMetadata().getName()).isEqualTo("x"));
  }

  @Test
  void decode_nullItems_isAnEmptyPage() {
    ListResult<Pod> page = decode(ResourceType.of(Pod.class),
        "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":null}");

    assertThat(page.items()).isEmpty();
    assertThat(page.resourceVersion()).isEqualTo("5");
  }

  @Test
  void decode_listMetaFieldsOfTheWrongShape_areSkippedWhole() {
    // An object or array where a string or number belongs, or a count beyond a long, is ignored,
    // and the parser leaves the metadata object where it really ends: "items" after it is still
    // read as the list's items.
    String body = "{\"metadata\":{\"resourceVersion\":{\"a\":\"1\"},\"continue\":[\"t\"],"
        + "\"remainingItemCount\":{},\"items\":[{\"metadata\":{\"name\":\"inner\"}}],"
        + "\"remainingItemCount\":99999999999999999999},"
        + "\"items\":[{\"metadata\":{\"name\":\"x\"}}]}";

    ListResult<Pod> page = decode(ResourceType.of(Pod.class), body);

    assertThat(page.resourceVersion()).isEmpty();
    assertThat(page.continueToken()).isNull();
    assertThat(page.remainingItemCount()).isNull();
    assertThat(page.items()).extracting(p -> p.getMetadata().getName()).containsExactly("x");
  }

  record BadCase(String name, String body, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadCase> badBodies() {
    String valid = CodecTranscripts.read("list-01-page1.json");
    return Stream.of(
        new BadCase("truncated", valid.substring(0, valid.length() / 2), "malformed list"),
        new BadCase("not an object", "[1,2]", "not a JSON object"),
        new BadCase("items not an array", "{\"items\":{}}", "\"items\" is not an array"),
        new BadCase("item not an object", "{\"items\":[42]}", "an item is not an object"),
        new BadCase("garbage", "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{]}",
            "malformed list"),
        // Found by fuzzing: the number became "{", so the metadata
        // object swallows "items" and the list object is never closed.
        new BadCase("list object never closed",
            "{\"metadata\":{\"resourceVersion\":\"1\",\"remainingItemCount\":{},"
                + "\"items\":[{\"metadata\":{\"name\":\"a\"}}]}\n", "malformed list"),
        new BadCase("long garbage", "{\"items\":[" + "x".repeat(5000) + "]}", "malformed list"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badBodies")
  void decode_malformedBody_failsWithShortExcerpt(BadCase c) {
    assertThatThrownBy(() -> decode(ResourceType.of(Pod.class), c.body()))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining(c.expected())
        .hasMessageContaining("v1/pods")
        .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(500));
  }

  @Test
  void decode_garbage_quotesTheOffendingBytes() {
    String body = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":@oops}]}";

    assertThatThrownBy(() -> decode(ResourceType.of(Pod.class), body))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("@oops");
  }

  @Test
  void decode_pageOfManyItems_keepsServerOrder() {
    StringBuilder sb = new StringBuilder("{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[");
    for (int i = 0; i < 1000; i++) {
      sb.append(i == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"p").append(i).append("\"}}");
    }
    sb.append("]}");

    List<Pod> items = decode(ResourceType.of(Pod.class), sb.toString()).items();

    assertThat(items).hasSize(1000);
    assertThat(items.get(999).getMetadata().getName()).isEqualTo("p999");
  }

  @Test
  void decode_ofACodecTailStream_readsThroughItInsteadOfStackingAnother() {
    // HttpListerWatcher wraps the response to follow its progress; a second window stacked on it
    // would copy every byte of a large list twice.
    String body = CodecTranscripts.read("list-01-full-pod-page.json");
    CodecTailStream tail = new CodecTailStream(stream(body));

    assertThatThrownBy(() -> new ListCodec<>(MAPPER.reader(), ResourceType.of(Pod.class), 64)
            .decode(tail, "GET http://test/pods"))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("exceeds the limit of 64 bytes per item");
    // The codec's item budget was set on the stream it was given, and that stream refused the read.
    assertThat(tail.limitExceeded()).isTrue();
    assertThat(CodecTailStream.over(tail)).isSameAs(tail);
  }
}

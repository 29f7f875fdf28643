package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;

class QuantityDeserializerTest {

  /** What users would get from plain Jackson (fabric8's own Quantity deserializer). */
  private static final JsonMapper PLAIN =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  static Stream<String> quantities() {
    return Stream.of(
        "\"100m\"", "\"1\"", "\"0\"", "\"128Mi\"", "\"1.5Gi\"", "\"2e3\"", "\"1E-3\"", "\"12k\"",
        "\"+5\"", "\"-1\"", "\".5\"", "\"1Ki\"", "\"3Ei\"", "\"abc\"", "\"\"", "\"m\"", "\"1x\"",
        "\"1Mi1\"", "\" 1\"", "7", "2.5", "-3", "true", "null", "{\"amount\":\"5\"}",
        "{\"amount\":\"5\",\"format\":\"Gi\"}", "{\"format\":\"Gi\"}", "{}",
        "{\"amount\":5,\"format\":\"m\"}", "[]", "[\"1\"]");
  }

  /** A container whose resources hold {@code value} as a request and a limit. */
  private static String container(String value) {
    return "{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":" + value + ",\"memory\":\"1Gi\"},"
        + "\"limits\":{\"cpu\":" + value + "}}}";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("quantities")
  void cacheMapper_decodesQuantitiesAsFabric8Does(String value) {
    String json = container(value);
    Throwable plainError = catchThrowable(() -> PLAIN.readValue(json, Container.class));
    Throwable cacheError =
        catchThrowable(() -> Codecs.newCacheMapper().readValue(json, Container.class));
    if (plainError != null) {
      assertThat(cacheError).isNotNull().hasSameClassAs(plainError);
      assertThat(rootCause(cacheError)).hasSameClassAs(rootCause(plainError))
          .hasMessage(rootCause(plainError).getMessage());
      return;
    }
    assertThat(cacheError).isNull();
    Container expected = PLAIN.readValue(json, Container.class);
    Container actual = Codecs.newCacheMapper().readValue(json, Container.class);
    // Not equals(): Quantity's compares numerical amounts and throws on text like "abc".
    assertThat(PLAIN.writeValueAsString(actual)).isEqualTo(PLAIN.writeValueAsString(expected));
    assertSameFields(actual.getResources().getRequests(), expected.getResources().getRequests());
    assertSameFields(actual.getResources().getLimits(), expected.getResources().getLimits());
  }

  private static void assertSameFields(Map<String, Quantity> actual, Map<String, Quantity> expected) {
    assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
    expected.forEach((k, q) -> {
      Quantity a = actual.get(k);
      if (q == null) {
        assertThat(a).as(k).isNull();
        return;
      }
      assertThat(a.getAmount()).as(k).isEqualTo(q.getAmount());
      assertThat(a.getFormat()).as(k).isEqualTo(q.getFormat());
      assertThat(a.getAdditionalProperties()).as(k).isEqualTo(q.getAdditionalProperties());
    });
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  @Test
  void codecs_onlyTheCacheMapperUsesIt() {
    assertThat(quantityDeserializer(Codecs.newCacheMapper()))
        .isInstanceOf(QuantityDeserializer.class);
    assertThat(quantityDeserializer(Codecs.newMapper()))
        .isInstanceOf(Quantity.Deserializer.class);
  }

  private static ValueDeserializer<?> quantityDeserializer(JsonMapper mapper) {
    var ctxt = mapper._deserializationContext();
    ValueDeserializer<?> d = ctxt.findRootValueDeserializer(ctxt.constructType(Quantity.class));
    while (d.getDelegatee() != null) {
      d = d.getDelegatee();
    }
    return d;
  }
}

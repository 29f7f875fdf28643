package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

class CodecsLimitsTest {

  @Test
  void newMapper_refusesAStringLongerThanTheLimit() {
    String huge = "x".repeat(Codecs.MAX_STRING_CHARS + 1);
    String json = "{\"metadata\":{\"name\":\"" + huge + "\"}}";
    assertThatThrownBy(() -> Codecs.newMapper().readValue(json, Pod.class))
        .isInstanceOf(JacksonException.class)
        .hasMessageContaining("String value length");
  }
}

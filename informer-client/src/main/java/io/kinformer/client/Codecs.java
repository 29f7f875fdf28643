package io.kinformer.client;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON mapper our codecs use when the caller brings none.
 *
 * <p>Thread safety: stateless.
 */
final class Codecs {

  private Codecs() {}

  /**
   * A mapper for fabric8 model objects. Unknown properties are tolerated: newer servers add fields
   * that older model classes do not know (the models keep them in {@code additionalProperties}
   * where they can).
   */
  static JsonMapper newMapper() {
    return JsonMapper.builder()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build();
  }

  /** {@code message} cut to at most {@code max} characters, for quoting in our messages. */
  static String shorten(@Nullable String message, int max) {
    if (message == null) {
      return "";
    }
    String oneLine = message.replace('\n', ' ');
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "…";
  }
}

package io.kinformer.client;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

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
   *
   * <p>A single JSON string may not exceed {@link #MAX_STRING_CHARS}: etcd refuses objects above
   * about 1.5 MiB, so anything far larger comes from a broken or hostile server, and refusing it
   * bounds the memory one value can take (Jackson's own default is 100 M characters).
   */
  static JsonMapper newMapper() {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(MAX_STRING_CHARS).build())
            .build();
    SimpleModule strings = new SimpleModule("kinformer-strings");
    strings.addDeserializer(String.class, new PooledStringDeserializer(new StringPool()));
    return JsonMapper.builder(factory)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .addModule(strings)
        .build();
  }

  static JsonMapper newCacheMapper() {
    return newMapper();
  }

  /** The longest JSON string value the codecs accept: 16 Mi characters. */
  static final int MAX_STRING_CHARS = 16 * 1024 * 1024;

  /** {@code message} cut to at most {@code max} characters, for quoting in our messages. */
  static String shorten(@Nullable String message, int max) {
    if (message == null) {
      return "";
    }
    String oneLine = message.replace('\n', ' ');
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "…";
  }
}

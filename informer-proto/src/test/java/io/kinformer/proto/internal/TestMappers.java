package io.kinformer.proto.internal;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The mapper the tests bind fabric8 model objects with, as lenient as informer-client's. */
final class TestMappers {
  private TestMappers() {}

  static JsonMapper mapper() {
    return JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  }
}

package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Coverage-guided fuzzing of {@link ProtoJson}, the protobuf decoder of built-in types.
 *
 * <p>Property: for any bytes read as a {@code Pod}, the decoder either throws a {@link
 * MalformedProtobufException} or writes exactly one complete JSON object; it never throws
 * anything else, loops or runs out of memory (the fuzz execution runs with a bounded heap).
 *
 * <p>A normal build replays the committed corpus in {@code ProtoJsonFuzzTestInputs/pod/} (under
 * {@code src/test/resources/io/kinformer/proto/internal/}); the {@code fuzz-proto-json}
 * execution of {@code mvn verify} then fuzzes it for {@code kinformer.fuzz.seconds}.
 */
class ProtoJsonFuzzTest {
  private static final JsonMapper MAPPER = TestMappers.mapper();
  private static final ProtoJson DECODER = new ProtoJson(MAPPER);
  private static final ProtoSchema.Message POD =
      ProtoSchema.builtIn().message("k8s.io.api.core.v1.Pod");

  @FuzzTest(maxDuration = "30s")
  void pod(byte[] data) {
    TokenBuffer tokens;
    try {
      tokens = DECODER.toTokens(POD, data, 0, data.length);
    } catch (MalformedProtobufException expected) {
      assertThat(expected.getMessage()).startsWith("k8s.io.");
      return;
    }
    try (JsonParser p = tokens.asParser()) {
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
      p.skipChildren();
      assertThat(p.nextToken()).isNull();
    }
  }
}

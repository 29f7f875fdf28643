package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.http.HttpCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Coverage-guided fuzzing of {@link ListCodec}, the decoder of list response bodies.
 *
 * <p>Property: for any bytes, decoding returns a whole {@link ListResult} (a non-null resource
 * version, every item non-null with kind and apiVersion; an item without {@code metadata} keeps
 * null metadata, as the watch codec does) or throws an {@link
 * InformerException}; never another exception, a hang or a partial result.
 *
 * <p>A normal build replays the committed corpus in {@code ListCodecFuzzTestInputs/<method>/}
 * (under {@code src/test/resources/io/kinformer/client/internal/codec/}); the
 * {@code fuzz-list-codec} execution of
 * {@code mvn verify} then fuzzes {@code #pods} for {@code kinformer.fuzz.seconds} (15 s by default;
 * see docs/reliability.md for long runs). Generated inputs and any crashing input go to {@code
 * informer-client/target/jazzer/}; a crashing input copied into the inputs directory stays a
 * regression test once committed.
 */
class ListCodecFuzzTest {

  private static final ListCodec<Pod> PODS =
      new ListCodec<>(Codecs.newMapper().reader(), ResourceType.of(Pod.class));
  private static final ListCodec<PartialObjectMetadata> POD_METADATA =
      new ListCodec<>(Codecs.newMapper().reader(), ResourceType.metadataOnly(Pod.class));

  /** Full objects (transcript 01 shapes). */
  @FuzzTest(maxDuration = "30s")
  void pods(byte[] data) {
    checkDecoding(PODS, data);
  }

  /** Metadata-only objects (transcript 09 shapes). */
  @FuzzTest(maxDuration = "30s")
  void podMetadata(byte[] data) {
    checkDecoding(POD_METADATA, data);
  }

  private static <T extends HasMetadata> void checkDecoding(ListCodec<T> codec, byte[] data) {
    checkDecoding(codec::decode, data, true);
  }

  /**
   * The property, for any list decoder: a whole result or an {@link InformerException} with a
   * malformed-input message ({@code ioErrorsAllowed}: or a read-failure message, see below).
   */
  static <T extends HasMetadata> void checkDecoding(
      HttpCalls.ListDecoder<T> decoder, byte[] data, boolean ioErrorsAllowed) {
    ListResult<T> result;
    try {
      result = decoder.decode(new ByteArrayInputStream(data), "GET http://fuzz/api/v1/pods");
    } catch (InformerException e) {
      // Jackson detects UTF-16/UTF-32 from the first bytes and reports undecodable characters as
      // an IOException, which the codec words as a read failure; reads from memory never fail
      // otherwise.
      assertThat(e.getMessage()).startsWith(
          ioErrorsAllowed && e.getCause() instanceof IOException
              ? "I/O error reading the list response of " : "malformed list response of ");
      return;
    }
    assertThat(result.resourceVersion()).isNotNull();
    for (T item : result.items()) {
      assertThat(item).isNotNull();
      // Filled in where the server left them out; a kind the body gives is kept.
      assertThat(item.getKind()).isNotEmpty();
      assertThat(item.getApiVersion()).isNotEmpty();
    }
  }
}

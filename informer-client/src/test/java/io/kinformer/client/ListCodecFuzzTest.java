package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import java.io.ByteArrayInputStream;

/**
 * Coverage-guided fuzzing of {@link ListCodec}, the decoder of list response bodies.
 *
 * <p>Property: for any bytes, decoding returns a whole {@link ListResult} (a non-null resource
 * version, every item non-null with its kind filled in; an item without {@code metadata} keeps
 * null metadata, as the watch codec does) or throws an {@link
 * InformerException}; never another exception, a hang or a partial result.
 *
 * <p>A normal build replays the committed corpus in {@code ListCodecFuzzTestInputs/<method>/}
 * (under {@code src/test/resources/io/kinformer/client/}). To fuzz for real: {@code JAZZER_FUZZ=1
 * mvn -B -pl informer-client -am verify -Dtest=ListCodecFuzzTest#pods
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ListCodecFuzzTest {

  private static final ListCodec<Pod> PODS =
      new ListCodec<>(Codecs.newMapper().reader(), ResourceType.of(Pod.class));
  private static final ListCodec<PartialObjectMetadata> POD_METADATA =
      new ListCodec<>(Codecs.newMapper().reader(), ResourceType.metadataOnly(Pod.class));

  /** Full objects (transcript 01 shapes). */
  @FuzzTest(maxDuration = "30s")
  void pods(byte[] data) {
    checkDecoding(PODS, data, "Pod");
  }

  /** Metadata-only objects (transcript 09 shapes). */
  @FuzzTest(maxDuration = "30s")
  void podMetadata(byte[] data) {
    checkDecoding(POD_METADATA, data, "PartialObjectMetadata");
  }

  private static <T extends HasMetadata> void checkDecoding(
      ListCodec<T> codec, byte[] data, String kind) {
    ListResult<T> result;
    try {
      result = codec.decode(new ByteArrayInputStream(data), "GET http://fuzz/api/v1/pods");
    } catch (InformerException e) {
      assertThat(e.getMessage()).startsWith("malformed list response of ");
      return;
    }
    assertThat(result.resourceVersion()).isNotNull();
    for (T item : result.items()) {
      assertThat(item).isNotNull();
      assertThat(item.getKind()).isEqualTo(kind);
    }
  }
}

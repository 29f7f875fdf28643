package io.kinformer.client.internal.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.ResourceType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Coverage-guided fuzzing of {@link ParallelListCodec}, the multi-threaded decoder of list
 * response bodies (with small batches, so that bodies are split and bound on the pool).
 *
 * <p>Property: for any bytes, decoding returns a whole {@link ListResult} (a non-null resource
 * version, every item non-null with kind and apiVersion; an item without {@code metadata} keeps
 * null metadata, as the watch codec does) or throws an {@link
 * InformerException}; never another exception, a hang or a partial result.
 *
 * <p>A normal build replays the committed corpus in {@code
 * ParallelListCodecFuzzTestInputs/<method>/} (under {@code
 * src/test/resources/io/kinformer/client/internal/codec/}). To fuzz for real:
 * {@code JAZZER_FUZZ=1 mvn -B -pl informer-client -am verify -Dtest=ParallelListCodecFuzzTest#pods
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ParallelListCodecFuzzTest {

  private static final ExecutorService POOL = Executors.newFixedThreadPool(2, r -> {
    Thread t = new Thread(r, "fuzz-decode");
    t.setDaemon(true);
    return t;
  });
  private static final ParallelListCodec<Pod> PODS = new ParallelListCodec<>(
      Codecs.newMapper().reader(), ResourceType.of(Pod.class), POOL, 2, 256, 1 << 20);
  private static final ParallelListCodec<PartialObjectMetadata> POD_METADATA =
      new ParallelListCodec<>(Codecs.newMapper().reader(), ResourceType.metadataOnly(Pod.class),
          POOL, 2, 256, 1 << 20);

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

  private static <T extends HasMetadata> void checkDecoding(
      ParallelListCodec<T> codec, byte[] data) {
    // The body is framed by our own scan (UTF-8 only), so every refusal is a malformed-input one.
    ListCodecFuzzTest.checkDecoding(codec::decode, data, false);
  }
}

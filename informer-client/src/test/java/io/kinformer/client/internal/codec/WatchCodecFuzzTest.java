package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Coverage-guided fuzzing of {@link WatchCodec}, the decoder of watch response bodies.
 *
 * <p>Property: for any bytes, decoding yields whole events and then either a clean end or an
 * {@link InformerException} (or, for bytes undecodable in the encoding Jackson detected, the
 * {@code JacksonIOException} that {@code HttpWatch} turns into one); never another exception, a
 * hang or a half-built event. Every event has a type and, unless it is an ERROR carrying an {@code
 * ApiException} with a positive code, an object with its kind filled in (metadata may be absent,
 * as the input's may be). The result does not depend on how the bytes are cut into reads (HTTP
 * chunks).
 *
 * <p>A normal build replays the committed corpus in {@code WatchCodecFuzzTestInputs/<method>/}
 * (under {@code src/test/resources/io/kinformer/client/internal/codec/}); the
 * {@code fuzz-watch-codec} execution
 * of {@code mvn verify} then fuzzes {@code #pods} for {@code kinformer.fuzz.seconds} (15 s by
 * default; see docs/reliability.md for long runs). Generated inputs and any crashing input go to
 * {@code informer-client/target/jazzer/}; a crashing input copied into the inputs directory stays a
 * regression test once committed.
 */
class WatchCodecFuzzTest {

  private static final JsonMapper MAPPER = Codecs.newMapper();
  private static final ResourceType<Pod> PODS = ResourceType.of(Pod.class);
  private static final ResourceType<PartialObjectMetadata> POD_METADATA =
      ResourceType.metadataOnly(Pod.class);

  /** Full objects (transcript 03, 05, 07 shapes). */
  @FuzzTest(maxDuration = "30s")
  void pods(byte[] data) {
    checkDecoding(PODS, data);
  }

  /** Metadata-only objects (transcript 09 shapes). */
  @FuzzTest(maxDuration = "30s")
  void podMetadata(byte[] data) {
    checkDecoding(POD_METADATA, data);
  }

  /** What one pass over a body produced: the events, then null (clean end) or the failure. */
  private record Outcome(List<String> events, InformerException failure) {}

  private static <T extends HasMetadata> void checkDecoding(
      ResourceType<T> type, byte[] data) {
    Outcome whole = decode(type, new ByteArrayInputStream(data));
    Outcome chunked = decode(type, new SmallReads(data, 1 + (data.length % 7)));

    assertThat(chunked.events()).as("events with small reads").isEqualTo(whole.events());
    assertThat(chunked.failure() == null).as("failed with small reads")
        .isEqualTo(whole.failure() == null);
  }

  private static <T extends HasMetadata> Outcome decode(
      ResourceType<T> type, InputStream in) {
    WatchCodec<T> codec =
        new WatchCodec<>(in, MAPPER.reader(), type, "GET http://fuzz/api/v1/pods");
    List<String> events = new ArrayList<>();
    try {
      for (WatchEvent<T> e = codec.next(); e != null; e = codec.next()) {
        events.add(describeWholeEvent(e));
      }
      return new Outcome(events, null);
    } catch (InformerException e) {
      assertThat(e.getMessage()).startsWith("malformed watch stream of ");
      return new Outcome(events, e);
    } catch (JacksonIOException e) {
      // Jackson detects UTF-16/UTF-32 from the first bytes and reports undecodable characters or
      // an unsupported UCS-4 byte order as an IOException, which the codec passes on as a read
      // failure (HttpWatch turns it into an InformerException "I/O error reading the watch"). The
      // bytes come from memory, whose reads never fail, so that is the only source here.
      assertThat(e.getCause()).isInstanceOf(IOException.class);
      return new Outcome(events, new InformerException("undecodable characters", e));
    } finally {
      codec.close();
    }
  }

  /** Checks that the event is whole, and describes it for comparing two passes. */
  private static String describeWholeEvent(WatchEvent<?> e) {
    assertThat(e.type()).isNotNull();
    if (e.type() == WatchEventType.ERROR) {
      assertThat(e.error()).isNotNull();
      assertThat(e.error().code()).isPositive();
      return "ERROR " + e.error().code() + " " + e.error().reason();
    }
    assertThat(e.object()).isNotNull();
    HasMetadata object = (HasMetadata) e.object();
    assertThat(object.getKind()).as("kind of a %s event's object", e.type()).isNotEmpty();
    assertThat(object.getApiVersion()).as("apiVersion of a %s event's object", e.type())
        .isNotEmpty();
    // An object without "metadata" decodes with null metadata: the codec does not require it
    // (client-go's zero ObjectMeta), and the Reflector logs and skips an object it cannot key.
    if (object.getMetadata() == null) {
      return e.type() + " " + object.getKind() + " without metadata";
    }
    return e.type() + " " + object.getKind() + " " + object.getMetadata().getName() + " "
        + object.getMetadata().getResourceVersion();
  }

  /** Delivers at most {@code max} bytes per read, like small HTTP chunks. */
  private static final class SmallReads extends InputStream {
    private final byte[] data;
    private final int max;
    private int pos;

    SmallReads(byte[] data, int max) {
      this.data = data;
      this.max = max;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (pos >= data.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, max), data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }
}

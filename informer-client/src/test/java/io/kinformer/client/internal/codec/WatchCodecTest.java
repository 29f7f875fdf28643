package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

class WatchCodecTest {

  private static final JsonMapper MAPPER = Codecs.newMapper();
  private static final ResourceType<Pod> PODS = ResourceType.of(Pod.class);

  /** Delivers the bytes in reads that never cross the given boundaries (like HTTP chunks). */
  static final class ChunkedStream extends InputStream {
    private final byte[] data;
    private final int[] boundaries;
    private int pos;

    ChunkedStream(byte[] data, int... boundaries) {
      this.data = data;
      this.boundaries = boundaries;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos >= data.length) {
        return -1;
      }
      int limit = data.length;
      for (int boundary : boundaries) {
        if (boundary > pos) {
          limit = Math.min(limit, boundary);
        }
      }
      int n = Math.min(len, limit - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  /** One byte per read. */
  static final class TrickleStream extends InputStream {
    private final byte[] data;
    private int pos;

    TrickleStream(byte[] data) {
      this.data = data;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos >= data.length) {
        return -1;
      }
      b[off] = data[pos++];
      return 1;
    }
  }

  private static <T extends HasMetadata> WatchCodec<T> codec(ResourceType<T> type, InputStream in) {
    return new WatchCodec<>(in, MAPPER.reader(), type, "GET http://test/api/v1/pods");
  }

  private static <T extends HasMetadata> List<WatchEvent<T>> readAll(WatchCodec<T> codec) {
    List<WatchEvent<T>> events = new ArrayList<>();
    for (WatchEvent<T> e = codec.next(); e != null; e = codec.next()) {
      events.add(e);
    }
    return events;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void assertTranscript03(List<WatchEvent<Pod>> events) {
    assertThat(events).extracting(WatchEvent::type).containsExactly(
        WatchEventType.ADDED, WatchEventType.ADDED, WatchEventType.ADDED,
        WatchEventType.BOOKMARK, WatchEventType.MODIFIED);
    assertThat(events).extracting(e -> e.object().getMetadata().getResourceVersion())
        .containsExactly("206", "210", "208", "210", "212");
    Pod bookmark = events.get(3).object();
    assertThat(bookmark.getMetadata().getAnnotations())
        .containsEntry(WatchEvent.INITIAL_EVENTS_END_ANNOTATION, "true");
    assertThat(events.get(4).object().getMetadata().getLabels()).containsEntry("step", "s2");
  }

  @Test
  void next_transcriptSplitAtEveryByteBoundary_yieldsTheSameEvents() {
    byte[] data = bytes(CodecTranscripts.read("watch-03-bookmarks.jsonl"));
    for (int split = 1; split < data.length; split++) {
      List<WatchEvent<Pod>> events = readAll(codec(PODS, new ChunkedStream(data, split)));
      assertTranscript03(events);
    }
  }

  @Test
  void next_oneBytePerRead_yieldsTheSameEvents() {
    byte[] data = bytes(CodecTranscripts.read("watch-03-bookmarks.jsonl"));

    assertTranscript03(readAll(codec(PODS, new TrickleStream(data))));
  }

  @Test
  void next_severalEventsPerChunk_andNoSeparator_areAllRead() {
    String[] lines = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n");
    byte[] data = bytes(String.join("", lines));

    assertTranscript03(readAll(codec(PODS, new ByteArrayInputStream(data))));
  }

  @Test
  void next_objectBeforeType_decodesTheObject() {
    String event = "{\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
        + "\"metadata\":{\"name\":\"x\","
        + "\"resourceVersion\":\"7\"}},\"type\":\"DELETED\"}\n";

    WatchEvent<Pod> e = codec(PODS, new ByteArrayInputStream(bytes(event))).next();

    assertThat(e.type()).isEqualTo(WatchEventType.DELETED);
    assertThat(e.object().getMetadata().getName()).isEqualTo("x");
    assertThat(e.object().getMetadata().getResourceVersion()).isEqualTo("7");
  }

  @Test
  void next_errorWithObjectBeforeType_decodesTheStatus() {
    String event = "{\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        + "\"message\":\"gone\",\"reason\":\"Gone\",\"code\":410},\"type\":\"ERROR\"}";

    WatchEvent<Pod> e = codec(PODS, new ByteArrayInputStream(bytes(event))).next();

    assertThat(e.type()).isEqualTo(WatchEventType.ERROR);
    assertThat(e.error().code()).isEqualTo(410);
    assertThat(e.error().reason()).contains("Gone");
    assertThat(e.error().isResourceExpired()).isTrue();
  }

  @Test
  void next_expiredErrorFromTranscript05_isApiException410Expired_thenCleanEnd() {
    WatchCodec<Pod> codec = codec(PODS,
        new ByteArrayInputStream(bytes(CodecTranscripts.read("watch-05-expired.jsonl"))));

    WatchEvent<Pod> e = codec.next();

    assertThat(e.type()).isEqualTo(WatchEventType.ERROR);
    ApiException error = e.error();
    assertThat(error.code()).isEqualTo(410);
    assertThat(error.reason()).contains("Expired");
    assertThat(error.statusMessage()).contains("too old resource version: 110 (146)");
    assertThat(error.fromWatchEvent()).isTrue();
    assertThat(error.isResourceExpired()).isTrue();
    assertThat(codec.next()).isNull();
  }

  @Test
  void next_tooLargeErrorFromTranscript05_carriesCauseAndRetryAfter() {
    WatchEvent<Pod> e = codec(PODS,
        new ByteArrayInputStream(bytes(CodecTranscripts.read("watch-05-too-large.jsonl")))).next();

    ApiException error = e.error();
    assertThat(error.code()).isEqualTo(504);
    assertThat(error.reason()).contains("Timeout");
    assertThat(error.causeReasons()).containsExactly("ResourceVersionTooLarge");
    assertThat(error.isTooLargeResourceVersion()).isTrue();
    assertThat(error.retryAfter()).contains(Duration.ofSeconds(1));
  }

  @Test
  void next_metadataOnlyTranscript09_yieldsPartialObjectMetadata() {
    ResourceType<PartialObjectMetadata> type = ResourceType.metadataOnly(Pod.class);
    byte[] data = bytes(CodecTranscripts.read("watch-09-metadata.jsonl"));

    List<WatchEvent<PartialObjectMetadata>> events =
        readAll(codec(type, new ChunkedStream(data, 100, 1000, 2000)));

    assertThat(events).extracting(WatchEvent::type).containsExactly(
        WatchEventType.ADDED, WatchEventType.ADDED, WatchEventType.BOOKMARK,
        WatchEventType.MODIFIED);
    assertThat(events).allSatisfy(
        e -> assertThat(e.object().getKind()).isEqualTo("PartialObjectMetadata"));
    assertThat(events.get(3).object().getMetadata().getLabels()).containsEntry("m", "1");
  }

  @Test
  void next_unknownFieldsInEvent_areSkipped() {
    String event = "{\"type\":\"ADDED\",\"extra\":{\"a\":[1,2,{}]},\"object\":{\"metadata\":"
        + "{\"name\":\"x\"}},\"more\":null}";

    WatchEvent<Pod> e = codec(PODS, new ByteArrayInputStream(bytes(event))).next();

    assertThat(e.object().getMetadata().getName()).isEqualTo("x");
    assertThat(e.object().getKind()).isEqualTo("Pod");
  }

  @Test
  void next_emptyStream_isCleanEnd() {
    assertThat(codec(PODS, new ByteArrayInputStream(new byte[0])).next()).isNull();
    assertThat(codec(PODS, new ByteArrayInputStream(bytes("\n\n"))).next()).isNull();
  }

  record BadCase(String name, String badEvent, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadCase> badEvents() {
    String good = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n")[1];
    return Stream.of(
        new BadCase("unknown type", "{\"type\":\"FOO\",\"object\":{}}",
            "unknown event type \"FOO\""),
        new BadCase("unknown type after object",
            "{\"object\":{\"metadata\":{}},\"type\":\"WEIRD\"}", "unknown event type \"WEIRD\""),
        new BadCase("truncated mid-event", good.substring(0, good.length() / 2),
            "Unexpected end-of-input"),
        new BadCase("truncated before closing brace", good.substring(0, good.length() - 1),
            "Unexpected end-of-input"),
        new BadCase("garbage", "{\"type\":\"ADDED\",\"object\":{\"metadata\":#garbage#}}",
            "#garbage#"),
        new BadCase("not JSON at all", "<html>oops</html>", "<html>oops"),
        new BadCase("event is an array", "[1,2]", "not a JSON object"),
        new BadCase("type not a string", "{\"type\":3,\"object\":{}}", "\"type\" is not a string"),
        new BadCase("missing type", "{\"object\":{\"metadata\":{}}}", "has no \"type\""),
        new BadCase("missing object", "{\"type\":\"ADDED\"}", "has no \"object\""),
        new BadCase("object not an object", "{\"type\":\"ADDED\",\"object\":\"x\"}",
            "\"object\" is not a JSON object"),
        new BadCase("huge garbage", "{\"type\":\"ADDED\",\"object\":" + "x".repeat(20000) + "}",
            "xxxx"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badEvents")
  void next_badEvent_afterGoodOnes_failsClearlyWithoutHalfDecodedObject(BadCase c) {
    String good = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n")[0] + "\n";
    WatchCodec<Pod> codec =
        codec(PODS, new ByteArrayInputStream(bytes(good + c.badEvent())));

    assertThat(codec.next().object().getMetadata().getName()).isEqualTo("a");
    assertThatThrownBy(codec::next)
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("malformed watch stream of v1/pods")
        .hasMessageContaining("GET http://test/api/v1/pods")
        .hasMessageContaining(c.expected())
        .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(600));
  }

  @Test
  void next_badEvent_excerptIsAtMostAbout200Characters() {
    String bad = "{\"type\":\"ADDED\",\"object\":{\"metadata\":" + "y".repeat(5000) + "}}";
    WatchCodec<Pod> codec = codec(PODS, new ByteArrayInputStream(bytes(bad)));

    assertThatThrownBy(codec::next).satisfies(e -> {
      String message = e.getMessage();
      String excerpt = message.substring(message.lastIndexOf(": ") + 2);
      assertThat(excerpt.length()).isBetween(10, 205);
    });
  }

  @Test
  void next_badEventAfterMegabytesOfGoodOnes_quotesTheBadBytes() {
    String good = CodecTranscripts.read("watch-03-bookmarks.jsonl");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      sb.append(good);
    }
    sb.append("{\"type\":\"ADDED\",\"object\":{\"metadata\":!BAD-BYTES-HERE!}}");
    WatchCodec<Pod> codec =
        codec(PODS, new ChunkedStream(bytes(sb.toString()), 4096, 100_000, 333_333));

    int read = 0;
    InformerException failure = null;
    try {
      while (codec.next() != null) {
        read++;
      }
    } catch (InformerException e) {
      failure = e;
    }

    assertThat(read).isEqualTo(2500);
    assertThat(failure).isNotNull();
    assertThat(failure.getMessage()).contains("!BAD-BYTES-HERE!");
  }

  @Test
  void next_bracesQuotesAndBackslashesInsideStrings_doNotEndTheEvent() {
    String tricky = "}]{[\\\"}\\\\"; // JSON: }]{[, an escaped quote, }, an escaped backslash
    String event = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
        + "\"labels\":{\"t\":\"" + tricky + "\"}}}}\n";
    String next =
        "{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}}";

    List<WatchEvent<Pod>> events =
        readAll(codec(PODS, new TrickleStream(bytes(event + event + next))));

    assertThat(events).extracting(WatchEvent::type)
        .containsExactly(WatchEventType.ADDED, WatchEventType.ADDED, WatchEventType.DELETED);
    assertThat(events.get(1).object().getMetadata().getLabels()).containsEntry("t", "}]{[\"}\\");
  }

  @Test
  void next_badEventBetweenGoodOnes_namesItsOffsetInTheStream_andQuotesItsBytes() {
    String good = CodecTranscripts.read("watch-03-bookmarks.jsonl");
    String bad = "{\"type\":\"ADDED\",\"object\":{\"metadata\":@BAD@}}\n";
    WatchCodec<Pod> codec = codec(PODS,
        new ChunkedStream(bytes(good + bad + good), 7, 300, good.length() + 20));

    for (int i = 0; i < 5; i++) {
      assertThat(codec.next()).isNotNull();
    }
    int at = bytes(good).length + bad.indexOf('@');
    assertThatThrownBy(codec::next)
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("near byte " + at + ": ")
        .hasMessageContaining("\"metadata\":@BAD@}}\\n{\"type\"");
  }

  @Test
  void chunkedStream_helper_respectsBoundaries() {
    ChunkedStream s = new ChunkedStream(bytes("abcdef"), 2, 4);
    byte[] buf = new byte[10];

    assertThat(s.read(buf, 0, 10)).isEqualTo(2);
    assertThat(s.read(buf, 0, 10)).isEqualTo(2);
    assertThat(s.read(buf, 0, 10)).isEqualTo(2);
    assertThat(s.read(buf, 0, 10)).isEqualTo(-1);
    assertThat(Arrays.copyOf(buf, 2)).isEqualTo(bytes("ef"));
  }
}

package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.ResourceType;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.ObjectReader;

/**
 * The per-event byte limit of {@link WatchCodec} and the per-item limit of {@link ListCodec}:
 * a unit made of many small values (which the string cap does not catch) is refused after at most
 * the limit's bytes have been read, and units below the limit decode however many of them come.
 */
class CodecByteLimitTest {

  private static final ObjectReader READER = Codecs.newMapper().reader();
  private static final ResourceType<Pod> PODS = ResourceType.of(Pod.class);
  private static final long LIMIT = 64 * 1024;
  private static final String WHAT = "GET http://test/api/v1/pods";

  /** Bytes made of parts, each repeated a number of times (or for ever), counting what is read. */
  private static final class Pieces extends InputStream {
    private final List<byte[]> parts = new ArrayList<>();
    private final List<Long> times = new ArrayList<>();
    private int part;
    private long repeat;
    private int pos;
    long read;

    Pieces add(String text, long count) {
      parts.add(text.getBytes(StandardCharsets.UTF_8));
      times.add(count);
      return this;
    }

    Pieces add(String text) {
      return add(text, 1);
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      int n = 0;
      while (n < len && part < parts.size()) {
        byte[] p = parts.get(part);
        int chunk = Math.min(len - n, p.length - pos);
        System.arraycopy(p, pos, b, off + n, chunk);
        n += chunk;
        pos += chunk;
        if (pos == p.length) {
          pos = 0;
          if (++repeat >= times.get(part)) {
            repeat = 0;
            part++;
          }
        }
      }
      read += n;
      return n == 0 && len > 0 ? -1 : n;
    }
  }

  private static final String POD_START =
      "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
          + "\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"1\"}";

  /** A pod event whose object carries {@code values} small numbers in an unknown field. */
  private static Pieces podEvents(int events, long values) {
    Pieces in = new Pieces();
    for (int i = 0; i < events; i++) {
      in.add(POD_START + ",\"extra\":[0").add(",0", values).add("]}}\n");
    }
    return in;
  }

  record Oversize(String name, Pieces body) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** Repeats enough to go far past the limit (finite, so that a missing limit fails, not hangs). */
  private static final long MANY = 50 * LIMIT;

  static Stream<Oversize> oversizeEvents() {
    long forever = MANY;
    return Stream.of(
        new Oversize("many small values in the object", podEvents(1, forever)),
        new Oversize(
            "deep in the object's metadata",
            new Pieces().add(POD_START.replace("\"name\":\"p\"", "\"labels\":{\"a\":\"b\"")
                    + ",\"x\":[").add("[0],", forever)),
        new Oversize(
            "in a field of the event that is skipped",
            new Pieces().add("{\"type\":\"ADDED\",\"padding\":[").add("0,", forever)),
        new Oversize(
            "object before type (buffered)",
            new Pieces().add("{\"object\":{\"kind\":\"Pod\",\"x\":[").add("{},", forever)),
        new Oversize(
            "an ERROR's Status",
            new Pieces().add("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"details\":"
                + "{\"causes\":[").add("{\"field\":\"f\"},", forever)),
        new Oversize(
            "after a whole event",
            podEvents(1, 10).add("{\"type\":\"MODIFIED\",\"object\":{\"a\":[").add("1,", forever)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("oversizeEvents")
  void next_whenEventExceedsLimit_failsNamingLimitAndResourceAfterReadingAtMostTheLimit(
      Oversize c) {
    WatchCodec<Pod> codec = new WatchCodec<>(c.body(), READER, PODS, WHAT, LIMIT);
    List<WatchEvent<Pod>> events = new ArrayList<>();

    assertThatThrownBy(
            () -> {
              for (WatchEvent<Pod> e = codec.next(); e != null; e = codec.next()) {
                events.add(e);
              }
            })
        .isInstanceOf(InformerException.class)
        .hasMessageStartingWith("watch event of " + PODS.gvr() + " (" + WHAT + ")")
        .hasMessageContaining("exceeds the limit of 65536 bytes per event");
    assertThat(events).allMatch(e -> e.type() == WatchEventType.ADDED);
    // The budget of the event that broke it, plus what the whole events before it took.
    assertThat(c.body().read).isLessThanOrEqualTo(LIMIT * (events.size() + 1));
    codec.close();
  }

  @Test
  void next_whenEachEventIsBelowLimit_decodesAllEvenIfTheirSumIsFarAbove() {
    // Each event about 60 KiB (just under the limit), 40 of them: 2.4 MiB in all.
    Pieces body = podEvents(40, 30_000);
    WatchCodec<Pod> codec = new WatchCodec<>(body, READER, PODS, WHAT, LIMIT);
    int n = 0;
    for (WatchEvent<Pod> e = codec.next(); e != null; e = codec.next()) {
      assertThat(e.object().getMetadata().getName()).isEqualTo("p");
      n++;
    }

    assertThat(n).isEqualTo(40);
    assertThat(body.read).isGreaterThan(20 * LIMIT);
  }

  @Test
  void defaultLimit_is64MiB() {
    assertThat(WatchCodec.MAX_EVENT_BYTES).isEqualTo(64L * 1024 * 1024);
    assertThat(ListCodec.MAX_ITEM_BYTES).isEqualTo(WatchCodec.MAX_EVENT_BYTES);
  }

  @Test
  void constructor_whenLimitNotPositive_throwsNamingIt() {
    assertThatThrownBy(() -> new WatchCodec<>(podEvents(1, 1), READER, PODS, WHAT, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> new ListCodec<>(READER, PODS, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  private static final String LIST_START =
      "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
          + "\"items\":[";

  private static Pieces podItems(Pieces in, int items, long values) {
    for (int i = 0; i < items; i++) {
      in.add((i == 0 ? "" : ",") + "{\"metadata\":{\"name\":\"p" + i + "\"},\"extra\":[0")
          .add(",0", values)
          .add("]}");
    }
    return in;
  }

  @Test
  void decode_whenEachItemIsBelowLimit_decodesAllEvenIfTheirSumIsFarAbove() {
    Pieces body = podItems(new Pieces().add(LIST_START), 40, 30_000).add("]}");

    ListResult<Pod> list = new ListCodec<>(READER, PODS, LIMIT).decode(body, WHAT);

    assertThat(list.items()).hasSize(40);
    assertThat(list.resourceVersion()).isEqualTo("9");
  }

  @Test
  void decode_whenAnItemExceedsLimit_failsNamingLimitAndResource() {
    Pieces body = podItems(new Pieces().add(LIST_START), 3, 10)
        .add(",{\"metadata\":{\"name\":\"big\"},\"extra\":[").add("0,", MANY);

    assertThatThrownBy(() -> new ListCodec<>(READER, PODS, LIMIT).decode(body, WHAT))
        .isInstanceOf(InformerException.class)
        .hasMessageStartingWith("list item of " + PODS.gvr() + " (" + WHAT + ")")
        .hasMessageContaining("exceeds the limit of 65536 bytes per item");
    assertThat(body.read).isLessThanOrEqualTo(2 * LIMIT);
  }

  @Test
  void decode_whenTheListsOwnFieldsExceedLimit_fails() {
    Pieces body = new Pieces().add("{\"kind\":\"PodList\",\"junk\":[").add("0,", MANY);

    assertThatThrownBy(() -> new ListCodec<>(READER, PODS, LIMIT).decode(body, WHAT))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("exceeds the limit of 65536 bytes per item");
    assertThat(body.read).isLessThanOrEqualTo(LIMIT);
  }
}

package io.kinformer.benchmarks.client;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.benchmarks.Pods;
import io.kinformer.cache.WatchEvent;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.codec.WatchCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.openjdk.jmh.infra.Blackhole;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bytes the codec benchmarks decode, and the plain-Jackson baseline that decodes them: a
 * {@code PodList} response of realistic pods ({@link Pods}) and a watch stream of MODIFIED events.
 *
 * <p>Thread safety: stateless.
 */
final class PodPayloads {

  private PodPayloads() {}

  /**
   * A {@code PodList} of {@code pods} pods with a resourceVersion, and a continue token if it is
   * a page of a longer list ({@code paged}).
   */
  static byte[] listPage(int pods, boolean paged) {
    JsonMapper mapper = Pods.mapper();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
        + "{\"resourceVersion\":\"7\"" + (paged ? ",\"continue\":\"abc\"" : "") + "},\"items\":[")
        .getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < pods; i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(mapper.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i)));
    }
    out.writeBytes("]}".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /** {@code events} MODIFIED events, one per line, of pods 0 to {@code events - 1}. */
  static byte[] watchStream(int events) {
    JsonMapper mapper = Pods.mapper();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < events; i++) {
      out.writeBytes("{\"type\":\"MODIFIED\",\"object\":".getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(mapper.writeValueAsBytes(Pods.pod(i, 2_000_000_000L + i)));
      out.writeBytes("}\n".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toByteArray();
  }

  /** Plain Jackson's reader of pods: not {@code Codecs}' mappers, which pool strings. */
  static ObjectReader plainPodReader() {
    return JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build().readerFor(Pod.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /** Plain Jackson: the items of {@code page}, streamed into pods one by one. */
  static void decodeItemsPlain(ObjectReader podReader, byte[] page, Blackhole bh) {
    try (JsonParser p = podReader.createParser(page)) {
      p.nextToken();
      for (String name = p.nextName(); name != null; name = p.nextName()) {
        p.nextToken();
        if (name.equals("items")) {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            bh.consume(podReader.<Pod>readValue(p));
          }
        } else {
          p.skipChildren();
        }
      }
    }
  }

  /** kinformer's watch codec over {@code stream}, every event consumed. */
  static void decodeEvents(byte[] stream, ObjectReader reader, Blackhole bh) {
    WatchCodec<Pod> codec = new WatchCodec<>(new ByteArrayInputStream(stream), reader,
        ResourceType.of(Pod.class), "GET /api/v1/pods");
    for (WatchEvent<Pod> e = codec.next(); e != null; e = codec.next()) {
      bh.consume(e);
    }
    codec.close();
  }
}

package io.kinformer.client;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.benchmarks.Pods;
import io.kinformer.cache.WatchEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * kinformer's streaming codecs (package-private {@code ListCodec} and {@code WatchCodec}, hence
 * this package) against plain Jackson on the same bytes: a list page of {@value #PAGE} realistic
 * pods and a watch stream of {@value #EVENTS} MODIFIED events. Scores are pods (events) per
 * second; {@code -prof gc} gives the allocation per pod ({@code gc.alloc.rate.norm}: JMH divides by
 * {@code @OperationsPerInvocation}).
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar CodecBenchmark -prof gc}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CodecBenchmark {

  static final int PAGE = 500;
  static final int EVENTS = 1000;

  private byte[] page = new byte[0];
  private byte[] stream = new byte[0];
  private ListCodec<Pod> listCodec = new ListCodec<>(Codecs.newMapper().reader(), ResourceType.of(Pod.class));
  private ObjectReader reader = Codecs.newMapper().reader();
  private ObjectReader podReader = reader.forType(Pod.class);
  private final ResourceType<Pod> type = ResourceType.of(Pod.class);

  /** Encodes the page and the stream. */
  @Setup(Level.Trial)
  public void setUp() {
    JsonMapper mapper = Pods.mapper();
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    p.writeBytes(("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\","
        + "\"continue\":\"abc\"},\"items\":[").getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < PAGE; i++) {
      if (i > 0) {
        p.write(',');
      }
      p.writeBytes(mapper.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i)));
    }
    p.writeBytes("]}".getBytes(StandardCharsets.US_ASCII));
    page = p.toByteArray();
    ByteArrayOutputStream s = new ByteArrayOutputStream();
    for (int i = 0; i < EVENTS; i++) {
      s.writeBytes("{\"type\":\"MODIFIED\",\"object\":".getBytes(StandardCharsets.US_ASCII));
      s.writeBytes(mapper.writeValueAsBytes(Pods.pod(i, 2_000_000_000L + i)));
      s.writeBytes("}\n".getBytes(StandardCharsets.US_ASCII));
    }
    stream = s.toByteArray();
    reader = Codecs.newMapper().reader();
    listCodec = new ListCodec<>(reader, type);
    // The baseline is plain Jackson: not Codecs' mapper, which pools strings.
    podReader = JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build().readerFor(Pod.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /** kinformer's list codec: one page. */
  @Benchmark
  @OperationsPerInvocation(PAGE)
  public Object listPageKinformer() {
    return listCodec.decode(new ByteArrayInputStream(page), "GET /api/v1/pods");
  }

  /** Plain Jackson: the items of the same page, streamed into pods. */
  @Benchmark
  @OperationsPerInvocation(PAGE)
  public void listPageJackson(Blackhole bh) {
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

  /** kinformer's watch codec: the whole stream. */
  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void watchStreamKinformer(Blackhole bh) {
    WatchCodec<Pod> codec =
        new WatchCodec<>(new ByteArrayInputStream(stream), reader, type, "GET /api/v1/pods");
    for (WatchEvent<Pod> e = codec.next(); e != null; e = codec.next()) {
      bh.consume(e);
    }
    codec.close();
  }

  /** Plain Jackson: the same stream, type and object per event. */
  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void watchStreamJackson(Blackhole bh) {
    try (JsonParser p = podReader.createParser(stream)) {
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String eventType = null;
        Pod pod = null;
        for (String name = p.nextName(); name != null; name = p.nextName()) {
          p.nextToken();
          if (name.equals("type")) {
            eventType = p.getString();
          } else if (name.equals("object")) {
            pod = podReader.<Pod>readValue(p);
          } else {
            p.skipChildren();
          }
        }
        bh.consume(eventType);
        bh.consume(pod);
      }
    }
  }
}

package io.kinformer.benchmarks.client;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.ListCodec;
import java.io.ByteArrayInputStream;
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
import tools.jackson.databind.ObjectReader;

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
  private ListCodec<Pod> listCodec =
      new ListCodec<>(Codecs.newMapper().reader(), ResourceType.of(Pod.class));
  private ObjectReader reader = Codecs.newMapper().reader();
  private final ObjectReader podReader = PodPayloads.plainPodReader();
  private final ResourceType<Pod> type = ResourceType.of(Pod.class);

  /** Encodes the page and the stream. */
  @Setup(Level.Trial)
  public void setUp() {
    page = PodPayloads.listPage(PAGE, true);
    stream = PodPayloads.watchStream(EVENTS);
    reader = Codecs.newMapper().reader();
    listCodec = new ListCodec<>(reader, type);
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
    PodPayloads.decodeItemsPlain(podReader, page, bh);
  }

  /** kinformer's watch codec: the whole stream. */
  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void watchStreamKinformer(Blackhole bh) {
    PodPayloads.decodeEvents(stream, reader, bh);
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

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
import tools.jackson.databind.ObjectReader;

/**
 * The decoding cost of kinformer's lighter objects: one list page of {@value #PAGE} realistic pods
 * decoded by the list codec with the informers' cache mapper ({@code Codecs.newCacheMapper}:
 * pooled strings, shared empty collections, small maps), with the REST mapper ({@code
 * Codecs.newMapper}: pooled strings only), and by plain Jackson into the same fabric8 pods; plus
 * the watch stream with the cache mapper. Scores are pods (events) per second; {@code -prof gc}
 * gives the allocation per pod.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar CacheCodecBenchmark}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CacheCodecBenchmark {

  static final int PAGE = 500;
  static final int EVENTS = 1000;
  static final int LARGE = 20_000;

  private final ResourceType<Pod> type = ResourceType.of(Pod.class);
  private byte[] page = new byte[0];
  private byte[] stream = new byte[0];
  private ListCodec<Pod> cacheCodec = new ListCodec<>(Codecs.newCacheMapper().reader(), type);
  private ListCodec<Pod> restCodec = new ListCodec<>(Codecs.newMapper().reader(), type);
  private ObjectReader cacheReader = Codecs.newCacheMapper().reader();
  private final ObjectReader podReader = PodPayloads.plainPodReader();

  /** Encodes the page and the stream. */
  @Setup(Level.Trial)
  public void setUp() {
    page = PodPayloads.listPage(PAGE, true);
    stream = PodPayloads.watchStream(EVENTS);
    cacheReader = Codecs.newCacheMapper().reader();
    cacheCodec = new ListCodec<>(cacheReader, type);
    restCodec = new ListCodec<>(Codecs.newMapper().reader(), type);
  }

  /** The informers' list decoding: the cache mapper. */
  @Benchmark
  @OperationsPerInvocation(PAGE)
  public Object listPageCacheMapper() {
    return cacheCodec.decode(new ByteArrayInputStream(page), "GET /api/v1/pods");
  }

  /**
   * A list of {@value #LARGE} distinct pods (about 70 MB of JSON) decoded by the cache mapper in
   * one go, as an informer's initial list of a large cluster: unlike the {@value #PAGE}-pod page,
   * which the pool and the CPU caches learn by heart, it sees unique values evicting pool slots,
   * a pool that has dropped out of the CPU caches, and the garbage collector copying what the
   * list retains. Run it alone with longer iterations: {@code java -jar
   * informer-benchmarks/target/benchmarks.jar CacheCodecBenchmark.largeList -w 5s -r 5s}.
   */
  @Benchmark
  @OperationsPerInvocation(LARGE)
  public Object largeListCacheMapper(LargeList list) {
    return cacheCodec.decode(new ByteArrayInputStream(list.bytes), "GET /api/v1/pods");
  }

  /** The encoded list of {@value #LARGE} pods, made only for the benchmark that uses it. */
  @State(Scope.Benchmark)
  public static class LargeList {
    byte[] bytes = new byte[0];

    /** Encodes the list. */
    @Setup(Level.Trial)
    public void setUp() {
      bytes = PodPayloads.listPage(LARGE, false);
    }
  }

  /** The REST client's list decoding: pooled strings only. */
  @Benchmark
  @OperationsPerInvocation(PAGE)
  public Object listPageRestMapper() {
    return restCodec.decode(new ByteArrayInputStream(page), "GET /api/v1/pods");
  }

  /** Plain Jackson: the items of the same page, streamed into pods. */
  @Benchmark
  @OperationsPerInvocation(PAGE)
  public void listPageJackson(Blackhole bh) {
    PodPayloads.decodeItemsPlain(podReader, page, bh);
  }

  /** The informers' watch decoding: the cache mapper. */
  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void watchStreamCacheMapper(Blackhole bh) {
    PodPayloads.decodeEvents(stream, cacheReader, bh);
  }
}

package io.kinformer.benchmarks.client;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.ListCodec;
import io.kinformer.client.internal.http.HttpCalls;
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

/**
 * One unpaged list of {@value #PODS} realistic pods (about 37 MB, what a real API server sends for
 * the informer's first list at {@code resourceVersion=0}), decoded by {@code ListCodec} on the
 * calling thread. Scores are pods per second.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar LargeListBenchmark -prof gc}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class LargeListBenchmark {

  static final int PODS = 10_000;

  private byte[] body = new byte[0];
  private HttpCalls.ListDecoder<Pod> decoder;

  /** Encodes the list and builds the decoder. */
  @Setup(Level.Trial)
  public void setUp() {
    body = PodPayloads.listPage(PODS, false);
    ResourceType<Pod> type = ResourceType.of(Pod.class);
    ListCodec<Pod> codec = new ListCodec<>(Codecs.newMapper().reader(), type);
    decoder = codec::decode;
  }

  /** Decodes the whole list. */
  @Benchmark
  @OperationsPerInvocation(PODS)
  public Object decode() {
    return decoder.decode(new ByteArrayInputStream(body), "GET /api/v1/pods");
  }
}

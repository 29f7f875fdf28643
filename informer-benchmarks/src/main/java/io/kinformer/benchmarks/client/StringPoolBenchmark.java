package io.kinformer.benchmarks.client;

import io.kinformer.benchmarks.Pods;
import io.kinformer.client.internal.codec.StringPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * The string pool's own cost: the string values of 500 realistic pods, in document order, each
 * turned into a {@code String} by the pool ({@code pooled}) or by a plain copy ({@code copied},
 * what Jackson does without the pool). One operation is all the values of the 500 pods (47,250,
 * 84 % of them seen before); scores are operations per second.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar StringPoolBenchmark}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class StringPoolBenchmark {

  static final int PODS = 500;

  private char[][] values = new char[0][];
  private StringPool pool = new StringPool();

  /** Collects the string values of the pods. */
  @Setup(Level.Trial)
  public void setUp() {
    JsonMapper mapper = Pods.mapper();
    List<char[]> v = new ArrayList<>();
    for (int i = 0; i < PODS; i++) {
      try (JsonParser p = mapper.createParser(
          mapper.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i)))) {
        for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
          if (t == JsonToken.VALUE_STRING) {
            v.add(p.getString().toCharArray());
          }
        }
      }
    }
    values = v.toArray(new char[0][]);
    pool = new StringPool();
  }

  /** Through the pool. */
  @Benchmark
  public void pooled(Blackhole bh) {
    for (char[] c : values) {
      bh.consume(pool.get(c, 0, c.length));
    }
  }

  /** A fresh string per value. */
  @Benchmark
  public void copied(Blackhole bh) {
    for (char[] c : values) {
      bh.consume(new String(c, 0, c.length));
    }
  }
}

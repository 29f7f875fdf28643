package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.DeltaFifo;
import io.kinformer.cache.Keys;
import java.util.List;
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

/**
 * {@link DeltaFifo} add and pop: one invocation adds {@value #BATCH} distinct pods, then pops them
 * all (the reflector's and the processing loop's share of an initial list). Scores are per object.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar DeltaFifoBenchmark -prof gc}
 * (build the jar first: see docs/benchmarks.md).
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DeltaFifoBenchmark {

  static final int BATCH = 10_000;

  private List<Pod> pods = List.of();

  /** Generates the pods once. */
  @Setup(Level.Trial)
  public void setUp() {
    pods = Pods.pods(BATCH);
  }

  /** Adds {@value #BATCH} pods, then pops them all. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void addThenPop(Blackhole bh) throws InterruptedException {
    DeltaFifo<Pod> fifo = DeltaFifo.<Pod>builder(Keys.metaNamespaceKeyFunc()).build();
    for (Pod pod : pods) {
      fifo.add(pod);
    }
    for (int i = 0; i < BATCH; i++) {
      fifo.pop((deltas, initial) -> bh.consume(deltas));
    }
  }

  /** Adds each pod, then updates it: two deltas per key, then pops them all. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void addUpdateThenPop(Blackhole bh) throws InterruptedException {
    DeltaFifo<Pod> fifo = DeltaFifo.<Pod>builder(Keys.metaNamespaceKeyFunc()).build();
    for (Pod pod : pods) {
      fifo.add(pod);
      fifo.update(pod);
    }
    for (int i = 0; i < BATCH; i++) {
      fifo.pop((deltas, initial) -> bh.consume(deltas));
    }
  }
}

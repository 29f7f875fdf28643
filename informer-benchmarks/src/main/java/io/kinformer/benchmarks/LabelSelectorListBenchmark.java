package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.Indexer;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.LabelSelector;
import io.kinformer.cache.Lister;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Label-selector listing through {@link Lister}: all namespaces (a full scan matching each pod)
 * and one namespace (namespace index, then matching), at 1k, 10k and 100k cached pods. The
 * selector {@code app=web,tier in (frontend,backend)} matches about 1 in 15 pods; selector parsing
 * is measured separately ({@code parse}).
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar LabelSelectorListBenchmark}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class LabelSelectorListBenchmark {

  static final String SELECTOR = "app=web,tier in (frontend,backend)";

  /** Number of cached pods. */
  @Param({"1000", "10000", "100000"})
  public int size;

  private Lister<Pod> lister = new Lister<>(Indexers.newNamespaceIndexer());
  private LabelSelector selector = LabelSelector.everything();
  private int next;

  /** Fills the cache. */
  @Setup(Level.Trial)
  public void setUp() {
    Indexer<Pod> indexer = Indexers.newNamespaceIndexer();
    for (Pod pod : Pods.pods(size)) {
      indexer.add(pod);
    }
    lister = new Lister<>(indexer);
    selector = LabelSelector.parse(SELECTOR);
  }

  /** Lists matching pods in all namespaces. */
  @Benchmark
  public List<Pod> listAllNamespaces() {
    return lister.list(selector);
  }

  /** Lists matching pods in one namespace. */
  @Benchmark
  public List<Pod> listOneNamespace() {
    next = (next + 1) % Pods.NAMESPACES;
    return lister.namespace("ns-" + next).list(selector);
  }

  /** Parses the selector. */
  @Benchmark
  public LabelSelector parse() {
    return LabelSelector.parse(SELECTOR);
  }
}

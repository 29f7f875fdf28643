package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.IndexFunc;
import io.kinformer.cache.Indexer;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.Keys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The informer cache ({@link Indexer} from {@link Indexers#newIndexer}) with a namespace index and
 * a node index, at 1k, 10k and 100k pods: {@code update} re-indexes one cached pod (round robin),
 * {@code byIndexNamespace} reads one namespace ({@code size / 50} pods), {@code byIndexNode} one
 * node ({@code size / 200} pods), {@code getByKey} one pod.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar IndexerBenchmark -prof gc}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class IndexerBenchmark {

  /** Number of cached pods. */
  @Param({"1000", "10000", "100000"})
  public int size;

  private Indexer<Pod> indexer = Indexers.newNamespaceIndexer();
  private Pod[] pods = new Pod[0];
  private String[] keys = new String[0];
  private int next;

  /** Fills the indexer. */
  @Setup(Level.Trial)
  public void setUp() {
    Map<String, IndexFunc<Pod>> indices = new LinkedHashMap<>();
    indices.put(Indexers.NAMESPACE, Indexers.namespaceIndexFunc());
    indices.put("node", pod -> List.of(pod.getSpec().getNodeName()));
    indexer = Indexers.newIndexer(Keys.metaNamespaceKeyFunc(), indices);
    List<Pod> list = Pods.pods(size);
    pods = list.toArray(new Pod[0]);
    keys = new String[size];
    for (int i = 0; i < size; i++) {
      indexer.add(pods[i]);
      keys[i] = Keys.metaNamespaceKey(pods[i]);
    }
  }

  private int nextIndex() {
    int i = next++;
    if (next == size) {
      next = 0;
    }
    return i;
  }

  /** Updates one cached pod: key, old index values removed, new ones added. */
  @Benchmark
  public void update() {
    indexer.update(pods[nextIndex()]);
  }

  /** Reads one pod by key. */
  @Benchmark
  public Object getByKey() {
    return indexer.getByKey(keys[nextIndex()]);
  }

  /** Reads the pods of one namespace ({@code size / 50}). */
  @Benchmark
  public List<Pod> byIndexNamespace() {
    return indexer.byIndex(Indexers.NAMESPACE, Pods.namespace(nextIndex()));
  }

  /** Reads the pods of one node ({@code size / 200}). */
  @Benchmark
  public List<Pod> byIndexNode() {
    return indexer.byIndex("node", Pods.node(nextIndex()));
  }
}

package io.kinformer.benchmarks;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Event fan-out through a running {@link SharedIndexInformer} (DeltaFifo, indexer update,
 * SharedProcessor, per-handler buffers and delivery) to 1, 10 and 100 handlers. One invocation
 * sends {@value #BATCH} MODIFIED events and waits until every handler saw every one; scores are
 * events per second (deliveries per second are that times {@code handlers}). The source is an
 * in-memory watch, so no decoding is measured.
 *
 * <p>Run: {@code java -jar informer-benchmarks/target/benchmarks.jar FanOutBenchmark -prof gc}.
 *
 * <p>Thread safety: JMH state, confined to the benchmark thread; handlers run on the informer's
 * delivery threads and only touch atomics.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FanOutBenchmark {

  static final int BATCH = 1000;
  static final int CACHED = 1000;

  /** Number of registered handlers. */
  @Param({"1", "10", "100"})
  public int handlers;

  private final AtomicLong remaining = new AtomicLong();
  private final Semaphore done = new Semaphore(0);
  private List<Pod> pods = List.of();
  // Two versions of every pod, alternated per invocation: an update must change the
  // resourceVersion, or the informer treats it as a resync and tells no handler.
  private final List<List<Pod>> versions = new ArrayList<>();
  private int invocation;
  private QueueListerWatcher<Pod> source = new QueueListerWatcher<>(List.of(), "1");
  private SharedIndexInformer<Pod> informer =
      SharedIndexInformer.builder("unused", source).build();

  /** Starts the informer with {@value #CACHED} pods and waits for every handler's initial adds. */
  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    pods = Pods.pods(CACHED);
    for (long base : new long[] {2_000_000_000L, 3_000_000_000L}) {
      List<Pod> version = new ArrayList<>(CACHED);
      for (int i = 0; i < CACHED; i++) {
        version.add(Pods.pod(i, base + i));
      }
      versions.add(version);
    }
    source = new QueueListerWatcher<>(pods, Long.toString(Pods.FIRST_RESOURCE_VERSION + CACHED));
    informer = SharedIndexInformer.builder("pods", source).build();
    remaining.set((long) CACHED * handlers);
    for (int h = 0; h < handlers; h++) {
      informer.addEventHandler(new ResourceEventHandler<Pod>() {
        @Override
        public void onAdd(Pod obj, boolean isInInitialList) {
          countDown();
        }

        @Override
        public void onUpdate(Pod oldObj, Pod newObj) {
          countDown();
        }
      });
    }
    informer.start();
    if (!informer.awaitSynced(Duration.ofMinutes(1))) {
      throw new IllegalStateException("informer did not sync");
    }
    done.acquire();
  }

  private void countDown() {
    if (remaining.decrementAndGet() == 0) {
      done.release();
    }
  }

  /** Stops the informer. */
  @TearDown(Level.Trial)
  public void tearDown() {
    informer.close();
  }

  /** Sends {@value #BATCH} MODIFIED events and waits until every handler saw them. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void fanOut() throws InterruptedException {
    remaining.set((long) BATCH * handlers);
    List<Pod> version = versions.get(invocation++ & 1);
    for (int i = 0; i < BATCH; i++) {
      source.send(WatchEvent.of(WatchEventType.MODIFIED, version.get(i % CACHED)));
    }
    done.acquire();
  }
}

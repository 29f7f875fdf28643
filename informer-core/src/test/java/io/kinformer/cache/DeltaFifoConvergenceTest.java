package io.kinformer.cache;

import static io.kinformer.cache.DeltaFifoTestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * "Nothing is lost": a random history of server changes, dropped watches, relists, resyncs and
 * pops, with a consumer that applies deltas to knownObjects as the informer does, always ends with
 * knownObjects equal to the server's state once the last relist is drained.
 */
class DeltaFifoConvergenceTest {

  /** A fake API server: pods by name, each change bumping a global resourceVersion. */
  private static final class Server {
    final Map<String, Pod> pods = new LinkedHashMap<>();
    int rv;

    /** Creates, updates or deletes a random pod among a few names; returns the watch event. */
    Delta<Pod> change(SplittableRandom random) {
      String name = "p" + random.nextInt(8);
      Pod current = pods.get(name);
      rv++;
      if (current == null) {
        Pod created = pod(name, rv);
        pods.put(name, created);
        return new Delta<>(DeltaType.ADDED, created);
      }
      if (random.nextInt(3) == 0) {
        pods.remove(name);
        return new Delta<>(DeltaType.DELETED, pod(name, rv));
      }
      Pod updated = pod(name, rv);
      pods.put(name, updated);
      return new Delta<>(DeltaType.UPDATED, updated);
    }

    Map<String, Integer> state() {
      return pods.values().stream()
          .collect(Collectors.toMap(Keys::metaNamespaceKey, DeltaFifoTestPods::rv));
    }
  }

  /** What the informer's delta handler does to its indexer. */
  private static void apply(Store<Pod> store, List<Delta<Pod>> deltas) {
    for (Delta<Pod> d : deltas) {
      if (d.type() == DeltaType.DELETED) {
        store.delete(d.unwrap());
      } else {
        store.update(d.unwrap());
      }
    }
  }

  private static void deliver(DeltaFifo<Pod> fifo, Delta<Pod> event) {
    switch (event.type()) {
      case ADDED:
        fifo.add(event.unwrap());
        break;
      case UPDATED:
        fifo.update(event.unwrap());
        break;
      case DELETED:
        fifo.delete(event.unwrap());
        break;
      default:
        throw new IllegalArgumentException("not a watch event: " + event);
    }
  }

  private static Map<String, Integer> contents(Store<Pod> store) {
    return store.list().stream()
        .collect(Collectors.toMap(Keys::metaNamespaceKey, DeltaFifoTestPods::rv));
  }

  static LongStream seeds() {
    return LongStream.rangeClosed(1, 40);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomHistory_whenLastRelistIsDrained_knownObjectsEqualServer(long seed)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    Server server = new Server();
    DeltaFifoTestStore<Pod> store = new DeltaFifoTestStore<>(Keys::metaNamespaceKey);
    DeltaFifo<Pod> fifo =
        DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(store).build();
    boolean watching = false;

    for (int step = 0; step < 300; step++) {
      int op = random.nextInt(20);
      if (op < 9) {
        Delta<Pod> event = server.change(random);
        if (watching) {
          deliver(fifo, event);
        }
      } else if (op < 15) {
        if (!fifo.isEmpty()) {
          fifo.pop((deltas, initial) -> apply(store, deltas));
        }
      } else if (op < 17) {
        watching = false; // the watch broke: events are missed until the next relist
      } else if (op < 19) {
        fifo.replace(List.copyOf(server.pods.values()), Integer.toString(server.rv));
        watching = true;
      } else {
        fifo.resync();
      }
      fifo.checkInvariants();
    }
    fifo.replace(List.copyOf(server.pods.values()), Integer.toString(server.rv));
    while (!fifo.isEmpty()) {
      fifo.pop((deltas, initial) -> apply(store, deltas));
    }

    assertThat(contents(store)).isEqualTo(server.state());
    assertThat(fifo.hasSynced()).isTrue();
  }

  @Test
  @Tag("stress")
  void concurrentProducerAndConsumer_whenLastRelistIsDrained_knownObjectsEqualServer()
      throws Exception {
    for (long seed : IntStream.rangeClosed(1, 20).asLongStream().toArray()) {
      SplittableRandom random = new SplittableRandom(seed);
      Server server = new Server();
      DeltaFifoTestStore<Pod> store = new DeltaFifoTestStore<>(Keys::metaNamespaceKey);
      DeltaFifo<Pod> fifo =
          DeltaFifo.<Pod>builder(Keys::metaNamespaceKey).knownObjects(store).build();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      AtomicBoolean consumerDone = new AtomicBoolean();
      Thread consumer =
          new Thread(
              () -> {
                try {
                  while (fifo.pop((deltas, initial) -> apply(store, deltas)).isPresent()) {
                    // keep popping until closed and drained
                  }
                } catch (Throwable e) {
                  failures.add(e);
                } finally {
                  consumerDone.set(true);
                }
              },
              "kinformer-test-consumer");
      consumer.setDaemon(true);
      consumer.start();

      boolean watching = false;
      for (int step = 0; step < 5_000; step++) {
        int op = random.nextInt(20);
        if (op < 15) {
          Delta<Pod> event = server.change(random);
          if (watching) {
            deliver(fifo, event);
          }
        } else if (op < 17) {
          watching = false;
        } else if (op < 19) {
          fifo.replace(List.copyOf(server.pods.values()), Integer.toString(server.rv));
          watching = true;
        } else {
          fifo.resync();
        }
      }
      fifo.replace(List.copyOf(server.pods.values()), Integer.toString(server.rv));
      fifo.close();
      await().untilTrue(consumerDone);
      consumer.join();

      assertThat(failures).isEmpty();
      fifo.checkInvariants();
      assertThat(contents(store)).as("seed %d", seed).isEqualTo(server.state());
    }
  }
}

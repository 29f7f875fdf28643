package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many producers and workers on one queue (client-go's TestBasic and TestAddWhileProcessing): every
 * added key is processed after its last add, and no key is ever processed by two workers at once.
 */
class WorkQueueConcurrencyTest {

  record Case(
      String name, int producers, int addsPerProducer, int keys, int workers, boolean drain) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> modest() {
    return Stream.of(
        new Case("modest, shutDown", 8, 300, 64, 4, false),
        new Case("modest, shutDownWithDrain", 8, 300, 64, 4, true));
  }

  static Stream<Case> heavy() {
    return Stream.of(
        new Case("heavy, shutDown", 64, 20_000, 5_000, 16, false),
        new Case("heavy, shutDownWithDrain", 64, 20_000, 5_000, 16, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modest")
  void producersAndWorkers_everyKeyProcessed_neverConcurrently(Case c) throws Exception {
    run(c);
  }

  @Tag("stress")
  @ParameterizedTest(name = "{0}")
  @MethodSource("heavy")
  void producersAndWorkers_heavyLoad_everyKeyProcessed_neverConcurrently(Case c) throws Exception {
    run(c);
  }

  private static void run(Case c) throws Exception {
    DefaultWorkQueue<Integer> queue = new DefaultWorkQueue<>(QueueOptions.defaults());
    // pending[k] is set before each add(k) and cleared when a worker starts processing k: it ends
    // false everywhere only if no add was lost.
    ConcurrentHashMap<Integer, Boolean> pending = new ConcurrentHashMap<>();
    ConcurrentHashMap<Integer, Thread> inProgress = new ConcurrentHashMap<>();
    AtomicBoolean overlap = new AtomicBoolean();
    AtomicInteger processed = new AtomicInteger();
    AtomicInteger afterShutdown = new AtomicInteger();

    List<Thread> threads = new ArrayList<>();
    CountDownLatch producersDone = new CountDownLatch(c.producers());
    for (int p = 0; p < c.producers(); p++) {
      int seed = p;
      threads.add(
          thread(
              "producer-" + p,
              () -> {
                for (int j = 0; j < c.addsPerProducer(); j++) {
                  int key = Math.floorMod(seed * 7919 + j * 31, c.keys());
                  pending.put(key, true);
                  queue.add(key);
                }
                producersDone.countDown();
              }));
    }
    for (int w = 0; w < c.workers(); w++) {
      threads.add(
          thread(
              "worker-" + w,
              () -> {
                Optional<Integer> next;
                while ((next = get(queue)).isPresent()) {
                  int key = next.get();
                  if (key < 0) {
                    afterShutdown.incrementAndGet();
                  }
                  pending.put(key, false);
                  if (inProgress.putIfAbsent(key, Thread.currentThread()) != null) {
                    overlap.set(true);
                  }
                  // Re-adding while processing exercises the dirty path.
                  if (processed.incrementAndGet() % 5 == 0) {
                    pending.put(key, true);
                    queue.add(key);
                  }
                  Thread.yield();
                  inProgress.remove(key);
                  queue.done(key);
                }
              }));
    }
    threads.forEach(Thread::start);

    assertThat(producersDone.await(60, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(60, TimeUnit.SECONDS)
        .until(() -> queue.len() == 0 && queue.processingCount() == 0);
    queue.checkInvariants();
    if (c.drain()) {
      queue.shutDownWithDrain();
    } else {
      queue.shutDown();
    }
    queue.add(-1);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
    }

    assertThat(overlap).as("a key processed by two workers at once").isFalse();
    assertThat(pending.entrySet().stream().filter(e -> e.getValue()).map(e -> e.getKey()))
        .as("keys added but never processed afterwards")
        .isEmpty();
    assertThat(pending).hasSize(c.keys());
    assertThat(afterShutdown).hasValue(0);
    assertThat(queue.len()).isZero();
    queue.checkInvariants();
  }

  private static Optional<Integer> get(WorkQueue<Integer> queue) {
    try {
      return queue.get();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static Thread thread(String name, Runnable body) {
    Thread t = new Thread(body, "test-" + name);
    t.setDaemon(true);
    return t;
  }
}

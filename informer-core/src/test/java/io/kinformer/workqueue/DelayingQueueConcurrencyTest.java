package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Producers calling addAfter with short random delays on the real scheduler, while workers drain:
 * every key comes out after its last add, none twice at once, and wake-ups never get lost. The
 * same runs on a {@link PriorityQueue}, with random priorities too.
 */
class DelayingQueueConcurrencyTest {

  record Case(
      String name, int producers, int addsPerProducer, int keys, int workers, boolean priorities) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> modest() {
    return Stream.of(
        new Case("modest", 4, 500, 100, 4, false),
        new Case("modest, priority queue", 4, 500, 100, 4, true));
  }

  static Stream<Case> heavy() {
    return Stream.of(
        new Case("heavy", 32, 10_000, 2_000, 16, false),
        new Case("heavy, priority queue", 32, 10_000, 2_000, 16, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modest")
  void addAfter_concurrentProducers_everyKeyProcessed(Case c) throws Exception {
    run(c);
  }

  @Tag("stress")
  @ParameterizedTest(name = "{0}")
  @MethodSource("heavy")
  void addAfter_heavyConcurrentProducers_everyKeyProcessed(Case c) throws Exception {
    run(c);
  }

  private static void run(Case c) throws Exception {
    QueueOptions options = QueueOptions.defaults();
    DefaultDelayingQueue<Integer> delaying =
        new DefaultDelayingQueue<>(new DefaultWorkQueue<>(options), options);
    DefaultPriorityQueue<Integer> prioritized =
        new DefaultPriorityQueue<>(
            RateLimiters.itemExponentialFailure(Duration.ofMillis(1), Duration.ofMillis(5)),
            options);
    DelayingQueue<Integer> queue = c.priorities() ? prioritized : delaying;
    ConcurrentHashMap<Integer, Boolean> pending = new ConcurrentHashMap<>();
    ConcurrentHashMap<Integer, Boolean> inProgress = new ConcurrentHashMap<>();
    AtomicBoolean overlap = new AtomicBoolean();

    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < c.producers(); p++) {
      SplittableRandom random = new SplittableRandom(p);
      producers.add(
          thread(
              "producer-" + p,
              () -> {
                for (int j = 0; j < c.addsPerProducer(); j++) {
                  int key = random.nextInt(c.keys());
                  pending.put(key, true);
                  // Delays from -1 ms (immediate) to 5 ms.
                  Duration delay = Duration.ofMillis(random.nextInt(-1, 6));
                  if (c.priorities()) {
                    prioritized.add(
                        key,
                        PriorityQueue.AddOptions.ofPriority(random.nextInt(-2, 3))
                            .withAfter(delay)
                            .withRateLimited(random.nextInt(8) == 0));
                  } else {
                    queue.addAfter(key, delay);
                  }
                }
              }));
    }
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < c.workers(); w++) {
      workers.add(
          thread(
              "worker-" + w,
              () -> {
                Optional<Integer> next;
                while ((next = get(queue)).isPresent()) {
                  int key = next.get();
                  pending.put(key, false);
                  if (inProgress.putIfAbsent(key, true) != null) {
                    overlap.set(true);
                  }
                  inProgress.remove(key);
                  queue.done(key);
                }
              }));
    }
    producers.forEach(Thread::start);
    workers.forEach(Thread::start);
    for (Thread t : producers) {
      t.join(TimeUnit.SECONDS.toMillis(60));
    }

    await()
        .atMost(60, TimeUnit.SECONDS)
        .until(
            () ->
                !pending.containsValue(true)
                    && delaying.waitingCount() == 0
                    && prioritized.waitingCount() == 0);
    queue.shutDown();
    for (Thread t : workers) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
    }
    assertThat(overlap).isFalse();
    delaying.underlying().checkInvariants();
    prioritized.checkInvariants();
    delaying.shutDown();
    prioritized.shutDown();
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

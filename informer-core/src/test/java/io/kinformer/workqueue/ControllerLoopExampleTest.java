package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The controller loop of docs/work-queues.md, compiled and run here; the test also checks that the
 * page shows this exact code.
 */
class ControllerLoopExampleTest {

  // docs:start controller
  /** Where the controller makes changes; in real life, the API server or a cloud API. */
  interface Backend {
    void apply(String key, int replicas) throws IOException;

    void delete(String key) throws IOException;
  }

  /** Keeps the backend in line with the desired state, one key at a time. */
  static final class WidgetController implements AutoCloseable {
    private final Map<String, Integer> desired; // an informer's cache, in real life
    private final Backend backend;
    private final RateLimitingQueue<String> queue;
    private final Workers workers;

    WidgetController(Map<String, Integer> desired, Backend backend) {
      this.desired = desired;
      this.backend = backend;
      this.queue =
          RateLimitingQueue.create(
              RateLimiters.defaultControllerRateLimiter(), // 5 ms .. 1000 s per key, 10 qps
              QueueOptions.builder().name("widgets").build());
      this.workers = Workers.builder("widgets", queue, this::reconcile).threads(2).build();
    }

    /** Called by the informer's event handler on every add, update and delete. */
    void enqueue(String key) {
      queue.add(key);
    }

    void start() {
      workers.start(); // threads kinformer-widgets-worker-0 and -1
    }

    /** Runs on a worker thread; never concurrently for the same key. */
    private Reconciler.Result reconcile(String key) throws IOException {
      Integer replicas = desired.get(key);
      if (replicas == null) {
        backend.delete(key); // an exception here retries the key with backoff
        return Reconciler.Result.done();
      }
      backend.apply(key, replicas);
      if (replicas == 0) {
        // Nothing to watch; check again later anyway.
        return Reconciler.Result.requeueAfter(Duration.ofSeconds(30));
      }
      return Reconciler.Result.done();
    }

    @Override
    public void close() {
      workers.close(); // finishes the keys in hand, then joins the threads
    }
  }

  // docs:end controller

  /** A backend that fails the first apply of every key, like a flaky network. */
  static final class FlakyBackend implements Backend {
    final Map<String, Integer> state = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> applies = new ConcurrentHashMap<>();

    @Override
    public void apply(String key, int replicas) throws IOException {
      if (applies.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() == 1) {
        throw new IOException("connection reset while applying " + key);
      }
      state.put(key, replicas);
    }

    @Override
    public void delete(String key) {
      state.remove(key);
    }
  }

  @Test
  void widgetController_withFlakyBackend_convergesOnDesiredState() {
    Map<String, Integer> desired = new ConcurrentHashMap<>();
    FlakyBackend backend = new FlakyBackend();
    backend.state.put("default/orphan", 3);
    try (WidgetController controller = new WidgetController(desired, backend)) {
      controller.start();
      for (int i = 0; i < 20; i++) {
        desired.put("default/widget-" + i, i + 1);
        controller.enqueue("default/widget-" + i);
      }
      controller.enqueue("default/orphan");

      await().atMost(30, TimeUnit.SECONDS).until(() -> backend.state.equals(desired));
    }
    assertThat(backend.applies.values()).allSatisfy(n -> assertThat(n).hasValue(2));
  }

  @Test
  void docsPage_showsTheControllerCode() throws IOException {
    String source =
        Files.readString(
            Path.of("src/test/java/io/kinformer/workqueue/ControllerLoopExampleTest.java"),
            StandardCharsets.UTF_8);
    String snippet =
        source.substring(
            source.indexOf('\n', source.indexOf("// docs:start controller")) + 1,
            source.indexOf("  // docs:end controller"));
    String page = Files.readString(Path.of("../docs/work-queues.md"), StandardCharsets.UTF_8);
    String unindented =
        snippet
            .lines()
            .map(line -> line.startsWith("  ") ? line.substring(2) : line)
            .collect(Collectors.joining("\n"));
    assertThat(page).contains(unindented);
  }
}

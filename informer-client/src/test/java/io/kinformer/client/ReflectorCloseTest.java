package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.Indexers;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Reflector;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.client.internal.codec.Codecs;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Reflector#close()} over HTTP/1.1, where OkHttp ignores the interrupt of a thread blocked
 * in a socket read: close() must cancel the request in flight through the {@link Cancellation}
 * it passed to the {@link ListerWatcher}, as client-go cancels the context of every request; and
 * the HTTP lister-watcher's own handling of a cancellation.
 */
class ReflectorCloseTest {

  /** How long the server holds back its response headers: far longer than close() may take. */
  private static final long STALL_SECONDS = 60;

  /** A generous bound that still proves close() did not wait for the stalled response. */
  private static final Duration PROMPTLY = Duration.ofSeconds(10);

  private static final String EMPTY_LIST =
      "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"},"
          + "\"items\":[]}";

  private final MockWebServer server = new MockWebServer();
  /** As KubeClient's: no read timeout, so only the request's call timeout (minutes) ends a stall. */
  private final OkHttpClient http = new OkHttpClient.Builder().readTimeout(Duration.ZERO).build();
  private final AtomicReference<Thread> reflectorThread = new AtomicReference<>();
  /** Runs a list or a watch's next() for the tests that cancel it from the test thread. */
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "test-worker");
    t.setDaemon(true);
    reflectorThread.set(t);
    return t;
  });

  @BeforeEach
  void start() throws IOException {
    server.start(); // plain http: HTTP/1.1
  }

  @AfterEach
  void stop() {
    worker.shutdownNow();
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private ListerWatcher<Pod> listerWatcher() {
    return ResourceClient.create(http, server.url("/"), ResourceType.of(Pod.class),
        Codecs.newMapper()).listerWatcher();
  }

  private Reflector<Pod> reflector() {
    // Lists, then watches: the requests whose stalls these tests script, in that order.
    return Reflector.builder("pods", listerWatcher(), Indexers.<Pod>newNamespaceIndexer())
        .streamingList(false)
        .threadFactory(r -> {
          Thread t = new Thread(r, "test-pods-reflector");
          t.setDaemon(true);
          reflectorThread.set(t);
          return t;
        })
        .build();
  }

  private static MockResponse stalled(String body) {
    return new MockResponse.Builder()
        .headersDelay(STALL_SECONDS, TimeUnit.SECONDS)
        .addHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }

  private RecordedRequest take() throws InterruptedException {
    RecordedRequest r = server.takeRequest(10, TimeUnit.SECONDS);
    assertThat(r).as("request reached the server").isNotNull();
    return r;
  }

  /**
   * Whether the reflector's thread is blocked reading a socket, where an interrupt does not reach
   * it (before that, okio would notice the interrupt and fail the read itself).
   */
  private boolean blockedInSocketRead() {
    Thread t = reflectorThread.get(); // the reflector's, or the worker's
    return t != null
        && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("read")
            && (f.getClassName().equals("sun.nio.ch.NioSocketImpl")
                || f.getClassName().equals("java.net.SocketInputStream")));
  }

  /** Closes {@code reflector} and checks it did so promptly and its thread is gone. */
  private void assertClosesPromptly(Reflector<Pod> reflector) {
    await().atMost(Duration.ofSeconds(10)).until(this::blockedInSocketRead);
    long started = System.nanoTime();
    reflector.close();
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(took).as("close() while the server stalls").isLessThan(PROMPTLY);
    assertThat(reflectorThread.get().isAlive()).as("reflector thread alive after close()")
        .isFalse();
  }

  @Test
  void close_duringAListStalledBeforeItsHeaders_cancelsTheListAndTheThreadEnds()
      throws InterruptedException {
    server.enqueue(stalled(EMPTY_LIST));
    Reflector<Pod> reflector = reflector();
    reflector.start();
    assertThat(take().getUrl().queryParameter("watch")).isNull();

    assertClosesPromptly(reflector);
  }

  @Test
  void close_duringAWatchOpenStalledBeforeItsHeaders_cancelsTheWatchAndTheThreadEnds()
      throws InterruptedException {
    server.enqueue(new MockResponse.Builder()
        .addHeader("Content-Type", "application/json").body(EMPTY_LIST).build());
    server.enqueue(stalled(""));
    Reflector<Pod> reflector = reflector();
    reflector.start();
    take();
    assertThat(take().getUrl().queryParameter("watch")).isEqualTo("true");

    assertClosesPromptly(reflector);
  }

  /** The race where close() comes before the call it is meant for has started. */
  @Test
  void cancelledBeforeTheCallStarts_listAndWatchFailAtOnce_withoutARequest() {
    server.enqueue(new MockResponse.Builder()
        .addHeader("Content-Type", "application/json").body(EMPTY_LIST).build());
    ListerWatcher<Pod> lw = listerWatcher();
    Cancellation cancelled = new Cancellation();
    cancelled.cancel();

    assertThatThrownBy(() -> lw.list(ListOptions.none(), cancelled))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("GET " + server.url("/api/v1/pods"));
    assertThatThrownBy(() -> lw.watch(ListOptions.none(), cancelled))
        .isInstanceOf(InformerException.class);
    assertThat(server.getRequestCount()).as("requests sent").isZero();
  }

  @Test
  void cancel_duringAListWhoseBodyStalls_failsTheList() throws Exception {
    server.enqueue(new MockResponse.Builder()
        .bodyDelay(STALL_SECONDS, TimeUnit.SECONDS)
        .addHeader("Content-Type", "application/json").body(EMPTY_LIST).build());
    ListerWatcher<Pod> lw = listerWatcher();
    Cancellation cancellation = new Cancellation();
    CompletableFuture<?> listed = CompletableFuture.supplyAsync(
        () -> lw.list(ListOptions.none(), cancellation), worker);
    await().atMost(Duration.ofSeconds(10)).until(this::blockedInSocketRead);

    cancellation.cancel();

    assertThat(listed).failsWithin(PROMPTLY)
        .withThrowableThat().withCauseInstanceOf(InformerException.class);
  }

  @Test
  void cancel_ofAWatchAlreadyReturned_endsIt() throws Exception {
    server.enqueue(new MockResponse.Builder()
        .bodyDelay(STALL_SECONDS, TimeUnit.SECONDS)
        .addHeader("Content-Type", "application/json").chunkedBody("\n", 1).build());
    Cancellation cancellation = new Cancellation();
    Watch<Pod> watch = listerWatcher().watch(ListOptions.none(), cancellation);
    CompletableFuture<WatchEvent<Pod>> next = CompletableFuture.supplyAsync(watch::next, worker);
    await().atMost(Duration.ofSeconds(10)).until(this::blockedInSocketRead);

    cancellation.cancel();

    assertThat(next).succeedsWithin(PROMPTLY).as("a cancelled watch ends as if closed").isNull();
    watch.close();
  }
}

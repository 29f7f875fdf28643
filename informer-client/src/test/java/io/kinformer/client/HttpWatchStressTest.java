package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.client.internal.codec.CodecTranscripts;
import io.kinformer.client.internal.codec.Codecs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Close racing next(): a closed watch always ends with null, never with an error or a hang. */
@Tag("stress")
class HttpWatchStressTest {

  private final MockWebServer server = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient();
  private final List<HttpHeldBody> held = new ArrayList<>();
  private final ExecutorService readers = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "kinformer-test-watch-reader");
    t.setDaemon(true);
    return t;
  });

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    held.forEach(HttpHeldBody::release);
    readers.shutdownNow();
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  @Test
  void close_racingNext_alwaysEndsTheReaderWithNull() throws Exception {
    String[] lines = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n");
    ResourceClient<Pod> pods =
        ResourceClient.create(http, server.url("/"), ResourceType.of(Pod.class),
            Codecs.newMapper());
    for (int i = 0; i < 300; i++) {
      HttpHeldBody body = new HttpHeldBody(List.of(lines[0] + "\n", lines[1] + "\n" + lines[2] + "\n"));
      held.add(body);
      server.enqueue(body.response());
      Watch<Pod> watch = pods.watch(ListOptions.none());
      int closeAfter = i % 4;
      CountDownLatch readEnough = new CountDownLatch(1);

      CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
        int n = 0;
        for (WatchEvent<Pod> e = watch.next(); e != null; e = watch.next()) {
          n++;
          if (n >= closeAfter) {
            readEnough.countDown();
          }
        }
        return n;
      }, readers);
      if (closeAfter > 0) {
        readEnough.await(30, TimeUnit.SECONDS);
      }
      watch.close();

      assertThat(reader.get(30, TimeUnit.SECONDS)).isBetween(0, 3);
      body.release();
    }
  }
}

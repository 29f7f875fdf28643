package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * 100,000 pods listed in one response and streamed to a watch: a smoke test that the server's
 * list and watch paths are not a bottleneck for the benchmarks. Run with {@code -Dgroups=stress}.
 */
@Tag("stress")
class LargeListStressTest {

  private static final int PODS = 100_000;

  @Test
  void list_of100kPods_streamsEveryItem() throws IOException {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      for (int i = 0; i < PODS; i++) {
        server.create(String.format(Http.POD, String.format("pod-%06d", i), "bench"));
      }
      Http http = new Http(server);
      long start = System.nanoTime();
      int items = 0;
      try (Response r = http.client.newCall(new Request.Builder()
          .url(server.url() + "/api/v1/pods?resourceVersion=0").build()).execute();
          JsonParser p = Http.JSON.createParser(r.body().byteStream())) {
        JsonToken t;
        int depth = 0;
        while ((t = p.nextToken()) != null) {
          if (t == JsonToken.START_OBJECT) {
            if (depth == 2) {
              items++;
            }
            depth++;
          } else if (t == JsonToken.END_OBJECT) {
            depth--;
          } else if (t == JsonToken.START_ARRAY) {
            depth++;
          } else if (t == JsonToken.END_ARRAY) {
            depth--;
          }
        }
      }
      long listMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(items).isEqualTo(PODS);

      start = System.nanoTime();
      int lines = 0;
      try (Response r = http.client.newCall(new Request.Builder()
          .url(server.url() + "/api/v1/pods?watch=1&resourceVersion=0&allowWatchBookmarks=true")
          .build()).execute()) {
        BufferedSource src = r.body().source();
        while (lines <= PODS && src.readUtf8Line() != null) {
          lines++;
        }
      }
      long watchMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(lines).isEqualTo(PODS + 1);
      System.out.printf("100k pods: list %d ms, initial watch events %d ms%n", listMillis,
          watchMillis);
    }
  }

  @Test
  void fastWatchStream_deliversEveryEvent() throws IOException {
    int updates = 50_000;
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      server.create(String.format(Http.POD, "hot", "bench"));
      Http http = new Http(server);
      long from = server.resourceVersion();
      try (Response r = http.client.newCall(new Request.Builder()
          .url(server.url() + "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + from)
          .build()).execute()) {
        long start = System.nanoTime();
        Thread writer = new Thread(() -> {
          for (int i = 0; i < updates; i++) {
            server.update(String.format("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"hot\",\"namespace\":\"default\",\"labels\":{\"i\":\"%d\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}", i));
          }
        }, "test-writer");
        writer.start();
        BufferedSource src = r.body().source();
        int lines = 0;
        while (lines < updates && src.readUtf8Line() != null) {
          lines++;
        }
        assertThat(lines).isEqualTo(updates);
        System.out.printf("%d watch events in %d ms%n", updates,
            (System.nanoTime() - start) / 1_000_000);
      }
    }
  }
}

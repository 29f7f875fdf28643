package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kinformer.time.testing.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The fault handle, observed over raw HTTP. */
class FaultsTest {

  private final FakeClock clock = new FakeClock();
  private final EmbeddedApiServer server =
      EmbeddedApiServer.builder().clock(clock).scheduler(clock).start();
  private final Http http = new Http(server);
  private final Faults faults = server.faults();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aResourceTheServerDoesNotServe_isRefused_aKindGetsItsPluralSuggested() {
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> faults.failNext(Verb.LIST, "Pod", 1, 500))
        .withMessageContaining("\"Pod\" names the kind Pod; use \"pods\"");
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> faults.requestCount(Verb.LIST, "configmap"))
        .withMessageContaining("use \"configmaps\"");
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> faults.openWatches("podz"))
        .withMessageContaining("serves no resource \"podz\"")
        .withMessageContaining("pods");
    faults.failNext(Verb.LIST, "pods", 1, 500); // a served plural is taken
    faults.clearFailures();
  }

  @Test
  void failNext_failsThatManyRequestsOfTheVerbAndResource_only() {
    faults.failNext(Verb.LIST, "pods", 2, 500);
    assertThat(http.get("/api/v1/namespaces/default/configmaps").code()).isEqualTo(200);
    Http.Reply first = http.get("/api/v1/namespaces/default/pods");
    assertThat(first.code()).isEqualTo(500);
    assertThat(first.json().path("kind").asString()).isEqualTo("Status");
    assertThat(first.json().path("reason").asString()).isEqualTo("InternalError");
    assertThat(http.get("/api/v1/pods").code()).isEqualTo(500);
    assertThat(http.get("/api/v1/namespaces/default/pods").code()).isEqualTo(200);
  }

  @Test
  void failNextWithRetryAfter_sends429WithTheHeaderAndDetails() {
    faults.failNextWithRetryAfter(Verb.WATCH, null, 1, 429, Duration.ofSeconds(3));
    Http.Reply r = http.get("/api/v1/namespaces/default/pods?watch=1");
    assertThat(r.code()).isEqualTo(429);
    assertThat(r.headers().get("Retry-After")).isEqualTo("3");
    assertThat(r.json().path("reason").asString()).isEqualTo("TooManyRequests");
    assertThat(r.json().path("details").path("retryAfterSeconds").asInt()).isEqualTo(3);
  }

  @Test
  void partition_failsEveryRequestOfTheMatchingUserAgent_untilHealed() {
    faults.partition("replica-2", 503);
    Request.Builder pods = new Request.Builder().url(server.url() + "/api/v1/pods");
    Http.Reply cut = http.call(pods.header("User-Agent", "kinformer/1 replica-2").build());
    assertThat(cut.code()).isEqualTo(503);
    assertThat(cut.json().path("reason").asString()).isEqualTo("ServiceUnavailable");
    assertThat(http.call(pods.header("User-Agent", "kinformer/1 replica-1").build()).code())
        .isEqualTo(200);
    faults.heal("replica-2");
    assertThat(http.call(pods.header("User-Agent", "kinformer/1 replica-2").build()).code())
        .isEqualTo(200);
  }

  @Test
  void failNext_410OnAList_isAnExpiredStatus() {
    faults.failNext(Verb.LIST, 1, 410);
    Http.Reply r = http.get("/api/v1/namespaces/default/pods");
    assertThat(r.code()).isEqualTo(410);
    assertThat(r.json().path("reason").asString()).isEqualTo("Expired");
  }

  @Test
  void latency_delaysTheRequest_untilTheSchedulerMovesOn() throws Exception {
    faults.latency(Verb.GET, Duration.ofSeconds(5));
    CompletableFuture<Integer> code = new CompletableFuture<>();
    http.client.newCall(new Request.Builder()
        .url(server.url() + "/api/v1/namespaces/default").build()).enqueue(new Callback() {
          @Override
          public void onFailure(Call call, IOException e) {
            code.completeExceptionally(e);
          }

          @Override
          public void onResponse(Call call, Response response) {
            code.complete(response.code());
            response.close();
          }
        });
    await().until(clock::hasPendingTasks);
    assertThat(code).isNotDone();
    clock.advance(Duration.ofSeconds(5));
    assertThat(code.get()).isEqualTo(200);
  }

  @Test
  void closeAllWatches_endsThemCleanly() {
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=1")) {
      await().until(() -> faults.openWatches("pods") == 1);
      faults.closeAllWatches();
      w.assertEnds();
    }
    await().until(() -> faults.openWatches(null) == 0);
  }

  @Test
  void aClientThatGoesAway_overHttp11_releasesItsWatchAtTheNextWrite() {
    Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=1");
    await().until(() -> faults.openWatches("pods") == 1);
    w.close();
    // HTTP/1.1 has no way to notice a silent peer's close until a write fails.
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    await().until(() -> {
      http.createPod("default", "probe-" + n.incrementAndGet(), "x");
      return faults.openWatches("pods") == 0;
    });
  }

  @Test
  void aClientThatGoesAway_overH2c_releasesItsWatch() {
    Http h2c = new Http(server, Http.h2cPriorKnowledge());
    Http.WatchStream w = h2c.watch("/api/v1/namespaces/default/pods?watch=1");
    await().until(() -> faults.openWatches("pods") == 1);
    w.close();
    await().until(() -> faults.openWatches("pods") == 0);
  }

  @Test
  void resetAllWatches_abortsTheConnection() {
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=1")) {
      await().until(() -> faults.openWatches("pods") == 1);
      faults.resetAllWatches();
      assertThat(w.assertFails()).isInstanceOf(IOException.class);
    }
  }

  @Test
  void writeToWatches_putsRawBytesIntoTheStream() {
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=1")) {
      await().until(() -> faults.openWatches("pods") == 1);
      faults.writeToWatches("configmaps", "{\"not\":\"for pods\"}\n");
      faults.writeToWatches("pods", "{malformed\n");
      faults.writeToWatches(null, "{\"type\":\"SURPRISE\",\"object\":{}}\n");
      faults.writeToWatches("pods", "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Po");
      faults.closeAllWatches();
      assertThat(w.nextLine()).isEqualTo("{malformed");
      assertThat(w.nextLine()).isEqualTo("{\"type\":\"SURPRISE\",\"object\":{}}");
      assertThat(w.nextLine()).isEqualTo("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Po");
      w.assertEnds();
    }
  }

  @Test
  void counters_countRequestsPerVerbAndResource() {
    http.get("/api/v1/namespaces/default/pods");
    http.get("/api/v1/pods?limit=1");
    http.createPod("default", "p", "x");
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/default/pods?watch=1")) {
      JsonNode added = w.next();
      assertThat(added.path("type").asString()).isEqualTo("ADDED");
    }
    assertThat(faults.requestCount(Verb.LIST, "pods")).isEqualTo(2);
    assertThat(faults.requestCount(Verb.CREATE, "pods")).isEqualTo(1);
    assertThat(faults.requestCount(Verb.WATCH, "pods")).isEqualTo(1);
    assertThat(faults.requestCount(Verb.LIST)).isEqualTo(2);
    assertThat(faults.requestCounts()).containsEntry("LIST pods", 2L);
    faults.resetCounters();
    assertThat(faults.requestCount(Verb.LIST, "pods")).isZero();
  }
}

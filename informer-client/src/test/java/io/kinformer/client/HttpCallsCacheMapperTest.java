package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.StringPool;
import io.kinformer.client.internal.http.HttpCalls;
import io.kinformer.client.internal.http.HttpTimeouts;
import java.io.IOException;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which objects are decoded with the informers' cache mapper ({@link HttpCalls#forCache()}): those
 * of {@link ResourceClient#listerWatcher()}; the REST calls' objects stay modifiable.
 */
class HttpCallsCacheMapperTest {

  private static final String POD = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
      + "{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"5\",\"uid\":\"u-1\"},"
      + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"img\"}]}}";
  private static final String LIST = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
      + "\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[" + POD + "]}";

  private final MockWebServer server = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient();
  private ResourceClient<Pod> pods;

  @BeforeEach
  void start() throws IOException {
    server.start();
    StringPool pool = new StringPool();
    HttpCalls calls = new HttpCalls(http, server.url("/"), Codecs.newMapper(pool),
        Codecs.newCacheMapper(pool), HttpTimeouts.DEFAULT);
    pods = ResourceClient.create(calls, ResourceType.of(Pod.class)).inNamespace("ns");
  }

  @AfterEach
  void stop() {
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json")
        .body(body).build();
  }

  @Test
  void listerWatcherList_decodesForTheCache() {
    server.enqueue(json(LIST));

    ListerWatcher<Pod> source = pods.listerWatcher();
    Pod pod = source.list(ListOptions.none(), Cancellation.none()).items().get(0);

    // Modifiable for the informer's transform; read-only once readied for the cache.
    pod.getMetadata().getAdditionalProperties().put("k", "v");
    pod.getMetadata().getAdditionalProperties().remove("k");
    source.prepareForCache(pod);
    assertThat(pod.getMetadata().getAdditionalProperties()).isEmpty();
    assertThatThrownBy(() -> pod.getMetadata().getAdditionalProperties().put("k", "v"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void listerWatcherWatch_decodesForTheCache() {
    server.enqueue(json("{\"type\":\"ADDED\",\"object\":" + POD + "}\n"));

    try (Watch<Pod> watch = pods.listerWatcher().watch(ListOptions.none(), Cancellation.none())) {
      WatchEvent<Pod> event = watch.next();

      assertThat(event).isNotNull();
      Pod pod = pods.listerWatcher().prepareForCache(event.object());
      assertThatThrownBy(() -> pod.getAdditionalProperties().clear())
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void restCalls_returnModifiableObjects() {
    server.enqueue(json(POD));
    server.enqueue(json(LIST));
    server.enqueue(json("{\"type\":\"ADDED\",\"object\":" + POD + "}\n"));

    Pod got = pods.get("a").orElseThrow();
    Pod listed = pods.list().get(0);
    Pod watched;
    try (Watch<Pod> watch = pods.watch(ListOptions.none())) {
      watched = watch.next().object();
    }

    for (Pod pod : new Pod[] {got, listed, watched}) {
      pod.getMetadata().getLabels().put("k", "v");
      pod.getMetadata().getFinalizers().add("f");
      assertThat(pod.getMetadata().getLabels()).containsEntry("k", "v");
    }
  }

  @Test
  void forCache_sharesTheHttpPlumbing() {
    HttpCalls calls = new HttpCalls(http, server.url("/"), Codecs.newMapper(),
        Codecs.newCacheMapper(), HttpTimeouts.DEFAULT);
    HttpCalls single = new HttpCalls(http, server.url("/"), Codecs.newMapper(),
        HttpTimeouts.DEFAULT);

    assertThat(calls.forCache()).isNotSameAs(calls);
    assertThat(calls.forCache().forCache()).isSameAs(calls.forCache());
    assertThat(calls.forCache().baseUrl()).isEqualTo(calls.baseUrl());
    assertThat(calls.forCache().timeouts()).isSameAs(calls.timeouts());
    assertThat(single.forCache()).isSameAs(single);
  }
}

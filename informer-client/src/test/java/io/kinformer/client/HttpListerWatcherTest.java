package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.internal.codec.CodecTranscripts;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.ListCodec;
import io.kinformer.client.internal.http.HttpTimeouts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okio.Buffer;
import okio.GzipSink;
import okio.Okio;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HttpListerWatcherTest {

  private static final Gvr WIDGETS =
      Gvr.of("example.com", "v1", "widgets");

  private final MockWebServer server = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient();
  private final List<HttpHeldBody> held = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    held.forEach(HttpHeldBody::release);
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceClient<T> client(
      ResourceType<T> type) {
    return ResourceClient.create(http, server.url("/"), type, Codecs.newMapper());
  }

  private HttpHeldBody held(String... chunks) {
    HttpHeldBody body = new HttpHeldBody(List.of(chunks));
    held.add(body);
    return body;
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
        .body(body).build();
  }

  private static final String EMPTY_LIST =
      "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"},"
          + "\"items\":[]}";

  private RecordedRequest take() throws InterruptedException {
    RecordedRequest r = server.takeRequest(10, TimeUnit.SECONDS);
    assertThat(r).as("request reached the server").isNotNull();
    return r;
  }

  private static Map<String, String> query(HttpUrl url) {
    Map<String, String> q = new LinkedHashMap<>();
    for (String name : url.queryParameterNames()) {
      q.put(name, url.queryParameter(name));
    }
    return q;
  }

  record QueryCase(String name, ListOptions options, Map<String, String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<QueryCase> queryCases() {
    return Stream.of(
        new QueryCase("nothing set", ListOptions.none(), Map.of()),
        new QueryCase("resourceVersion", ListOptions.builder().resourceVersion("42").build(),
            Map.of("resourceVersion", "42")),
        new QueryCase("resourceVersionMatch",
            ListOptions.builder().resourceVersion("7")
                .resourceVersionMatch(ListOptions.NOT_OLDER_THAN).build(),
            Map.of("resourceVersion", "7", "resourceVersionMatch", "NotOlderThan")),
        new QueryCase("limit", ListOptions.builder().limit(500L).build(), Map.of("limit", "500")),
        new QueryCase("continue", ListOptions.builder().continueToken("eyJ2Ijo+/=").build(),
            Map.of("continue", "eyJ2Ijo+/=")),
        new QueryCase("labelSelector",
            ListOptions.builder().labelSelector("app in (a,b),!legacy").build(),
            Map.of("labelSelector", "app in (a,b),!legacy")),
        new QueryCase("fieldSelector",
            ListOptions.builder().fieldSelector("spec.nodeName=node-1").build(),
            Map.of("fieldSelector", "spec.nodeName=node-1")),
        new QueryCase("timeoutSeconds", ListOptions.builder().timeoutSeconds(300L).build(),
            Map.of("timeoutSeconds", "300")),
        new QueryCase("allowWatchBookmarks", ListOptions.builder().allowWatchBookmarks(true)
            .build(), Map.of("allowWatchBookmarks", "true")),
        new QueryCase("sendInitialEvents true",
            ListOptions.builder().sendInitialEvents(true).resourceVersionMatch("NotOlderThan")
                .build(),
            Map.of("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan")),
        new QueryCase("sendInitialEvents false", ListOptions.builder().sendInitialEvents(false)
            .build(), Map.of("sendInitialEvents", "false")),
        new QueryCase("everything",
            ListOptions.builder().resourceVersion("1").resourceVersionMatch("Exact").limit(2L)
                .continueToken("c").labelSelector("a=b").fieldSelector("f=g").timeoutSeconds(9L)
                .allowWatchBookmarks(true).sendInitialEvents(true).build(),
            Map.of("resourceVersion", "1", "resourceVersionMatch", "Exact", "limit", "2",
                "continue", "c", "labelSelector", "a=b", "fieldSelector", "f=g",
                "timeoutSeconds", "9", "allowWatchBookmarks", "true",
                "sendInitialEvents", "true")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queryCases")
  void list_mapsEveryListOptionsFieldToTheQuery(QueryCase c) throws Exception {
    server.enqueue(json(200, EMPTY_LIST));

    client(ResourceType.of(Pod.class)).listerWatcher().list(c.options(), Cancellation.none());

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("GET");
    assertThat(query(r.getUrl())).isEqualTo(c.expected());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queryCases")
  void watch_mapsEveryListOptionsFieldToTheQueryPlusWatchTrue(QueryCase c) throws Exception {
    server.enqueue(json(200, ""));

    try (Watch<Pod> w = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(c.options(), Cancellation.none())) {
      assertThat(w.next()).isNull();
    }

    Map<String, String> expected = new LinkedHashMap<>(c.expected());
    expected.put("watch", "true");
    assertThat(query(take().getUrl())).isEqualTo(expected);
  }

  record PathCase(String name, ResourceClient<?> client, String expectedPath) {
    @Override
    public String toString() {
      return name;
    }
  }

  @Test
  void list_buildsTheRightPathForEachScope() throws Exception {
    ResourceClient<Pod> pods = client(ResourceType.of(Pod.class));
    List<PathCase> cases = List.of(
        new PathCase("core, one namespace", pods.inNamespace("ns1"),
            "/api/v1/namespaces/ns1/pods"),
        new PathCase("core, all namespaces", pods, "/api/v1/pods"),
        new PathCase("core, back to all namespaces", pods.inNamespace("x").inAnyNamespace(),
            "/api/v1/pods"),
        new PathCase("cluster-scoped", client(ResourceType.of(Namespace.class)),
            "/api/v1/namespaces"),
        new PathCase("named group, namespaced",
            client(ResourceType.dynamic(WIDGETS, "Widget", true)).inNamespace("ns2"),
            "/apis/example.com/v1/namespaces/ns2/widgets"),
        new PathCase("named group, cluster-scoped",
            client(ResourceType.dynamic(WIDGETS, "Widget", false)),
            "/apis/example.com/v1/widgets"));
    for (PathCase c : cases) {
      server.enqueue(json(200, EMPTY_LIST));
      c.client().listerWatcher().list(ListOptions.none(), Cancellation.none());
      assertThat(take().getUrl().encodedPath()).as(c.name()).isEqualTo(c.expectedPath());
    }
  }

  @Test
  void list_baseUrlWithPathPrefix_keepsThePrefix() throws Exception {
    server.enqueue(json(200, EMPTY_LIST));
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/k8s/clusters/c-1/"), ResourceType.of(Pod.class), Codecs.newMapper());

    pods.inNamespace("a").listerWatcher().list(ListOptions.none(), Cancellation.none());

    assertThat(take().getUrl().encodedPath())
        .isEqualTo("/k8s/clusters/c-1/api/v1/namespaces/a/pods");
  }

  @Test
  void listAndWatch_fixedSelectorsAreAndedWithTheReflectorsAndTheTweakRunsLast()
      throws Exception {
    server.enqueue(json(200, EMPTY_LIST));
    server.enqueue(json(200, ""));
    ListerWatcher<Pod> lw = client(ResourceType.of(Pod.class))
        .withLabelSelector("app=web")
        .withFieldSelector("spec.nodeName=n1")
        .listerWatcher(o -> o.toBuilder().limit(5L).build());

    lw.list(ListOptions.builder().labelSelector("tier=front").build(), Cancellation.none());
    lw.watch(ListOptions.builder().resourceVersion("9").build(), Cancellation.none()).close();

    Map<String, String> listQuery = query(take().getUrl());
    assertThat(listQuery).containsEntry("labelSelector", "app=web,tier=front")
        .containsEntry("fieldSelector", "spec.nodeName=n1")
        .containsEntry("limit", "5");
    Map<String, String> watchQuery = query(take().getUrl());
    assertThat(watchQuery).containsEntry("labelSelector", "app=web")
        .containsEntry("fieldSelector", "spec.nodeName=n1")
        .containsEntry("resourceVersion", "9")
        .containsEntry("watch", "true");
  }

  @Test
  void metadataOnly_sendsTheListFormOnListsAndTheObjectFormOnWatches() throws Exception {
    server.enqueue(json(200, CodecTranscripts.read("list-09-metadata.json")));
    server.enqueue(json(200, CodecTranscripts.read("watch-09-metadata.jsonl")));
    ListerWatcher<PartialObjectMetadata> lw =
        client(ResourceType.metadataOnly(Pod.class)).inNamespace("e9-meta").listerWatcher();

    ListResult<PartialObjectMetadata> list = lw.list(ListOptions.none(), Cancellation.none());
    List<WatchEvent<PartialObjectMetadata>> events = new ArrayList<>();
    try (Watch<PartialObjectMetadata> w = lw.watch(ListOptions.none(), Cancellation.none())) {
      for (WatchEvent<PartialObjectMetadata> e = w.next(); e != null; e = w.next()) {
        events.add(e);
      }
    }

    assertThat(take().getHeaders().get("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assertThat(take().getHeaders().get("Accept"))
        .isEqualTo("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
    assertThat(list.items()).hasSize(2);
    assertThat(events).hasSize(4);
  }

  @Test
  void typed_sendsPlainJsonAccept() throws Exception {
    server.enqueue(json(200, EMPTY_LIST));

    client(ResourceType.of(Pod.class)).listerWatcher()
        .list(ListOptions.none(), Cancellation.none());

    assertThat(take().getHeaders().get("Accept")).isEqualTo("application/json");
  }

  @Test
  void list_gzipResponse_isDecodedTransparently() throws Exception {
    Buffer gzipped = new Buffer();
    try (var sink = Okio.buffer(new GzipSink(gzipped))) {
      sink.writeUtf8(CodecTranscripts.read("list-01-full-pod-page.json"));
    }
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json")
        .addHeader("Content-Encoding", "gzip")
        .addHeader("Vary", "Accept-Encoding")
        .body(gzipped).build());

    ListResult<Pod> page =
        client(ResourceType.of(Pod.class)).listerWatcher()
            .list(ListOptions.none(), Cancellation.none());

    assertThat(take().getHeaders().get("Accept-Encoding")).isEqualTo("gzip");
    assertThat(page.items()).singleElement()
        .satisfies(p -> assertThat(p.getMetadata().getName()).isEqualTo("a"));
    assertThat(page.remainingItemCount()).isEqualTo(4L);
  }

  @Test
  void watch_oneByteChunks_yieldsTheTranscriptEventsThenCleanEnd() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json")
        .chunkedBody(CodecTranscripts.read("watch-03-bookmarks.jsonl"), 1).build());

    List<WatchEventType> types = new ArrayList<>();
    try (Watch<Pod> w = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.builder().allowWatchBookmarks(true).build(), Cancellation.none())) {
      for (WatchEvent<Pod> e = w.next(); e != null; e = w.next()) {
        types.add(e.type());
      }
      assertThat(w.next()).isNull();
    }

    assertThat(types).containsExactly(WatchEventType.ADDED, WatchEventType.ADDED,
        WatchEventType.ADDED, WatchEventType.BOOKMARK, WatchEventType.MODIFIED);
  }

  @Test
  void watch_streamEndingMidEvent_failsWithInformerExceptionAfterTheCompleteOnes() {
    String[] lines = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n");
    String truncated = lines[0] + "\n" + lines[1].substring(0, 100);
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json").chunkedBody(truncated, 7).build());

    try (Watch<Pod> w = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.none(), Cancellation.none())) {
      assertThat(w.next().object().getMetadata().getName()).isEqualTo("a");
      assertThatThrownBy(w::next)
          .isInstanceOf(InformerException.class)
          .hasMessageContaining("malformed watch stream of v1/pods")
          .hasMessageContaining("end-of-input");
      assertThat(w.next()).isNull();
    }
  }

  @Test
  void watch_expiredErrorEvent_isDeliveredAsErrorEventThenEnd() {
    server.enqueue(json(200, CodecTranscripts.read("watch-05-expired.jsonl")));

    try (Watch<Pod> w = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.builder().resourceVersion("110").build(), Cancellation.none())) {
      WatchEvent<Pod> e = w.next();
      assertThat(e.type()).isEqualTo(WatchEventType.ERROR);
      assertThat(e.error().code()).isEqualTo(410);
      assertThat(e.error().reason()).contains("Expired");
      assertThat(w.next()).isNull();
    }
  }

  @Test
  void watch_refusedWithStatus_throwsApiExceptionAtOpen() {
    server.enqueue(json(401, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\","
        + "\"code\":401}"));

    assertThatThrownBy(() -> client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.none(), Cancellation.none()))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(401);
          assertThat(e.reason()).contains("Unauthorized");
          assertThat(e.fromWatchEvent()).isFalse();
        });
  }

  @Test
  void watch_http410FromOlderServers_isExpiredApiException() {
    server.enqueue(json(410, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        + "\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Gone\",\"code\":410}"));

    assertThatThrownBy(() -> client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.builder().resourceVersion("1").build(), Cancellation.none()))
        .isInstanceOfSatisfying(ApiException.class,
            e -> assertThat(e.isResourceExpired()).isTrue());
  }

  @Test
  void watch_unknownGroupPlainText404_isClearApiException() {
    server.enqueue(new MockResponse.Builder().code(404)
        .addHeader("Content-Type", "text/plain; charset=utf-8")
        .addHeader("X-Content-Type-Options", "nosniff")
        .body("404 page not found\n").build());

    assertThatThrownBy(() -> client(ResourceType.dynamic(
        Gvr.of("nope.example.com", "v1", "things"), "Thing", true))
        .listerWatcher().watch(ListOptions.none(), Cancellation.none()))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(404);
          assertThat(e.reason()).isEmpty();
          assertThat(e.statusMessage()).contains("404 page not found");
        });
  }

  @Test
  void watch_closeFromAnotherThread_unblocksNextPromptly() throws Exception {
    String first = CodecTranscripts.read("watch-03-bookmarks.jsonl").split("\n")[0] + "\n";
    server.enqueue(held(first).response());
    Watch<Pod> watch = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.none(), Cancellation.none());
    assertThat(watch.next().object().getMetadata().getName()).isEqualTo("a");
    CountDownLatch aboutToBlock = new CountDownLatch(1);

    CompletableFuture<WatchEvent<Pod>> blocked = CompletableFuture.supplyAsync(() -> {
      aboutToBlock.countDown();
      return watch.next();
    });
    aboutToBlock.await();
    watch.close();

    // Returns null (closed), not an error; get() only guards against a hang.
    assertThat(blocked.get(30, TimeUnit.SECONDS)).isNull();
    assertThat(watch.next()).isNull();
    watch.close();
  }

  @Test
  void watch_closeBeforeAnyRead_releasesAndNextReturnsNull() {
    server.enqueue(held().response());
    Watch<Pod> watch = client(ResourceType.of(Pod.class)).listerWatcher()
        .watch(ListOptions.none(), Cancellation.none());

    watch.close();

    assertThat(watch.next()).isNull();
  }

  @Test
  @Timeout(10) // the guard is the only limit on this read: without it, the test would hang
  void watch_silentLongerThanTheIdleLimit_failsWithInformerException() {
    server.enqueue(held().response());
    HttpTimeouts shortIdle = new HttpTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30),
        Duration.ofMillis(200), Duration.ofMillis(200));
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), shortIdle);

    Watch<Pod> watch = pods.listerWatcher().watch(ListOptions.none(), Cancellation.none());

    assertThatThrownBy(watch::next)
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("went silent")
        .hasMessageContaining("GET " + server.url("/api/v1/pods"));
    assertThat(watch.next()).isNull();
    watch.close();
  }

  @Test
  @Timeout(10)
  void watch_noResponseHeadersWithinTheIdleLimit_failsWithInformerException() {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), idle(200));

    assertThatThrownBy(() -> pods.listerWatcher().watch(ListOptions.none(), Cancellation.none()))
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("went silent: no response within")
        .hasMessageContaining("GET " + server.url("/api/v1/pods"));
  }

  @Test
  @Timeout(20)
  void watch_slowButNeverSilentForTheIdleLimit_deliversEverything() throws Exception {
    // 1,328 bytes at 50 bytes per 100 ms: more than twice the 1 s limit in all, but never more
    // than about 100 ms without a byte. The limit is on silence, not on the watch's length.
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json")
        .chunkedBody(CodecTranscripts.read("watch-03-bookmarks.jsonl"), 64)
        .throttleBody(50, 100, TimeUnit.MILLISECONDS)
        .build());
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), idle(1000));

    List<WatchEventType> types = new ArrayList<>();
    try (Watch<Pod> w = pods.listerWatcher()
        .watch(ListOptions.builder().allowWatchBookmarks(true).build(), Cancellation.none())) {
      for (WatchEvent<Pod> e = w.next(); e != null; e = w.next()) {
        types.add(e.type());
      }
    }

    assertThat(types).containsExactly(WatchEventType.ADDED, WatchEventType.ADDED,
        WatchEventType.ADDED, WatchEventType.BOOKMARK, WatchEventType.MODIFIED);
  }

  /** Default timeouts except the list idle limit, in milliseconds. */
  private static HttpTimeouts listIdle(long millis) {
    return new HttpTimeouts(Duration.ofSeconds(30), Duration.ofMillis(millis),
        Duration.ofSeconds(30), Duration.ofMinutes(5));
  }

  /** Default timeouts except the watch idle limit (and its grace), in milliseconds. */
  private static HttpTimeouts idle(long millis) {
    return new HttpTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30),
        Duration.ofMillis(millis), Duration.ofMillis(millis));
  }

  @Test
  void watchIdleFor_isTimeoutSecondsPlusGraceOrTheDefault() {
    HttpTimeouts t = HttpTimeouts.DEFAULT;

    assertThat(t.watchIdleFor(300L)).isEqualTo(Duration.ofSeconds(330));
    assertThat(t.watchIdleFor(null)).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void list_tooLargeResourceVersion504_carriesRetryAfterAndCause() {
    server.enqueue(new MockResponse.Builder().code(504)
        .addHeader("Content-Type", "application/json")
        .addHeader("Retry-After", "1")
        .body(CodecTranscripts.read("status-05-too-large.json")).build());

    assertThatThrownBy(() -> client(ResourceType.of(Pod.class)).listerWatcher()
        .list(ListOptions.builder().resourceVersion("100394").build(), Cancellation.none()))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.code()).isEqualTo(504);
          assertThat(e.reason()).contains("Timeout");
          assertThat(e.causeReasons()).containsExactly("ResourceVersionTooLarge");
          assertThat(e.isTooLargeResourceVersion()).isTrue();
          assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
        });
  }

  @Test
  void list_connectionRefused_namesMethodAndUrlButNotTheQuery() {
    HttpUrl base = server.url("/");
    server.close();
    ResourceClient<Pod> pods =
        ResourceClient.create(http, base, ResourceType.of(Pod.class), Codecs.newMapper());

    assertThatThrownBy(() -> pods.inNamespace("ns").listerWatcher()
        .list(ListOptions.builder().continueToken("secret-token").build(), Cancellation.none()))
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("GET " + base + "api/v1/namespaces/ns/pods")
        .hasMessageNotContaining("secret-token");
  }

  @Test
  void list_bodyBrokenOffMidway_isInformerExceptionNamingTheList() {
    String page = CodecTranscripts.read("list-01-page1.json");
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json")
        .body(page.substring(0, page.length() / 2)).build());

    assertThatThrownBy(() -> client(ResourceType.dynamic(
        Gvr.of("", "v1", "pods"), "Pod", true)).listerWatcher()
        .list(ListOptions.none(), Cancellation.none()))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("malformed list response of v1/pods");
  }

  @Test
  @Timeout(20)
  void list_slowButNeverSilentForTheIdleLimit_listsEverything() {
    // 628 bytes at 25 bytes per 100 ms: more than twice the 1 s limit in all, but never more
    // than about 100 ms without a byte. A list is limited on silence, not on its length: on a
    // large cluster and a slow link one response can take minutes.
    String page = CodecTranscripts.read("list-01-page1.json");
    server.enqueue(new MockResponse.Builder().code(200)
        .addHeader("Content-Type", "application/json")
        .body(page)
        .throttleBody(25, 100, TimeUnit.MILLISECONDS)
        .build());
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), listIdle(1000));

    ListResult<Pod> slow = pods.listerWatcher().list(ListOptions.none(), Cancellation.none());

    ListResult<Pod> direct = new ListCodec<>(Codecs.newMapper().reader(), ResourceType.of(Pod.class))
        .decode(new java.io.ByteArrayInputStream(page.getBytes(StandardCharsets.UTF_8)), "direct");
    assertThat(slow.items()).isNotEmpty().isEqualTo(direct.items());
    assertThat(slow.resourceVersion()).isEqualTo(direct.resourceVersion());
  }

  @Test
  @Timeout(10) // the guard is the only limit on this read: without it, the test would hang
  void list_silentMidwayLongerThanTheIdleLimit_failsWithInformerException() {
    String page = CodecTranscripts.read("list-01-page1.json");
    server.enqueue(held(page.substring(0, page.length() / 2)).response());
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), listIdle(200));

    assertThatThrownBy(() -> pods.listerWatcher().list(ListOptions.none(), Cancellation.none()))
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("list went silent: no data for")
        .hasMessageContaining("GET " + server.url("/api/v1/pods"));
  }

  @Test
  @Timeout(10)
  void list_noResponseHeadersWithinTheIdleLimit_failsWithInformerException() {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
    ResourceClient<Pod> pods = ResourceClient.create(
        http, server.url("/"), ResourceType.of(Pod.class), Codecs.newMapper(), listIdle(200));

    assertThatThrownBy(() -> pods.listerWatcher().list(ListOptions.none(), Cancellation.none()))
        .isInstanceOf(InformerException.class)
        .isNotInstanceOf(ApiException.class)
        .hasMessageContaining("list went silent: no response within")
        .hasMessageContaining("GET " + server.url("/api/v1/pods"));
  }

  @Test
  void dynamicList_itemsGetKindAndApiVersion() {
    server.enqueue(json(200, "{\"kind\":\"WidgetList\",\"apiVersion\":\"example.com/v1\","
        + "\"metadata\":{\"resourceVersion\":\"3\"},\"items\":[{\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"size\":2}}]}"));

    ListResult<GenericKubernetesResource> page = client(ResourceType.dynamic(WIDGETS, "Widget",
        true)).listerWatcher().list(ListOptions.none(), Cancellation.none());

    GenericKubernetesResource w = page.items().get(0);
    assertThat(w.getKind()).isEqualTo("Widget");
    assertThat(w.getApiVersion()).isEqualTo("example.com/v1");
    assertThat(w.getAdditionalProperties()).containsKey("spec");
  }
}

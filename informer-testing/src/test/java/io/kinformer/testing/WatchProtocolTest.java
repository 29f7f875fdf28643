package io.kinformer.testing;

import static io.kinformer.testing.Http.name;
import static io.kinformer.testing.Http.rv;
import static io.kinformer.testing.Http.type;
import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** WATCH over raw HTTP: RV modes, bookmarks, streaming lists, expiry (transcripts 03-07). */
class WatchProtocolTest {

  private static final String PODS = "/api/v1/namespaces/w/pods";
  private static final String INITIAL_END = "\"annotations\":{\"k8s.io/initial-events-end\":"
      + "\"true\"}},\"spec\":{\"containers\":null},\"status\":{}}}";

  private final FakeClock clock = new FakeClock();
  private EmbeddedApiServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.builder().clock(clock).scheduler(clock)
        .bookmarkInterval(Duration.ofSeconds(60)).watchHistorySize(20).start();
    http = new Http(server);
    http.createNamespace("w");
    http.createNamespace("other");
    http.createPod("w", "a", "demo");
    http.createPod("w", "b", "demo");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void watch_rvUnset_sendsCurrentStateAsAdded_thenLiveChanges_withoutBookmarks() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1")) {
      assertThat(w.code()).isEqualTo(200);
      assertThat(w.response.header("Content-Type")).isEqualTo("application/json");
      assertThat(w.response.header("Transfer-Encoding")).isEqualTo("chunked");
      JsonNode a = w.next();
      assertThat(type(a)).isEqualTo("ADDED");
      assertThat(name(a)).isEqualTo("a");
      assertThat(a.path("object").path("kind").asString()).isEqualTo("Pod");
      assertThat(name(w.next())).isEqualTo("b");
      long rv = http.labelPod("w", "b", "step", "s1");
      JsonNode m = w.next();
      assertThat(type(m)).isEqualTo("MODIFIED");
      assertThat(rv(m)).isEqualTo(rv);
    }
  }

  @Test
  void watch_rv0_withBookmarks_endsInitialEventsWithTheAnnotatedBookmark() {
    long current = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0"
        + "&allowWatchBookmarks=true")) {
      assertThat(type(w.next())).isEqualTo("ADDED");
      assertThat(type(w.next())).isEqualTo("ADDED");
      assertThat(w.nextLine()).isEqualTo("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
          + "\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + current + "\","
          + INITIAL_END);
    }
  }

  @Test
  void watch_rvN_replaysOnlyLaterChanges_withoutInitialState() {
    long m = server.resourceVersion();
    long rv1 = http.labelPod("w", "a", "step", "1");
    http.createPod("w", "c", "demo");
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=" + m)) {
      JsonNode first = w.next();
      assertThat(type(first)).isEqualTo("MODIFIED");
      assertThat(rv(first)).isEqualTo(rv1);
      JsonNode second = w.next();
      assertThat(type(second)).isEqualTo("ADDED");
      assertThat(name(second)).isEqualTo("c");
    }
  }

  @Test
  void watch_fromCurrentRv_sendsNothingBeforeTheNextChange() {
    long n = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=" + n)) {
      http.createPod("other", "x", "demo");
      long rv = http.labelPod("w", "b", "k", "v");
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("MODIFIED");
      assertThat(rv(e)).isEqualTo(rv);
    }
  }

  @Test
  void watch_fromAFutureRv_staysSilentUntilTheRvIsPassed() {
    long future = server.resourceVersion() + 2;
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&allowWatchBookmarks=true"
        + "&resourceVersion=" + future)) {
      http.labelPod("w", "a", "k", "1");
      http.labelPod("w", "a", "k", "2");
      clock.advance(Duration.ofSeconds(60)); // the RV has not passed the start: no bookmark
      long rv = http.labelPod("w", "a", "k", "3");
      assertThat(rv).isEqualTo(future + 1);
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("MODIFIED");
      assertThat(rv(e)).isEqualTo(rv);
    }
  }

  @Test
  void watch_legacyPath_behavesLikeWatchTrue() {
    try (Http.WatchStream w = http.watch("/api/v1/watch/namespaces/w/pods?resourceVersion=0")) {
      assertThat(name(w.next())).isEqualTo("a");
      assertThat(name(w.next())).isEqualTo("b");
    }
  }

  @Test
  void periodicBookmarks_driveByTheFakeClock_onlyWhenTheRvMoved() {
    long start = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&allowWatchBookmarks=true"
        + "&resourceVersion=" + start)) {
      clock.advance(Duration.ofSeconds(60)); // nothing changed: no bookmark
      long moved = http.createPod("other", "x", "demo");
      clock.advance(Duration.ofSeconds(60));
      JsonNode b = w.next();
      assertThat(type(b)).isEqualTo("BOOKMARK");
      assertThat(rv(b)).isEqualTo(moved);
      assertThat(b.path("object").path("metadata").has("annotations")).isFalse();
      assertThat(b.path("object").path("spec").path("containers").isNull()).isTrue();
      long rv = http.labelPod("w", "a", "k", "v");
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("MODIFIED");
      assertThat(rv(e)).isEqualTo(rv);
    }
  }

  @Test
  void periodicBookmarks_withAShortInterval_comeEveryInterval() {
    try (EmbeddedApiServer s = EmbeddedApiServer.builder().clock(clock).scheduler(clock)
        .bookmarkInterval(Duration.ofSeconds(1)).start()) {
      Http h = new Http(s);
      long start = s.resourceVersion();
      try (Http.WatchStream w = h.watch("/api/v1/namespaces/default/pods?watch=1"
          + "&allowWatchBookmarks=true&resourceVersion=" + start)) {
        for (int i = 0; i < 3; i++) {
          long rv = h.createPod("kube-system", "p" + i, "x");
          clock.advance(Duration.ofSeconds(1));
          JsonNode b = w.next();
          assertThat(type(b)).isEqualTo("BOOKMARK");
          assertThat(rv(b)).isEqualTo(rv);
        }
      }
    }
  }

  @Test
  void timeoutSeconds_endsTheStreamCleanly_afterABookmarkTwoSecondsBefore() {
    long start = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&allowWatchBookmarks=true"
        + "&timeoutSeconds=5&resourceVersion=" + start)) {
      long moved = http.createPod("other", "y", "demo");
      clock.advance(Duration.ofSeconds(3));
      JsonNode b = w.next();
      assertThat(type(b)).isEqualTo("BOOKMARK");
      assertThat(rv(b)).isEqualTo(moved);
      clock.advance(Duration.ofSeconds(2));
      w.assertEnds();
    }
  }

  @Test
  void timeoutSeconds_withoutBookmarks_endsWithNoFinalEvent() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&timeoutSeconds=1&resourceVersion="
        + server.resourceVersion())) {
      clock.advance(Duration.ofSeconds(1));
      w.assertEnds();
    }
  }

  @Test
  void tooOldRv_isHttp200WithAnExpiredErrorEvent_thenACleanEnd() {
    long old = server.resourceVersion();
    for (int i = 0; i < 25; i++) {
      http.labelPod("w", "a", "i", Integer.toString(i));
    }
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=" + old)) {
      assertThat(w.code()).isEqualTo(200);
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("ERROR");
      JsonNode status = e.path("object");
      assertThat(status.path("kind").asString()).isEqualTo("Status");
      assertThat(status.path("code").asInt()).isEqualTo(410);
      assertThat(status.path("reason").asString()).isEqualTo("Expired");
      assertThat(status.path("message").asString()).matches(
          "too old resource version: " + old + " \\(\\d+\\)");
      w.assertEnds();
    }
  }

  @Test
  void tooOldRv_afterCompaction_isAnHttp410_whenTheFaultAsksForIt() {
    long old = server.resourceVersion();
    http.labelPod("w", "a", "k", "v");
    server.faults().compactHistory();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=" + old)) {
      assertThat(type(w.next())).isEqualTo("ERROR");
    }
    server.faults().tooOldWatchAsHttp410(true);
    Http.Reply r = http.get(PODS + "?watch=1&resourceVersion=" + old);
    assertThat(r.code()).isEqualTo(410);
    assertThat(r.json().path("reason").asString()).isEqualTo("Expired");
    assertThat(r.json().path("message").asString()).startsWith("too old resource version: " + old);
    // The current RV is still fine.
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion="
        + server.resourceVersion())) {
      long rv = http.labelPod("w", "b", "k", "v");
      assertThat(rv(w.next())).isEqualTo(rv);
    }
  }

  @Test
  void streamingList_sendsCurrentStateThenTheEndMarker_evenFromAnOldRv() {
    long old = server.resourceVersion();
    http.labelPod("w", "a", "k", "v");
    long current = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=" + old)) {
      JsonNode a = w.next();
      assertThat(type(a)).isEqualTo("ADDED");
      assertThat(rv(a)).isEqualTo(current);
      assertThat(name(w.next())).isEqualTo("b");
      assertThat(w.nextLine()).isEqualTo("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
          + "\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + current + "\","
          + INITIAL_END);
    }
  }

  @Test
  void streamingList_withAnEmptySelection_sendsOnlyTheEndMarker() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
        + "&labelSelector=nothing%3Dhere")) {
      assertThat(type(w.next())).isEqualTo("BOOKMARK");
    }
  }

  @Test
  void streamingList_withoutBookmarks_hasNoEndMarker() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan")) {
      assertThat(type(w.next())).isEqualTo("ADDED");
      assertThat(type(w.next())).isEqualTo("ADDED");
      http.labelPod("w", "a", "k", "v");
      assertThat(type(w.next())).isEqualTo("MODIFIED");
    }
  }

  @Test
  void streamingList_fromAFutureRv_isAnErrorEvent504() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=999999")) {
      assertThat(w.code()).isEqualTo(200);
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("ERROR");
      assertThat(e.path("object").path("code").asInt()).isEqualTo(504);
      assertThat(e.path("object").path("details").path("causes").get(0).path("reason")
          .asString()).isEqualTo("ResourceVersionTooLarge");
      w.assertEnds();
    }
  }

  record Invalid(String name, String query, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Invalid> invalidWatches() {
    return Stream.of(
        new Invalid("sendInitialEvents without match", "&sendInitialEvents=true",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
        new Invalid("sendInitialEvents=false with RV unset", "&sendInitialEvents=false",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
        new Invalid("Exact", "&sendInitialEvents=true&resourceVersionMatch=Exact"
            + "&resourceVersion=5", "Unsupported value: \"Exact\": supported values: "
            + "\"NotOlderThan\""),
        new Invalid("match without sendInitialEvents",
            "&resourceVersionMatch=NotOlderThan&resourceVersion=5",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"),
        new Invalid("Exact without sendInitialEvents",
            "&resourceVersionMatch=Exact&resourceVersion=5",
            "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless "
                + "sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "
                + "\"Exact\": supported values: \"NotOlderThan\"]"),
        new Invalid("match with continue", "&sendInitialEvents=true"
            + "&resourceVersionMatch=NotOlderThan&continue=abc",
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is "
                + "provided"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidWatches")
  void watch_invalidStreamingOptions_are422BeforeTheStream(Invalid c) {
    Http.Reply r = http.get(PODS + "?watch=1&allowWatchBookmarks=true" + c.query());
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.json().path("reason").asString()).isEqualTo("Invalid");
    assertThat(r.json().path("details").path("kind").asString()).isEqualTo("ListOptions");
    assertThat(r.json().path("message").asString()).contains(c.message());
  }

  @Test
  void streamingList_whenRefusedAsWithoutTheWatchListGate_is422OnSendInitialEvents() {
    server.faults().refuseStreamingLists(true);
    Http.Reply r = http.get(PODS + "?watch=1&allowWatchBookmarks=true&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan");
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.json().path("reason").asString()).isEqualTo("Invalid");
    assertThat(r.json().path("details").path("causes").get(0).path("field").asString())
        .isEqualTo("sendInitialEvents");
    assertThat(server.faults().streamingListCount("pods")).isEqualTo(1);

    server.faults().reset();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0")) {
      assertThat(type(w.next())).isEqualTo("ADDED"); // plain watches are not refused
    }
  }

  @Test
  void sendInitialEventsFalse_fromRv0_startsNow() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=false"
        + "&resourceVersionMatch=NotOlderThan&resourceVersion=0")) {
      long rv = http.labelPod("w", "b", "k", "v");
      JsonNode e = w.next();
      assertThat(type(e)).isEqualTo("MODIFIED");
      assertThat(rv(e)).isEqualTo(rv);
    }
  }

  @Test
  void labelSelectorWatch_objectsEnteringAndLeavingTheSelection_areAddedAndDeleted() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0"
        + "&labelSelector=step%3Ds9")) {
      long in = http.labelPod("w", "b", "step", "s9");
      JsonNode added = w.next();
      assertThat(type(added)).isEqualTo("ADDED");
      assertThat(rv(added)).isEqualTo(in);
      long out = http.labelPod("w", "b", "step", "s10");
      JsonNode deleted = w.next();
      assertThat(type(deleted)).isEqualTo("DELETED");
      assertThat(rv(deleted)).isEqualTo(out);
      assertThat(deleted.path("object").path("metadata").path("labels").path("step").asString())
          .isEqualTo("s9");
    }
  }

  @Test
  void watchOnAnObjectPath_seesOnlyThatObject() {
    try (Http.WatchStream w = http.watch(PODS + "/b?watch=true&resourceVersion=0")) {
      assertThat(name(w.next())).isEqualTo("b");
      http.labelPod("w", "a", "k", "v");
      long rv = http.labelPod("w", "b", "k", "v");
      assertThat(rv(w.next())).isEqualTo(rv);
    }
  }

  @Test
  void fieldSelectorWatch_onOneName_seesOnlyThatObject() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=true&resourceVersion=0"
        + "&fieldSelector=metadata.name%3Db")) {
      assertThat(name(w.next())).isEqualTo("b");
      http.labelPod("w", "a", "k", "v");
      long rv = http.labelPod("w", "b", "k", "v");
      JsonNode e = w.next();
      assertThat(name(e)).isEqualTo("b");
      assertThat(rv(e)).isEqualTo(rv);
    }
  }

  @Test
  void deletingAnUnscheduledPod_isModifiedThenDeleted_withTheDeleteResponsesRv() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion="
        + server.resourceVersion())) {
      Http.Reply r = http.delete(PODS + "/a");
      assertThat(r.code()).isEqualTo(200);
      JsonNode pod = r.json();
      assertThat(pod.path("kind").asString()).isEqualTo("Pod");
      assertThat(pod.path("metadata").path("deletionGracePeriodSeconds").asInt()).isZero();
      JsonNode modified = w.next();
      assertThat(type(modified)).isEqualTo("MODIFIED");
      assertThat(modified.path("object").path("metadata").has("deletionTimestamp")).isTrue();
      JsonNode deleted = w.next();
      assertThat(type(deleted)).isEqualTo("DELETED");
      assertThat(rv(deleted)).isEqualTo(pod.path("metadata").path("resourceVersion").asLong())
          .isGreaterThan(rv(modified));
    }
    assertThat(http.get(PODS + "/a").code()).isEqualTo(404);
  }

  @Test
  void finalizers_holdTheObject_andRemovingTheLastOneDeletesIt() {
    http.post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"f\","
        + "\"finalizers\":[\"example.com/hold\"]},\"spec\":{\"containers\":[]}}");
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion="
        + server.resourceVersion())) {
      Http.Reply del = http.delete(PODS + "/f");
      assertThat(del.code()).isEqualTo(200);
      assertThat(del.json().path("metadata").path("finalizers").get(0).asString())
          .isEqualTo("example.com/hold");
      JsonNode modified = w.next();
      assertThat(type(modified)).isEqualTo("MODIFIED");
      assertThat(http.get(PODS + "/f").code()).isEqualTo(200);

      Http.Reply patched = http.patch(PODS + "/f", "application/merge-patch+json",
          "{\"metadata\":{\"finalizers\":null}}");
      assertThat(patched.code()).isEqualTo(200);
      assertThat(patched.json().path("metadata").has("finalizers")).isFalse();
      assertThat(patched.json().path("metadata").path("resourceVersion").asLong())
          .isEqualTo(rv(modified));
      JsonNode deleted = w.next();
      assertThat(type(deleted)).isEqualTo("DELETED");
      assertThat(deleted.path("object").path("metadata").path("finalizers").get(0).asString())
          .isEqualTo("example.com/hold");
    }
    assertThat(http.get(PODS + "/f").code()).isEqualTo(404);
  }

  @Test
  void deletingAConfigMap_isOneDeletedEvent_andAStatusSuccessBody() {
    http.post("/api/v1/namespaces/w/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
        + "\"metadata\":{\"name\":\"cm1\"},\"data\":{\"k\":\"v\"}}");
    try (Http.WatchStream w = http.watch("/api/v1/namespaces/w/configmaps?watch=1"
        + "&resourceVersion=" + server.resourceVersion())) {
      Http.Reply r = http.delete("/api/v1/namespaces/w/configmaps/cm1");
      assertThat(r.json().path("kind").asString()).isEqualTo("Status");
      assertThat(r.json().path("status").asString()).isEqualTo("Success");
      assertThat(r.json().path("details").path("kind").asString()).isEqualTo("configmaps");
      assertThat(type(w.next())).isEqualTo("DELETED");
    }
  }

  @Test
  void metadataOnlyWatch_sendsPartialObjectMetadata() {
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0"
        + "&allowWatchBookmarks=true",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")) {
      JsonNode a = w.next();
      assertThat(a.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
      assertThat(a.path("object").has("spec")).isFalse();
      w.next();
      JsonNode b = w.next();
      assertThat(type(b)).isEqualTo("BOOKMARK");
      assertThat(b.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
    }
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0",
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")) {
      assertThat(w.code()).isEqualTo(200);
      w.assertEnds();
    }
  }

  @Test
  void metadataOnlyWatchV1beta1_sendsV1beta1ObjectsAndBookmarks() {
    // Transcript 09 §9.11: v=v1beta1 in the Accept header gives meta.k8s.io/v1beta1 objects.
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&resourceVersion=0"
        + "&allowWatchBookmarks=true",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1")) {
      JsonNode e = w.next();
      while (type(e).equals("ADDED")) {
        assertThat(e.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
        assertThat(e.path("object").path("apiVersion").asString())
            .isEqualTo("meta.k8s.io/v1beta1");
        e = w.next();
      }
      assertThat(type(e)).isEqualTo("BOOKMARK");
      assertThat(e.path("object").path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
      long rv = http.labelPod("w", "b", "beta", "1");
      JsonNode m = w.next();
      assertThat(type(m)).isEqualTo("MODIFIED");
      assertThat(rv(m)).isEqualTo(rv);
      assertThat(m.path("object").path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
    }
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** LIST over raw HTTP: paging, resourceVersion modes, selectors and errors (transcript 01). */
@ExtendWith(EmbeddedApiServerExtension.class)
class ListProtocolTest {

  static EmbeddedApiServer server;
  static Http http;
  /** RVs of pods a..e in namespace "modes"; N = rv of c. */
  static long[] rvs = new long[5];

  @BeforeAll
  static void setUp() {
    http = new Http(server);
    http.createNamespace("modes");
    String[] names = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) {
      rvs[i] = http.createPod("modes", names[i], "demo");
    }
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new ArrayList<>();
    for (JsonNode item : list.path("items")) {
      out.add(item.path("metadata").path("name").asString());
    }
    return out;
  }

  @Test
  void list_withLimit_pagesAtOneResourceVersion_andLastPageHasNoContinueKey() {
    Http.Reply p1 = http.get("/api/v1/namespaces/modes/pods?limit=2");
    JsonNode j1 = p1.json();
    assertThat(names(j1)).containsExactly("a", "b");
    assertThat(j1.path("metadata").path("remainingItemCount").asInt()).isEqualTo(3);
    String rv = j1.path("metadata").path("resourceVersion").asString();

    JsonNode j2 = http.get("/api/v1/namespaces/modes/pods?limit=2&continue="
        + j1.path("metadata").path("continue").asString()).json();
    assertThat(names(j2)).containsExactly("c", "d");
    assertThat(j2.path("metadata").path("remainingItemCount").asInt()).isEqualTo(1);

    JsonNode j3 = http.get("/api/v1/namespaces/modes/pods?limit=2&continue="
        + j2.path("metadata").path("continue").asString()).json();
    assertThat(names(j3)).containsExactly("e");
    assertThat(j3.path("metadata").has("continue")).isFalse();
    assertThat(j3.path("metadata").has("remainingItemCount")).isFalse();
    assertThat(List.of(j2, j3)).allSatisfy(
        j -> assertThat(j.path("metadata").path("resourceVersion").asString()).isEqualTo(rv));
  }

  @Test
  void list_itemsCarryNoKindOrApiVersion_andBodiesEndWithNewline() {
    Http.Reply list = http.get("/api/v1/namespaces/modes/pods");
    assertThat(list.body()).startsWith("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":")
        .endsWith("]}\n");
    assertThat(list.json().path("items").get(0).has("kind")).isFalse();
    assertThat(list.json().path("items").get(0).has("apiVersion")).isFalse();
    assertThat(list.headers().get("Content-Type")).isEqualTo("application/json");
    Http.Reply get = http.get("/api/v1/namespaces/modes/pods/a");
    assertThat(get.body()).startsWith("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
        + "{\"name\":\"a\",\"namespace\":\"modes\",\"uid\":").endsWith("}\n");
  }

  record Case(String name, String query, List<String> expected, String listRv,
      boolean continues) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> rvModes() {
    // Evaluated after setUp: use suppliers through static fields.
    return Stream.of(
        new Case("unset: newest, consistent", "", List.of("a", "b", "c", "d", "e"), "current",
            false),
        new Case("0 ignores limit", "?resourceVersion=0&limit=2",
            List.of("a", "b", "c", "d", "e"), "current", false),
        new Case("0 NotOlderThan ignores limit",
            "?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=2",
            List.of("a", "b", "c", "d", "e"), "current", false),
        new Case("N NotOlderThan: newest", "?resourceVersion={N}&resourceVersionMatch=NotOlderThan",
            List.of("a", "b", "c", "d", "e"), "current", false),
        new Case("N NotOlderThan honours limit",
            "?resourceVersion={N}&resourceVersionMatch=NotOlderThan&limit=2", List.of("a", "b"),
            "current", true),
        new Case("N Exact: state at N", "?resourceVersion={N}&resourceVersionMatch=Exact",
            List.of("a", "b", "c"), "N", false),
        new Case("N with limit, no match: legacy Exact", "?resourceVersion={N}&limit=2",
            List.of("a", "b"), "N", true),
        new Case("N without limit or match: legacy NotOlderThan", "?resourceVersion={N}",
            List.of("a", "b", "c", "d", "e"), "current", false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rvModes")
  void list_resourceVersionModes_followTheRealServer(Case c) {
    long n = rvs[2];
    long current = server.resourceVersion();
    JsonNode j = http.get("/api/v1/namespaces/modes/pods"
        + c.query().replace("{N}", Long.toString(n))).json();
    assertThat(names(j)).containsExactlyElementsOf(c.expected());
    long expectedRv = c.listRv().equals("N") ? n : current;
    assertThat(j.path("metadata").path("resourceVersion").asLong()).isEqualTo(expectedRv);
    assertThat(j.path("metadata").has("continue")).isEqualTo(c.continues());
  }

  @Test
  void list_exactPageTwo_comesFromTheSameOldState() {
    long n = rvs[2];
    JsonNode p1 = http.get("/api/v1/namespaces/modes/pods?resourceVersion=" + n
        + "&resourceVersionMatch=Exact&limit=2").json();
    JsonNode p2 = http.get("/api/v1/namespaces/modes/pods?limit=2&continue="
        + p1.path("metadata").path("continue").asString()).json();
    assertThat(names(p2)).containsExactly("c");
    assertThat(p2.path("metadata").path("resourceVersion").asLong()).isEqualTo(n);
    assertThat(p2.path("metadata").has("continue")).isFalse();
  }

  record ErrorCase(String name, String query, int code, String reason, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ErrorCase> invalidQueries() {
    return Stream.of(
        new ErrorCase("continue with resourceVersion", "?limit=2&continue=abc&resourceVersion=5",
            400, "BadRequest", "specifying resource version is not allowed when using continue"),
        // ValidateListOptions: a continue token pins the RV, so no match may come with it, not
        // even with resourceVersion=0 (which is otherwise allowed alongside continue).
        new ErrorCase("match with continue", "?limit=2&continue=" + ApiHandler.encodeContinue(1,
            "modes/a") + "&resourceVersion=0&resourceVersionMatch=NotOlderThan", 422, "Invalid",
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is "
                + "provided"),
        new ErrorCase("match without resourceVersion", "?resourceVersionMatch=NotOlderThan", 422,
            "Invalid", "resourceVersionMatch is forbidden unless resourceVersion is provided"),
        new ErrorCase("Exact with 0", "?resourceVersion=0&resourceVersionMatch=Exact", 422,
            "Invalid", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""),
        new ErrorCase("non-numeric resourceVersion", "?resourceVersion=abc", 400, "BadRequest",
            "invalid resource version: resourceVersion: Invalid value: \"abc\""),
        new ErrorCase("garbage continue", "?continue=garbage", 400, "BadRequest",
            "invalid continue token"),
        new ErrorCase("non-numeric limit", "?limit=abc", 400, "BadRequest",
            "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        new ErrorCase("sendInitialEvents on a list", "?sendInitialEvents=true", 422, "Invalid",
            "sendInitialEvents is forbidden for list"),
        new ErrorCase("bad label selector", "?labelSelector=%3Dx", 400, "BadRequest",
            "found '='"),
        new ErrorCase("unsupported field", "?fieldSelector=spec.foo%3Dx", 400, "BadRequest",
            "field label not supported: spec.foo"),
        new ErrorCase("future resourceVersion", "?resourceVersion=99999999", 504, "Timeout",
            "Too large resource version: 99999999"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidQueries")
  void list_invalidQuery_isAStatusError(ErrorCase c) {
    Http.Reply r = http.get("/api/v1/namespaces/modes/pods" + c.query());
    assertThat(r.code()).isEqualTo(c.code());
    JsonNode s = r.json();
    assertThat(s.path("kind").asString()).isEqualTo("Status");
    assertThat(s.path("status").asString()).isEqualTo("Failure");
    assertThat(s.path("code").asInt()).isEqualTo(c.code());
    assertThat(s.path("reason").asString()).isEqualTo(c.reason());
    assertThat(s.path("message").asString()).contains(c.message());
    if (c.code() == 504) {
      assertThat(r.headers().get("Retry-After")).isEqualTo("1");
    }
  }

  @Test
  void list_selectors_filterAndOmitRemainingItemCount() {
    http.createNamespace("sel");
    http.createPod("sel", "web-1", "web");
    http.createPod("sel", "web-2", "web");
    http.createPod("sel", "db-1", "db");
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?labelSelector=app%3Dweb").json()))
        .containsExactly("web-1", "web-2");
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?labelSelector=app%20in%20(db,x)")
        .json())).containsExactly("db-1");
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?labelSelector=app!%3Dweb").json()))
        .containsExactly("db-1");
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?fieldSelector=metadata.name%3Dweb-2")
        .json())).containsExactly("web-2");
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?fieldSelector=status.phase%3DPending")
        .json())).hasSize(3);
    assertThat(names(http.get("/api/v1/namespaces/sel/pods?fieldSelector=spec.nodeName%3D")
        .json())).hasSize(3);
    JsonNode page = http.get("/api/v1/namespaces/sel/pods?labelSelector=app%3Dweb&limit=1").json();
    assertThat(names(page)).containsExactly("web-1");
    assertThat(page.path("metadata").has("continue")).isTrue();
    assertThat(page.path("metadata").has("remainingItemCount")).isFalse();
  }

  @Test
  void list_allNamespaces_isInKeyOrder() {
    http.createNamespace("zz-all");
    http.createNamespace("aa-all");
    http.createPod("zz-all", "p", "x");
    http.createPod("aa-all", "p", "x");
    List<String> keys = new ArrayList<>();
    for (JsonNode item : http.get("/api/v1/pods").json().path("items")) {
      keys.add(item.path("metadata").path("namespace").asString() + "/"
          + item.path("metadata").path("name").asString());
    }
    assertThat(keys).contains("aa-all/p", "zz-all/p").isSorted();
  }

  @Test
  void list_inMissingNamespace_isEmpty() {
    Http.Reply r = http.get("/api/v1/namespaces/no-such-ns/pods");
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.json().path("items").isEmpty()).isTrue();
  }

  @Test
  void list_metadataOnly_itemsArePartialObjectMetadata() {
    JsonNode j = http.get("/api/v1/namespaces/modes/pods?limit=2",
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").json();
    assertThat(j.path("kind").asString()).isEqualTo("PartialObjectMetadataList");
    JsonNode item = j.path("items").get(0);
    assertThat(item.path("kind").asString()).isEqualTo("PartialObjectMetadata");
    assertThat(item.path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
    assertThat(item.path("metadata").path("name").asString()).isEqualTo("a");
    assertThat(item.has("spec")).isFalse();
  }

  @Test
  void list_metadataOnlyV1beta1_answersInV1beta1() {
    // Transcript 09 §9.11: the apiVersion follows the v= of the Accept header.
    JsonNode j = http.get("/api/v1/namespaces/modes/pods",
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1").json();
    assertThat(j.path("kind").asString()).isEqualTo("PartialObjectMetadataList");
    assertThat(j.path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
    assertThat(j.path("items")).isNotEmpty().allSatisfy(item -> {
      assertThat(item.path("kind").asString()).isEqualTo("PartialObjectMetadata");
      assertThat(item.path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
    });
    JsonNode one = http.get("/api/v1/namespaces/modes/pods/a",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1").json();
    assertThat(one.path("kind").asString()).isEqualTo("PartialObjectMetadata");
    assertThat(one.path("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
    assertThat(one.path("metadata").path("name").asString()).isEqualTo("a");
  }

  @Test
  void metadataOnly_wrongFormForTheTarget_is406WithTheRealServersMessage() {
    // Transcript 09 §9.14.
    Http.Reply get = http.get("/api/v1/namespaces/modes/pods/a",
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assertThat(get.code()).isEqualTo(406);
    assertThat(get.json().path("reason").asString()).isEqualTo("NotAcceptable");
    assertThat(get.json().path("message").asString()).isEqualTo("you requested "
        + "PartialObjectMetadataList, but the requested object is not a list (*core.Pod)");
    Http.Reply list = http.get("/api/v1/namespaces/modes/pods",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
    assertThat(list.code()).isEqualTo(406);
    assertThat(list.json().path("message").asString()).isEqualTo("you requested "
        + "PartialObjectMetadata, but the requested object is a list (*core.PodList)");
  }

  @Test
  void bigLists_areGzipped_whenTheClientAcceptsIt_smallOnesAreNot() throws Exception {
    http.createNamespace("big");
    String blob = "x".repeat(3000);
    for (int i = 0; i < 50; i++) {
      server.create("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c"
          + i + "\",\"namespace\":\"big\"},\"data\":{\"k\":\"" + blob + "\"}}");
    }
    okhttp3.Request big = new okhttp3.Request.Builder()
        .url(server.url() + "/api/v1/namespaces/big/configmaps")
        .header("Accept-Encoding", "gzip").build();
    try (okhttp3.Response r = http.client.newCall(big).execute()) {
      assertThat(r.header("Content-Encoding")).isEqualTo("gzip");
      byte[] raw = new java.util.zip.GZIPInputStream(r.body().byteStream()).readAllBytes();
      assertThat(Http.JSON.readTree(raw).path("items").size()).isEqualTo(50);
    }
    okhttp3.Request small = new okhttp3.Request.Builder()
        .url(server.url() + "/api/v1/namespaces/big/configmaps?limit=2")
        .header("Accept-Encoding", "gzip").build();
    try (okhttp3.Response r = http.client.newCall(small).execute()) {
      assertThat(r.header("Content-Encoding")).isNull();
    }
    // OkHttp asks for gzip on its own and decodes it transparently.
    assertThat(http.get("/api/v1/namespaces/big/configmaps").json().path("items").size())
        .isEqualTo(50);
  }

  @Test
  void paging_underConcurrentWrites_seesOneConsistentState() throws Exception {
    http.createNamespace("churn");
    for (int i = 0; i < 60; i++) {
      http.createPod("churn", String.format("p%03d", i), "x");
    }
    Http writerHttp = new Http(server);
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = new Thread(() -> {
      for (int i = 0; i < 200 && !stop.get(); i++) {
        writerHttp.labelPod("churn", String.format("p%03d", i % 60), "step", "s" + i);
        if (i % 10 == 0) {
          writerHttp.createPod("churn", "new-" + i, "x");
          writerHttp.delete("/api/v1/namespaces/churn/pods/" + String.format("p%03d", i / 10));
        }
      }
    }, "test-writer");
    writer.start();
    List<String> seen = new ArrayList<>();
    JsonNode page = http.get("/api/v1/namespaces/churn/pods?limit=7").json();
    long listRv = page.path("metadata").path("resourceVersion").asLong();
    while (true) {
      for (JsonNode item : page.path("items")) {
        seen.add(item.path("metadata").path("name").asString());
        assertThat(item.path("metadata").path("resourceVersion").asLong()).isLessThanOrEqualTo(
            listRv);
      }
      assertThat(page.path("metadata").path("resourceVersion").asLong()).isEqualTo(listRv);
      String cont = page.path("metadata").path("continue").asString("");
      if (cont.isEmpty()) {
        break;
      }
      page = http.get("/api/v1/namespaces/churn/pods?limit=7&continue=" + cont).json();
    }
    stop.set(true);
    writer.join();
    List<String> exact = names(http.get("/api/v1/namespaces/churn/pods?resourceVersion=" + listRv
        + "&resourceVersionMatch=Exact").json());
    assertThat(seen).containsExactlyElementsOf(exact);
    Set<String> unique = new HashSet<>(seen);
    assertThat(unique).hasSameSizeAs(seen);
  }

  @Test
  void continueToken_afterCompaction_is410WithAnInconsistentContinuation() {
    try (EmbeddedApiServer s = EmbeddedApiServer.start()) {
      Http h = new Http(s);
      for (String n : List.of("a", "b", "c", "d", "e")) {
        h.createPod("default", n, "x");
      }
      JsonNode p1 = h.get("/api/v1/namespaces/default/pods?limit=2").json();
      h.labelPod("default", "c", "k", "v");
      s.faults().compactHistory();
      Http.Reply expired = h.get("/api/v1/namespaces/default/pods?limit=2&continue="
          + p1.path("metadata").path("continue").asString());
      assertThat(expired.code()).isEqualTo(410);
      JsonNode status = expired.json();
      assertThat(status.path("reason").asString()).isEqualTo("Expired");
      assertThat(status.path("message").asString())
          .startsWith("The provided continue parameter is too old");
      String inconsistent = status.path("metadata").path("continue").asString();
      JsonNode rest = h.get("/api/v1/namespaces/default/pods?limit=2&continue=" + inconsistent)
          .json();
      assertThat(names(rest)).containsExactly("c", "d");
      assertThat(rest.path("items").get(0).path("metadata").path("labels").path("k").asString())
          .isEqualTo("v");

      Http.Reply exact = h.get("/api/v1/namespaces/default/pods?resourceVersion="
          + p1.path("metadata").path("resourceVersion").asString()
          + "&resourceVersionMatch=Exact");
      assertThat(exact.code()).isEqualTo(410);
      assertThat(exact.json().path("message").asString())
          .isEqualTo("The resourceVersion for the provided list is too old.");
    }
  }
}

package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.cache.ShardSelector;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The {@code shardSelector} of lists and watches, as kube-apiserver with the {@code
 * ShardedListAndWatch} gate serves it: filtered by the FNV-1a hash of the uid or namespace, echoed
 * in {@code metadata.shardInfo}, a malformed selector refused; and ignored with the gate off.
 */
class ShardedListAndWatchTest {

  private static final String PODS = "/api/v1/namespaces/s/pods";
  private static final ShardSelector LOWER = ShardSelector.ofShard(ShardSelector.Field.UID, 0, 2);
  private static final ShardSelector UPPER = ShardSelector.ofShard(ShardSelector.Field.UID, 1, 2);

  private EmbeddedApiServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    http = new Http(server);
    http.createNamespace("s");
    for (int i = 0; i < 20; i++) {
      http.createPod("s", "p" + i, "demo");
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static String q(ShardSelector s) {
    return "shardSelector=" + URLEncoder.encode(s.toString(), StandardCharsets.UTF_8);
  }

  private static List<String> uids(JsonNode list) {
    List<String> out = new ArrayList<>();
    for (JsonNode item : list.path("items")) {
      out.add(item.path("metadata").path("uid").asString());
    }
    return out;
  }

  @Test
  void list_withShardSelector_returnsOnlyTheShardsObjects_andEchoesTheSelector() {
    List<String> all = uids(http.get(PODS).json());
    JsonNode lower = http.get(PODS + "?" + q(LOWER)).json();
    JsonNode upper = http.get(PODS + "?" + q(UPPER)).json();

    assertThat(uids(lower)).allMatch(LOWER::matchesValue).isNotEmpty();
    assertThat(uids(upper)).allMatch(UPPER::matchesValue).isNotEmpty();
    Set<String> union = new HashSet<>(uids(lower));
    union.addAll(uids(upper));
    assertThat(union).containsExactlyInAnyOrderElementsOf(all);
    assertThat(lower.path("metadata").path("shardInfo").path("selector").asString())
        .isEqualTo(LOWER.toString());
    assertThat(http.get(PODS).json().path("metadata").has("shardInfo")).isFalse();
  }

  @Test
  void list_withPagesAndShardSelector_omitsRemainingItemCount_andEchoesOnEveryPage() {
    JsonNode p1 = http.get(PODS + "?limit=2&" + q(LOWER)).json();
    assertThat(p1.path("metadata").has("continue")).isTrue();
    assertThat(p1.path("metadata").has("remainingItemCount")).isFalse();
    JsonNode p2 = http.get(PODS + "?limit=2&" + q(LOWER) + "&continue="
        + p1.path("metadata").path("continue").asString()).json();
    assertThat(uids(p2)).allMatch(LOWER::matchesValue);
    assertThat(p2.path("metadata").path("shardInfo").path("selector").asString())
        .isEqualTo(LOWER.toString());
  }

  @Test
  void list_byNamespaceShard_keepsANamespaceTogether() {
    ShardSelector nsLower = ShardSelector.ofShard(ShardSelector.Field.NAMESPACE, 0, 2);
    int expected = nsLower.matchesValue("s") ? 20 : 0;
    assertThat(uids(http.get("/api/v1/pods?" + q(nsLower)).json())).hasSize(expected);
  }

  @Test
  void watch_withShardSelector_sendsOnlyTheShardsEvents_andBookmarksUnfiltered() {
    long current = server.resourceVersion();
    try (Http.WatchStream w = http.watch(PODS + "?watch=1&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&" + q(LOWER))) {
      long expected = uids(http.get(PODS + "?" + q(LOWER)).json()).size();
      for (long i = 0; i < expected; i++) {
        JsonNode e = w.next();
        assertThat(Http.type(e)).isEqualTo("ADDED");
        assertThat(LOWER.matchesValue(e.path("object").path("metadata").path("uid").asString()))
            .isTrue();
      }
      JsonNode bookmark = w.next();
      assertThat(Http.type(bookmark)).isEqualTo("BOOKMARK");
      assertThat(Http.rv(bookmark)).isEqualTo(current);
      // Live events: only those of the lower half arrive.
      int lowerCreated = 0;
      for (int i = 20; i < 40; i++) {
        http.createPod("s", "p" + i, "demo");
      }
      List<String> all = uids(http.get(PODS).json());
      for (String uid : all) {
        lowerCreated += LOWER.matchesValue(uid) ? 1 : 0;
      }
      lowerCreated -= (int) expected;
      for (int i = 0; i < lowerCreated; i++) {
        JsonNode e = w.next();
        assertThat(Http.type(e)).isEqualTo("ADDED");
        assertThat(LOWER.matchesValue(e.path("object").path("metadata").path("uid").asString()))
            .isTrue();
      }
    }
  }

  @Test
  void malformedSelector_isRefusedWith500AndTheParsersMessage_onListAndWatch() {
    String bad = "shardSelector=" + URLEncoder.encode(
        "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", StandardCharsets.UTF_8);
    Http.Reply list = http.get(PODS + "?" + bad);
    assertThat(list.code()).isEqualTo(500);
    assertThat(list.json().path("message").asString()).isEqualTo("invalid shard selector: "
        + "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean "
        + "\"0x0000000000000000\"?)");
    assertThat(list.json().has("reason")).isFalse();
    Http.Reply watch = http.get(PODS + "?watch=1&" + bad);
    assertThat(watch.code()).isEqualTo(500);
  }

  @Test
  void withoutTheGate_theSelectorIsIgnored_andNoShardInfoIsSent() {
    server.faults().ignoreShardSelectors(true);
    JsonNode list = http.get(PODS + "?" + q(LOWER)).json();
    assertThat(uids(list)).hasSize(20);
    assertThat(list.path("metadata").has("shardInfo")).isFalse();
    assertThat(http.get(PODS + "?shardSelector=nonsense").code()).isEqualTo(200);
  }
}

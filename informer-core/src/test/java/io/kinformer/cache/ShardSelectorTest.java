package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class ShardSelectorTest {

  @Test
  void hash_isGoFnv64a_overTheUtf8Bytes() {
    // Reference values of FNV-1a 64 (Go's hash/fnv New64a).
    assertThat(ShardSelector.hash("")).isEqualTo(0xcbf29ce484222325L);
    assertThat(ShardSelector.hash("a")).isEqualTo(0xaf63dc4c8601ec8cL);
    assertThat(ShardSelector.hash("foobar")).isEqualTo(0x85944171f73967e8L);
  }

  @Test
  void ofShard_splitsTheSpaceAsKubeStateMetrics_andToStringIsTheServersForm() {
    assertThat(ShardSelector.ofShard(ShardSelector.Field.UID, 0, 2).toString())
        .isEqualTo("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    assertThat(ShardSelector.ofShard(ShardSelector.Field.UID, 1, 2).toString())
        .isEqualTo("shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')");
    assertThat(ShardSelector.ofShard(ShardSelector.Field.NAMESPACE, 1, 3).ranges())
        .containsExactly(new ShardSelector.Range("0x5555555555555555", "0xaaaaaaaaaaaaaaaa"));
  }

  @Test
  void ofShard_everyUidMatchesExactlyOneShard() {
    for (int n = 1; n <= 7; n++) {
      int count = n;
      List<ShardSelector> shards = IntStream.range(0, n)
          .mapToObj(i -> ShardSelector.ofShard(ShardSelector.Field.UID, i, count)).toList();
      for (int k = 0; k < 200; k++) {
        String uid = UUID.nameUUIDFromBytes(("o" + k).getBytes()).toString();
        assertThat(shards.stream().filter(s -> s.matchesValue(uid)).count())
            .as("shards of %s among %d", uid, n).isEqualTo(1);
      }
    }
  }

  @Test
  void matches_hashesTheUidOrTheNamespace() {
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("x").withNamespace("team-a")
        .withUid("0b7d3c4e-uid").endMetadata().build();
    long uidHash = ShardSelector.hash("0b7d3c4e-uid");
    ShardSelector lowerHalf = ShardSelector.ofShard(ShardSelector.Field.UID, 0, 2);
    assertThat(lowerHalf.matches(cm)).isEqualTo(uidHash >= 0);
    long nsHash = ShardSelector.hash("team-a");
    ShardSelector nsLower = ShardSelector.ofShard(ShardSelector.Field.NAMESPACE, 0, 2);
    assertThat(nsLower.matches(cm)).isEqualTo(nsHash >= 0);
  }

  @Test
  void parse_roundTripsOrTermsAndParentheses() {
    String two = "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')"
        + " || shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')";
    ShardSelector s = ShardSelector.parse("(" + two.replace(", ", ",") + ")");
    assertThat(s.toString()).isEqualTo(two);
    assertThat(s.ranges()).hasSize(2);
    assertThat(ShardSelector.parse(two)).isEqualTo(s);
  }

  record Case(String name, String selector, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> malformed() {
    return Stream.of(
        new Case("empty", " ", "empty shard selector is not allowed; omit the parameter for "
            + "unfiltered lists"),
        new Case("short bound", "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
            "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean "
                + "\"0x0000000000000000\"?)"),
        new Case("no prefix", "shardRange(object.metadata.uid, '00', '0x8000000000000000')",
            "hexStart must have '0x' prefix, got \"00\""),
        new Case("upper case", "shardRange(object.metadata.uid, '0x000000000000000A', "
            + "'0x8000000000000000')",
            "hexStart: invalid hex character \"A\" in \"0x000000000000000A\""),
        new Case("bad 17 digits", "shardRange(object.metadata.uid, '0x0000000000000000', "
            + "'0x20000000000000000')", "hexEnd: 17-digit hex value must be "
            + "'0x10000000000000000' (2^64), got \"0x20000000000000000\""),
        new Case("empty range", "shardRange(object.metadata.uid, '0x8000000000000000', "
            + "'0x8000000000000000')",
            "shard range start 0x8000000000000000 must be less than end 0x8000000000000000"),
        new Case("field", "shardRange(object.metadata.name, '0x0000000000000000', "
            + "'0x8000000000000000')", "unsupported field path \"object.metadata.name\"; "
            + "supported: object.metadata.uid, object.metadata.namespace"),
        new Case("function", "hashRange(object.metadata.uid, '0x0000000000000000', "
            + "'0x8000000000000000')",
            "unsupported function \"hashRange\"; only shardRange() and || are allowed"),
        new Case("arity", "shardRange(object.metadata.uid, '0x0000000000000000')",
            "shardRange() requires exactly 3 arguments, got 2"),
        new Case("mixed fields", "shardRange(object.metadata.uid, '0x0000000000000000', "
            + "'0x8000000000000000') || shardRange(object.metadata.namespace, "
            + "'0x8000000000000000', '0x10000000000000000')", "all shard ranges must use the "
            + "same field, got \"object.metadata.uid\" and \"object.metadata.namespace\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void parse_refusesWithTheServersMessage(Case c) {
    assertThatThrownBy(() -> ShardSelector.parse(c.selector()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(c.message());
  }
}

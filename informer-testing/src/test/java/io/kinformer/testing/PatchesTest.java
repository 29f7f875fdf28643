package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

class PatchesTest {

  record Case(String name, String kind, String target, String patch, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("merge: null removes", "merge", "{\"a\":1,\"b\":2}", "{\"a\":null}",
            "{\"b\":2}"),
        new Case("merge: nested objects merge", "merge", "{\"a\":{\"x\":1}}",
            "{\"a\":{\"y\":2}}", "{\"a\":{\"x\":1,\"y\":2}}"),
        new Case("merge: arrays replace", "merge", "{\"a\":[1,2]}", "{\"a\":[3]}", "{\"a\":[3]}"),
        new Case("strategic: named lists merge by name", "strategic",
            "{\"c\":[{\"name\":\"a\",\"i\":1},{\"name\":\"b\",\"i\":2}]}",
            "{\"c\":[{\"name\":\"b\",\"i\":3}],\"$setElementOrder/c\":[]}",
            "{\"c\":[{\"name\":\"a\",\"i\":1},{\"name\":\"b\",\"i\":3}]}"),
        new Case("strategic: $patch delete removes", "strategic",
            "{\"c\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
            "{\"c\":[{\"name\":\"a\",\"$patch\":\"delete\"}]}", "{\"c\":[{\"name\":\"b\"}]}"),
        new Case("json: add, remove, replace", "json", "{\"a\":[1,2],\"b\":1}",
            "[{\"op\":\"add\",\"path\":\"/a/-\",\"value\":3},{\"op\":\"remove\",\"path\":\"/b\"},"
                + "{\"op\":\"replace\",\"path\":\"/a/0\",\"value\":0}]",
            "{\"a\":[0,2,3]}"),
        new Case("json: move, copy, test and escaped keys", "json", "{\"a/b\":1,\"c\":{}}",
            "[{\"op\":\"test\",\"path\":\"/a~1b\",\"value\":1},"
                + "{\"op\":\"copy\",\"from\":\"/a~1b\",\"path\":\"/c/x\"},"
                + "{\"op\":\"move\",\"from\":\"/a~1b\",\"path\":\"/d\"}]",
            "{\"c\":{\"x\":1},\"d\":1}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void patch_appliesAsSpecified(Case c) {
    JsonNode target = Json.MAPPER.readTree(c.target());
    JsonNode patch = Json.MAPPER.readTree(c.patch());
    JsonNode out = c.kind().equals("json") ? Patches.jsonPatch(target, patch)
        : Patches.mergePatch(target, patch, c.kind().equals("strategic"));
    assertThat(out).isEqualTo(Json.MAPPER.readTree(c.expected()));
  }

  static Stream<String> failingJsonPatches() {
    return Stream.of(
        "[{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]",
        "[{\"op\":\"remove\",\"path\":\"/missing\"}]",
        "[{\"op\":\"replace\",\"path\":\"/missing\",\"value\":1}]",
        "[{\"op\":\"add\",\"path\":\"/a/b/c\",\"value\":1}]");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingJsonPatches")
  void jsonPatch_thatDoesNotApply_is422(String patch) {
    assertThatThrownBy(() -> Patches.jsonPatch(Json.MAPPER.readTree("{\"a\":1}"),
        Json.MAPPER.readTree(patch)))
        .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.code).isEqualTo(422));
  }
}

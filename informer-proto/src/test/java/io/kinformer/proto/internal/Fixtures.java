package io.kinformer.proto.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The differential fixtures {@code proto-schema} writes: objects of every kind of client-go's
 * scheme, filled by randfill, each as its protobuf message and as the JSON the API server writes
 * for it (Go's encoding/json of the object read back from that protobuf).
 */
final class Fixtures {
  record Fixture(String group, String version, String kind, String message, byte[] protobuf,
      String json) {
    @Override
    public String toString() {
      return (group.isEmpty() ? "core" : group) + "/" + version + " " + kind;
    }
  }

  private static final List<Fixture> ALL = load();

  private Fixtures() {}

  static List<Fixture> all() {
    return ALL;
  }

  private static List<Fixture> load() {
    try (InputStream in = Fixtures.class.getResourceAsStream("fixtures.json.gz")) {
      if (in == null) {
        throw new IllegalStateException("fixtures.json.gz is missing: run proto-schema/gen.sh");
      }
      JsonNode root = JsonMapper.shared().readTree(new GZIPInputStream(in));
      List<Fixture> out = new ArrayList<>();
      for (JsonNode f : root) {
        out.add(new Fixture(f.get("group").asString(), f.get("version").asString(),
            f.get("kind").asString(), f.get("msg").asString(),
            Base64.getDecoder().decode(f.get("protobuf").asString()), f.get("json").toString()));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

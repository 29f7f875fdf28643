package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.json.UTF8StreamJsonParser;
import tools.jackson.databind.json.JsonMapper;

class CacheJsonFactoryTest {

  private final JsonMapper mapper = Codecs.newCacheMapper();
  private final CacheJsonFactory factory = (CacheJsonFactory) mapper.tokenStreamFactory();

  @Test
  void bytes_areParsedByJacksonsByteParser() {
    // Without a name table Jackson decodes UTF-8 into characters first: the slower parser.
    byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    try (JsonParser fromStream = mapper.createParser(new ByteArrayInputStream(json));
        JsonParser fromArray = mapper.createParser(json, 0, json.length)) {
      assertThat(fromStream).isInstanceOf(UTF8StreamJsonParser.class);
      assertThat(fromArray).isInstanceOf(UTF8StreamJsonParser.class);
    }
  }

  @Test
  void nameTable_stopsGrowingAtItsBound_andIsKeptForTheNextParser() {
    int keys = CacheJsonFactory.MAX_NAMES * 2 + 500; // Jackson drops a table past 6,000
    Map<String, Integer> decoded = readMap(manyKeys("unique-", keys));

    assertThat(decoded).hasSize(keys).containsEntry("unique-0", 0)
        .containsEntry("unique-" + (keys - 1), keys - 1);
    assertThat(factory.namesInTable()).isEqualTo(CacheJsonFactory.MAX_NAMES);

    Map<String, Integer> next = readMap(manyKeys("other-", 3));
    assertThat(next).containsOnlyKeys("other-0", "other-1", "other-2");
    assertThat(factory.namesInTable()).isEqualTo(CacheJsonFactory.MAX_NAMES);
  }

  @Test
  void keysPastTheBound_areStillOneStringEach() {
    readMap(manyKeys("filler-", CacheJsonFactory.MAX_NAMES + 10));
    String pod = "{\"metadata\":{\"name\":\"p\",\"labels\":{\"late-label\":\"x\"}}}";

    Pod a = mapper.readValue(pod.getBytes(StandardCharsets.UTF_8), Pod.class);
    Pod b = mapper.readValue(new ByteArrayInputStream(pod.getBytes(StandardCharsets.UTF_8)),
        Pod.class);

    String keyA = a.getMetadata().getLabels().keySet().iterator().next();
    String keyB = b.getMetadata().getLabels().keySet().iterator().next();
    assertThat(keyB).isEqualTo("late-label").isSameAs(keyA);
    assertThat(b).isEqualTo(a);
  }

  @Test
  void watchEnvelopeNames_areInTheTable_evenAfterAListFilledIt() {
    // A large list fills the table with names of its own; a watch's "object" comes after.
    readMap(manyKeys("list-", CacheJsonFactory.MAX_NAMES + 10));
    byte[] event = "{\"type\":\"MODIFIED\",\"object\":{}}".getBytes(StandardCharsets.UTF_8);

    String[] first = envelopeNames(event);
    String[] second = envelopeNames(event);

    assertThat(first).containsExactly("type", "object");
    assertThat(second[0]).isSameAs(first[0]);
    assertThat(second[1]).isSameAs(first[1]);
  }

  @Test
  void copy_isTheSameKindOfFactory_withItsOwnSeededTable() {
    readMap(manyKeys("original-", 10));

    CacheJsonFactory copy = (CacheJsonFactory) factory.copy();

    assertThat(copy.namesInTable()).isEqualTo(2); // "type" and "object"
    assertThat(factory.namesInTable()).isEqualTo(12);
  }

  private String[] envelopeNames(byte[] event) {
    try (JsonParser p = mapper.createParser(new ByteArrayInputStream(event))) {
      p.nextToken();
      String type = p.nextName();
      p.nextToken();
      String object = p.nextName();
      return new String[] {type, object};
    }
  }

  private static byte[] manyKeys(String prefix, int count) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < count; i++) {
      sb.append(i == 0 ? "" : ",").append('"').append(prefix).append(i).append("\":").append(i);
    }
    return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  private Map<String, Integer> readMap(byte[] json) {
    return mapper.readValue(new ByteArrayInputStream(json),
        mapper.getTypeFactory().constructMapType(Map.class, String.class, Integer.class));
  }
}

package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

class ProtoJsonTest {
  private static final JsonMapper MAPPER = TestMappers.mapper();
  private static final ProtoSchema SCHEMA = ProtoSchema.builtIn();
  private static final ProtoSchema.Message POD = message("k8s.io.api.core.v1.Pod");
  private static final ProtoSchema.Message SECRET = message("k8s.io.api.core.v1.Secret");

  private static ProtoSchema.Message message(String name) {
    ProtoSchema.Message m = SCHEMA.message(name);
    assertThat(m).as(name).isNotNull();
    return m;
  }

  private static String json(ProtoSchema.Message m, byte[] data) {
    return json(new ProtoJson(MAPPER), m, data);
  }

  private static String json(ProtoJson decoder, ProtoSchema.Message m, byte[] data) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = MAPPER.createGenerator(w)) {
      decoder.write(m, data, 0, data.length, g);
    }
    return w.toString();
  }

  // Pod: metadata 1, spec 2, status 3. ObjectMeta: name 1, namespace 3, creationTimestamp 8,
  // labels 11, managedFields 17. PodSpec: containers 2, terminationGracePeriodSeconds 4,
  // hostNetwork 11. Container: name 1, image 2, ports 6. ContainerPort: containerPort 3.

  private static ProtoBytes meta() {
    return new ProtoBytes().stringField(1, "web").stringField(3, "default");
  }

  @Test
  void writesTheJsonTheServerWritesForAPod() {
    ProtoBytes time = new ProtoBytes().varintField(1, 1_700_000_000L);
    ProtoBytes labels = new ProtoBytes().stringField(1, "app").stringField(2, "web");
    ProtoBytes port = new ProtoBytes().varintField(3, 8080);
    ProtoBytes container = new ProtoBytes().stringField(1, "c").stringField(2, "nginx")
        .messageField(6, port);
    ProtoBytes spec = new ProtoBytes().messageField(2, container).varintField(4, 30);
    byte[] pod = new ProtoBytes()
        .messageField(1, meta().messageField(8, time).messageField(11, labels))
        .messageField(2, spec).bytes();

    String json = json(POD, pod);

    assertThat(json).startsWith("{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\","
        + "\"creationTimestamp\":\"2023-11-14T22:13:20Z\",\"labels\":{\"app\":\"web\"}},");
    // Not omitempty, so written though protobuf left them out: containerPort's protocol is
    // omitempty (left out), hostNetwork is omitempty, containers' resources is a struct.
    assertThat(json).contains("\"ports\":[{\"containerPort\":8080}]")
        .contains("\"resources\":{}")
        .contains("\"terminationGracePeriodSeconds\":30")
        .doesNotContain("hostNetwork");
    Pod bound = MAPPER.readValue(new ProtoJson(MAPPER).toTokens(POD, pod, 0, pod.length), Pod.class);
    assertThat(bound.getMetadata().getLabels()).isEqualTo(Map.of("app", "web"));
    assertThat(bound.getSpec().getContainers().get(0).getPorts().get(0).getContainerPort())
        .isEqualTo(8080);
  }

  @Test
  void fieldsOutOfOrderAndRepeatedFieldsSplitByOthersDecodeAsInOrder() {
    ProtoBytes c1 = new ProtoBytes().stringField(1, "a");
    ProtoBytes c2 = new ProtoBytes().stringField(1, "b");
    byte[] ordered = new ProtoBytes().messageField(1, meta())
        .messageField(2, new ProtoBytes().messageField(2, c1).messageField(2, c2)
            .varintField(4, 5)).bytes();
    byte[] shuffled = new ProtoBytes()
        .messageField(2, new ProtoBytes().messageField(2, c1).varintField(4, 5)
            .messageField(2, c2))
        .messageField(1, meta()).bytes();

    assertThat(json(POD, shuffled)).isEqualTo(json(POD, ordered));
  }

  @Test
  void unknownFieldsAreSkipped() {
    byte[] plain = new ProtoBytes().messageField(1, meta()).bytes();
    byte[] withUnknown = new ProtoBytes().messageField(1, meta().varintField(900, 7)
        .stringField(901, "x")).raw(0xf5, 0x3e, 1, 2, 3, 4).messageField(99, meta()).bytes();

    assertThat(json(POD, withUnknown)).isEqualTo(json(POD, plain));
  }

  @Test
  void bytesAreBase64AndAnEmptyMapIsLeftOut() {
    ProtoBytes entry = new ProtoBytes().stringField(1, "k").bytesField(2, new byte[] {0, 1, -1});
    // Secret: metadata 1, data 2, type 3, immutable 5.
    byte[] secret = new ProtoBytes().messageField(1, meta()).messageField(2, entry).bytes();

    Secret bound = MAPPER.readValue(new ProtoJson(MAPPER).toTokens(SECRET, secret, 0, secret.length),
        Secret.class);

    assertThat(bound.getData()).isEqualTo(Map.of("k", "AAH/"));
    assertThat(json(SECRET, new ProtoBytes().messageField(1, meta()).bytes()))
        .isEqualTo("{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"}}");
  }

  @Test
  void packedRepeatedVarintsDecodeAsUnpacked() {
    ProtoSchema.Message req = message("k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement");
    int values = req.fields().stream().filter(f -> "values".equals(f.jsonName())).findFirst()
        .orElseThrow().number;
    byte[] unpacked = new ProtoBytes().varintField(values, 1).varintField(values, -2).bytes();
    byte[] packed = new ProtoBytes().bytesField(values,
        new ProtoBytes().varint(1).varint(-2).bytes()).bytes();

    assertThat(json(req, packed)).isEqualTo(json(req, unpacked)).contains("\"values\":[1,-2]");
  }

  @Test
  void truncatedVarintIsAnError() {
    byte[] data = new ProtoBytes().raw(0x0a, 0x80).bytes();

    assertThatThrownBy(() -> json(POD, data)).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("k8s.io.api.core.v1.Pod.metadata")
        .hasMessageContaining("truncated varint");
  }

  @Test
  void lengthPastTheEndIsAnError() {
    byte[] data = new ProtoBytes().messageField(1, meta()).raw(0x12, 0xff, 0xff, 0xff, 0x7f, 1)
        .bytes();

    assertThatThrownBy(() -> json(POD, data)).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("k8s.io.api.core.v1.Pod.spec")
        .hasMessageContaining("runs past the end");
  }

  @Test
  void wrongWireTypeIsAnError() {
    byte[] data = new ProtoBytes().messageField(1, new ProtoBytes().varintField(1, 5)).bytes();

    assertThatThrownBy(() -> json(POD, data)).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.name")
        .hasMessageContaining("wire type 0");
  }

  @Test
  void overlongVarintIsAnError() {
    byte[] data = new ProtoBytes().messageField(2, new ProtoBytes().tag(4, ProtoReader.VARINT)
        .raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)).bytes();

    assertThatThrownBy(() -> json(POD, data)).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("varint longer than ten bytes");
  }

  @Test
  void groupsAndFieldNumberZeroAreErrors() {
    assertThatThrownBy(() -> json(POD, new ProtoBytes().tag(7, 3).bytes()))
        .isInstanceOf(MalformedProtobufException.class).hasMessageContaining("wire type 3");
    assertThatThrownBy(() -> json(POD, new ProtoBytes().raw(0x02, 0x00).bytes()))
        .isInstanceOf(MalformedProtobufException.class).hasMessageContaining("field number 0");
  }

  @Test
  void nestingDeeperThanTheLimitIsAnError() {
    ProtoBytes owner = new ProtoBytes().stringField(1, "v1");
    byte[] data = new ProtoBytes().messageField(1, meta().messageField(13, owner)).bytes();
    ProtoJson shallow = new ProtoJson(MAPPER, 1);

    assertThat(json(new ProtoJson(MAPPER, 2), POD, data)).contains("ownerReferences");
    assertThatThrownBy(() -> json(shallow, POD, data))
        .isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("OwnerReference: messages nested deeper than 1");
  }

  @Test
  void badSpecialValuesAreErrors() {
    ProtoSchema.Message port = message("k8s.io.api.core.v1.ServicePort");
    // ServicePort.targetPort (4) is an IntOrString: type 2 does not exist.
    byte[] badIntOrString = new ProtoBytes()
        .messageField(4, new ProtoBytes().varintField(1, 2)).bytes();
    assertThatThrownBy(() -> json(port, badIntOrString))
        .isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("IntOrString: type 2");

    ProtoBytes farFuture = new ProtoBytes().varintField(1, 400_000_000_000L);
    byte[] badTime = new ProtoBytes().messageField(1, meta().messageField(8, farFuture)).bytes();
    assertThatThrownBy(() -> json(POD, badTime)).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("meta.v1.Time: time in year");
  }

  @Test
  void embeddedJsonMustBeOneJsonValue() {
    ProtoSchema.Message revision = message("k8s.io.api.apps.v1.ControllerRevision");
    // ControllerRevision: data 2 (a RawExtension, raw 1).
    byte[] good = new ProtoBytes().messageField(2, new ProtoBytes().stringField(1, "{\"a\":[1]}"))
        .bytes();
    assertThat(json(revision, good)).contains("\"data\":{\"a\":[1]}");

    for (String bad : new String[] {"{\"a\":", "{} {}", "k8s\0xyz"}) {
      byte[] data = new ProtoBytes().messageField(2, new ProtoBytes().stringField(1, bad)).bytes();
      assertThatThrownBy(() -> json(revision, data)).as(bad)
          .isInstanceOf(MalformedProtobufException.class)
          .hasMessageContaining("k8s.io.apimachinery.pkg.runtime.RawExtension: holds");
    }
  }
}

package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Status;
import io.kinformer.proto.internal.Fixtures.Fixture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.TokenBuffer;

class ProtoEnvelopeTest {
  private static final JsonMapper MAPPER = TestMappers.mapper();
  private static final ProtoSchema SCHEMA = ProtoSchema.builtIn();
  private static final ProtoJson DECODER = new ProtoJson(MAPPER);
  private static final List<Fixture> PODS = Fixtures.all().stream()
      .filter(f -> f.group().isEmpty() && f.kind().equals("Pod")).toList();

  private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
    ProtoBytes unknown = new ProtoBytes()
        .messageField(1, new ProtoBytes().stringField(1, apiVersion).stringField(2, kind))
        .bytesField(2, raw);
    return concat("k8s\0".getBytes(StandardCharsets.US_ASCII), unknown.bytes());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }

  private static <T> T bind(ProtoEnvelope e, Class<T> type) {
    TokenBuffer tokens = TokenBuffer.forGeneration();
    DECODER.writeObject(e.message(SCHEMA), e.apiVersion(), e.kind(), e.data(), e.offset(),
        e.length(), tokens);
    return MAPPER.readValue(tokens, type);
  }

  private static Pod fromJson(Fixture f) {
    Pod pod = MAPPER.readValue(f.json(), Pod.class);
    pod.setApiVersion("v1");
    pod.setKind("Pod");
    return pod;
  }

  @Test
  void anObjectInItsEnvelopeDecodesWithItsTypeMeta() {
    Fixture f = PODS.get(0);
    byte[] data = envelope("v1", "Pod", f.protobuf());

    ProtoEnvelope e = ProtoEnvelope.read(data, 0, data.length);

    assertThat(e.apiVersion()).isEqualTo("v1");
    assertThat(e.kind()).isEqualTo("Pod");
    assertThat(e.message(SCHEMA).name()).isEqualTo("k8s.io.api.core.v1.Pod");
    assertThat(bind(e, Pod.class)).isEqualTo(fromJson(f));
  }

  @Test
  void aListDecodesWithItsItems() {
    ProtoBytes list = new ProtoBytes().messageField(1, new ProtoBytes().stringField(2, "42"));
    for (Fixture f : PODS) {
      list.bytesField(2, f.protobuf());
    }
    byte[] data = envelope("v1", "PodList", list.bytes());

    PodList decoded = bind(ProtoEnvelope.read(data, 0, data.length), PodList.class);

    assertThat(decoded.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(decoded.getItems()).hasSize(PODS.size());
    for (int i = 0; i < PODS.size(); i++) {
      Pod expected = MAPPER.readValue(PODS.get(i).json(), Pod.class);
      assertThat(decoded.getItems().get(i)).isEqualTo(expected);
    }
  }

  private static byte[] event(String type, byte[] object) {
    return new ProtoBytes().stringField(1, type)
        .messageField(2, new ProtoBytes().bytesField(1, object)).bytes();
  }

  private static byte[] frames(byte[]... frames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] f : frames) {
      out.write(f.length >>> 24);
      out.write(f.length >>> 16);
      out.write(f.length >>> 8);
      out.write(f.length);
      out.writeBytes(f);
    }
    return out.toByteArray();
  }

  @Test
  void watchFramesDecodeToEventsWithTheirObjects() throws IOException {
    Fixture f = PODS.get(0);
    byte[] bookmarkPod = new ProtoBytes()
        .messageField(1, new ProtoBytes().stringField(6, "1234")).bytes();
    byte[] status = new ProtoBytes().stringField(2, "Failure").stringField(3, "too old")
        .stringField(4, "Expired").varintField(6, 410).bytes();
    byte[] stream = frames(
        event("ADDED", envelope("v1", "Pod", f.protobuf())),
        event("BOOKMARK", envelope("v1", "Pod", bookmarkPod)),
        event("ERROR", envelope("v1", "Status", status)));
    ProtoFrames frames = new ProtoFrames(new ByteArrayInputStream(stream), 1 << 20);

    byte[] frame = frames.next();
    ProtoEnvelope.Event added = ProtoEnvelope.readEvent(frame, 0, frame.length);
    assertThat(added.type()).isEqualTo("ADDED");
    assertThat(bind(added.object(), Pod.class)).isEqualTo(fromJson(f));

    frame = frames.next();
    ProtoEnvelope.Event bookmark = ProtoEnvelope.readEvent(frame, 0, frame.length);
    assertThat(bookmark.type()).isEqualTo("BOOKMARK");
    assertThat(bind(bookmark.object(), Pod.class).getMetadata().getResourceVersion())
        .isEqualTo("1234");

    frame = frames.next();
    ProtoEnvelope.Event error = ProtoEnvelope.readEvent(frame, 0, frame.length);
    assertThat(error.type()).isEqualTo("ERROR");
    Status s = bind(error.object(), Status.class);
    assertThat(s.getCode()).isEqualTo(410);
    assertThat(s.getReason()).isEqualTo("Expired");
    assertThat(s.getMessage()).isEqualTo("too old");

    assertThat(frames.next()).isNull();
  }

  @Test
  void badEnvelopesAreErrors() {
    byte[] noMagic = new ProtoBytes().stringField(1, "v1").bytes();
    assertThatThrownBy(() -> ProtoEnvelope.read(noMagic, 0, noMagic.length))
        .isInstanceOf(MalformedProtobufException.class).hasMessageContaining("k8s\\0");

    byte[] gzipped = concat("k8s\0".getBytes(StandardCharsets.US_ASCII),
        new ProtoBytes().bytesField(2, new byte[] {1}).stringField(3, "gzip").bytes());
    assertThatThrownBy(() -> ProtoEnvelope.read(gzipped, 0, gzipped.length))
        .isInstanceOf(MalformedProtobufException.class).hasMessageContaining("contentEncoding gzip");

    byte[] cut = envelope("v1", "Pod", PODS.get(0).protobuf());
    assertThatThrownBy(() -> ProtoEnvelope.read(cut, 0, cut.length - 1))
        .isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("runtime.Unknown: length");

    byte[] unknownKind = envelope("example.com/v1", "Widget", new byte[0]);
    ProtoEnvelope widget = ProtoEnvelope.read(unknownKind, 0, unknownKind.length);
    assertThatThrownBy(() -> widget.message(SCHEMA))
        .isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("no protobuf schema for example.com/v1 Widget");
  }

  @Test
  void badEventsAreErrors() {
    byte[] noType = new ProtoBytes().messageField(2, new ProtoBytes()
        .bytesField(1, envelope("v1", "Pod", new byte[0]))).bytes();
    assertThatThrownBy(() -> ProtoEnvelope.readEvent(noType, 0, noType.length))
        .isInstanceOf(MalformedProtobufException.class).hasMessageContaining("WatchEvent: no type");

    byte[] noObject = new ProtoBytes().stringField(1, "ADDED").bytes();
    assertThatThrownBy(() -> ProtoEnvelope.readEvent(noObject, 0, noObject.length))
        .isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("WatchEvent ADDED: no object");
  }

  @Test
  void truncatedAndOversizedFramesAreErrors() throws IOException {
    byte[] one = frames(event("ADDED", envelope("v1", "Pod", new byte[0])));

    for (int cut : new int[] {2, one.length - 1}) {
      ProtoFrames frames = new ProtoFrames(new ByteArrayInputStream(one, 0, cut), 1 << 20);
      assertThatThrownBy(frames::next).as("cut at %d", cut).isInstanceOf(EOFException.class)
          .hasMessageContaining("watch stream ended inside a frame");
    }

    byte[] huge = {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    ProtoFrames frames = new ProtoFrames(new ByteArrayInputStream(huge), 1 << 20);
    assertThatThrownBy(frames::next).isInstanceOf(MalformedProtobufException.class)
        .hasMessageContaining("over the limit of 1048576");
  }
}

package io.kinformer.testing;

import io.kinformer.cache.WatchEventType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One thing a watch stream has to do next: write an event, a bookmark or raw bytes, or end.
 *
 * <p>Thread safety: immutable, except for the benign lazily cached line of an event.
 */
final class WatchItem {

  enum Kind {
    /** An ADDED/MODIFIED/DELETED event. */
    EVENT,
    /** A periodic or pre-deadline BOOKMARK at {@link #rv}, sent only if the RV moved. */
    BOOKMARK,
    /** The {@code k8s.io/initial-events-end} BOOKMARK at {@link #rv}. */
    INITIAL_EVENTS_END,
    /** Bytes written as they are (a fault). */
    RAW,
    /** End the stream cleanly (terminating chunk / END_STREAM). */
    END,
    /** Abort the connection (no terminating chunk / RST_STREAM). */
    RESET
  }

  final Kind kind;
  final @Nullable WatchEventType type;
  final @Nullable StoredObject object;
  final long rv;
  final byte @Nullable [] raw;
  private volatile byte @Nullable [] line;

  private WatchItem(
      Kind kind,
      @Nullable WatchEventType type,
      @Nullable StoredObject object,
      long rv,
      byte @Nullable [] raw) {
    this.kind = kind;
    this.type = type;
    this.object = object;
    this.rv = rv;
    this.raw = raw;
  }

  static final WatchItem END = new WatchItem(Kind.END, null, null, 0, null);
  static final WatchItem RESET = new WatchItem(Kind.RESET, null, null, 0, null);

  static WatchItem event(WatchEventType type, StoredObject object) {
    return new WatchItem(Kind.EVENT, type, object, object.rv, null);
  }

  static WatchItem bookmark(long rv) {
    return new WatchItem(Kind.BOOKMARK, null, null, rv, null);
  }

  static WatchItem initialEventsEnd(long rv) {
    return new WatchItem(Kind.INITIAL_EVENTS_END, null, null, rv, null);
  }

  static WatchItem raw(byte[] bytes) {
    return new WatchItem(Kind.RAW, null, null, 0, bytes.clone());
  }

  /** The event's line, {@code {"type":"T","object":{...}}\n}; cached, since fan-out shares it. */
  byte[] line(@Nullable String metaApiVersion) {
    StoredObject o = object;
    WatchEventType t = type;
    if (o == null || t == null) {
      throw new IllegalStateException("not an event: " + kind);
    }
    if (metaApiVersion != null) {
      return frame(t, o.partialMetadata(metaApiVersion));
    }
    byte[] l = line;
    if (l == null) {
      l = frame(t, o.json);
      line = l;
    }
    return l;
  }

  static byte[] frame(WatchEventType type, byte[] objectJson) {
    byte[] head =
        ("{\"type\":\"" + type.name() + "\",\"object\":").getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream(head.length + objectJson.length + 2);
    out.writeBytes(head);
    out.writeBytes(objectJson);
    out.write('}');
    out.write('\n');
    return out.toByteArray();
  }
}

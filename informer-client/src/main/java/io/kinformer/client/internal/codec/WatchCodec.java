package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.ResourceType;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Decodes a watch stream, one event per call, with a single streaming parser over the whole
 * response body.
 *
 * <p>Framing: the server writes one JSON object per event followed by a newline; chunk boundaries
 * are not event boundaries (transcript 06 §6.3). A streaming parser reads root-level values
 * separated by whitespace, so it frames events by itself wherever the chunks fall, without a
 * String per line.
 *
 * <p>The event's {@code object} is bound straight to the model class when {@code type} came first
 * (what the API server sends). When {@code object} comes first its tokens are buffered in a {@link
 * TokenBuffer} until {@code type} says whether it is a model object or an ERROR's {@code Status}.
 * An event is returned only once its closing brace has been read: a stream that breaks off
 * mid-event, malformed JSON or an unknown type fails with an {@link InformerException} and never
 * yields a half-decoded object.
 *
 * <p>Size: one event may take at most {@link #MAX_EVENT_BYTES} bytes of the stream (counted from
 * the end of the previous one), enforced while reading by {@link CodecTailStream}: an event that
 * goes past it fails with an {@link InformerException} naming the limit and the resource, after
 * reading at most that many bytes, rather than being read whole. Single strings are also capped
 * by the mapper ({@link Codecs#MAX_STRING_CHARS}).
 *
 * <p>Thread safety: confine to the reading thread, except {@link #bytesRead()}, which any thread may
 * call.
 *
 * @param <T> the object type
 */
public final class WatchCodec<T extends HasMetadata> {

  /**
   * The most bytes one watch event may take: 64 MiB. etcd refuses objects above about 1.5 MiB
   * (its default request limit), so a real event (an object plus its envelope) is far below that;
   * 64 MiB leaves ample room for servers configured with larger limits and for aggregated API
   * servers that do not store in etcd, while bounding what one event from a broken or hostile
   * server can make us read and allocate. A single event made of millions of small values is
   * otherwise read whole, as client-go does.
   */
  public static final long MAX_EVENT_BYTES = 64L * 1024 * 1024;

  /**
   * Created on the first {@link #next()}: creating a parser reads the first bytes (to detect the
   * encoding), which on a watch can take until the first event arrives.
   */
  private @Nullable JsonParser parser;
  private final CodecTailStream in;
  private final ObjectReader objectReader;
  private final ObjectBinder<T> binder;
  private final UndecodableObjects undecodable;
  private final ObjectReader statusReader;
  private final ResourceType<T> type;
  private final String what;
  private final long maxEventBytes;

  /**
   * @param body the response body, read as events are asked for; closed by {@link #close()}
   * @param reader any reader of the mapper to use
   * @param type the resource
   * @param what what is watched, for messages (method and URL without query)
   */
  public WatchCodec(InputStream body, ObjectReader reader, ResourceType<T> type, String what) {
    this(body, reader, type, what, UndecodableObjects.logOnly(), MAX_EVENT_BYTES);
  }

  /** As above, reporting objects that do not bind to {@code undecodable}. */
  public WatchCodec(InputStream body, ObjectReader reader, ResourceType<T> type, String what,
      UndecodableObjects undecodable) {
    this(body, reader, type, what, undecodable, MAX_EVENT_BYTES);
  }

  /** As above, with another limit on the bytes of one event (tests). */
  public WatchCodec(
      InputStream body, ObjectReader reader, ResourceType<T> type, String what,
      long maxEventBytes) {
    this(body, reader, type, what, UndecodableObjects.logOnly(), maxEventBytes);
  }

  /** As above, with both. */
  public WatchCodec(
      InputStream body, ObjectReader reader, ResourceType<T> type, String what,
      UndecodableObjects undecodable, long maxEventBytes) {
    if (maxEventBytes <= 0) {
      throw new IllegalArgumentException("maxEventBytes must be positive: " + maxEventBytes);
    }
    this.maxEventBytes = maxEventBytes;
    this.in = new CodecTailStream(body);
    this.binder = new ObjectBinder<>(reader, type, undecodable);
    this.objectReader = binder.reader();
    this.undecodable = undecodable;
    this.statusReader = reader.forType(Status.class)
        .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.type = type;
    this.what = what;
  }

  /**
   * Reads the next event.
   *
   * @return the event, or null at the clean end of the stream
   * @throws InformerException for malformed JSON, an unknown event type, an event without type or
   *     object, a stream that ends inside an event, or an event over the byte limit
   * @throws JacksonIOException if reading the body failed (the caller decides whether that was its
   *     own close or a broken connection)
   */
  @Nullable
  public WatchEvent<T> next() {
    try {
      while (true) {
        // The event's budget starts where the previous one ended (blanks between events count).
        in.limitFrom(parser == null ? 0 : parser.currentLocation().getByteOffset(), maxEventBytes);
        if (parser == null) {
          parser = objectReader.createParser(in);
        }
        JsonToken first = parser.nextToken();
        if (first == null) {
          return null;
        }
        if (first != JsonToken.START_OBJECT) {
          throw malformed("an event is not a JSON object but starts with " + first, null);
        }
        WatchEvent<T> event = readEvent();
        if (event != null) {
          return event;
        }
        // An object that did not bind (reported): go on with the next event.
      }
    } catch (JacksonException e) {
      // The refused read may reach us as an I/O failure or wrapped by databind.
      if (in.limitExceeded()) {
        throw tooLarge(e);
      }
      if (e instanceof JacksonIOException) {
        throw e;
      }
      throw malformed(Codecs.shorten(e.getOriginalMessage(), 120), e);
    }
  }

  private InformerException tooLarge(JacksonException cause) {
    InformerException e = new InformerException(
        "watch event of " + type.gvr() + " (" + what + ") exceeds the limit of "
            + CodecTailStream.describeBytes(maxEventBytes) + " per event; refused at byte "
            + in.position() + " of the stream");
    // Suppressed, not the cause: the refusal is an IOException inside Jackson's, and an
    // IOException among the causes would make the reflector take this for a broken connection
    // and re-watch, replaying the same event; bad data from the server makes it relist instead.
    e.addSuppressed(cause);
    return e;
  }

  /** The event the parser is in, or null if its object did not bind and it was skipped. */
  private @Nullable WatchEvent<T> readEvent() {
    JsonParser parser = this.parser;
    WatchEventType eventType = null;
    T object = null;
    ApiException error = null;
    TokenBuffer early = null;
    boolean sawObject = false;
    for (String name = parser.nextName(); name != null; name = parser.nextName()) {
      JsonToken value = parser.nextToken();
      if (name.equals("type")) {
        if (eventType != null) {
          throw malformed("an event has \"type\" twice", null);
        }
        if (value != JsonToken.VALUE_STRING) {
          throw malformed("the event's \"type\" is not a string but " + value, null);
        }
        eventType = parseType(parser.getString());
      } else if (name.equals("object")) {
        if (value != JsonToken.START_OBJECT) {
          throw malformed("the event's \"object\" is not a JSON object but " + value, null);
        }
        sawObject = true;
        if (eventType == null) {
          early = TokenBuffer.forBuffering(parser, parser.objectReadContext());
          early.copyCurrentStructure(parser);
        } else if (eventType == WatchEventType.ERROR) {
          error = readError(parser);
        } else {
          object = readObject(parser, eventType);
        }
      } else {
        parser.skipChildren();
      }
    }
    if (eventType == null) {
      throw malformed("an event has no \"type\"", null);
    }
    if (!sawObject) {
      throw malformed("a " + eventType + " event has no \"object\"", null);
    }
    if (early != null) {
      try (JsonParser buffered = early.asParser(parser.objectReadContext())) {
        buffered.nextToken();
        if (eventType == WatchEventType.ERROR) {
          error = readError(buffered);
        } else {
          object = readObject(buffered, eventType);
        }
      }
    }
    if (eventType == WatchEventType.ERROR) {
      return WatchEvent.error(error);
    }
    return object == null ? null : WatchEvent.of(eventType, object);
  }

  /**
   * The event's object, or null if it did not bind; a deleted object that did not bind is kept as
   * far as it was bound, so that the deletion reaches the cache ({@link ObjectBinder#bindDeleted}).
   */
  private @Nullable T readObject(JsonParser p, WatchEventType eventType) {
    return eventType == WatchEventType.DELETED
        ? binder.bindDeleted(p, what) : binder.bind(p, what, undecodable);
  }

  private ApiException readError(JsonParser p) {
    Status status = statusReader.readValue(p);
    // A watch ERROR without a code is a server-side failure (client-go treats it as 500).
    return StatusCodec.fromStatus(status, 500, null, /* fromWatchEvent= */ true);
  }

  private WatchEventType parseType(String value) {
    switch (value) {
      case "ADDED":
        return WatchEventType.ADDED;
      case "MODIFIED":
        return WatchEventType.MODIFIED;
      case "DELETED":
        return WatchEventType.DELETED;
      case "BOOKMARK":
        return WatchEventType.BOOKMARK;
      case "ERROR":
        return WatchEventType.ERROR;
      default:
        throw malformed("unknown event type \"" + Codecs.shorten(value, 40) + "\"", null);
    }
  }

  private InformerException malformed(String problem, @Nullable JacksonException cause) {
    long offset = -1;
    if (cause != null && cause.getLocation() != null) {
      offset = cause.getLocation().getByteOffset();
    }
    if (offset < 0 && parser != null) {
      offset = parser.currentLocation().getByteOffset();
    }
    String message = "malformed watch stream of " + type.gvr() + " (" + what + "): " + problem
        + "; near byte " + offset + ": " + in.excerptAround(offset);
    return cause == null ? new InformerException(message) : new InformerException(message, cause);
  }

  /** The bytes of the stream read so far; may be called from any thread. */
  public long bytesRead() {
    return in.position();
  }

  /** Closes the parser and the body. */
  public void close() {
    if (parser != null) {
      parser.close();
    } else {
      try {
        in.close();
      } catch (java.io.IOException e) {
        // Releasing a body we never read; nothing to report.
      }
    }
  }
}

package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.client.ResourceType;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a list response ({@code {"kind":"PodList","metadata":{...},"items":[...]}}) straight from
 * the body with Jackson's streaming parser: each item is bound to the model class as the parser
 * reaches it, with no intermediate tree and no copy of the whole body. Fills in the items' {@code
 * kind} and {@code apiVersion}, which the server leaves out of typed lists. An item that does not
 * bind to its model class is skipped and reported ({@link ObjectBinder}); the others are returned.
 *
 * <p>Size: one item may take at most {@link #MAX_ITEM_BYTES} bytes of the body, and so may the
 * list's own fields before and after the items, enforced while reading by {@link
 * CodecTailStream}: an item that goes past it fails the list with an {@link InformerException}
 * naming the limit and the resource. The page as a whole is bounded by the server's page size.
 *
 * <p>Thread safety: immutable; each call uses its own parser.
 *
 * @param <T> the item type
 */
public final class ListCodec<T extends HasMetadata> {

  /** The most bytes one list item may take: the same as a watch event, for the same reasons. */
  static final long MAX_ITEM_BYTES = WatchCodec.MAX_EVENT_BYTES;

  private final ObjectReader itemReader;
  private final ObjectBinder<T> binder;
  private final UndecodableObjects undecodable;
  private final ResourceType<T> type;
  private final long maxItemBytes;

  public ListCodec(ObjectReader reader, ResourceType<T> type) {
    this(reader, type, UndecodableObjects.logOnly());
  }

  /** As above, reporting items that do not bind to {@code undecodable}. */
  public ListCodec(ObjectReader reader, ResourceType<T> type, UndecodableObjects undecodable) {
    this(reader, type, undecodable, MAX_ITEM_BYTES);
  }

  /** As above, with another limit on the bytes of one item (tests). */
  public ListCodec(ObjectReader reader, ResourceType<T> type, long maxItemBytes) {
    this(reader, type, UndecodableObjects.logOnly(), maxItemBytes);
  }

  /** As above, with both. */
  public ListCodec(ObjectReader reader, ResourceType<T> type, UndecodableObjects undecodable,
      long maxItemBytes) {
    if (maxItemBytes <= 0) {
      throw new IllegalArgumentException("maxItemBytes must be positive: " + maxItemBytes);
    }
    this.maxItemBytes = maxItemBytes;
    this.binder = new ObjectBinder<>(reader, type, undecodable);
    this.itemReader = binder.reader();
    this.undecodable = undecodable;
    this.type = type;
  }

  /**
   * Decodes one list page.
   *
   * @param body the response body; read to the end of the list object, not closed
   * @param what what was listed, for messages (for example {@code GET https://h/api/v1/pods})
   * @throws InformerException if the body is not a list, breaks off or has an item over the byte
   *     limit; an I/O failure is an {@link InformerException} whose cause is the {@code
   *     IOException}
   */
  public ListResult<T> decode(InputStream body, String what) {
    CodecTailStream in = CodecTailStream.over(body);
    in.limitFrom(0, maxItemBytes);
    try (JsonParser p = itemReader.createParser(in)) {
      return decode(p, what, in);
    } catch (JacksonException e) {
      // The refused read may reach us as an I/O failure or wrapped by databind.
      if (in.limitExceeded()) {
        throw new InformerException(
            "list item of " + type.gvr() + " (" + what + ") exceeds the limit of "
                + CodecTailStream.describeBytes(maxItemBytes) + " per item; refused at byte "
                + in.position() + " of the response", e);
      }
      if (e instanceof JacksonIOException) {
        throw new InformerException(
            "I/O error reading the list response of " + what + ": " + e.getCause(), e.getCause());
      }
      throw malformed(what, Codecs.shorten(e.getOriginalMessage(), 120), in, e);
    }
  }

  private ListResult<T> decode(JsonParser p, String what, CodecTailStream in) {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw malformed(what, "the body is not a JSON object", in, null);
    }
    String resourceVersion = null;
    String continueToken = null;
    Long remaining = null;
    String shard = null;
    List<T> items = new ArrayList<>();
    UndecodableObjects.Response skipped = undecodable.startResponse();
    for (String name = p.nextName(); name != null; name = p.nextName()) {
      JsonToken value = p.nextToken();
      switch (name) {
        case "metadata" -> {
          if (value != JsonToken.START_OBJECT) {
            throw malformed(what, "\"metadata\" is not an object", in, null);
          }
          ListMeta meta = readListMeta(p);
          resourceVersion = meta.resourceVersion();
          continueToken = meta.continueToken();
          remaining = meta.remainingItemCount();
          shard = meta.shardSelector();
        }
        case "items" -> readItems(p, value, items, what, in, skipped);
        default -> p.skipChildren();
      }
    }
    skipped.end(type, what);
    return new ListResult<>(
        items, resourceVersion == null ? "" : resourceVersion, continueToken, remaining, shard);
  }

  private void readItems(
      JsonParser p, JsonToken value, List<T> items, String what, CodecTailStream in,
      ObjectBinder.Reporter skipped) {
    if (value == JsonToken.VALUE_NULL) {
      return;
    }
    if (value != JsonToken.START_ARRAY) {
      throw malformed(what, "\"items\" is not an array", in, null);
    }
    while (true) {
      // Each item's budget starts where the previous one ended; after the last one, the rest of
      // the list object gets a budget of its own.
      in.limitFrom(p.currentLocation().getByteOffset(), maxItemBytes);
      JsonToken t = p.nextToken();
      if (t == JsonToken.END_ARRAY) {
        return;
      }
      if (t != JsonToken.START_OBJECT) {
        throw malformed(what, "an item is not an object but " + t, in, null);
      }
      T item = binder.bind(p, what, skipped);
      if (item != null) {
        items.add(item);
      }
    }
  }

  /** The fields of a list's {@code metadata} that a list result carries. */
  record ListMeta(
      @Nullable String resourceVersion,
      @Nullable String continueToken,
      @Nullable Long remainingItemCount,
      @Nullable String shardSelector) {}

  /**
   * Reads a list's {@code metadata} object, the parser being on its opening brace, up to and
   * including its closing brace; other fields are skipped.
   */
  static ListMeta readListMeta(JsonParser p) {
    String resourceVersion = null;
    String continueToken = null;
    Long remaining = null;
    String shard = null;
    for (String m = p.nextName(); m != null; m = p.nextName()) {
      JsonToken v = p.nextToken();
      switch (m) {
        case "resourceVersion" -> resourceVersion = stringOrNull(p, v);
        case "continue" -> continueToken = stringOrNull(p, v);
        case "remainingItemCount" -> remaining = v == JsonToken.VALUE_NUMBER_INT
            && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? p.getLongValue() : null;
        case "shardInfo" -> shard = v == JsonToken.START_OBJECT ? readShardInfo(p) : null;
        default -> { }
      }
      // A value of an unexpected shape (an object where a string belongs) is skipped whole, so
      // that the parser leaves the metadata object where it really ends.
      p.skipChildren();
    }
    return new ListMeta(resourceVersion, continueToken, remaining, shard);
  }

  /** {@code shardInfo.selector}, the parser being on the object's opening brace. */
  private static @Nullable String readShardInfo(JsonParser p) {
    String selector = null;
    for (String m = p.nextName(); m != null; m = p.nextName()) {
      JsonToken v = p.nextToken();
      if (m.equals("selector")) {
        selector = stringOrNull(p, v);
      }
      p.skipChildren();
    }
    return selector;
  }

  private static @Nullable String stringOrNull(JsonParser p, JsonToken v) {
    return v == JsonToken.VALUE_STRING ? p.getString() : null;
  }

  private InformerException malformed(
      String what, String problem, CodecTailStream in, @Nullable JacksonException cause) {
    long offset = cause != null && cause.getLocation() != null
        ? cause.getLocation().getByteOffset() : -1;
    String message = "malformed list response of " + type.gvr() + " (" + what + "): " + problem
        + "; near byte " + (offset >= 0 ? offset : in.position()) + ": "
        + in.excerptAround(offset);
    return cause == null ? new InformerException(message) : new InformerException(message, cause);
  }
}

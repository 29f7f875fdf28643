package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kinformer.client.ResourceType;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;

/**
 * Binds one object of a list or watch stream to its model class, and gets past one that does not
 * bind: a custom resource whose field has a type its Java class does not accept, an enum value the
 * class does not know. Such an object is skipped (the parser is left at its closing brace, so the
 * stream goes on with the next object) and reported to {@link UndecodableObjects} with its key and
 * the field that failed.
 *
 * <p>Only binding failures are got past. Malformed JSON, a stream that breaks off and an object
 * over the size limit still fail the whole response, since nothing after them can be trusted.
 *
 * <p>The key comes from the partly bound object, which Jackson's failure carries: the API server
 * writes {@code metadata} before {@code spec} and {@code status} (struct order for built-in types,
 * sorted keys for custom resources), so the metadata is bound before a field of the body fails.
 * If it was not, it is read while the rest of the object is skipped.
 *
 * <p>Thread safety: immutable; the parser passed in is the caller's.
 *
 * @param <T> the model class
 */
final class ObjectBinder<T extends HasMetadata> {

  /** Told about each object that did not bind. */
  interface Reporter {
    void skipped(
        ResourceType<?> type, @Nullable String key, String field, String reason, String what);
  }

  private final ObjectReader reader;
  private final ObjectReader metaReader;
  private final ResourceType<T> type;
  private final UndecodableObjects undecodable;

  /**
   * @param reader the mapper's reader; objects are read one by one from a parser that goes on, so
   *     the trailing-token check is turned off
   */
  ObjectBinder(ObjectReader reader, ResourceType<T> type, UndecodableObjects undecodable) {
    this.reader = reader.forType(type.javaType())
        .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.metaReader = reader.forType(ObjectMeta.class)
        .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.type = type;
    this.undecodable = undecodable;
  }

  /** The reader of whole objects, for parsers this binder does not read from. */
  ObjectReader reader() {
    return reader;
  }

  /**
   * Binds the object the parser's current {@code START_OBJECT} opens, with its {@code kind} and
   * {@code apiVersion} filled in.
   *
   * @param what the request the object came from, for the report
   * @param reporter told if the object is skipped
   * @return the object, or null if it did not bind (it was reported, and the parser is on its
   *     closing brace)
   * @throws JacksonException if the JSON itself is broken
   */
  @Nullable
  T bind(JsonParser p, String what, Reporter reporter) {
    Failure<T> failure = tryBind(p);
    if (failure.object != null) {
      return failure.object;
    }
    reporter.skipped(type, failure.key, failure.field, failure.reason, what);
    return null;
  }

  /**
   * As {@link #bind}, for the object of a {@code DELETED} event: one that does not bind but whose
   * key is known is returned as far as it was bound (its metadata is whole), so that the deletion
   * is not lost. The store removes objects by key, so a partly bound object never enters the
   * cache; handlers get it in {@code onDelete}, which is documented.
   */
  @Nullable
  T bindDeleted(JsonParser p, String what) {
    Failure<T> failure = tryBind(p);
    if (failure.object != null) {
      return failure.object;
    }
    T partial = failure.partial;
    if (partial != null && failure.key != null) {
      undecodable.deletedPartly(type, failure.key, failure.field, failure.reason, what);
      return partial;
    }
    undecodable.skipped(type, failure.key, failure.field, failure.reason, what);
    return null;
  }

  /** The bound object, or what is known of why it did not bind. */
  private record Failure<T>(
      @Nullable T object,
      @Nullable T partial,
      @Nullable String key,
      String field,
      String reason) {
    static <T> Failure<T> bound(T object) {
      return new Failure<>(object, null, null, "", "");
    }
  }

  private Failure<T> tryBind(JsonParser p) {
    // The object's own nesting depth: it is left once the context is shallower.
    int depth = p.streamReadContext().getNestingDepth();
    T object;
    try {
      object = reader.readValue(p);
    } catch (DatabindException e) {
      return recover(p, depth, e);
    }
    type.fillTypeMeta(object);
    return Failure.bound(object);
  }

  private Failure<T> recover(JsonParser p, int depth, DatabindException e) {
    T partial = partialObject(e);
    ObjectMeta meta = partial == null ? null : partial.getMetadata();
    while (p.streamReadContext().getNestingDepth() >= depth) {
      JsonToken t = p.nextToken();
      if (t == null) {
        // Only a root-level value ends without its closing brace being read; nothing to skip.
        break;
      }
      if (meta == null
          && t == JsonToken.PROPERTY_NAME
          && p.streamReadContext().getNestingDepth() == depth
          && "metadata".equals(p.currentName())
          && p.nextToken() == JsonToken.START_OBJECT) {
        meta = readMeta(p);
      }
    }
    if (partial != null) {
      type.fillTypeMeta(partial);
    }
    String key = meta == null || meta.getName() == null ? null
        : meta.getNamespace() == null || meta.getNamespace().isEmpty() ? meta.getName()
        : meta.getNamespace() + "/" + meta.getName();
    String reason = Codecs.shorten(String.valueOf(e.getOriginalMessage()), 200);
    return new Failure<>(null, meta == null ? null : partial, key, fieldPath(e.getPath()), reason);
  }

  private @Nullable ObjectMeta readMeta(JsonParser p) {
    try {
      return metaReader.readValue(p);
    } catch (DatabindException unreadable) {
      return null; // the caller's loop skips the rest of it
    }
  }

  private @Nullable T partialObject(DatabindException e) {
    List<JacksonException.Reference> path = e.getPath();
    if (path.isEmpty()) {
      return null;
    }
    Object from = path.get(0).from();
    return type.javaType().isInstance(from) ? type.javaType().cast(from) : null;
  }

  /** The failed field as {@code spec.containers[0].ports[0].containerPort}. */
  static String fieldPath(List<JacksonException.Reference> path) {
    StringBuilder sb = new StringBuilder();
    for (JacksonException.Reference r : path) {
      if (r.getPropertyName() != null) {
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(r.getPropertyName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.isEmpty() ? "(the object itself)" : sb.toString();
  }
}

package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.std.StdDeserializer;
import tools.jackson.databind.type.LogicalType;

/**
 * Decodes a {@link FieldsV1} (the field set of a {@code metadata.managedFields[]} entry) without
 * Jackson's any-setter.
 *
 * <p>Why: {@code FieldsV1} declares no properties, only {@code @JsonAnySetter
 * setAdditionalProperty}, so Jackson's bean deserializer sends each of its top-level keys ({@code
 * "f:metadata"}, {@code "f:spec"}, {@code "f:status"}, ...) through {@code handleUnknownVanilla}
 * and {@code SettableAnyProperty}, which in Jackson 3 calls the setter with {@code
 * MethodHandle.invokeWithArguments}, adapting the handle on every call: 7-10% of the decoding time
 * of a realistic pod list (JFR). No other class of a realistic pod goes that way (its other
 * fields are all declared properties). Here each top-level value is read with the mapper's
 * untyped deserializer, exactly the one the any-setter would use, and stored with a direct call to
 * {@link FieldsV1#setAdditionalProperty}: the result is the same object, with the same {@code
 * LinkedHashMap} (the one {@code FieldsV1}'s constructor makes) and the same nested values, so it
 * is {@code equals()} to plain Jackson's and serializes to the same JSON.
 *
 * <p>Registered as a module deserializer, it still goes through the mapper's deserializer
 * modifiers: in the cache mapper {@link CacheCompactor} wraps it and compacts the decoded {@code
 * FieldsV1} as it did Jackson's own.
 *
 * <p>Two differences from Jackson's bean deserializer, neither reachable from a real API server:
 * a top-level key literally named {@code "additionalProperties"} is kept (Jackson drops it: the
 * property is {@code @JsonIgnore}d; real field-set keys start with {@code f:}, {@code k:}, {@code
 * v:}, {@code i:} or {@code .}), and reading into an existing {@code FieldsV1} ({@code
 * readerForUpdating}) returns a new object instead of merging (nothing in kinformer does that).
 *
 * <p>In the informers' cache mapper (with a pool) nested JSON objects are built straight into
 * the form {@link CacheCompactor} would turn Jackson's {@code LinkedHashMap}s into: a {@link
 * SmallMap} for up to {@value SmallMap#MAX_SIZE} entries ({@code {}}, every leaf of a field set,
 * included; {@link CacheFreezer} later swaps those for the shared empty map), a {@code LinkedHashMap} beyond that, so no map is built twice.
 * Duplicate keys keep the first key's position and the last value, as a {@code LinkedHashMap}
 * does. Everything that is not a JSON object (strings, numbers, arrays, ...) is still read by the
 * untyped deserializer and compacted as before, so the result equals the plain mapper's.
 *
 * <p>Anything but a JSON object (a JSON {@code null} never gets here: it decodes to {@code null})
 * fails with a {@link tools.jackson.databind.exc.MismatchedInputException}, as with Jackson's bean
 * deserializer, though with Jackson's generic "cannot deserialize from ..." message.
 *
 * <p>Thread safety: immutable.
 */
final class FieldsV1Deserializer extends StdDeserializer<FieldsV1> {

  /** The mapper's untyped ({@code Object}) deserializer; null until contextualized. */
  private final @Nullable ValueDeserializer<Object> untyped;

  /**
   * The cache mapper's pool, whose parsers' name table is bounded ({@link CacheJsonFactory}): keys
   * are pooled and nested objects built compact. Null for the plain mapper, which does neither.
   */
  private final @Nullable StringPool pool;

  /**
   * With {@code compactWith} (the cache mapper's pool), keys go through that pool and nested
   * objects are built as {@link CacheCompactor} leaves them; with null (the plain mapper), as
   * Jackson's untyped deserializer builds them.
   */
  FieldsV1Deserializer(@Nullable StringPool compactWith) {
    this(null, compactWith);
  }

  private FieldsV1Deserializer(
      @Nullable ValueDeserializer<Object> untyped, @Nullable StringPool compactWith) {
    super(FieldsV1.class);
    this.untyped = untyped;
    this.pool = compactWith;
  }

  @Override
  public ValueDeserializer<?> createContextual(
      DeserializationContext ctxt, @Nullable BeanProperty property) {
    return new FieldsV1Deserializer(untyped(ctxt, property), pool);
  }

  private String key(String name) {
    return pool == null ? name : pool.get(name);
  }

  private static ValueDeserializer<Object> untyped(
      DeserializationContext ctxt, @Nullable BeanProperty property) {
    return ctxt.findContextualValueDeserializer(ctxt.constructType(Object.class), property);
  }

  @Override
  public FieldsV1 deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
    String name;
    if (p.isExpectedStartObjectToken()) {
      name = p.nextName();
    } else if (p.hasToken(JsonToken.PROPERTY_NAME)) {
      // Called in the middle of an object (buffered input): the first name is the current one.
      name = p.currentName();
    } else if (p.hasToken(JsonToken.END_OBJECT)) {
      name = null;
    } else {
      return (FieldsV1) ctxt.handleUnexpectedToken(FieldsV1.class, p);
    }
    ValueDeserializer<Object> values = untyped != null ? untyped : untyped(ctxt, null);
    FieldsV1 fields = new FieldsV1();
    for (; name != null; name = p.nextName()) {
      Object value;
      try {
        JsonToken t = p.nextToken();
        // As Jackson's any-setter does: a JSON null is the value deserializer's null value.
        value = value(p, ctxt, t, values);
      } catch (JacksonException e) {
        // As Jackson's bean deserializer does: the error's path names the key being read.
        throw e.prependPath(fields, name);
      }
      fields.setAdditionalProperty(key(name), value);
    }
    return fields;
  }

  private @Nullable Object value(
      JsonParser p, DeserializationContext ctxt, JsonToken t, ValueDeserializer<Object> values) {
    if (t == JsonToken.VALUE_NULL) {
      // As Jackson's any-setter and untyped deserializer do: the value deserializer's null value.
      return values.getNullValue(ctxt);
    }
    StringPool compactWith = pool;
    if (compactWith == null) {
      return values.deserialize(p, ctxt);
    }
    if (t == JsonToken.START_OBJECT) {
      return compactObject(p, ctxt, values);
    }
    return CacheCompactor.compactUntyped(values.deserialize(p, ctxt), compactWith);
  }

  /**
   * Reads a JSON object, the parser on its opening brace, up to and including its closing brace,
   * into a {@link SmallMap} (modifiable until {@link CacheFreezer} freezes it; an empty one costs
   * less than a {@code LinkedHashMap}) or (more than {@value SmallMap#MAX_SIZE}
   * entries) a {@code LinkedHashMap}.
   */
  private Map<String, Object> compactObject(
      JsonParser p, DeserializationContext ctxt, ValueDeserializer<Object> values) {
    String name = p.nextName();
    if (name == null) {
      return new SmallMap<>(NO_PAIRS, 0);
    }
    Object[] kv = new Object[8];
    int size = 0;
    Map<String, Object> large = null;
    for (; name != null; name = p.nextName()) {
      // No path is prepended to an error here: Jackson's untyped deserializer prepends none.
      Object value = value(p, ctxt, p.nextToken(), values);
      name = key(name);
      if (large != null) {
        large.put(name, value);
        continue;
      }
      int at = indexOf(kv, size, name);
      if (at >= 0) {
        kv[2 * at + 1] = value; // a duplicate key: the last value wins, the first position stays
      } else if (size < SmallMap.MAX_SIZE) {
        if (2 * size == kv.length) {
          kv = Arrays.copyOf(kv, Math.min(2 * kv.length, 2 * SmallMap.MAX_SIZE));
        }
        kv[2 * size] = name;
        kv[2 * size + 1] = value;
        size++;
      } else {
        large = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
          large.put((String) kv[2 * i], kv[2 * i + 1]);
        }
        large.put(name, value);
      }
    }
    if (large != null) {
      return large;
    }
    return new SmallMap<>(2 * size == kv.length ? kv : Arrays.copyOf(kv, 2 * size), size);
  }

  private static final Object[] NO_PAIRS = {};

  private static int indexOf(Object[] kv, int size, String name) {
    for (int i = 0; i < size; i++) {
      Object k = kv[2 * i];
      if (k == name || name.equals(k)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public LogicalType logicalType() {
    return LogicalType.POJO;
  }

  @Override
  public boolean isCachable() {
    return true;
  }
}

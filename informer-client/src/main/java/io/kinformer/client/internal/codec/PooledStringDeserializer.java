package io.kinformer.client.internal.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.KeyDeserializer;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.type.LogicalType;

/**
 * Jackson's {@code String} deserializer with the value canonicalized through a {@link StringPool}:
 * a JSON string is looked up straight from the parser's character buffer, so a pooled value costs
 * no allocation at all. Anything but a JSON string token (numbers, booleans and the other scalars
 * Jackson coerces to text, arrays when unwrapping is enabled, embedded values) goes to Jackson's
 * own {@link StringDeserializer}, so the results are exactly Jackson's.
 *
 * <p>Registered for {@code String}, it is used for String bean properties, {@code Map<String,
 * String>} values, {@code List<String>} elements and, because Jackson's untyped deserializer
 * defers to a custom String deserializer, for strings inside untyped values ({@code FieldsV1}
 * trees, {@code additionalProperties}, {@code GenericKubernetesResource}).
 *
 * <p>Thread safety: thread-safe (the pool is).
 */
final class PooledStringDeserializer extends ValueDeserializer<String> {

  private final StringPool pool;

  PooledStringDeserializer(StringPool pool) {
    this.pool = pool;
  }

  @Override
  public @Nullable String deserialize(JsonParser p, DeserializationContext ctxt)
      throws JacksonException {
    if (p.hasToken(JsonToken.VALUE_STRING)) {
      if (p.hasStringCharacters()) {
        return pool.get(p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
      }
      return pool.get(p.getString());
    }
    String s = StringDeserializer.instance.deserialize(p, ctxt);
    return s == null ? null : pool.get(s);
  }

  @Override
  public LogicalType logicalType() {
    return LogicalType.Textual;
  }

  @Override
  public boolean isCachable() {
    return true;
  }

  @Override
  public Object getEmptyValue(DeserializationContext ctxt) {
    return "";
  }

  /**
   * The same pool for {@code Map<String, ...>} keys (labels, annotations, resource names, ...).
   * The informers' mapper shares only a bounded table of names among its parsers (see {@link
   * CacheJsonFactory}): without this, every key a full table does not take would be a string of its
   * own.
   *
   * <p>Thread safety: thread-safe (the pool is).
   */
  static final class Keys extends KeyDeserializer {

    private final StringPool pool;

    Keys(StringPool pool) {
      this.pool = pool;
    }

    @Override
    public Object deserializeKey(String key, DeserializationContext ctxt) {
      return pool.get(key);
    }
  }
}

package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.Quantity;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.deser.std.StdDeserializer;
import tools.jackson.databind.type.LogicalType;

/**
 * Decodes a {@link Quantity} given as a JSON string (what API servers send: {@code "100m"},
 * {@code "128Mi"}) without fabric8's detour through a JSON tree.
 *
 * <p>Why: fabric8's {@code Quantity.Deserializer} reads every quantity with {@code
 * readValueAsTree}, which looks up the tree deserializer and builds a {@code TextNode}, and then
 * calls {@code new Quantity(text)}, which parses into a second {@code Quantity} and copies it. A
 * realistic pod has four to eight quantities. For a JSON string this calls {@link
 * Quantity#parse(String)} directly: the same fields as {@code new Quantity(text)} (which is {@code
 * parse} and a copy), so the object is equal, and invalid text fails with the same {@code
 * IllegalArgumentException}. Every other token (a number, an object with {@code amount} and
 * {@code format}, ...) goes to fabric8's own deserializer.
 *
 * <p>Only the informers' cache mapper uses it; {@link CacheCompactor} then pools the amount and
 * format strings as before.
 *
 * <p>Thread safety: immutable.
 */
final class QuantityDeserializer extends StdDeserializer<Quantity> {

  private static final Quantity.Deserializer FABRIC8 = new Quantity.Deserializer();

  /** Mixed into {@code Quantity} to replace the deserializer its own annotation names. */
  @JsonDeserialize(using = QuantityDeserializer.class)
  abstract static class MixIn {}

  QuantityDeserializer() {
    super(Quantity.class);
  }

  @Override
  public Quantity deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
    if (p.hasToken(JsonToken.VALUE_STRING)) {
      return Quantity.parse(p.getString());
    }
    return FABRIC8.deserialize(p, ctxt);
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

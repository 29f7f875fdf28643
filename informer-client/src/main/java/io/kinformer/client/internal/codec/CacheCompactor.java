package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.deser.std.DelegatingDeserializer;
import tools.jackson.databind.jsontype.TypeDeserializer;

/**
 * For the informers' codecs: makes decoded fabric8 model objects lighter in memory, right after
 * Jackson builds each of them, without changing what they are equal to.
 *
 * <p>Why: every fabric8 model object allocates its own {@code additionalProperties}
 * {@code LinkedHashMap} (56 bytes, almost always empty), and many allocate an empty {@code
 * ArrayList} or {@code LinkedHashMap} for every list and map property in their constructor
 * ({@code ObjectMeta}: labels, annotations, finalizers, ownerReferences, managedFields; {@code
 * Container}: args, command, env, ports, ...): a realistic pod carries about 35 empty maps and 35
 * empty lists (2.8 KB). {@code managedFields}' {@code FieldsV1} trees are maps of maps with one
 * empty map per leaf ({@code "f:image": {}}). A {@code LinkedHashMap} of a few entries costs
 * 56 + 80 + 40 per entry bytes; an {@code ArrayList} of one element 24 + 56. {@link
 * io.fabric8.kubernetes.api.model.Quantity}'s own deserializer builds its strings and an empty
 * {@code HashMap} per quantity. docs/architecture.md ("Memory per cached object") has the measured
 * breakdown.
 *
 * <p>What, per decoded model object, on the fields behind its public getter/setter pairs (looked up
 * once per class), leaving every collection modifiable, since the informer's transform runs on the
 * object next:
 *
 * <ul>
 *   <li>a non-empty map of at most {@value SmallMap#MAX_SIZE} entries becomes a {@link SmallMap}
 *       (ordered, modifiable until frozen); a non-empty {@code ArrayList} is trimmed to its size;
 *   <li>inside untyped values ({@code additionalProperties}, {@code FieldsV1}, the body of a
 *       {@code GenericKubernetesResource}) nested maps and lists get the same treatment, and the
 *       keys of their maps are pooled (the informers' parsers share only a bounded table of
 *       names; see {@link CacheJsonFactory}), larger maps too, as a copy;
 *   <li>a {@code Quantity} gets pooled amount and format strings.
 * </ul>
 *
 * <p>Empty collections stay as Jackson made them until {@link CacheFreezer}, which the informer
 * runs after its transform, swaps them for the shared immutable empty ones and makes every other
 * collection read-only.
 *
 * <p>What users see: the objects are {@code equals()} (and hash) to plain Jackson's, print and
 * serialize to the same JSON and copy into fabric8 builders as before ({@code new
 * PodBuilder(pod)} copies every collection), and a transform may change any of their collections.
 * Only the informers' codecs use this; objects the REST client returns ({@code get}, {@code list},
 * {@code watch}, {@code create}, ...) are decoded without it.
 *
 * <p>Thread safety: thread-safe (the field tables are built once per class, {@link ModelFields};
 * each decoded object is worked on by the decoding thread only).
 */
final class CacheCompactor extends ValueDeserializerModifier {

  private static final long serialVersionUID = 1L;

  private final transient StringPool pool;

  CacheCompactor(StringPool pool) {
    this.pool = pool;
  }

  @Override
  public ValueDeserializer<?> modifyDeserializer(
      DeserializationConfig config,
      BeanDescription.Supplier beanDesc,
      ValueDeserializer<?> deserializer) {
    Class<?> type = beanDesc.getBeanClass();
    if (!type.getName().startsWith("io.fabric8.kubernetes.")) {
      return deserializer;
    }
    Accessors a = Accessors.of(type);
    return a.isEmpty() ? deserializer : new Compacting(deserializer, type, a, pool);
  }

  /**
   * The list, map and Quantity properties of one model class, as their fields. Fields, not the
   * getters and setters: JDK 17 reads and writes a {@link Field} through {@code Unsafe} without
   * generating code, while a {@code Method} or a method handle called from many sites is compiled
   * into a class of its own per accessor, which cost about a second of CPU at start-up (measured:
   * sync CPU of 10,000 pods). Only fields that a public getter/setter pair of the same name and
   * type exposes are touched, so nothing is set that a user could not set; they are found with
   * the fields {@link CacheFreezer} visits, in one table per class ({@link ModelFields}).
   */
  record Accessors(Field[] fields, boolean[] untyped, boolean[] quantities) {

    boolean isEmpty() {
      return fields.length == 0;
    }

    /** The compacted fields of {@code type}, from its shared table ({@link ModelFields}). */
    static Accessors of(Class<?> type) {
      return ModelFields.of(type).compaction();
    }

    /**
     * As {@link #of(Class)}, from a new table whose fields are made accessible with {@code open}
     * ({@link ModelFields#scan}): a field it fails on is left alone and logged, once per class.
     */
    static Accessors of(Class<?> type, Consumer<Field> open) {
      return ModelFields.scan(type, open).compaction();
    }

    /**
     * Whether a map field of this generic type can hold {@link Quantity} values ({@code
     * Map<String, Quantity>}, or a raw or wildcard value type): only those maps are walked for
     * quantities, not every labels or annotations map.
     */
    static boolean mayHoldQuantities(Type mapType) {
      if (mapType instanceof ParameterizedType p && p.getActualTypeArguments().length == 2) {
        Type value = p.getActualTypeArguments()[1];
        if (value instanceof ParameterizedType pv) {
          value = pv.getRawType(); // Map<String, List<String>>: the values are lists
        }
        return !(value instanceof Class<?> c) || c.isAssignableFrom(Quantity.class);
      }
      return true;
    }

    void compact(Object bean, StringPool pool) {
      try {
        for (int i = 0; i < fields.length; i++) {
          Field f = fields[i];
          Object value = f.get(bean);
          if (value instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
              continue; // CacheFreezer swaps it for the shared empty map, after the transform
            }
            if (untyped[i]) {
              compactValues(m, pool);
            } else if (quantities[i]) {
              m.forEach((k, v) -> {
                if (v instanceof Quantity q) {
                  compactQuantity(q, pool);
                }
              });
            }
            if (untyped[i] && isPlain(m)) {
              // Named by the parser, not by a key deserializer: pool the keys too.
              f.set(bean, withPooledKeys(m, pool));
            } else if (isPlain(m) && m.size() <= SmallMap.MAX_SIZE) {
              f.set(bean, new SmallMap<>(m));
            }
          } else if (value instanceof List<?> l) {
            if (l instanceof ArrayList<?> a) {
              a.trimToSize();
            }
          } else if (value instanceof Quantity q) {
            compactQuantity(q, pool);
          }
        }
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("compacting " + bean.getClass().getName(), e);
      }
    }
  }

  /**
   * A decoded {@link Quantity} (fabric8's own deserializer builds it, so no String deserializer
   * sees its parts): pooled amount and format, shared empty {@code additionalProperties}.
   */
  static void compactQuantity(Quantity q, StringPool pool) {
    if (q.getAmount() != null) {
      q.setAmount(pool.get(q.getAmount()));
    }
    if (q.getFormat() != null) {
      q.setFormat(pool.get(q.getFormat()));
    }
  }

  /**
   * Trims the lists nested in an untyped value and replaces the keys of its maps with pooled ones
   * (small maps as {@link SmallMap}s) (the cache mapper's name table is bounded: {@link
   * CacheJsonFactory}).
   */
  static Object compactUntyped(Object value, StringPool pool) {
    if (value instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        return value;
      }
      compactValues(m, pool);
      if (isPlain(m)) {
        return withPooledKeys(m, pool);
      }
    } else if (value instanceof List<?> l) {
      if (l instanceof ArrayList<?> a) {
        a.trimToSize();
        @SuppressWarnings("unchecked")
        ListIterator<Object> it = ((List<Object>) l).listIterator();
        while (it.hasNext()) {
          Object v = it.next();
          Object c = compactUntyped(v, pool);
          if (c != v) {
            it.set(c);
          }
        }
      }
    }
    return value;
  }

  /** Whether {@code m} is one of the maps Jackson builds (not sorted, not immutable, not ours). */
  private static boolean isPlain(Map<?, ?> m) {
    return m.getClass() == LinkedHashMap.class || m.getClass() == HashMap.class;
  }

  private static void compactValues(Map<?, ?> m, StringPool pool) {
    // Only Jackson's own untyped maps are written to (replacing values is no structural change).
    if (!isPlain(m)) {
      return;
    }
    @SuppressWarnings("unchecked")
    Map<Object, Object> map = (Map<Object, Object>) m;
    // replaceAll, not entrySet(): the latter would leave a cached entry-set view in every map.
    map.replaceAll((k, v) -> compactUntyped(v, pool));
  }

  /**
   * A plain, non-empty map of Jackson's as a {@link SmallMap} (at most {@value SmallMap#MAX_SIZE}
   * entries) or a {@code LinkedHashMap}, with its String keys pooled; in its order.
   */
  private static Map<?, ?> withPooledKeys(Map<?, ?> m, StringPool pool) {
    // m is dropped after this, so its entry-set view may be made; its keys are distinct.
    if (m.size() > SmallMap.MAX_SIZE) {
      Map<Object, Object> copy = new LinkedHashMap<>(m.size() * 4 / 3 + 1);
      for (Map.Entry<?, ?> e : m.entrySet()) {
        copy.put(pooled(e.getKey(), pool), e.getValue());
      }
      return copy;
    }
    Object[] kv = new Object[2 * m.size()];
    int i = 0;
    for (Map.Entry<?, ?> e : m.entrySet()) {
      kv[i++] = pooled(e.getKey(), pool);
      kv[i++] = e.getValue();
    }
    return new SmallMap<>(kv, m.size());
  }

  private static @Nullable Object pooled(@Nullable Object key, StringPool pool) {
    return key instanceof String s ? pool.get(s) : key;
  }

  /** A fabric8 bean deserializer followed by {@link Accessors#compact}. */
  static final class Compacting extends DelegatingDeserializer {

    private final Class<?> type;
    private final Accessors accessors;
    private final StringPool pool;

    Compacting(ValueDeserializer<?> delegate, Class<?> type, Accessors accessors, StringPool pool) {
      super(delegate);
      this.type = type;
      this.accessors = accessors;
      this.pool = pool;
    }

    @Override
    protected ValueDeserializer<?> newDelegatingInstance(ValueDeserializer<?> newDelegatee) {
      return new Compacting(newDelegatee, type, accessors, pool);
    }

    @Override
    public @Nullable Object deserialize(JsonParser p, DeserializationContext ctxt)
        throws JacksonException {
      return compact(super.deserialize(p, ctxt));
    }

    @Override
    public @Nullable Object deserialize(JsonParser p, DeserializationContext ctxt, Object into)
        throws JacksonException {
      return compact(super.deserialize(p, ctxt, into));
    }

    @Override
    public @Nullable Object deserializeWithType(
        JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
        throws JacksonException {
      return compact(super.deserializeWithType(p, ctxt, typeDeserializer));
    }

    private @Nullable Object compact(@Nullable Object bean) {
      if (bean != null && bean.getClass() == type) {
        accessors.compact(bean, pool);
      }
      return bean;
    }
  }
}

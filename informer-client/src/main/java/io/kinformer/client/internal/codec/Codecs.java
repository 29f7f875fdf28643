package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.Quantity;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonFactoryBuilder;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The JSON mapper our codecs use when the caller brings none.
 *
 * <p>Thread safety: stateless.
 */
public final class Codecs {

  private Codecs() {}

  /**
   * A mapper for fabric8 model objects. Unknown properties are tolerated: newer servers add fields
   * that older model classes do not know (the models keep them in {@code additionalProperties}
   * where they can).
   *
   * <p>A single JSON string may not exceed {@link #MAX_STRING_CHARS}: etcd refuses objects above
   * about 1.5 MiB, so anything far larger comes from a broken or hostile server, and refusing it
   * bounds the memory one value can take (Jackson's own default is 100 M characters).
   *
   * <p>Decoded strings are canonicalized through {@code pool} ({@link PooledStringDeserializer}):
   * equal short values of many objects share one {@code String}. That is invisible to users
   * ({@code String} is immutable) and cuts the retained heap of a realistic pod by about a quarter.
   * Map keys need no pool here: Jackson's name table already shares property names (the cache
   * mapper pools them instead, see {@link #newCacheMapper}).
   *
   * <p>{@code managedFields}' {@link FieldsV1} is decoded by {@link FieldsV1Deserializer}, which
   * gives the same objects as Jackson's bean deserializer without its slow any-setter calls.
   */
  public static JsonMapper newMapper(StringPool pool) {
    return builder(pool, false).build();
  }

  /** {@link #newMapper(StringPool)} with a pool of its own. */
  public static JsonMapper newMapper() {
    return newMapper(new StringPool());
  }

  /**
   * The mapper of the informers' list and watch codecs: {@link #newMapper(StringPool)}, and decoded
   * model objects are compacted ({@link CacheCompactor}: small array maps, trimmed lists; read its
   * class comment for what that changes), and {@link #freezeForCache} then makes them read-only. A realistic pod then retains about
   * 4.7 KB instead of 16 KB. Only for objects that go into caches, which are shared and read-only
   * by contract; never for objects handed to a caller to modify.
   *
   * <p>Its parsers use a table of property names that stops growing ({@link CacheJsonFactory}):
   * every pod's managed fields name keys of their own (a pod IP, an owner uid), and Jackson's own
   * table would keep growing on a large list and be thrown away after it, leaving the first watch
   * events an empty table, whose code paths the JIT compiler then compiled all over again
   * (docs/architecture.md, "What the performance rests on"). Map keys, {@code FieldsV1} keys and the
   * keys of untyped values also go through {@code pool}, as values do, so that the names a full
   * table does not take are still shared.
   */
  public static JsonMapper newCacheMapper(StringPool pool) {
    SimpleModule compactor = new SimpleModule("kinformer-cache-compactor");
    compactor.setDeserializerModifier(new CacheCompactor(pool));
    return builder(pool, true).addModule(compactor).build();
  }

  /**
   * Readies an object for a cache after the informer's transform ({@link CacheFreezer}): every
   * list and map in it becomes read-only, empty ones the shared immutable ones. Returns it.
   */
  public static <T> T freezeForCache(T obj) {
    return CacheFreezer.freeze(obj);
  }

  /**
   * {@link #freezeForCache} for the objects of {@link #newPlainMapper()}: read-only the same way,
   * but maps stay the ones Jackson built, wrapped unmodifiable, not compacted.
   */
  public static <T> T freezePlainForCache(T obj) {
    return CacheFreezer.freezePlain(obj);
  }

  /** {@link #newCacheMapper(StringPool)} with a pool of its own. */
  public static JsonMapper newCacheMapper() {
    return newCacheMapper(new StringPool());
  }

  /**
   * The mapper of a client whose decoding optimizations are off ({@code
   * ClientOptions.decodingOptimizations(false)}), for both its REST and its informer objects:
   * Jackson's own factory, name table and deserializers, with only what is behaviour rather than
   * optimization, as in the other mappers: unknown properties are tolerated, and a JSON string
   * may not exceed {@link #MAX_STRING_CHARS}. Decoded objects are equal to the other mappers'.
   */
  public static JsonMapper newPlainMapper() {
    return JsonMapper.builder(limitedFactory().build())
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build();
  }

  private static JsonFactoryBuilder limitedFactory() {
    return JsonFactory.builder()
        .streamReadConstraints(
            StreamReadConstraints.builder().maxStringLength(MAX_STRING_CHARS).build());
  }

  private static JsonMapper.Builder builder(StringPool pool, boolean compact) {
    JsonFactoryBuilder factory = limitedFactory();
    SimpleModule strings = new SimpleModule("kinformer-strings");
    strings.addDeserializer(String.class, new PooledStringDeserializer(pool));
    if (compact) {
      // See newCacheMapper: names the bounded name table does not take go through the pool.
      strings.addKeyDeserializer(String.class, new PooledStringDeserializer.Keys(pool));
    }
    return JsonMapper.builder(compact ? new CacheJsonFactory(factory) : factory.build())
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .addModule(strings)
        .addModule(modelModule(compact ? pool : null));
  }

  private static SimpleModule modelModule(@Nullable StringPool compactWith) {
    boolean compact = compactWith != null;
    // A module deserializer still goes through the deserializer modifiers (CacheCompactor).
    SimpleModule module = new SimpleModule("kinformer-model");
    module.addDeserializer(FieldsV1.class, new FieldsV1Deserializer(compactWith));
    UniqueStrings.register(module);
    if (compact) {
      // Quantity names its deserializer in a class annotation, which wins over a module's
      // deserializers: a mix-in annotation replaces it.
      module.setMixInAnnotation(Quantity.class, QuantityDeserializer.MixIn.class);
    }
    return module;
  }

  /** The longest JSON string value the codecs accept: 16 Mi characters. */
  static final int MAX_STRING_CHARS = 16 * 1024 * 1024;

  /** {@code message} cut to at most {@code max} characters, for quoting in our messages. */
  public static String shorten(@Nullable String message, int max) {
    if (message == null) {
      return "";
    }
    String oneLine = message.replace('\n', ' ');
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "…";
  }
}

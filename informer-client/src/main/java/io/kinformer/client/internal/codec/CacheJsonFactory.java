package io.kinformer.client.internal.codec;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.io.IOContext;
import tools.jackson.core.json.ByteSourceJsonBootstrapper;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonFactoryBuilder;
import tools.jackson.core.sym.ByteQuadsCanonicalizer;

/**
 * The JSON factory of the informers' mapper ({@link Codecs#newCacheMapper}): Jackson's byte
 * parser, with a table of property names that stops growing at {@link #MAX_NAMES}.
 *
 * <h2>Why</h2>
 *
 * Jackson keeps every distinct property name its byte parsers meet in a table shared by the
 * factory's parsers, so that a name seen before costs a lookup instead of a new {@code String}.
 * Every pod's managed fields name keys of their own ({@code k:{"ip":"10.0.3.7"}}, an owner's
 * uid), so on a large list the table grows without end: it is copied at each doubling, cleared
 * when it would pass 64 Ki slots, and dropped when the parser closes with more than 6,000 names
 * (the first watch parser after a large list then starts from an empty table). Turning the table
 * off is no way out: a factory without it decodes UTF-8 into characters first and parses those
 * (Jackson's {@code ByteSourceJsonBootstrapper}), which costs more time and allocation than the
 * table ever did. The table holds about half a megabyte when full.
 *
 * <p>So here the table takes names until it holds {@link #MAX_NAMES}, and from then on a new name
 * is returned as decoded, uncanonicalized: the pool ({@link PooledStringDeserializer.Keys}, {@link
 * FieldsV1Deserializer}) still makes equal keys one {@code String}. The stable names (properties,
 * label keys, the managed-field keys that repeat from pod to pod) come first in any list and stay
 * in the table; the table never exceeds what Jackson reuses, so every parser starts from it.
 * Against the char parser it decodes a 500-pod page at 69,975 instead of 59,238 pods/s with 12,124
 * instead of 20,390 B per pod (2 vCPUs; docs/architecture.md, "What the performance rests on").
 *
 * <p>Thread safety: thread-safe, as Jackson's factory; the shared table is Jackson's, which
 * merges each parser's additions when the parser closes.
 */
final class CacheJsonFactory extends JsonFactory {

  private static final long serialVersionUID = 1L;

  /** The most names the table holds; below Jackson's 6,000, past which it drops a table. */
  static final int MAX_NAMES = 4_000;

  private final transient ByteQuadsCanonicalizer names = new BoundedRoot();

  /**
   * A document with the names of a watch event's envelope, which no list has: read once by each
   * new factory so that they are in the table before a large list fills it. Otherwise {@code
   * "object"} would miss the full table in every event, and the first event would send the
   * parser's name lookup, compiled during the list without ever missing, back to the interpreter.
   */
  private static final byte[] SEED =
      "{\"type\":\"\",\"object\":{}}".getBytes(StandardCharsets.UTF_8);

  CacheJsonFactory(JsonFactoryBuilder builder) {
    super(builder.enable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES));
    seed();
  }

  private CacheJsonFactory(CacheJsonFactory source) {
    super(source);
    seed();
  }

  private void seed() {
    try (JsonParser p = createParser(ObjectReadContext.empty(), SEED)) {
      while (p.nextToken() != null) {
        // the names enter the table as the parser meets them; it hands them over on close
      }
    }
  }

  /** How many names the shared table holds (for tests). */
  int namesInTable() {
    return names.size();
  }

  @Override
  public JsonFactory copy() {
    return new CacheJsonFactory(this);
  }

  @Override
  protected Object readResolve() {
    return new CacheJsonFactory(this);
  }

  @Override
  protected JsonParser _createParser(ObjectReadContext read, IOContext io, InputStream in)
      throws JacksonException {
    return new ByteSourceJsonBootstrapper(io, in)
        .constructParser(
            read,
            read.getStreamReadFeatures(_streamReadFeatures),
            read.getFormatReadFeatures(_formatReadFeatures),
            names,
            _rootCharSymbols,
            _factoryFeatures);
  }

  @Override
  protected JsonParser _createParser(
      ObjectReadContext read, IOContext io, byte[] data, int offset, int len)
      throws JacksonException {
    _checkRangeBoundsForByteArray(data, offset, len);
    _streamReadConstraints.validateDocumentLength(len);
    return new ByteSourceJsonBootstrapper(io, data, offset, len)
        .constructParser(
            read,
            read.getStreamReadFeatures(_streamReadFeatures),
            read.getFormatReadFeatures(_formatReadFeatures),
            names,
            _rootCharSymbols,
            _factoryFeatures);
  }

  /**
   * The root handed to Jackson's bootstrapper: a stand-in whose children are {@link Bounded} views
   * of children of a real root, which holds the shared names.
   */
  private static final class BoundedRoot extends ByteQuadsCanonicalizer {
    private final ByteQuadsCanonicalizer table = ByteQuadsCanonicalizer.createRoot();

    BoundedRoot() {
      super(16, 0); // a minimal table of its own, never used
    }

    @Override
    public ByteQuadsCanonicalizer makeChild(int flags) {
      return new Bounded(table.makeChild(flags));
    }

    @Override
    public ByteQuadsCanonicalizer makeChildOrPlaceholder(int flags) {
      return new Bounded(table.makeChildOrPlaceholder(flags));
    }

    @Override
    public int size() {
      return table.size();
    }
  }

  /** One parser's view of the table: lookups as Jackson's, additions only below the bound. */
  private static final class Bounded extends ByteQuadsCanonicalizer {
    private final ByteQuadsCanonicalizer child;

    Bounded(ByteQuadsCanonicalizer child) {
      super(16, 0); // a minimal table of its own, never used
      this.child = child;
    }

    @Override
    public String findName(int q1) {
      return child.findName(q1);
    }

    @Override
    public String findName(int q1, int q2) {
      return child.findName(q1, q2);
    }

    @Override
    public String findName(int q1, int q2, int q3) {
      return child.findName(q1, q2, q3);
    }

    @Override
    public String findName(int[] q, int qlen) {
      return child.findName(q, qlen);
    }

    @Override
    public String addName(String name, int q1) {
      return full() ? name : child.addName(name, q1);
    }

    @Override
    public String addName(String name, int q1, int q2) {
      return full() ? name : child.addName(name, q1, q2);
    }

    @Override
    public String addName(String name, int q1, int q2, int q3) {
      return full() ? name : child.addName(name, q1, q2, q3);
    }

    @Override
    public String addName(String name, int[] q, int qlen) {
      return full() ? name : child.addName(name, q, qlen);
    }

    private boolean full() {
      return child.size() >= MAX_NAMES;
    }

    @Override
    public void release() {
      child.release();
    }

    @Override
    public boolean isCanonicalizing() {
      return child.isCanonicalizing();
    }

    @Override
    public boolean willInternStrings() {
      return child.willInternStrings();
    }

    @Override
    public boolean maybeDirty() {
      return child.maybeDirty();
    }

    @Override
    public int size() {
      return child.size();
    }

    @Override
    public int hashSeed() {
      return child.hashSeed();
    }

    @Override
    public int calcHash(int q1) {
      return child.calcHash(q1);
    }

    @Override
    public int calcHash(int q1, int q2) {
      return child.calcHash(q1, q2);
    }

    @Override
    public int calcHash(int q1, int q2, int q3) {
      return child.calcHash(q1, q2, q3);
    }

    @Override
    public int calcHash(int[] q, int qlen) {
      return child.calcHash(q, qlen);
    }

    @Override
    public String toString() {
      return "bounded " + child;
    }
  }
}

package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a list response as {@link ListCodec} does, but binds the items on several threads: the
 * calling thread frames the body (finds where each item begins and ends, a byte scan that decodes
 * nothing) and hands batches of items to an executor, whose threads bind them to the model class
 * with Jackson; the calling thread binds batches too while it waits. Binding dominates the cost of
 * a list (JSON to fabric8 objects is about 20 KB of allocation per 4 KB pod), so on a multi-core
 * machine the initial list of a large collection is decoded several times faster than on one
 * thread. This matters most where it is needed most: a real API server answers the informer's first
 * list ({@code resourceVersion=0}) from its watch cache with every item in one response, ignoring
 * {@code limit}.
 *
 * <p>The result is the same as {@link ListCodec}'s: the same items, in the same order, with {@code
 * kind} and {@code apiVersion} filled in, and the list's resourceVersion, continue token and
 * remaining-item count. Malformed input fails with an {@link InformerException} naming the byte
 * offset and quoting the bytes around it; the framing is checked by the scan and each item's JSON
 * by Jackson. Differences, for input no API server sends: the body must be UTF-8 (RFC 8259; a UTF-8
 * byte-order mark is skipped), and values of keys other than {@code metadata} and {@code items} are
 * skipped by bracket matching without further validation. An item larger than {@link
 * #MAX_ITEM_BYTES} is refused.
 *
 * <p>Small lists (one batch) are decoded on the calling thread alone, with no hand-off.
 *
 * <p>Thread safety: thread-safe; each call keeps its state to itself. The executor's tasks only
 * bind bytes they were given.
 *
 * @param <T> the item type
 */
public final class ParallelListCodec<T extends HasMetadata> {

  /**
   * A batch is handed off once it holds this many bytes of items. Large, because each batch is
   * bound by a parser of its own, and each parser carries a name table of its own ({@link
   * CacheJsonFactory}): with a fully canonicalizing table a parser over pods copied about 300 KB,
   * and 128 KB batches added 12 KB of allocation per 3.7 KB pod where these add 1.3 KB. Small
   * enough that a batch with its slack stays under half a 1 MB G1 region, which would make it a
   * humongous object.
   */
  static final int BATCH_BYTES = 448 * 1024;

  /**
   * The largest item accepted, as {@link ListCodec#MAX_ITEM_BYTES} (64 MiB): it bounds what one
   * item can make us buffer.
   */
  static final int MAX_ITEM_BYTES = (int) ListCodec.MAX_ITEM_BYTES;

  private static final int READ_BUFFER = 8000;

  private final ObjectReader itemReader;
  private final ObjectBinder<T> binder;
  /** Thread-safe: batches are bound on several threads, so skips are logged one by one. */
  private final UndecodableObjects undecodable;
  private final ObjectReader plainReader;
  private final ResourceType<T> type;
  private final Executor executor;
  private final int maxInFlight;
  private final int batchBytes;
  private final int maxItemBytes;

  /**
   * @param reader any reader of the mapper to use
   * @param type the resource
   * @param executor runs batch bindings; should have no more threads than spare cores
   * @param threads the executor's thread count; batches in flight are bounded by twice this
   */
  public ParallelListCodec(ObjectReader reader, ResourceType<T> type, Executor executor, int threads) {
    this(reader, type, executor, threads, BATCH_BYTES);
  }

  /** As the main constructor, with a batch size (tests use small ones to exercise hand-off). */
  public ParallelListCodec(
      ObjectReader reader, ResourceType<T> type, Executor executor, int threads, int batchBytes) {
    this(reader, type, executor, threads, batchBytes, MAX_ITEM_BYTES);
  }

  /** As the main constructor, with a batch size and an item size limit (for tests). */
  public ParallelListCodec(ObjectReader reader, ResourceType<T> type, Executor executor, int threads,
      int batchBytes, int maxItemBytes) {
    this(reader, type, executor, threads, batchBytes, maxItemBytes, UndecodableObjects.logOnly());
  }

  /** As the main constructor, reporting items that do not bind to {@code undecodable}. */
  public ParallelListCodec(ObjectReader reader, ResourceType<T> type, Executor executor, int threads,
      UndecodableObjects undecodable) {
    this(reader, type, executor, threads, BATCH_BYTES, MAX_ITEM_BYTES, undecodable);
  }

  private ParallelListCodec(ObjectReader reader, ResourceType<T> type, Executor executor,
      int threads, int batchBytes, int maxItemBytes, UndecodableObjects undecodable) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1: " + threads);
    }
    if (batchBytes < 1) {
      throw new IllegalArgumentException("batchBytes must be at least 1: " + batchBytes);
    }
    this.binder = new ObjectBinder<>(reader, type, undecodable);
    this.itemReader = binder.reader();
    this.undecodable = undecodable;
    this.plainReader = reader;
    this.type = Objects.requireNonNull(type, "type");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.maxInFlight = 2 * threads;
    this.batchBytes = batchBytes;
    this.maxItemBytes = maxItemBytes;
  }

  /**
   * Decodes one list page.
   *
   * @param body the response body; read to the end of the list object, not closed
   * @param what what was listed, for messages (for example {@code GET https://h/api/v1/pods})
   * @throws InformerException if the body is not a list or breaks off; an I/O failure is an {@link
   *     InformerException} whose cause is the {@code IOException}
   */
  public ListResult<T> decode(InputStream body, String what) {
    Decoding d = new Decoding(body, what);
    try {
      return d.run();
    } catch (IOException e) {
      // An InterruptedIOException here is not ours to turn into an interrupt: OkHttp reports its
      // call and socket timeouts with it, and okio, on an interrupted thread, throws it without
      // clearing the flag (so there is nothing to restore). Marking the thread interrupted after a
      // timeout would fail every later read on it.
      throw new InformerException(
          "I/O error reading the list response of " + what + ": " + e, e);
    } finally {
      d.cancelPending();
    }
  }

  /** The items of one batch: their bytes back to back, and where each began in the body. */
  private static final class Batch {
    byte[] data;
    int length;
    int[] starts = new int[64];
    long[] offsets = new long[64];
    int count;

    Batch(int capacity) {
      data = new byte[capacity];
    }

    void beginItem(long offset) {
      if (count == starts.length) {
        starts = Arrays.copyOf(starts, count * 2);
        offsets = Arrays.copyOf(offsets, count * 2);
      }
      starts[count] = length;
      offsets[count] = offset;
      count++;
    }

    void append(byte[] b, int from, int to) {
      int n = to - from;
      if (length + n > data.length) {
        // The first batch grows; later ones are presized, so only a very large item gets here.
        data = Arrays.copyOf(data, Math.max(length + n, data.length * 2));
      }
      System.arraycopy(b, from, data, length, n);
      length += n;
    }

    int itemLength(int i) {
      return (i + 1 < count ? starts[i + 1] : length) - starts[i];
    }
  }

  /** The state of one decode: the framing scan on the calling thread and the batches in flight. */
  private final class Decoding {

    private final CodecTailStream in;
    private final String what;
    private final byte[] buf = new byte[READ_BUFFER];
    private int pos;
    private int lim;
    /** The body offset of buf[0]. */
    private long base;
    /** While an item is captured: where its not yet copied bytes begin in buf; else -1. */
    private int captureFrom = -1;

    /** The first batch starts small (most lists are small); later ones are presized. */
    private Batch batch = new Batch(8 * 1024);
    private final ArrayDeque<FutureTask<List<T>>> pending = new ArrayDeque<>();
    private final List<T> items = new ArrayList<>();

    Decoding(InputStream body, String what) {
      this.in = CodecTailStream.over(body);
      this.what = what;
    }

    ListResult<T> run() throws IOException {
      skipByteOrderMark();
      int c;
      do {
        c = next();
      } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
      if (c != '{') {
        throw malformed("the body is not a JSON object", offset());
      }
      String resourceVersion = null;
      String continueToken = null;
      Long remaining = null;
      String shard = null;
      c = nextNonSpace();
      if (c != '}') {
        while (true) {
          if (c != '"') {
            throw malformed(expected("a field name", c), offset());
          }
          String name = readName();
          c = nextNonSpace();
          if (c != ':') {
            throw malformed(expected("':'", c), offset());
          }
          c = nextNonSpace();
          switch (name) {
            case "metadata" -> {
              if (c != '{') {
                throw malformed("\"metadata\" is not an object", offset());
              }
              ListCodec.ListMeta m = readMetadata();
              resourceVersion = m.resourceVersion();
              continueToken = m.continueToken();
              remaining = m.remainingItemCount();
              shard = m.shardSelector();
            }
            case "items" -> {
              if (c == '[') {
                readItems();
              } else if (c == 'n' && readLiteralRest("ull")) {
                // "items": null is an empty list.
              } else {
                throw malformed("\"items\" is not an array", offset());
              }
            }
            default -> skipValue(c);
          }
          c = nextNonSpace();
          if (c == '}') {
            break;
          }
          if (c != ',') {
            throw malformed(expected("',' or '}'", c), offset());
          }
          c = nextNonSpace();
        }
      }
      finishItems();
      return new ListResult<>(
          items, resourceVersion == null ? "" : resourceVersion, continueToken, remaining, shard);
    }

    // ---- the items

    private void readItems() throws IOException {
      int c = nextNonSpace();
      if (c == ']') {
        return;
      }
      while (true) {
        if (c != '{') {
          throw malformed("an item is not an object but " + describe(c), offset());
        }
        long start = offset();
        batch.beginItem(start);
        captureComposite(batch, start);
        if (batch.length >= batchBytes) {
          handOff();
        }
        c = nextNonSpace();
        if (c == ']') {
          return;
        }
        if (c != ',') {
          throw malformed(expected("',' or ']' after an item", c), offset());
        }
        c = nextNonSpace();
      }
    }

    /** Hands the current batch to the executor (or binds it here when too many are in flight). */
    private void handOff() {
      Batch full = batch;
      batch = newBatch();
      while (pending.size() >= maxInFlight) {
        collect(pending.poll());
      }
      FutureTask<List<T>> task = new FutureTask<>(() -> bind(full));
      pending.add(task);
      try {
        executor.execute(task);
      } catch (RejectedExecutionException e) {
        // The pool is shut down (the client is closing): the calling thread binds it when it
        // collects the task.
      }
    }

    /** Binds the last batch here, then collects every batch in order. */
    private void finishItems() {
      Batch last = batch;
      batch = new Batch(0);
      List<T> tail = last.count == 0 ? List.of() : bind(last);
      while (!pending.isEmpty()) {
        collect(pending.poll());
      }
      items.addAll(tail);
    }

    /** Adds a batch's items, binding it on this thread if no pool thread has started it. */
    private void collect(FutureTask<List<T>> task) {
      task.run(); // a no-op if a pool thread ran or is running it
      try {
        items.addAll(task.get());
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new InformerException("decoding the list of " + what + " failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InformerException("interrupted while decoding the list of " + what, e);
      } catch (CancellationException e) {
        throw new InformerException("decoding the list of " + what + " was cancelled", e);
      }
    }

    /**
     * A batch sized so that it is handed off without growing: items are appended until the batch
     * holds {@code batchBytes}, so the last one may end up to a typical item beyond it.
     */
    private Batch newBatch() {
      return new Batch(batchBytes + Math.min(batchBytes, 32 * 1024));
    }

    void cancelPending() {
      for (FutureTask<List<T>> task : pending) {
        task.cancel(false);
      }
      pending.clear();
    }

    /** Binds every item of a batch (on whichever thread runs this). */
    private List<T> bind(Batch b) {
      List<T> out = new ArrayList<>(b.count);
      int i = 0;
      try (JsonParser p = itemReader.createParser(b.data, 0, b.length)) {
        for (; i < b.count; i++) {
          if (p.nextToken() != JsonToken.START_OBJECT) {
            throw itemMalformed(b, i, "an item is not a single JSON object", -1);
          }
          T item = binder.bind(p, what, undecodable);
          if (item != null) {
            out.add(item);
          }
        }
        if (p.nextToken() != null) {
          throw itemMalformed(b, b.count - 1, "an item is not a single JSON object", -1);
        }
      } catch (JacksonException e) {
        long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
        int item = at < 0 ? Math.min(i, b.count - 1) : itemAt(b, (int) at);
        throw itemMalformed(b, item, Codecs.shorten(e.getOriginalMessage(), 120), at);
      }
      return out;
    }

    private int itemAt(Batch b, int at) {
      int i = 0;
      while (i + 1 < b.count && b.starts[i + 1] <= at) {
        i++;
      }
      return i;
    }

    /** An error in item {@code i} of a batch; {@code at} is an offset in the batch or -1. */
    private InformerException itemMalformed(Batch b, int i, String problem, long at) {
      int from = b.starts[i];
      int len = b.itemLength(i);
      int rel = at < 0 ? 0 : (int) Math.max(0, Math.min(len, at - from));
      // Quote the item's bytes around the error, as ListCodec quotes the stream's.
      int lo = Math.max(0, rel - 8 * 1024);
      int hi = Math.min(len, rel + 8 * 1024);
      CodecTailStream excerpt =
          new CodecTailStream(new ByteArrayInputStream(b.data, from + lo, hi - lo));
      try {
        excerpt.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException("reading a byte array", e);
      }
      return new InformerException("malformed list response of " + type.gvr() + " (" + what
          + "): " + problem + "; near byte " + (b.offsets[i] + rel) + ": "
          + excerpt.excerptAround(rel - lo));
    }

    // ---- the list's metadata

    private ListCodec.ListMeta readMetadata() throws IOException {
      long start = offset();
      Batch capture = new Batch(1024);
      captureTarget = capture;
      captureComposite(capture, start);
      captureTarget = null;
      try (JsonParser p = plainReader.createParser(capture.data, 0, capture.length)) {
        p.nextToken();
        return ListCodec.readListMeta(p);
      } catch (JacksonException e) {
        long at = e.getLocation() == null ? 0 : e.getLocation().getByteOffset();
        throw malformed("in \"metadata\": " + Codecs.shorten(e.getOriginalMessage(), 120),
            start + Math.max(0, at));
      }
    }

    /**
     * Skips the object or array whose first byte was just read (at body offset {@code start}),
     * copying all its bytes into {@code into}, including those that {@link #fill()} moves out of
     * the buffer meanwhile.
     */
    private void captureComposite(Batch into, long start) throws IOException {
      captureFrom = pos - 1;
      skipComposite();
      into.append(buf, captureFrom, pos);
      captureFrom = -1;
      checkCaptured(into, start);
    }

    // ---- the byte scan

    /** The body offset of the byte last returned by {@link #next()}. */
    private long offset() {
      return base + pos - 1;
    }

    private boolean fill() throws IOException {
      if (captureFrom >= 0) {
        Batch target = batchOrCapture();
        target.append(buf, captureFrom, lim);
        captureFrom = 0;
        checkCaptured(target, base + lim);
      }
      base += lim;
      pos = 0;
      lim = 0;
      int n;
      do {
        n = in.read(buf, 0, buf.length);
      } while (n == 0);
      if (n < 0) {
        return false;
      }
      lim = n;
      return true;
    }

    /** Refuses a captured item, field name or metadata object larger than the limit. */
    private void checkCaptured(Batch target, long at) {
      int captured = target == batch ? batch.length - batch.starts[batch.count - 1]
          : target.length;
      if (captured > maxItemBytes) {
        throw malformed("a value is larger than " + maxItemBytes + " bytes", at);
      }
    }

    /**
     * Where bytes being captured go: the current batch while an item is read; the metadata is
     * small and read through {@link #skipComposite()} with its own capture.
     */
    private Batch batchOrCapture() {
      return captureTarget != null ? captureTarget : batch;
    }

    private @Nullable Batch captureTarget;

    private int next() throws IOException {
      if (pos == lim && !fill()) {
        return -1;
      }
      return buf[pos++] & 0xff;
    }

    private int nextNonSpace() throws IOException {
      int c;
      do {
        c = next();
      } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
      if (c < 0) {
        throw malformed("the body ends before the list does", base + pos);
      }
      return c;
    }

    private void skipByteOrderMark() throws IOException {
      if (pos == lim && !fill()) {
        return;
      }
      if (lim - pos >= 3 && (buf[pos] & 0xff) == 0xEF && (buf[pos + 1] & 0xff) == 0xBB
          && (buf[pos + 2] & 0xff) == 0xBF) {
        pos += 3;
      }
    }

    /** Skips an object or array whose opening bracket was just read, strings included. */
    private void skipComposite() throws IOException {
      int depth = 1;
      while (depth > 0) {
        if (pos == lim && !fill()) {
          throw malformed("the body ends inside a value", base + pos);
        }
        int c = buf[pos++];
        if (c == '"') {
          skipStringRest();
        } else if (c == '{' || c == '[') {
          depth++;
        } else if (c == '}' || c == ']') {
          depth--;
        }
      }
    }

    /** Skips the rest of a string whose opening quote was just read. */
    private void skipStringRest() throws IOException {
      while (true) {
        if (pos == lim && !fill()) {
          throw malformed("the body ends inside a string", base + pos);
        }
        byte c = buf[pos++];
        if (c == '"') {
          return;
        }
        if (c == '\\') {
          if (pos == lim && !fill()) {
            throw malformed("the body ends inside a string", base + pos);
          }
          pos++;
        }
      }
    }

    /** Skips any value whose first byte was just read. */
    private void skipValue(int first) throws IOException {
      if (first == '{' || first == '[') {
        skipComposite();
      } else if (first == '"') {
        skipStringRest();
      } else {
        // A number or a literal: up to the next delimiter, which is left for the caller.
        while (true) {
          if (pos == lim && !fill()) {
            return;
          }
          int c = buf[pos];
          if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r'
              || c == '\t') {
            return;
          }
          pos++;
        }
      }
    }

    /** Whether the next bytes are {@code rest} (the first letter of a literal was just read). */
    private boolean readLiteralRest(String rest) throws IOException {
      for (int i = 0; i < rest.length(); i++) {
        if (next() != rest.charAt(i)) {
          return false;
        }
      }
      return true;
    }

    /** Reads a field name whose opening quote was just read; escapes are decoded by Jackson. */
    private String readName() throws IOException {
      long start = offset();
      Batch name = new Batch(64);
      captureTarget = name;
      captureFrom = pos - 1;
      skipStringRest();
      name.append(buf, captureFrom, pos);
      captureFrom = -1;
      captureTarget = null;
      boolean escaped = false;
      for (int i = 0; i < name.length; i++) {
        if (name.data[i] == '\\') {
          escaped = true;
          break;
        }
      }
      if (!escaped) {
        return new String(name.data, 1, name.length - 2, StandardCharsets.UTF_8);
      }
      try {
        return plainReader.forType(String.class).readValue(name.data, 0, name.length);
      } catch (JacksonException e) {
        throw malformed("a field name does not decode: "
            + Codecs.shorten(e.getOriginalMessage(), 120), start);
      }
    }

    private String expected(String what, int c) {
      return "expected " + what + " but found " + describe(c);
    }

    private String describe(int c) {
      if (c < 0) {
        return "the end of the body";
      }
      if (c >= 0x20 && c < 0x7f) {
        return "'" + (char) c + "'";
      }
      return String.format("byte 0x%02x", c);
    }

    private InformerException malformed(String problem, long at) {
      return new InformerException("malformed list response of " + type.gvr() + " (" + what
          + "): " + problem + "; near byte " + at + ": " + in.excerptAround(at));
    }
  }
}

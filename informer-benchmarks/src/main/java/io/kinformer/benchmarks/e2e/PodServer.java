package io.kinformer.benchmarks.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.benchmarks.Pods;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * A minimal HTTP/1.1 server for {@code /api/v1/pods} that serves {@code n} pre-encoded pods (from
 * {@link Pods}) and, on request, a stream of MODIFIED events to every open watch. All pods are
 * encoded once, at construction; requests only copy bytes, so every driver gets the same bytes and
 * the server costs next to nothing per request.
 *
 * <ul>
 *   <li>{@code GET /api/v1/pods[?limit=L&continue=C]}: a PodList (paged when {@code limit} is
 *       given; {@code continue} is the offset of the next item), except that {@code
 *       resourceVersion=0} ignores {@code limit} and sends every pod in one response, as a real API
 *       server does when its watch cache serves the list (transcript 01 §1.6). With {@code Accept: ...;
 *       as=PartialObjectMetadataList...} a PartialObjectMetadataList of the same pods.
 *   <li>{@code GET /api/v1/pods?watch=true&sendInitialEvents=true...}: 422, as a server whose
 *       WatchList feature gate is off (a client falls back to a list).
 *   <li>{@code GET /api/v1/pods?watch=true...}: a chunked watch stream, open until the client
 *       leaves or the server stops; it carries only what {@code /bench/burst} and {@code
 *       /bench/paced} send.
 *   <li>{@code POST /bench/burst?count=M}: writes M MODIFIED events (pod {@code k % n}, a new
 *       resourceVersion each) to every open watch as fast as the sockets take them; answers when
 *       written.
 *   <li>{@code POST /bench/paced?count=K&rate=R}: writes K events at R per second, each stamped
 *       with {@link System#nanoTime()} in the annotation {@link Pods#SENT_ANNOTATION} just before
 *       it is written and flushed.
 *   <li>{@code GET /bench/watches}: the number of open watches.
 * </ul>
 *
 * <p>Thread safety: thread-safe; each request runs on a pooled thread, each watch's writes are
 * serialized on the watch.
 */
public final class PodServer implements AutoCloseable {

  private static final byte[] EVENT_PREFIX =
      "{\"type\":\"MODIFIED\",\"object\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT_SUFFIX = "}\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ZERO_SENT = "0".repeat(Pods.SENT_DIGITS).getBytes(StandardCharsets.US_ASCII);

  /** One encoding of every pod: the bytes and where the patchable digits are. */
  private record Corpus(byte[][] items, int[] rvOffset, int[] sentOffset, String listHead) {}

  private final int n;
  private final Corpus full;
  private final Corpus metadata;
  private final String listResourceVersion;
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "pod-server");
    t.setDaemon(true);
    return t;
  });
  private final List<OpenWatch> watches = new CopyOnWriteArrayList<>();

  /** The 422 of a server whose WatchList feature gate is off. */
  private static final String STREAMING_LIST_REFUSED =
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
          + "\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: sendInitialEvents: Forbidden:"
          + " sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled\","
          + "\"reason\":\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\","
          + "\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: sendInitialEvents"
          + " is forbidden for watch unless the WatchList feature gate is enabled\","
          + "\"field\":\"sendInitialEvents\"}]},\"code\":422}";

  /** List requests that start a list (no continue token) since the last {@link #takeLists()}. */
  private final AtomicInteger lists = new AtomicInteger();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private long nextResourceVersion;

  /**
   * Encodes {@code n} pods and starts serving on a free port of 127.0.0.1. Sets {@code
   * sun.net.httpserver.nodelay=true} (TCP_NODELAY on accepted sockets) unless already set: with
   * Nagle's algorithm small watch events can wait for a delayed ACK (~40 ms).
   */
  public PodServer(int n) throws IOException {
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    this.n = n;
    JsonMapper mapper = Pods.mapper();
    byte[][] fullItems = new byte[n][];
    byte[][] metaItems = new byte[n][];
    for (int i = 0; i < n; i++) {
      Pod pod = Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i);
      fullItems[i] = mapper.writeValueAsBytes(pod);
      Map<String, Object> partial = new HashMap<>();
      partial.put("kind", "PartialObjectMetadata");
      partial.put("apiVersion", "meta.k8s.io/v1");
      ObjectMeta meta = pod.getMetadata();
      partial.put("metadata", meta);
      metaItems[i] = mapper.writeValueAsBytes(partial);
    }
    long listRv = Pods.FIRST_RESOURCE_VERSION + n;
    this.listResourceVersion = Long.toString(listRv);
    this.nextResourceVersion = listRv + 1;
    this.full = corpus(fullItems, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",");
    this.metadata = corpus(metaItems,
        "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  private static Corpus corpus(byte[][] items, String listHead) {
    int[] rv = new int[items.length];
    int[] sent = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      rv[i] = indexAfter(items[i], "\"resourceVersion\":\"");
      sent[i] = indexAfter(items[i], "\"" + Pods.SENT_ANNOTATION + "\":\"");
    }
    return new Corpus(items, rv, sent, listHead);
  }

  private static int indexAfter(byte[] haystack, String needle) {
    byte[] nb = needle.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = 0; i + nb.length <= haystack.length; i++) {
      for (int j = 0; j < nb.length; j++) {
        if (haystack[i + j] != nb[j]) {
          continue outer;
        }
      }
      return i + nb.length;
    }
    throw new IllegalStateException("not found in the encoded pod: " + needle);
  }

  /** Serves {@code args[0]} pods until killed (for trying a driver by hand). */
  public static void main(String[] args) throws Exception {
    PodServer server = new PodServer(Integer.parseInt(args[0]));
    System.out.println(server.url());
    Thread.currentThread().join();
  }

  /** The base URL, e.g. {@code http://127.0.0.1:40123}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Total bytes of the full list's items. */
  public long itemBytes() {
    long sum = 0;
    for (byte[] b : full.items) {
      sum += b.length;
    }
    return sum;
  }

  /**
   * The lists started (first pages) since the last call, and resets the count: one per informer
   * in a run that never relisted. A relist during a timed phase would hand the handlers N updates
   * of unchanged objects, which must not count as events, so the harness records this per run.
   */
  public int takeLists() {
    return lists.getAndSet(0);
  }

  /** Ends every open watch (between driver runs, so no stale stream costs the next one). */
  public void endWatches() {
    for (OpenWatch w : watches) {
      w.closed = true;
      w.exchange.close();
    }
    watches.clear();
  }

  @Override
  public void close() {
    stopped.countDown();
    for (OpenWatch w : watches) {
      w.exchange.close();
    }
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String path = ex.getRequestURI().getPath();
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      String accept = ex.getRequestHeaders().getFirst("Accept");
      Corpus corpus = accept != null && accept.contains("as=PartialObjectMetadata") ? metadata : full;
      switch (path) {
        case "/api/v1/pods" -> {
          String watch = q.get("watch");
          if ("true".equals(q.get("sendInitialEvents"))) {
            // As a server whose WatchList gate is off: every driver then measures a LIST and a
            // watch, kinformer after its fallback from the streaming list it tries first.
            reply(ex, 422, STREAMING_LIST_REFUSED);
          } else if ("true".equals(watch) || "1".equals(watch)) {
            serveWatch(ex, corpus);
          } else {
            serveList(ex, corpus, q);
          }
        }
        case "/bench/burst" -> {
          burst(Integer.parseInt(q.getOrDefault("count", "0")));
          reply(ex, 200, "{}");
        }
        case "/bench/paced" -> {
          paced(Integer.parseInt(q.getOrDefault("count", "0")),
              Double.parseDouble(q.getOrDefault("rate", "100")));
          reply(ex, 200, "{}");
        }
        case "/bench/watches" -> reply(ex, 200, Integer.toString(watches.size()));
        default -> reply(ex, 404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"reason\":\"NotFound\",\"code\":404}");
      }
    } catch (IOException | RuntimeException e) {
      ex.close();
    }
  }

  private static void reply(HttpExchange ex, int code, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  private void serveList(HttpExchange ex, Corpus corpus, Map<String, String> q) throws IOException {
    int from = q.containsKey("continue") && !q.get("continue").isEmpty()
        ? Integer.parseInt(q.get("continue")) : 0;
    if (from == 0) {
      lists.incrementAndGet();
    }
    // resourceVersion=0 is served from the watch cache, which ignores limit (transcript 01 §1.6).
    int limit = q.containsKey("limit") && !"0".equals(q.get("resourceVersion"))
        ? Integer.parseInt(q.get("limit")) : 0;
    int to = limit > 0 ? Math.min(n, from + limit) : n;
    StringBuilder meta = new StringBuilder("\"metadata\":{\"resourceVersion\":\"")
        .append(listResourceVersion).append('"');
    if (to < n) {
      meta.append(",\"continue\":\"").append(to).append("\",\"remainingItemCount\":").append(n - to);
    }
    meta.append("},\"items\":[");
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = new java.io.BufferedOutputStream(ex.getResponseBody(), 1 << 16)) {
      out.write((corpus.listHead + meta).getBytes(StandardCharsets.US_ASCII));
      for (int i = from; i < to; i++) {
        if (i > from) {
          out.write(',');
        }
        out.write(corpus.items[i]);
      }
      out.write("]}".getBytes(StandardCharsets.US_ASCII));
    }
  }

  private void serveWatch(HttpExchange ex, Corpus corpus) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, 0);
    OpenWatch w = new OpenWatch(ex, new java.io.BufferedOutputStream(ex.getResponseBody(), 1 << 16),
        corpus);
    w.out.flush();
    watches.add(w);
    try {
      while (!w.broken && !w.closed && stopped.getCount() > 0) {
        stopped.await(200, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      watches.remove(w);
      ex.close();
    }
  }

  private synchronized long takeResourceVersion() {
    return nextResourceVersion++;
  }

  private void burst(int count) {
    for (int k = 0; k < count; k++) {
      long rv = takeResourceVersion();
      for (OpenWatch w : watches) {
        w.write(k % n, rv, null, false);
      }
    }
    for (OpenWatch w : watches) {
      w.flush();
    }
  }

  private void paced(int count, double rate) {
    long interval = (long) (1e9 / rate);
    long next = System.nanoTime();
    for (int k = 0; k < count; k++) {
      long now;
      while ((now = System.nanoTime()) < next) {
        LockSupport.parkNanos(next - now);
      }
      next += interval;
      long rv = takeResourceVersion();
      for (OpenWatch w : watches) {
        w.write(k % n, rv, System.nanoTime(), true);
      }
    }
  }

  private static Map<String, String> query(@Nullable String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null) {
      return q;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      q.put(k, v);
    }
    return q;
  }

  /** An open watch stream. */
  private static final class OpenWatch {
    final HttpExchange exchange;
    final OutputStream out;
    final Corpus corpus;
    volatile boolean broken;
    volatile boolean closed;

    OpenWatch(HttpExchange exchange, OutputStream out, Corpus corpus) {
      this.exchange = exchange;
      this.out = out;
      this.corpus = corpus;
    }

    synchronized void write(int i, long rv, @Nullable Long sentNanos, boolean flush) {
      if (broken) {
        return;
      }
      byte[] item = corpus.items[i].clone();
      byte[] rvDigits = Long.toString(rv).getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(rvDigits, 0, item, corpus.rvOffset[i], rvDigits.length);
      if (sentNanos != null) {
        String s = Long.toString(sentNanos);
        byte[] digits = ("0".repeat(Pods.SENT_DIGITS - s.length()) + s)
            .getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(digits, 0, item, corpus.sentOffset[i], digits.length);
      } else {
        System.arraycopy(ZERO_SENT, 0, item, corpus.sentOffset[i], ZERO_SENT.length);
      }
      try {
        out.write(EVENT_PREFIX);
        out.write(item);
        out.write(EVENT_SUFFIX);
        if (flush) {
          out.flush();
        }
      } catch (IOException e) {
        broken = true;
      }
    }

    synchronized void flush() {
      try {
        out.flush();
      } catch (IOException e) {
        broken = true;
      }
    }
  }
}

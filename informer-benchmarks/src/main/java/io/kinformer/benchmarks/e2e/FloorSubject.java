package io.kinformer.benchmarks.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.InputStream;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The floor: no informer. One unpaged list read over a plain {@code HttpURLConnection} and streamed
 * with Jackson into fabric8 {@link Pod}s in a
 * {@link HashMap}, then one watch whose events are decoded the same way and put in the map. The
 * "handler" is the map put plus a {@link Sink} call. Only {@code informers = handlers = 1}.
 *
 * <p>Thread safety: confine to the driver's main thread (the watch reader has its own).
 */
final class FloorSubject implements Subject {

  private final Map<String, Pod> cache = new HashMap<>();
  private @Nullable ObjectReader podReader; // made in start()
  private String url = "";
  private volatile boolean synced;
  private volatile boolean closed;
  private Thread thread = new Thread(() -> { });

  private ObjectReader reader() {
    return Objects.requireNonNull(podReader, "start() makes the reader");
  }

  @Override
  public void connect(String serverUrl) {
    this.url = serverUrl;
  }

  @Override
  public void start(Sink sink, int informers, int handlers) {
    if (informers != 1 || handlers != 1) {
      throw new IllegalArgumentException("the floor has one map and one reader");
    }
    // Made here, inside the timed sync, as every informer makes its decoder when it starts:
    // readerFor builds Jackson's deserializers for Pod's whole object graph (a few hundred
    // milliseconds on a cold JVM), which is part of the cost of decoding.
    podReader = JsonMapper.builder()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build()
        .readerFor(Pod.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    thread = new Thread(() -> run(sink), "floor-reader");
    thread.setDaemon(true);
    thread.start();
  }

  private void run(Sink sink) {
    try {
      String rv;
      try (InputStream in = get("/api/v1/pods"); JsonParser p = reader().createParser(in)) {
        rv = readList(p, sink);
      }
      synced = true;
      try (InputStream in = get("/api/v1/pods?watch=true&resourceVersion=" + rv);
          JsonParser p = reader().createParser(in)) {
        while (!closed && p.nextToken() == JsonToken.START_OBJECT) {
          String type = null;
          Pod pod = null;
          for (String name = p.nextName(); name != null; name = p.nextName()) {
            p.nextToken();
            if (name.equals("type")) {
              type = p.getString();
            } else if (name.equals("object")) {
              pod = reader().readValue(p);
            } else {
              p.skipChildren();
            }
          }
          if (pod != null && "MODIFIED".equals(type)) {
            cache.put(key(pod), pod);
            sink.updated(pod.getMetadata().getAnnotations());
          }
        }
      }
    } catch (RuntimeException | java.io.IOException e) {
      if (!closed) {
        e.printStackTrace();
      }
    }
  }

  private String readList(JsonParser p, Sink sink) {
    String rv = "";
    p.nextToken();
    for (String name = p.nextName(); name != null; name = p.nextName()) {
      p.nextToken();
      if (name.equals("metadata")) {
        for (String m = p.nextName(); m != null; m = p.nextName()) {
          p.nextToken();
          if (m.equals("resourceVersion")) {
            rv = p.getString();
          } else {
            p.skipChildren();
          }
        }
      } else if (name.equals("items")) {
        while (p.nextToken() == JsonToken.START_OBJECT) {
          Pod pod = reader().readValue(p);
          cache.put(key(pod), pod);
          sink.added();
        }
      } else {
        p.skipChildren();
      }
    }
    return rv;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** A plain blocking socket stream (HttpURLConnection), buffered: the cheapest way to read. */
  private InputStream get(String path) throws java.io.IOException {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection) URI.create(url + path).toURL().openConnection();
    if (c.getResponseCode() != 200) {
      throw new IllegalStateException("GET " + path + ": " + c.getResponseCode());
    }
    return new java.io.BufferedInputStream(c.getInputStream(), 1 << 16);
  }

  @Override
  public boolean synced() {
    return synced;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** The cached pods (for a sanity check). */
  int size() {
    return cache.size();
  }
}

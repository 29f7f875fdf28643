package io.kinformer.benchmarks.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;

/**
 * The server check, not a library: reads the list and the watch stream over a plain {@code
 * HttpURLConnection} and decodes nothing (it counts list items by the server's known size and
 * watch events by newline). Its figures are what the server and the loopback socket can deliver,
 * so every library's distance from them is its own cost. Only {@code informers = handlers = 1}.
 *
 * <p>Thread safety: confine to the driver's main thread (the reader has its own).
 */
final class RawSubject implements Subject {

  private final int n;
  private String url = "";
  private volatile boolean synced;
  private volatile boolean closed;

  RawSubject(int n) {
    this.n = n;
  }

  @Override
  public void connect(String serverUrl) {
    this.url = serverUrl;
  }

  @Override
  public void start(Sink sink, int informers, int handlers) {
    if (informers != 1 || handlers != 1) {
      throw new IllegalArgumentException("the raw reader has one reader");
    }
    Thread t = new Thread(() -> run(sink), "raw-reader");
    t.setDaemon(true);
    t.start();
  }

  private void run(Sink sink) {
    byte[] buf = new byte[1 << 16];
    try {
      try (InputStream in = get("/api/v1/pods")) {
        while (in.read(buf) >= 0) {
          // discard
        }
      }
      for (int i = 0; i < n; i++) {
        sink.added();
      }
      synced = true;
      try (InputStream in = get("/api/v1/pods?watch=true")) {
        for (int r = in.read(buf); r >= 0 && !closed; r = in.read(buf)) {
          for (int i = 0; i < r; i++) {
            if (buf[i] == '\n') {
              sink.updated(null);
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        e.printStackTrace();
      }
    }
  }

  private InputStream get(String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(url + path).toURL().openConnection();
    if (c.getResponseCode() != 200) {
      throw new IllegalStateException("GET " + path + ": " + c.getResponseCode());
    }
    return c.getInputStream();
  }

  @Override
  public boolean synced() {
    return synced;
  }

  @Override
  public void close() {
    closed = true;
  }
}

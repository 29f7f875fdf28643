package io.kinformer.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A raw HTTP client for protocol tests (OkHttp, not our informer). */
final class Http {

  static final JsonMapper JSON = JsonMapper.builder().build();
  static final String POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
      + "\"labels\":{\"app\":\"%s\"}},"
      + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}";

  final OkHttpClient client;
  final String base;
  final String token;

  Http(EmbeddedApiServer server) {
    this(server, new OkHttpClient.Builder());
  }

  Http(EmbeddedApiServer server, OkHttpClient.Builder builder) {
    this(server.url().toString(), server.bearerToken().orElse(null), builder);
  }

  Http(String base, String token, OkHttpClient.Builder builder) {
    this.client = builder.readTimeout(Duration.ofSeconds(30)).build();
    this.base = base;
    this.token = token;
  }

  static OkHttpClient.Builder h2cPriorKnowledge() {
    return new OkHttpClient.Builder().protocols(java.util.List.of(Protocol.H2_PRIOR_KNOWLEDGE));
  }

  record Reply(int code, String body, Headers headers, Protocol protocol) {
    JsonNode json() {
      return JSON.readTree(body);
    }
  }

  private Request.Builder req(String path) {
    Request.Builder b = new Request.Builder().url(base + path);
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  Reply call(Request request) {
    try (Response r = client.newCall(request).execute()) {
      return new Reply(r.code(), r.body().string(), r.headers(), r.protocol());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  Reply get(String path) {
    return call(req(path).get().build());
  }

  Reply get(String path, String accept) {
    return call(req(path).header("Accept", accept).get().build());
  }

  Reply post(String path, String json) {
    return call(req(path).post(RequestBody.create(json, MediaType.get("application/json")))
        .build());
  }

  Reply put(String path, String json) {
    return call(req(path).put(RequestBody.create(json, MediaType.get("application/json")))
        .build());
  }

  /** A request with a body of any content type, such as Kubernetes protobuf. */
  Reply send(String method, String path, String contentType, byte[] body, String accept) {
    return call(req(path).header("Accept", accept)
        .method(method, RequestBody.create(body, MediaType.get(contentType))).build());
  }

  Reply patch(String path, String contentType, String body) {
    return call(req(path).patch(RequestBody.create(body, MediaType.get(contentType))).build());
  }

  Reply delete(String path) {
    return call(req(path).delete().build());
  }

  Reply delete(String path, String json) {
    return call(req(path).delete(RequestBody.create(json, MediaType.get("application/json")))
        .build());
  }

  /** Creates pod {@code name} labelled {@code app=<app>} in {@code ns}; returns its RV. */
  long createPod(String ns, String name, String app) {
    Reply r = post("/api/v1/namespaces/" + ns + "/pods", String.format(POD, name, app));
    if (r.code() != 201) {
      throw new AssertionError("create failed: " + r);
    }
    return r.json().path("metadata").path("resourceVersion").asLong();
  }

  long createNamespace(String ns) {
    Reply r = post("/api/v1/namespaces",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}");
    if (r.code() != 201) {
      throw new AssertionError("create failed: " + r);
    }
    return r.json().path("metadata").path("resourceVersion").asLong();
  }

  long labelPod(String ns, String name, String key, String value) {
    Reply r = patch("/api/v1/namespaces/" + ns + "/pods/" + name, "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"" + key + "\":\"" + value + "\"}}}");
    if (r.code() != 200) {
      throw new AssertionError("patch failed: " + r);
    }
    return r.json().path("metadata").path("resourceVersion").asLong();
  }

  WatchStream watch(String path) {
    return watch(path, null);
  }

  WatchStream watch(String path, String accept) {
    Request.Builder b = req(path);
    if (accept != null) {
      b.header("Accept", accept);
    }
    try {
      okhttp3.Call call = client.newCall(b.build());
      return new WatchStream(call, call.execute());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** An open watch: lines are read on a daemon thread into a queue. */
  static final class WatchStream implements AutoCloseable {
    private static final Object END = new Object();
    final Response response;
    private final okhttp3.Call call;
    private final LinkedBlockingQueue<Object> lines = new LinkedBlockingQueue<>();

    WatchStream(okhttp3.Call call, Response response) {
      this.call = call;
      this.response = response;
      Thread t = new Thread(() -> {
        try {
          BufferedSource src = response.body().source();
          String line;
          while ((line = src.readUtf8Line()) != null) {
            lines.add(line);
          }
          lines.add(END);
        } catch (IOException | RuntimeException e) {
          lines.add(e);
        } finally {
          response.close();
        }
      }, "test-watch-reader");
      t.setDaemon(true);
      t.start();
    }

    int code() {
      return response.code();
    }

    private Object take() {
      try {
        Object o = lines.poll(20, TimeUnit.SECONDS);
        if (o == null) {
          throw new AssertionError("nothing arrived on the watch");
        }
        return o;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    /** The next raw line. */
    String nextLine() {
      Object o = take();
      if (o instanceof String s) {
        return s;
      }
      throw new AssertionError("expected a line, got " + (o == END ? "end of stream" : o));
    }

    /** The next event. */
    JsonNode next() {
      return JSON.readTree(nextLine());
    }

    /** Asserts the stream ends cleanly next. */
    void assertEnds() {
      Object o = take();
      if (o != END) {
        throw new AssertionError("expected a clean end, got " + o);
      }
    }

    /** Asserts the stream fails next (connection aborted); returns the failure. */
    Exception assertFails() {
      Object o = take();
      if (o instanceof Exception e) {
        return e;
      }
      throw new AssertionError("expected a failure, got " + (o == END ? "clean end" : o));
    }

    /** Whether nothing is waiting to be read right now. */
    boolean idle() {
      return lines.isEmpty();
    }

    /** Cancels the call; the reader thread then closes the response. */
    @Override
    public void close() {
      call.cancel();
    }
  }

  static String type(JsonNode event) {
    return event.path("type").asString();
  }

  static String name(JsonNode event) {
    return event.path("object").path("metadata").path("name").asString();
  }

  static long rv(JsonNode event) {
    return event.path("object").path("metadata").path("resourceVersion").asLong();
  }
}

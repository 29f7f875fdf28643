package io.kinformer.client.internal.http;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.codec.Codecs;
import io.kinformer.client.internal.codec.ListCodec;
import io.kinformer.client.internal.codec.StatusCodec;
import io.kinformer.client.internal.codec.UndecodableObjects;
import io.kinformer.time.Clock;
import io.kinformer.time.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs our HTTP calls on a caller-supplied {@link OkHttpClient} (the {@code KubeClient}'s, which
 * carries authentication, TLS and the connection pool) and maps failures: a non-2xx response to
 * {@link ApiException}, an I/O failure to {@link InformerException} naming the method and URL
 * (never the query, which may carry continue tokens).
 *
 * <p>Every call is synchronous on the caller's thread: a watch costs no OkHttp dispatcher thread.
 *
 * <p>Thread safety: immutable and thread-safe.
 */
public final class HttpCalls {

  /**
   * An opened watch: its call (to cancel), its response (headers read, body not yet) and its
   * running inactivity guard.
   */
  record Opened(Call call, Response response, WatchIdleGuard guard) {}

  private final OkHttpClient client;
  private final OkHttpClient watchClient;
  private final HttpUrl baseUrl;
  private final JsonMapper mapper;
  private final StatusCodec statusCodec;
  private final HttpTimeouts timeouts;
  /** The same calls decoding with the cache mapper; {@code this} when both mappers are one. */
  private final HttpCalls forCache;

  /** Whether decoding optimizations are off: see {@link #plain}. */
  private final boolean plain;

  public HttpCalls(OkHttpClient client, HttpUrl baseUrl, JsonMapper mapper, HttpTimeouts timeouts) {
    this(client, baseUrl, mapper, mapper, timeouts);
  }

  /**
   * Calls of a client whose decoding optimizations are off ({@code
   * ClientOptions.decodingOptimizations(false)}): {@link Codecs#newPlainMapper()} for every
   * object, and {@link #freezeForCache} without compacting maps.
   */
  public static HttpCalls plain(OkHttpClient client, HttpUrl baseUrl, HttpTimeouts timeouts) {
    JsonMapper mapper = Codecs.newPlainMapper();
    return new HttpCalls(client, baseUrl, mapper, mapper, timeouts, true);
  }

  /**
   * Calls decoding objects for callers with {@code mapper} and objects for informer caches (see
   * {@link #forCache()}) with {@code cacheMapper}.
   */
  public HttpCalls(
      OkHttpClient client,
      HttpUrl baseUrl,
      JsonMapper mapper,
      JsonMapper cacheMapper,
      HttpTimeouts timeouts) {
    this(client, baseUrl, mapper, cacheMapper, timeouts, false);
  }

  private HttpCalls(
      OkHttpClient client,
      HttpUrl baseUrl,
      JsonMapper mapper,
      JsonMapper cacheMapper,
      HttpTimeouts timeouts,
      boolean plain) {
    this.plain = plain;
    this.client = Objects.requireNonNull(client, "client");
    this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
    this.statusCodec = new StatusCodec(mapper.reader());
    // Watches share the client's connection pool and dispatcher, but get no call timeout (a watch
    // lasts minutes), no read timeout (okio would wake its watchdog thread on every read) and no
    // write timeout (okio would start that thread for the request's few hundred bytes): a
    // WatchIdleGuard per call is the inactivity limit instead, from before the request is written
    // until the response ends, and its cancel also ends a write that blocks.
    this.watchClient =
        client.newBuilder()
            .callTimeout(Duration.ZERO)
            .readTimeout(Duration.ZERO)
            .writeTimeout(Duration.ZERO)
            .build();
    Objects.requireNonNull(cacheMapper, "cacheMapper");
    this.forCache = cacheMapper == mapper ? this : new HttpCalls(this, cacheMapper);
  }

  private HttpCalls(HttpCalls plain, JsonMapper cacheMapper) {
    this.client = plain.client;
    this.watchClient = plain.watchClient;
    this.baseUrl = plain.baseUrl;
    this.mapper = cacheMapper;
    this.statusCodec = plain.statusCodec;
    this.timeouts = plain.timeouts;
    this.plain = plain.plain;
    this.forCache = this;
  }

  /**
   * Readies an object these calls decoded for a cache, after the informer's transform: {@link
   * Codecs#freezeForCache}, or, with decoding optimizations off, {@link
   * Codecs#freezePlainForCache}.
   */
  public <T> T freezeForCache(T obj) {
    return plain ? Codecs.freezePlainForCache(obj) : Codecs.freezeForCache(obj);
  }

  /**
   * These calls with the mapper for objects that go into informer caches ({@link
   * Codecs#newCacheMapper}: lighter; {@link Codecs#freezeForCache} makes them read-only after the
   * informer's transform), sharing everything else.
   */
  public HttpCalls forCache() {
    return forCache;
  }

  public HttpUrl baseUrl() {
    return baseUrl;
  }

  public JsonMapper mapper() {
    return mapper;
  }

  public ObjectReader reader() {
    return mapper.reader();
  }

  /** The list decoder for {@code type}. */
  <T extends HasMetadata> ListDecoder<T> listDecoder(
      ResourceType<T> type, UndecodableObjects undecodable) {
    ListCodec<T> codec = new ListCodec<>(reader(), type, undecodable);
    return codec::decode;
  }

  /** Decodes one list response body (read, not closed); {@code what} names it in messages. */
  @FunctionalInterface
  public interface ListDecoder<T extends HasMetadata> {
    ListResult<T> decode(InputStream body, String what);
  }

  public HttpTimeouts timeouts() {
    return timeouts;
  }

  /**
   * Executes a request with a whole-call timeout (body reading included).
   *
   * @return the 2xx response; the caller closes it
   * @throws ApiException for a non-2xx response
   * @throws InformerException for an I/O failure or the timeout
   */
  public Response execute(Request request, Duration callTimeout) {
    return execute(request, callTimeout, call -> {});
  }

  /**
   * {@link #execute(Request, Duration)}, showing the call to {@code beforeExecute} first (to track
   * it, so that another thread can cancel it).
   */
  public Response execute(Request request, Duration callTimeout, Consumer<Call> beforeExecute) {
    Call call = client.newCall(request);
    call.timeout().timeout(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    beforeExecute.accept(call);
    return checked(request, call);
  }

  /**
   * Opens a watch: returns once the response headers have arrived, with the call's inactivity
   * guard running (the caller points it at the body with {@link WatchIdleGuard#watch} and stops
   * it when done with the response).
   *
   * @param idle the inactivity limit: no byte for that long (headers included) cancels the call
   * @throws ApiException for a non-2xx response
   * @throws InformerException for an I/O failure, or no response headers within {@code idle}
   */
  Opened openWatch(Request request, Duration idle) {
    return openWatch(request, idle, call -> {});
  }

  /**
   * {@link #openWatch(Request, Duration)}, showing the call to {@code beforeExecute} first (to
   * track it, so that another thread can cancel it).
   */
  Opened openWatch(Request request, Duration idle, Consumer<Call> beforeExecute) {
    return openGuarded(request, idle, beforeExecute, "watch");
  }

  /**
   * Opens a list response as {@link #openWatch} opens a watch: with an inactivity limit instead of
   * a whole-call limit, so that a large list that keeps arriving is never cut.
   */
  Opened openList(Request request, Duration idle, Consumer<Call> beforeExecute) {
    return openGuarded(request, idle, beforeExecute, "list");
  }

  private Opened openGuarded(
      Request request, Duration idle, Consumer<Call> beforeExecute, String kind) {
    Call call = watchClient.newCall(request);
    beforeExecute.accept(call);
    WatchIdleGuard guard = WatchIdleGuard.start(call, idle, Clock.system(), Scheduler.system());
    try {
      return new Opened(call, checked(request, call), guard);
    } catch (RuntimeException e) {
      guard.stop();
      if (guard.fired() && !(e instanceof ApiException)) {
        throw new InformerException(
            kind + " went silent: no response within " + idle + " on " + describe(request), e);
      }
      throw e;
    }
  }

  private Response checked(Request request, Call call) {
    Response response;
    try {
      response = call.execute();
    } catch (IOException e) {
      throw new InformerException(describe(request) + " failed: " + e, e);
    }
    if (!response.isSuccessful()) {
      try (response) {
        throw statusCodec.fromResponse(response);
      }
    }
    return response;
  }

  /** {@code METHOD scheme://host:port/path}, without query or credentials. */
  public static String describe(Request request) {
    HttpUrl url = request.url().newBuilder().query(null).username("").password("").build();
    return request.method() + " " + url;
  }
}

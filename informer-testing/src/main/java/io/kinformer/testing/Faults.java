package io.kinformer.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Fault injection and request accounting for reliability tests, from {@link
 * EmbeddedApiServer#faults()}.
 *
 * <pre>{@code
 * server.faults().failNext(Verb.LIST, "pods", 2, 500);        // the next two pod lists fail
 * server.faults().compactHistory();                           // every older RV is now too old
 * server.faults().closeAllWatches();                          // clean end of every watch
 * assertThat(server.faults().requestCount(Verb.LIST, "pods")).isEqualTo(1);  // no relist
 * }</pre>
 *
 * <p>Resources are named by their plural ({@code "pods"}); a null resource means any. A name the
 * server does not serve (a typo, or a kind such as {@code "Pod"}) is refused with an {@link
 * IllegalArgumentException} that names the right one, so that a fault that could never fire fails
 * the test where it is set.
 *
 * <p>Thread safety: thread-safe; every method may be called from any thread while the server
 * runs.
 */
public final class Faults {

  private record Rule(
      Verb verb, @Nullable String resource, int status, int retryAfterSeconds,
      AtomicInteger remaining) {}

  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  /** User-Agent fragment of a partitioned client, to the status its requests fail with. */
  private final Map<String, Integer> partitions = new ConcurrentHashMap<>();
  private final Map<Verb, Duration> latency = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
  private final Set<WatchSession> watches;
  private final Store store;
  private final Registry registry;
  private volatile boolean tooOldWatchAsHttp410;
  private volatile boolean refuseStreamingLists;
  private volatile boolean ignoreShardSelectors;

  Faults(Set<WatchSession> watches, Store store, Registry registry) {
    this.watches = watches;
    this.store = store;
    this.registry = registry;
  }

  /**
   * Refuses a resource name the server does not serve, so that a typo'd fault or count fails the
   * test at once instead of never firing: a kind or singular name gets the plural suggested.
   */
  private @Nullable String served(@Nullable String resource) {
    if (resource == null) {
      return null;
    }
    List<ServedResource> all = registry.all();
    for (ServedResource r : all) {
      if (r.plural().equals(resource)) {
        return resource;
      }
    }
    for (ServedResource r : all) {
      if (r.kind().equalsIgnoreCase(resource) || r.singular().equalsIgnoreCase(resource)) {
        throw new IllegalArgumentException(
            "faults take a resource's plural name: \"" + resource + "\" names the kind "
                + r.kind() + "; use \"" + r.plural() + "\"");
      }
    }
    java.util.SortedSet<String> plurals = new java.util.TreeSet<>();
    all.forEach(r -> plurals.add(r.plural()));
    throw new IllegalArgumentException(
        "the server serves no resource \"" + resource + "\" (register it first); it serves "
            + plurals);
  }

  // ---- failures ------------------------------------------------------------------------------

  /**
   * Fails the next {@code times} requests of {@code verb} on any resource with HTTP {@code
   * status} and a matching {@code Status} body (500 InternalError, 429 TooManyRequests, 410
   * Expired, 503 ServiceUnavailable, 504 Timeout, 403 Forbidden...).
   */
  public void failNext(Verb verb, int times, int status) {
    failNext(verb, null, times, status);
  }

  /** Like {@link #failNext(Verb, int, int)}, only for {@code resource} (a plural) if not null. */
  public void failNext(Verb verb, @Nullable String resource, int times, int status) {
    failNextWithRetryAfter(verb, resource, times, status, Duration.ZERO);
  }

  /**
   * Like {@link #failNext(Verb, String, int, int)}, with a {@code Retry-After} header (whole
   * seconds, rounded up) and {@code details.retryAfterSeconds}; use it with 429 or 503.
   */
  public void failNextWithRetryAfter(
      Verb verb, @Nullable String resource, int times, int status, Duration retryAfter) {
    Objects.requireNonNull(verb, "verb");
    served(resource);
    if (times < 1) {
      throw new IllegalArgumentException("times must be positive: " + times);
    }
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be an HTTP error code: " + status);
    }
    long secs = (retryAfter.toMillis() + 999) / 1000;
    rules.add(new Rule(verb, resource, status, (int) secs, new AtomicInteger(times)));
  }

  /** Forgets every pending {@link #failNext} rule. */
  public void clearFailures() {
    rules.clear();
  }

  /** Consumes a matching failure rule, if any. */
  @Nullable ApiError takeFailure(Verb verb, @Nullable String resource) {
    for (Rule r : rules) {
      if (r.verb() != verb || (r.resource() != null && !r.resource().equals(resource))) {
        continue;
      }
      int left = r.remaining().getAndUpdate(n -> n > 0 ? n - 1 : 0);
      if (left <= 0) {
        rules.remove(r);
        continue;
      }
      if (left == 1) {
        rules.remove(r);
      }
      ApiError e = injected(r.status(), verb, r.retryAfterSeconds());
      return r.retryAfterSeconds() > 0 ? ApiError.withRetryAfter(e, r.retryAfterSeconds()) : e;
    }
    return null;
  }

  private static ApiError injected(int status, @Nullable Verb verb, int retryAfterSeconds) {
    String reason;
    String message;
    switch (status) {
      case 401:
        reason = "Unauthorized";
        message = "Unauthorized";
        break;
      case 403:
        reason = "Forbidden";
        message = "forbidden: injected fault";
        break;
      case 404:
        reason = "NotFound";
        message = "the server could not find the requested resource";
        break;
      case 409:
        reason = "Conflict";
        message = "Operation cannot be fulfilled: injected fault";
        break;
      case 410:
        reason = "Expired";
        message = verb == Verb.LIST ? "The resourceVersion for the provided list is too old."
            : verb == Verb.WATCH ? "The resourceVersion for the provided watch is too old."
            : "too old resource version: injected fault";
        break;
      case 429:
        reason = "TooManyRequests";
        message = "Too many requests, please try again later.";
        break;
      case 503:
        reason = "ServiceUnavailable";
        message = "the server is currently unable to handle the request";
        break;
      case 504:
        reason = "Timeout";
        message = "Timeout: injected fault";
        break;
      default:
        reason = "InternalError";
        message = "Internal error occurred: injected fault";
    }
    tools.jackson.databind.node.ObjectNode details = null;
    if (retryAfterSeconds > 0) {
      details = Json.MAPPER.createObjectNode();
      details.put("retryAfterSeconds", retryAfterSeconds);
    } else if (status == 500) {
      details = Json.MAPPER.createObjectNode();
      details.putArray("causes").addObject().put("message", "injected fault");
    }
    return ApiError.of(status, reason, message, details);
  }

  /**
   * Cuts one client off, as a network partition does: every request whose {@code User-Agent}
   * contains {@code userAgentFragment} fails with HTTP {@code status} (503, say) and a matching
   * Status body, whatever its verb and resource, until {@link #heal(String)}. Give each client a
   * distinct User-Agent (kinformer's {@code ClientOptions.userAgentSuffix}) to single it out.
   */
  public void partition(String userAgentFragment, int status) {
    Objects.requireNonNull(userAgentFragment, "userAgentFragment");
    if (userAgentFragment.isEmpty()) {
      throw new IllegalArgumentException("userAgentFragment must not be empty");
    }
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be an HTTP error code: " + status);
    }
    partitions.put(userAgentFragment, status);
  }

  /** Ends a {@link #partition(String, int)}; does nothing if there was none. */
  public void heal(String userAgentFragment) {
    partitions.remove(userAgentFragment);
  }

  /** The failure for a request from a partitioned client, if it is one. */
  @Nullable ApiError partitionFailure(@Nullable String userAgent, @Nullable Verb verb) {
    if (userAgent == null || partitions.isEmpty()) {
      return null;
    }
    for (Map.Entry<String, Integer> p : partitions.entrySet()) {
      if (userAgent.contains(p.getKey())) {
        return injected(p.getValue(), verb, 0);
      }
    }
    return null;
  }

  // ---- latency -------------------------------------------------------------------------------

  /** Delays every request by {@code delay} (measured on the server's Scheduler); zero clears. */
  public void latency(Duration delay) {
    for (Verb v : Verb.values()) {
      latency(v, delay);
    }
  }

  /** Delays requests of {@code verb} by {@code delay}; zero clears. */
  public void latency(Verb verb, Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    if (delay.isZero()) {
      latency.remove(verb);
    } else {
      latency.put(verb, delay);
    }
  }

  Duration latencyFor(Verb verb) {
    return latency.getOrDefault(verb, Duration.ZERO);
  }

  // ---- watches -------------------------------------------------------------------------------

  /** Ends every open watch cleanly (terminating chunk / END_STREAM), as a server timeout does. */
  public void closeAllWatches() {
    for (WatchSession w : watches) {
      w.stop(false);
    }
  }

  /**
   * Aborts every open watch's connection (no terminating chunk on HTTP/1.1, RST_STREAM on
   * HTTP/2), as a crashed server or a broken proxy does.
   */
  public void resetAllWatches() {
    for (WatchSession w : watches) {
      w.stop(true);
    }
  }

  /** Writes {@code bytes} as they are into every open watch of {@code resource} (null: all). */
  public void writeToWatches(@Nullable String resource, byte[] bytes) {
    served(resource);
    for (WatchSession w : watches) {
      if (resource == null || resource.equals(w.type.plural())) {
        w.injectRaw(bytes);
      }
    }
  }

  /** {@link #writeToWatches(String, byte[])} with UTF-8 text, for example <code>"{oops\n"</code>. */
  public void writeToWatches(@Nullable String resource, String text) {
    writeToWatches(resource, text.getBytes(StandardCharsets.UTF_8));
  }

  /** The number of watches open now on {@code resource} (null: all). */
  public int openWatches(@Nullable String resource) {
    served(resource);
    int n = 0;
    for (WatchSession w : watches) {
      if (resource == null || resource.equals(w.type.plural())) {
        n++;
      }
    }
    return n;
  }

  // ---- history -------------------------------------------------------------------------------

  /**
   * Compacts the history up to now: a watch from any earlier resourceVersion gets 410 Expired,
   * and so do earlier continue tokens and Exact lists.
   */
  public void compactHistory() {
    store.compact();
  }

  /**
   * Whether a watch from a too-old resourceVersion is refused with HTTP 410 before the stream
   * (older servers and some proxies) instead of the real server's HTTP 200 + ERROR event.
   */
  public void tooOldWatchAsHttp410(boolean enabled) {
    this.tooOldWatchAsHttp410 = enabled;
  }

  boolean tooOldWatchAsHttp410() {
    return tooOldWatchAsHttp410;
  }

  /**
   * Whether streaming lists ({@code sendInitialEvents}) are refused with 422 Invalid, as by a
   * server whose WatchList feature gate is off; a client then falls back to a list.
   */
  public void refuseStreamingLists(boolean enabled) {
    this.refuseStreamingLists = enabled;
  }

  boolean refuseStreamingLists() {
    return refuseStreamingLists;
  }

  /**
   * Whether the {@code shardSelector} parameter of lists and watches is ignored, as by a server
   * whose {@code ShardedListAndWatch} feature gate is off (the default of kube-apiserver 1.36):
   * every object is sent and no list carries {@code metadata.shardInfo}, so a client must filter
   * by itself. Off by default: the embedded server honours shard selectors.
   */
  public void ignoreShardSelectors(boolean enabled) {
    this.ignoreShardSelectors = enabled;
  }

  boolean ignoreShardSelectors() {
    return ignoreShardSelectors;
  }

  // ---- counters ------------------------------------------------------------------------------

  void count(Verb verb, @Nullable String resource) {
    counters.computeIfAbsent(verb.name() + "/" + (resource == null ? "" : resource),
        k -> new LongAdder()).increment();
  }

  /** Requests of {@code verb} received for {@code resource} (a plural), after authentication. */
  public long requestCount(Verb verb, String resource) {
    served(Objects.requireNonNull(resource, "resource"));
    LongAdder a = counters.get(verb.name() + "/" + resource);
    return a == null ? 0 : a.sum();
  }

  void countStreamingList(String resource) {
    counters.computeIfAbsent("STREAM/" + resource, k -> new LongAdder()).increment();
  }

  /**
   * Streaming lists (watches with {@code sendInitialEvents=true}, also counted as {@link
   * Verb#WATCH}) that reached the watch handler for {@code resource} (one answered by an injected
   * failure did not; one refused by {@link #refuseStreamingLists} did): with {@link
   * #requestCount(Verb, String) LIST}, how often a client asked for the full state.
   */
  public long streamingListCount(String resource) {
    served(Objects.requireNonNull(resource, "resource"));
    LongAdder a = counters.get("STREAM/" + resource);
    return a == null ? 0 : a.sum();
  }

  /** Requests of {@code verb} received for any resource, after authentication. */
  public long requestCount(Verb verb) {
    String prefix = verb.name() + "/";
    long n = 0;
    for (Map.Entry<String, LongAdder> e : counters.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        n += e.getValue().sum();
      }
    }
    return n;
  }

  /** Every non-zero counter, as {@code "LIST pods" -> 3}, for diagnostics. */
  public Map<String, Long> requestCounts() {
    Map<String, Long> out = new java.util.TreeMap<>();
    counters.forEach((k, v) -> out.put(k.replace('/', ' ').trim(), v.sum()));
    return out;
  }

  /** Zeroes every counter. */
  public void resetCounters() {
    counters.clear();
  }

  /**
   * Clears failures, partitions, latency and the HTTP 410 and streaming options; counters are
   * kept.
   */
  public void reset() {
    rules.clear();
    partitions.clear();
    latency.clear();
    tooOldWatchAsHttp410 = false;
    refuseStreamingLists = false;
    ignoreShardSelectors = false;
  }
}

package io.kinformer.client.internal.http;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.Cancellation;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListOptions;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.ShardSelector;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.ResourceType;
import io.kinformer.client.internal.codec.CodecTailStream;
import io.kinformer.client.internal.codec.UndecodableObjects;
import io.kinformer.client.internal.codec.WatchCodec;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ListerWatcher} of one resource over HTTP (client-go's {@code cache.ListWatch} built by
 * {@code NewFilteredListWatchFromClient}): lists and watches one namespace, all namespaces, or a
 * cluster-scoped resource, with fixed label and field selectors and a tweak of the options.
 *
 * <p>The reflector's options are merged with ours: a fixed selector is ANDed with one the
 * reflector sets, then the tweak function runs last (it may override anything). Every set field is
 * sent (see {@link HttpPaths#addQuery}).
 *
 * <p>Lists and watches have inactivity limits, not whole-call limits ({@link WatchIdleGuard}): a
 * list response that keeps arriving is never cut, however large, but one that sends nothing for
 * {@link HttpTimeouts#listIdle()} fails; a watch that stays silent for its {@code timeoutSeconds}
 * plus a grace, or {@link HttpTimeouts#watchIdle()}, fails too (a dead connection, an API server
 * that went away). Either is an {@link InformerException}, and the reflector tries again.
 *
 * <p>A shard selector (fixed, or set by the reflector's options or the tweak) is sent as {@code
 * shardSelector}, and also applied here: to a list the server did not echo it for ({@code
 * metadata.shardInfo} absent: a server without the {@code ShardedListAndWatch} gate ignores the
 * parameter), and to every watch event, because a watch carries no echo (a no-op when the server
 * filtered). Bookmarks and errors pass. As kube-state-metrics' {@code serverSideShardedListWatch}.
 * An object's shard cannot change (its uid and namespace are immutable), so filtering events one
 * by one never leaves a stale object in the cache.
 *
 * <p>The {@link Cancellation} of a call cancels its OkHttp call, which closes the socket: a list
 * or a watch being opened then fails at once, and a watch returned ends as if closed. A reflector's
 * close() relies on that, because OkHttp over HTTP/1.1 ignores interrupts while blocked in a socket
 * read. The cancellation is observed from before the call is executed until its response is read
 * (a list) or the watch is done with, and unregistered then.
 *
 * <p>Thread safety: thread-safe; every call runs on the caller's thread.
 *
 * @param <T> the object type
 */
public final class HttpListerWatcher<T extends HasMetadata> implements ListerWatcher<T> {

  private static final Logger log = LoggerFactory.getLogger(HttpListerWatcher.class);

  private final HttpCalls calls;
  private final ResourceType<T> type;
  private final @Nullable String namespace;
  private final @Nullable String labelSelector;
  private final @Nullable String fieldSelector;
  private final @Nullable ShardSelector shardSelector;
  private final UnaryOperator<ListOptions> tweak;
  private final HttpCalls.ListDecoder<T> listCodec;
  private final UndecodableObjects undecodable;
  /** Told how many bytes of list and watch bodies were decoded (a metric). */
  private final LongConsumer bytesDecoded;
  /** Whether the fallback to client-side shard filtering was logged (once per lister-watcher). */
  private final AtomicBoolean fallbackLogged = new AtomicBoolean();

  public HttpListerWatcher(
      HttpCalls calls,
      ResourceType<T> type,
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      @Nullable ShardSelector shardSelector,
      UnaryOperator<ListOptions> tweak,
      UndecodableObjects undecodable,
      LongConsumer bytesDecoded) {
    this.calls = Objects.requireNonNull(calls, "calls");
    this.type = Objects.requireNonNull(type, "type");
    this.namespace = type.namespaced() ? namespace : null;
    this.labelSelector = labelSelector;
    this.fieldSelector = fieldSelector;
    this.shardSelector = shardSelector;
    this.tweak = Objects.requireNonNull(tweak, "tweak");
    this.undecodable = Objects.requireNonNull(undecodable, "undecodable");
    this.bytesDecoded = Objects.requireNonNull(bytesDecoded, "bytesDecoded");
    this.listCodec = calls.listDecoder(type, undecodable);
  }

  /**
   * True: kube-apiserver 1.27+ serves streaming lists for typed, dynamic and metadata-only
   * requests alike, and an older or unwilling server refuses them, which the reflector handles by
   * listing.
   */
  @Override
  public boolean supportsWatchList() {
    return true;
  }

  /**
   * Makes every list and map of {@code obj} read-only ({@link HttpCalls#freezeForCache}): the
   * informer calls it after its transform, which therefore sees the modifiable collections
   * decoding built.
   */
  @Override
  public T prepareForCache(T obj) {
    return calls.freezeForCache(obj);
  }

  @Override
  public ListResult<T> list(ListOptions options, Cancellation cancellation) {
    Objects.requireNonNull(cancellation, "cancellation");
    ListOptions effective = effective(options);
    HttpUrl url = HttpPaths.addQuery(
        HttpPaths.collection(calls.baseUrl(), type, namespace), effective, false).build();
    Request request = new Request.Builder().url(url).header("Accept", type.listAccept()).build();
    String what = HttpCalls.describe(request);
    // Observed until the body is read: a cancel must also end a stalled read of a large list.
    try (CallCanceller canceller = new CallCanceller(cancellation)) {
      HttpCalls.Opened opened = calls.openList(request, calls.timeouts().listIdle(), canceller);
      WatchIdleGuard guard = opened.guard();
      try (Response response = opened.response()) {
        CodecTailStream body = new CodecTailStream(response.body().byteStream());
        guard.watch(body::position);
        guard.enterRead(); // decoding reads as it goes: the whole decode is one long read
        ListResult<T> result;
        try {
          result = listCodec.decode(body, what);
          bytesDecoded.accept(body.position());
        } catch (InformerException e) {
          guard.stop();
          if (guard.fired()) {
            throw new InformerException(
                "list went silent: no data for " + guard.idle() + " on " + what, e);
          }
          throw e;
        } finally {
          guard.stop();
        }
        log.debug("listed {} items={} rv={} more={}", what, result.items().size(),
            result.resourceVersion(), result.hasMore());
        return filterList(result, effective.shardSelector());
      }
    }
  }

  @Override
  public Watch<T> watch(ListOptions options, Cancellation cancellation) {
    Objects.requireNonNull(cancellation, "cancellation");
    ListOptions effective = effective(options);
    HttpUrl url = HttpPaths.addQuery(
        HttpPaths.collection(calls.baseUrl(), type, namespace), effective, true).build();
    Request request = new Request.Builder().url(url).header("Accept", type.objectAccept()).build();
    String what = HttpCalls.describe(request);
    Duration idle = calls.timeouts().watchIdleFor(effective.timeoutSeconds());
    // Observed on the call until the headers arrived, then on the watch (CancelledWatch).
    HttpCalls.Opened opened;
    try (CallCanceller canceller = new CallCanceller(cancellation)) {
      opened = calls.openWatch(request, idle, canceller);
    }
    log.debug("watch opened {} rv={} idleLimit={}", what, effective.resourceVersion(), idle);
    // The codec reads nothing until the first next(): this returns as soon as headers arrived.
    try {
      WatchCodec<T> codec =
          new WatchCodec<>(
              opened.response().body().byteStream(), calls.reader(), type, what, undecodable);
      opened.guard().watch(codec::bytesRead);
      Watch<T> w = new HttpWatch<>(
          opened.call(), opened.response(), codec, opened.guard(), what, bytesDecoded);
      ShardSelector shard = parseShard(effective.shardSelector());
      return new CancelledWatch<>(shard == null ? w : new ShardFilteredWatch<>(w, shard),
          cancellation);
    } catch (RuntimeException | Error e) {
      opened.guard().stop();
      opened.call().cancel();
      opened.response().close();
      throw e;
    }
  }

  /**
   * The page, without the objects outside the shard selector unless the server echoed it (and so
   * applied it).
   */
  private ListResult<T> filterList(ListResult<T> page, @Nullable String selector) {
    ShardSelector shard = parseShard(selector);
    if (shard == null || page.shardSelector() != null) {
      return page;
    }
    if (fallbackLogged.compareAndSet(false, true)) {
      log.info("the API server did not apply the shard selector (no metadata.shardInfo in the "
          + "list; it needs the ShardedListAndWatch feature gate): filtering on the client "
          + "resource={} shardSelector={}", type, selector);
    }
    return new ListResult<>(page.items().stream().filter(shard::matches).toList(),
        page.resourceVersion(), page.continueToken(), page.remainingItemCount(), null);
  }

  private static @Nullable ShardSelector parseShard(@Nullable String selector) {
    return selector == null || selector.isBlank() ? null : ShardSelector.parse(selector);
  }

  /**
   * The reflector's options with our fixed selectors ANDed in (a fixed shard selector applies
   * unless the options carry one), then the tweak applied.
   */
  ListOptions effective(ListOptions options) {
    Objects.requireNonNull(options, "options");
    ListOptions merged = options.toBuilder()
        .labelSelector(and(labelSelector, options.labelSelector()))
        .fieldSelector(and(fieldSelector, options.fieldSelector()))
        .shardSelector(options.shardSelector() != null || shardSelector == null
            ? options.shardSelector() : shardSelector.toString())
        .build();
    return Objects.requireNonNull(tweak.apply(merged), "the list-options tweak returned null");
  }

  private static @Nullable String and(@Nullable String fixed, @Nullable String given) {
    if (fixed == null || fixed.isEmpty()) {
      return given;
    }
    if (given == null || given.isEmpty() || given.equals(fixed)) {
      return fixed;
    }
    return fixed + "," + given;
  }

  /**
   * Shown the call before it is executed, cancels it when {@code cancellation} is (at once if it
   * already is, so that executing it fails); {@link #close()} unregisters.
   *
   * <p>Thread safety: used by the calling thread only; the cancel runs on the cancelling thread.
   */
  private static final class CallCanceller implements Consumer<Call>, AutoCloseable {
    private final Cancellation cancellation;
    private Cancellation.@Nullable Registration registration;

    CallCanceller(Cancellation cancellation) {
      this.cancellation = cancellation;
    }

    @Override
    public void accept(Call call) {
      registration = cancellation.onCancel(call::cancel); // closes the socket: a read fails
    }

    @Override
    public void close() {
      if (registration != null) {
        registration.close();
      }
    }
  }

  /**
   * A watch that {@code cancellation} closes, so that a blocked {@link #next()} returns null; it
   * unregisters once done with (closed, ended or failed), so that the watches of a long-lived
   * cancellation do not pile up on it.
   *
   * <p>Thread safety: as the watch it wraps.
   */
  private static final class CancelledWatch<T> implements Watch<T> {
    private final Watch<T> watch;
    private final Cancellation.Registration registration;

    CancelledWatch(Watch<T> watch, Cancellation cancellation) {
      this.watch = watch;
      this.registration = cancellation.onCancel(watch::close);
    }

    @Override
    public @Nullable WatchEvent<T> next() {
      WatchEvent<T> e;
      try {
        e = watch.next();
      } catch (RuntimeException | Error failed) {
        registration.close();
        throw failed;
      }
      if (e == null) {
        registration.close();
      }
      return e;
    }

    @Override
    public void close() {
      registration.close();
      watch.close();
    }
  }

  /**
   * A watch without the events of objects outside a shard.
   *
   * <p>Thread safety: as the watch it wraps.
   */
  private static final class ShardFilteredWatch<T extends HasMetadata> implements Watch<T> {
    private final Watch<T> watch;
    private final ShardSelector shard;

    ShardFilteredWatch(Watch<T> watch, ShardSelector shard) {
      this.watch = watch;
      this.shard = shard;
    }

    @Override
    public @Nullable WatchEvent<T> next() {
      while (true) {
        WatchEvent<T> e = watch.next();
        if (e == null || e.type() == WatchEventType.BOOKMARK || e.object() == null
            || shard.matches(e.object())) {
          return e;
        }
      }
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  @Override
  public String toString() {
    return "HttpListerWatcher[" + type + (namespace == null ? "" : " in " + namespace) + "]";
  }
}

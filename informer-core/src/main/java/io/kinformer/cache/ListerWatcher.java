package io.kinformer.cache;

/**
 * The source a reflector lists and watches (client-go's {@code cache.ListerWatcher}). {@code
 * informer-client} provides one over HTTP for any resource; {@code FakeListerWatcher} (informer-core's test fixtures) is an
 * in-memory one for tests.
 *
 * <p>Implementations receive the options the reflector builds (resourceVersion, paging, bookmarks,
 * timeouts) and add their own fixed ones (namespace, selectors) to each request.
 *
 * <p>Every call gets a {@link Cancellation}: a {@link Reflector} cancels it on {@link
 * Reflector#close()}, so an implementation whose requests can block (on a socket, on a server that
 * does not answer) must end them when it is cancelled: register what ends a request with {@link
 * Cancellation#onCancel} for as long as the request (or the returned watch) lasts, and close the
 * registration afterwards. Interrupting the calling thread is not enough: OkHttp over HTTP/1.1, for
 * one, does not notice an interrupt while blocked in a socket read.
 *
 * <p>Thread safety: implementations must be thread-safe.
 *
 * @param <T> the object type
 */
public interface ListerWatcher<T> {

  /**
   * Lists one page. When {@code cancellation} is cancelled, before or during the request, the
   * request fails at once with an {@link InformerException} (an implementation must not wait for
   * the server, nor for the rest of a list being read).
   *
   * @param cancellation ends the request; {@link Cancellation#none()} when nothing needs to
   * @throws ApiException if the server refused the request
   * @throws InformerException if the request failed otherwise (I/O, decoding, the cancellation)
   */
  ListResult<T> list(ListOptions options, Cancellation cancellation);

  /**
   * Opens a watch. Returns once the server has accepted it; events are then read with {@link
   * Watch#next()}. When {@code cancellation} is cancelled while the watch is being opened, this
   * fails at once with an {@link InformerException}; once it returned the watch, the watch ends:
   * a {@code next()} blocked or called later returns null, as after {@link Watch#close()}
   * (client-go's watch ends when its context is cancelled).
   *
   * @param cancellation ends the request and the watch; {@link Cancellation#none()} when nothing
   *     needs to
   * @throws ApiException if the server refused the request
   * @throws InformerException if the request failed otherwise (I/O, the cancellation)
   */
  Watch<T> watch(ListOptions options, Cancellation cancellation);

  /**
   * Whether {@link #watch} serves streaming lists: with {@code sendInitialEvents=true} it must
   * begin with the current state as ADDED events and mark their end with a bookmark annotated
   * {@value WatchEvent#INITIAL_EVENTS_END_ANNOTATION} (client-go's {@code
   * watchlist.DoesClientNotSupportWatchListSemantics}, inverted). A {@link Reflector} lists
   * instead of streaming for a ListerWatcher that says false. A server that refuses streaming lists
   * is no reason to say false: the reflector falls back to a list on its own. Default true, as in
   * client-go.
   */
  default boolean supportsWatchList() {
    return true;
  }

  /**
   * Readies an object this source returned for the cache: informers call it on every object after
   * their transform ({@link SharedIndexInformer#setTransform}) and cache what it returns. This is
   * where a source that decodes objects for a cache compacts them and makes their collections
   * read-only (informer-client's does; see {@link ReadOnlyStore}, "Cached objects"), so that the
   * transform still sees ordinary modifiable collections. It may change and return its argument.
   * The default returns {@code obj} as it is.
   *
   * <p>Thread safety: called from the informer's reflector thread, one object at a time.
   */
  default T prepareForCache(T obj) {
    return obj;
  }
}

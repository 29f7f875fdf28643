package io.kinformer.cache;

/**
 * The source a reflector lists and watches (client-go's {@code cache.ListerWatcher}). {@code
 * informer-client} provides one over HTTP for any resource; {@code FakeListerWatcher} (informer-core's test fixtures) is an
 * in-memory one for tests.
 *
 * <p>Implementations receive the options the reflector builds (resourceVersion, paging, bookmarks,
 * timeouts) and add their own fixed ones (namespace, selectors) to each request.
 *
 * <p>Thread safety: implementations must be thread-safe.
 *
 * @param <T> the object type
 */
public interface ListerWatcher<T> {

  /**
   * Lists one page.
   *
   * @throws ApiException if the server refused the request
   * @throws InformerException if the request failed otherwise (I/O, decoding)
   */
  ListResult<T> list(ListOptions options);

  /**
   * Opens a watch. Returns once the server has accepted it; events are then read with {@link
   * Watch#next()}.
   *
   * @throws ApiException if the server refused the request
   * @throws InformerException if the request failed otherwise
   */
  Watch<T> watch(ListOptions options);

  /**
   * Cancels the {@link #list} or {@link #watch} call that {@code thread} has in flight (still
   * waiting for the server, or reading a list), and makes every call that thread starts from now on
   * fail at once; a {@link Watch} already returned is not touched (close it instead). The calls
   * fail with an {@link InformerException}.
   *
   * <p>{@link Reflector#close()} calls this with its own thread when interrupting it did not end it
   * within a moment, so that it never waits on a request blocked where an interrupt does not reach
   * (OkHttp over HTTP/1.1 blocked in a socket read), as client-go cancels the context passed to
   * every request. The
   * cancellation may come before the call it is meant for is under way: an implementation must then
   * cancel or refuse that call as soon as it starts.
   *
   * <p>The default does nothing, for implementations whose calls do not block or end on an
   * interrupt (as the test fixtures' {@code FakeListerWatcher} does).
   *
   * <p>Thread safety: called from any thread, concurrently with calls on {@code thread}.
   */
  default void cancelCalls(Thread thread) {}

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

package io.kinformer.cache;

/**
 * The source a reflector lists and watches (client-go's {@code cache.ListerWatcher}). {@code
 * informer-client} provides one over HTTP for any resource; {@link FakeListerWatcher} is an
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
}

package io.kinformer.cache;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One list, page by page (client-go's {@code tools/pager.ListPager} as the reflector uses it): asks
 * for pages of {@code limit} objects following continue tokens, gathers them, and keeps the first
 * page's resourceVersion as the list's. When a continue token has expired (410 on a later page) it
 * asks once for everything unpaged at the resourceVersion first asked for ({@code
 * FullListIfExpired}). A server that ignores {@code limit} answers with a single page, which is
 * fine.
 *
 * <p>Thread safety: confine to one thread (the reflector's driving thread).
 *
 * @param <T> the object type
 */
final class Pager<T> {

  private final String resourceVersion;
  private final @Nullable Long limit;
  private final List<T> items = new ArrayList<>();

  /** The continue token of the next page; null before the second page and for a full list. */
  private @Nullable String continueToken;

  /** The resourceVersion of the first page: every page of one list is at it. */
  private String listResourceVersion = "";

  private int pages;

  /** Some page came with a continue token: the server pages this list. */
  private boolean paginated;

  /** Asks for everything unpaged at {@link #resourceVersion}, after an expired continue token. */
  private boolean fullList;

  /**
   * @param resourceVersion the resourceVersion to list at ({@code ""}: most recent, consistent)
   * @param limit the page size, or null for an unpaged list
   */
  Pager(String resourceVersion, @Nullable Long limit) {
    this.resourceVersion = resourceVersion;
    this.limit = limit;
  }

  /** The resourceVersion this list asks for. */
  String resourceVersion() {
    return resourceVersion;
  }

  /** The page size asked for, or null. */
  @Nullable Long limit() {
    return limit;
  }

  /** Whether the server answered with more than one page. */
  boolean paginated() {
    return paginated;
  }

  /** The options of the next request. */
  ListOptions nextRequest() {
    if (continueToken != null) {
      // As client-go's pager: no resourceVersion with a continue token (the server refuses both).
      return ListOptions.builder().limit(limit).continueToken(continueToken).build();
    }
    return ListOptions.builder()
        .resourceVersion(resourceVersion.isEmpty() ? null : resourceVersion)
        .limit(fullList ? null : limit)
        .build();
  }

  /**
   * Takes the answer to {@link #nextRequest()}.
   *
   * @return the whole list once its last page is in, else null (ask for the next page)
   */
  @Nullable ListResult<T> accept(ListResult<T> page) {
    if (fullList || (!page.hasMore() && pages == 0)) {
      pages++;
      return page;
    }
    if (pages == 0) {
      listResourceVersion = page.resourceVersion();
    }
    pages++;
    items.addAll(page.items());
    if (!page.hasMore()) {
      return new ListResult<>(items, listResourceVersion, null, null);
    }
    continueToken = page.continueToken();
    paginated = true;
    return null;
  }

  /**
   * Whether {@code failure} of a later page is an expired continue token; if so the next request
   * is a full unpaged list at the resourceVersion first asked for.
   */
  boolean fallBackToFullList(RuntimeException failure) {
    if (continueToken == null
        || !(failure instanceof ApiException api)
        || !api.isResourceExpired()) {
      return false;
    }
    continueToken = null;
    fullList = true;
    items.clear();
    return true;
  }

  /** The reflector state that shows this list's progress. */
  ReflectorState state() {
    if (continueToken == null) {
      return new ReflectorState.Listing(resourceVersion);
    }
    return new ReflectorState.Paging(resourceVersion, continueToken, pages, items.size());
  }
}

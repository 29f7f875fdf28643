package io.kinformer.client.internal.http;

import io.kinformer.cache.ListOptions;
import io.kinformer.client.Gvr;
import io.kinformer.client.ResourceType;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * The URLs of the Kubernetes REST API: {@code /api/v1/...} for the core group, {@code
 * /apis/{group}/{version}/...} otherwise, with {@code namespaces/{ns}/} before the resource when a
 * namespace is given; and the query of list and watch requests.
 *
 * <p>Thread safety: stateless.
 */
public final class HttpPaths {

  private HttpPaths() {}

  /**
   * The collection URL: all namespaces (or a cluster-scoped resource) when {@code namespace} is
   * null.
   */
  public static HttpUrl.Builder collection(
      HttpUrl base, ResourceType<?> type, @Nullable String namespace) {
    Gvr gvr = type.gvr();
    HttpUrl.Builder b = base.newBuilder();
    if (gvr.group().isEmpty()) {
      b.addPathSegment("api");
    } else {
      b.addPathSegment("apis").addPathSegment(gvr.group());
    }
    b.addPathSegment(gvr.version());
    if (namespace != null && type.namespaced()) {
      b.addPathSegment("namespaces").addPathSegment(namespace);
    }
    return b.addPathSegment(gvr.resource());
  }

  /** The URL of one object, or of its {@code subresource} when not null. */
  public static HttpUrl.Builder object(
      HttpUrl base,
      ResourceType<?> type,
      @Nullable String namespace,
      String name,
      @Nullable String subresource) {
    HttpUrl.Builder b = collection(base, type, namespace).addPathSegment(name);
    if (subresource != null) {
      b.addPathSegment(subresource);
    }
    return b;
  }

  /**
   * Adds every set field of {@code options} to the query, plus {@code watch=true} for a watch.
   * Fields that are not set are not sent.
   */
  static HttpUrl.Builder addQuery(HttpUrl.Builder b, ListOptions options, boolean watch) {
    if (watch) {
      b.addQueryParameter("watch", "true");
    }
    addIfSet(b, "resourceVersion", options.resourceVersion());
    addIfSet(b, "resourceVersionMatch", options.resourceVersionMatch());
    if (options.limit() != null) {
      b.addQueryParameter("limit", Long.toString(options.limit()));
    }
    addIfSet(b, "continue", options.continueToken());
    addIfSet(b, "labelSelector", options.labelSelector());
    addIfSet(b, "fieldSelector", options.fieldSelector());
    addIfSet(b, "shardSelector", options.shardSelector());
    if (options.timeoutSeconds() != null) {
      b.addQueryParameter("timeoutSeconds", Long.toString(options.timeoutSeconds()));
    }
    if (options.allowWatchBookmarks()) {
      b.addQueryParameter("allowWatchBookmarks", "true");
    }
    if (options.sendInitialEvents() != null) {
      b.addQueryParameter("sendInitialEvents", options.sendInitialEvents().toString());
    }
    return b;
  }

  private static void addIfSet(HttpUrl.Builder b, String name, @Nullable String value) {
    if (value != null && !value.isEmpty()) {
      b.addQueryParameter(name, value);
    }
  }
}

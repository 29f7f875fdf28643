package io.kinformer.client.internal.http;

import io.kinformer.cache.ApiException;
import io.kinformer.cache.InformerException;
import io.kinformer.client.Gvr;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;
import tools.jackson.databind.JsonNode;

/**
 * Looks up a resource's kind and scope in the server's discovery documents ({@code /api/v1},
 * {@code /apis/{group}/{version}}), once per group-version, and again when a resource is not in the
 * cached document. Thread-safe.
 */
public final class Discovery {

  public record Resource(String kind, boolean namespaced) {}

  private final HttpCalls calls;
  private final Map<String, Map<String, Resource>> byGroupVersion = new ConcurrentHashMap<>();

  public Discovery(HttpCalls calls) {
    this.calls = calls;
  }

  /**
   * The kind and scope of {@code gvr}.
   *
   * @throws ApiException if discovery fails, or with 404 if the group-version has no such resource
   */
  public Resource resource(Gvr gvr) {
    Map<String, Resource> resources;
    try {
      resources = byGroupVersion.computeIfAbsent(gvr.apiVersion(), gv -> fetch(gvr));
    } catch (ApiException e) {
      if (e.code() != 404) {
        throw e;
      }
      ApiException named =
          new ApiException(
              404,
              "NotFound",
              "the server has no resource "
                  + gvr
                  + ": it serves no API "
                  + gvr.apiVersion()
                  + " (discovery answered: "
                  + e.getMessage()
                  + "); check the group and version, or install the CustomResourceDefinition",
              null,
              List.of(),
              false);
      named.addSuppressed(e);
      throw named;
    }
    Resource r = resources.get(gvr.resource());
    if (r == null) {
      // The cached document may predate the resource (a CRD installed later into a group-version
      // already looked up): ask again before saying no, as client-go's deferred discovery mapper
      // resets its cache on a miss.
      resources = fetch(gvr);
      byGroupVersion.put(gvr.apiVersion(), resources);
      r = resources.get(gvr.resource());
    }
    if (r == null) {
      throw new ApiException(
          404,
          "NotFound",
          "the server has no resource "
              + gvr
              + ": "
              + gvr.apiVersion()
              + " does not list it (its resources: "
              + new java.util.TreeSet<>(resources.keySet())
              + ")",
          null,
          List.of(),
          false);
    }
    return r;
  }

  private Map<String, Resource> fetch(Gvr gvr) {
    HttpUrl.Builder url = calls.baseUrl().newBuilder();
    if (gvr.group().isEmpty()) {
      url.addPathSegment("api");
    } else {
      url.addPathSegment("apis").addPathSegment(gvr.group());
    }
    url.addPathSegment(gvr.version());
    Request request = new Request.Builder().url(url.build()).header("Accept", "application/json").build();
    try (Response response = calls.execute(request, calls.timeouts().request());
        InputStream in = response.body().byteStream()) {
      JsonNode doc = calls.mapper().readTree(in);
      Map<String, Resource> out = new ConcurrentHashMap<>();
      for (JsonNode r : doc.path("resources")) {
        String name = r.path("name").asString("");
        if (!name.isEmpty() && !name.contains("/")) {
          out.put(name, new Resource(r.path("kind").asString(""), r.path("namespaced").asBoolean(false)));
        }
      }
      return out;
    } catch (IOException e) {
      throw new InformerException("discovery of " + gvr.apiVersion() + " failed: " + e, e);
    }
  }
}

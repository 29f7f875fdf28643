package io.kinformer.client;

import java.util.Objects;

/**
 * Names a collection of the Kubernetes API: an API group (empty for the core group), a version
 * and the plural resource name, as client-go's {@code schema.GroupVersionResource}. For example
 * {@code ("", "v1", "pods")} or {@code ("apps", "v1", "deployments")}.
 *
 * <p>It is named {@code Gvr} rather than {@code GroupVersionResource} so that it does not clash by
 * simple name with fabric8's {@link io.fabric8.kubernetes.api.model.GroupVersionResource}, which a
 * controller often imports too; {@link #from} converts one.
 *
 * <p>Thread safety: immutable.
 *
 * @param group the API group; empty for the core group
 * @param version the API version, for example {@code v1}
 * @param resource the plural resource name, lower case, for example {@code pods}
 */
public record Gvr(String group, String version, String resource) {

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if the version or resource is empty, or a component contains
   *     a slash
   */
  public Gvr {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(resource, "resource");
    if (version.isEmpty()) {
      throw new IllegalArgumentException("version must not be empty (resource " + resource + ")");
    }
    if (resource.isEmpty()) {
      throw new IllegalArgumentException("resource must not be empty (version " + version + ")");
    }
    for (String part : new String[] {group, version, resource}) {
      if (part.indexOf('/') >= 0) {
        throw new IllegalArgumentException("a Gvr part contains '/': " + part);
      }
    }
  }

  /** The resource {@code resource} of version {@code version} of API group {@code group}. */
  public static Gvr of(String group, String version, String resource) {
    return new Gvr(group, version, resource);
  }

  /**
   * The same collection as fabric8's {@code GroupVersionResource} (a null group is the core group).
   *
   * @throws IllegalArgumentException if its version or resource is missing
   */
  public static Gvr from(io.fabric8.kubernetes.api.model.GroupVersionResource gvr) {
    Objects.requireNonNull(gvr, "gvr");
    return new Gvr(
        Objects.requireNonNullElse(gvr.getGroup(), ""),
        Objects.requireNonNullElse(gvr.getVersion(), ""),
        Objects.requireNonNullElse(gvr.getResource(), ""));
  }

  /** The {@code apiVersion} of its objects: {@code version} or {@code group/version}. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** {@code apiVersion/resource}, for example {@code v1/pods} or {@code apps/v1/deployments}. */
  @Override
  public String toString() {
    return apiVersion() + "/" + resource;
  }
}

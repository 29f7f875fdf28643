package io.kinformer.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ResourceClient} talks to: the resource's {@link Gvr}, its kind,
 * whether it is namespaced, and the Java class its objects decode into. Three flavours:
 *
 * <ul>
 *   <li>{@link #of(Class)}: typed, from a fabric8 model class ({@code Pod.class});
 *   <li>{@link #dynamic(Gvr, String, boolean)}: any resource, as {@link
 *       GenericKubernetesResource};
 *   <li>{@link #metadataOnly(Gvr, String, boolean)}: any resource, as {@link
 *       PartialObjectMetadata} (the server strips everything but {@code metadata}; for informers
 *       whose caches would otherwise be large).
 * </ul>
 *
 * <p>Thread safety: immutable.
 *
 * @param <T> the Java type objects decode into
 */
public final class ResourceType<T extends HasMetadata> {

  /** The {@code Accept} of a metadata-only list (answered with a PartialObjectMetadataList). */
  static final String METADATA_LIST_ACCEPT =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

  /**
   * The {@code Accept} of a metadata-only get or watch. Sending the list form on a watch gets 200
   * and an empty stream (transcript 09 §9.9), so the two must never be mixed up.
   */
  static final String METADATA_OBJECT_ACCEPT =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

  static final String JSON = "application/json";

  private static final String METADATA_KIND = "PartialObjectMetadata";
  private static final String METADATA_API_VERSION = "meta.k8s.io/v1";

  private final Gvr gvr;
  private final String kind;
  private final boolean namespaced;
  private final Class<T> javaType;
  private final boolean metadataOnly;
  private final @Nullable Method kindSetter;

  private ResourceType(
      Gvr gvr,
      String kind,
      boolean namespaced,
      Class<T> javaType,
      boolean metadataOnly) {
    this.gvr = Objects.requireNonNull(gvr, "gvr");
    this.kind = Objects.requireNonNull(kind, "kind");
    if (kind.isEmpty()) {
      throw new IllegalArgumentException("kind must not be empty for " + gvr);
    }
    this.namespaced = namespaced;
    this.javaType = Objects.requireNonNull(javaType, "javaType");
    this.metadataOnly = metadataOnly;
    this.kindSetter = findKindSetter(javaType);
  }

  /**
   * The resource of a fabric8 model class: group, version, kind and plural come from the class's
   * annotations ({@link HasMetadata#getGroup(Class)} and friends), namespaced from the {@link
   * Namespaced} marker.
   *
   * @throws IllegalArgumentException if the class carries no API version
   */
  public static <T extends HasMetadata> ResourceType<T> of(Class<T> modelClass) {
    Objects.requireNonNull(modelClass, "modelClass");
    return new ResourceType<>(gvrOf(modelClass), HasMetadata.getKind(modelClass),
        Namespaced.class.isAssignableFrom(modelClass), modelClass, false);
  }

  /**
   * Any resource, decoded as {@link GenericKubernetesResource}.
   *
   * @param gvr the resource
   * @param kind its kind (for example {@code Widget}); filled into list items, which the server
   *     sends without one
   * @param namespaced whether objects live in namespaces
   */
  public static ResourceType<GenericKubernetesResource> dynamic(
      Gvr gvr, String kind, boolean namespaced) {
    return new ResourceType<>(gvr, kind, namespaced, GenericKubernetesResource.class, false);
  }

  /**
   * Only the metadata of any resource, as {@link PartialObjectMetadata}: lists and watches ask the
   * server for {@code PartialObjectMetadataList} / {@code PartialObjectMetadata}.
   *
   * @param gvr the resource
   * @param kind the resource's own kind (for messages; the objects' kind is {@code
   *     PartialObjectMetadata})
   * @param namespaced whether objects live in namespaces
   */
  public static ResourceType<PartialObjectMetadata> metadataOnly(
      Gvr gvr, String kind, boolean namespaced) {
    return new ResourceType<>(gvr, kind, namespaced, PartialObjectMetadata.class, true);
  }

  /** Only the metadata of the resource of a fabric8 model class (see {@link #of(Class)}). */
  public static ResourceType<PartialObjectMetadata> metadataOnly(
      Class<? extends HasMetadata> modelClass) {
    ResourceType<? extends HasMetadata> typed = of(modelClass);
    return metadataOnly(typed.gvr(), typed.kind(), typed.namespaced());
  }

  private static Gvr gvrOf(Class<?> modelClass) {
    String version = HasMetadata.getVersion(modelClass);
    if (version == null || version.isEmpty()) {
      throw new IllegalArgumentException(
          "class has no @Version, so its resource is unknown: " + modelClass.getName());
    }
    String group = HasMetadata.getGroup(modelClass);
    return Gvr.of(
        group == null ? "" : group, version, HasMetadata.getPlural(modelClass));
  }

  /** The resource. */
  public Gvr gvr() {
    return gvr;
  }

  /** The resource's kind, for example {@code Pod}. */
  public String kind() {
    return kind;
  }

  /** Whether objects live in namespaces. */
  public boolean namespaced() {
    return namespaced;
  }

  /** The class objects decode into. */
  public Class<T> javaType() {
    return javaType;
  }

  /** Whether objects are {@link PartialObjectMetadata} (metadata only). */
  public boolean isMetadataOnly() {
    return metadataOnly;
  }

  /** The {@code kind} of the objects a watch brings ({@code PartialObjectMetadata} if metadata only). */
  public String watchKind() {
    return metadataOnly ? METADATA_KIND : kind;
  }

  /** The {@code apiVersion} of the objects a watch brings. */
  String watchApiVersion() {
    return metadataOnly ? METADATA_API_VERSION : gvr.apiVersion();
  }

  /** The {@code Accept} header of a list request. */
  public String listAccept() {
    return metadataOnly ? METADATA_LIST_ACCEPT : JSON;
  }

  /** The {@code Accept} header of a watch, get or write request. */
  public String objectAccept() {
    return metadataOnly ? METADATA_OBJECT_ACCEPT : JSON;
  }

  /**
   * Fills in {@code kind} and {@code apiVersion} where the server left them out (items of a typed
   * list carry neither). Runs on freshly decoded objects that nobody else has seen yet.
   */
  public void fillTypeMeta(T object) {
    String k = object.getKind();
    if (k == null || k.isEmpty()) {
      setKind(object, watchKind());
    }
    String v = object.getApiVersion();
    if (v == null || v.isEmpty()) {
      object.setApiVersion(watchApiVersion());
    }
  }

  private void setKind(T object, String value) {
    if (object instanceof GenericKubernetesResource generic) {
      generic.setKind(value);
    } else if (object instanceof PartialObjectMetadata partial) {
      partial.setKind(value);
    } else if (kindSetter != null) {
      try {
        kindSetter.invoke(object, value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot set kind on " + javaType.getName(), e);
      }
    }
  }

  private static @Nullable Method findKindSetter(Class<?> type) {
    // fabric8's typed models initialise kind in their constructor; this is a fallback for model
    // classes that do not.
    try {
      return type.getMethod("setKind", String.class);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ResourceType<?> other
        && gvr.equals(other.gvr)
        && kind.equals(other.kind)
        && namespaced == other.namespaced
        && javaType.equals(other.javaType)
        && metadataOnly == other.metadataOnly;
  }

  @Override
  public int hashCode() {
    return Objects.hash(gvr, kind, namespaced, javaType, metadataOnly);
  }

  /** For example {@code v1/pods (Pod, namespaced)} or {@code v1/pods (Pod, metadata only)}. */
  @Override
  public String toString() {
    return gvr + " (" + kind + (namespaced ? ", namespaced" : ", cluster-scoped")
        + (metadataOnly ? ", metadata only)" : ")");
  }
}

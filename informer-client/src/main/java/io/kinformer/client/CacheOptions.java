package io.kinformer.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.LabelSelector;
import io.kinformer.client.internal.http.FieldSelectors;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link SharedInformerFactory} caches of a resource, and how: the factory's defaults
 * ({@link SharedInformerFactory.Builder#defaultCacheOptions}) and per-resource entries ({@link
 * SharedInformerFactory.Builder#byResource}, {@link SharedInformerFactory.Builder#byObject}), as
 * controller-runtime's {@code cache.Options{DefaultNamespaces, ByObject}}.
 *
 * <p>Every field may be left unset (null): a per-resource entry's unset field takes the factory's
 * default, and an unset default takes the value named below. To override a default with "none",
 * set the field to its "none" value: an empty namespace set (all namespaces), {@code ""} (select
 * everything), {@link UnaryOperator#identity()} (no transform), {@link Duration#ZERO} (no resync),
 * or page size 0 (no paging).
 *
 * <pre>{@code
 * SharedInformerFactory.builder(client)
 *     .defaultCacheOptions(CacheOptions.builder().namespaces("shop", "billing").build())
 *     .byObject(Pod.class, CacheOptions.builder().labelSelector("app=web").pageSize(100).build())
 *     .byObject(Namespace.class, CacheOptions.builder().resyncPeriod(Duration.ofMinutes(5)).build())
 *     .build();
 * }</pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param namespaces the namespaces to watch: one informer for one namespace, a {@link
 *     io.kinformer.cache.MultiNamespaceInformer} (one watch per namespace, one merged cache) for
 *     several; empty for all namespaces. Ignored for cluster-scoped resources. Default all.
 * @param labelSelector a label selector the server filters by; {@code ""} selects everything.
 *     Default none
 * @param fieldSelector a field selector the server filters by; {@code ""} selects everything.
 *     Default none
 * @param transform applied to every object before it is cached and delivered (see {@link
 *     io.kinformer.cache.SharedIndexInformer#setTransform}); it must return an object of the
 *     informer's type, and be thread-safe when several informers share it. A per-resource
 *     transform replaces the default one (it does not run after it). Default none
 * @param resyncPeriod the resync period of handlers added without one (see {@link
 *     io.kinformer.cache.SharedIndexInformer#addEventHandler(io.kinformer.cache.ResourceEventHandler,
 *     Duration)}). Default zero: none
 * @param pageSize the page size of lists (see {@link
 *     io.kinformer.cache.SharedIndexInformer.Builder#pageSize}); 0 disables paging. Default: pages
 *     of 500 as client-go's reflector
 */
public record CacheOptions(
    @Nullable Set<String> namespaces,
    @Nullable String labelSelector,
    @Nullable String fieldSelector,
    @Nullable UnaryOperator<HasMetadata> transform,
    @Nullable Duration resyncPeriod,
    @Nullable Long pageSize) {

  /**
   * Validates the fields, and keeps the namespaces as an immutable set.
   *
   * @throws IllegalArgumentException if a namespace is empty, a selector does not parse, the resync
   *     period or the page size is negative
   */
  public CacheOptions {
    if (namespaces != null) {
      for (String ns : namespaces) {
        Objects.requireNonNull(ns, "namespace");
        if (ns.isEmpty()) {
          throw new IllegalArgumentException(
              "namespace must not be empty: give no namespace at all to watch all namespaces");
        }
      }
      namespaces = Set.copyOf(namespaces);
    }
    if (labelSelector != null && !labelSelector.isEmpty()) {
      LabelSelector.parse(labelSelector);
    }
    if (fieldSelector != null && !fieldSelector.isEmpty()) {
      FieldSelectors.validate(fieldSelector);
    }
    if (resyncPeriod != null && resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("resync period must not be negative: " + resyncPeriod);
    }
    if (pageSize != null && pageSize < 0) {
      throw new IllegalArgumentException("pageSize must not be negative: " + pageSize);
    }
  }

  /** Nothing set: everything falls back. */
  public static CacheOptions unset() {
    return new CacheOptions(null, null, null, null, null, null);
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder(unset());
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** These options, with every field they leave unset taken from {@code defaults}. */
  public CacheOptions orElse(CacheOptions defaults) {
    Objects.requireNonNull(defaults, "defaults");
    return new CacheOptions(
        namespaces != null ? namespaces : defaults.namespaces,
        labelSelector != null ? labelSelector : defaults.labelSelector,
        fieldSelector != null ? fieldSelector : defaults.fieldSelector,
        transform != null ? transform : defaults.transform,
        resyncPeriod != null ? resyncPeriod : defaults.resyncPeriod,
        pageSize != null ? pageSize : defaults.pageSize);
  }

  /**
   * Builds {@link CacheOptions}; every setter sets one field (null unsets it).
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private @Nullable Set<String> namespaces;
    private @Nullable String labelSelector;
    private @Nullable String fieldSelector;
    private @Nullable UnaryOperator<HasMetadata> transform;
    private @Nullable Duration resyncPeriod;
    private @Nullable Long pageSize;

    private Builder(CacheOptions from) {
      this.namespaces = from.namespaces;
      this.labelSelector = from.labelSelector;
      this.fieldSelector = from.fieldSelector;
      this.transform = from.transform;
      this.resyncPeriod = from.resyncPeriod;
      this.pageSize = from.pageSize;
    }

    /** The namespaces to watch; none: all namespaces. */
    public Builder namespaces(String... namespaces) {
      return namespaces(java.util.List.of(namespaces));
    }

    /** The namespaces to watch; empty: all namespaces; null: unset. */
    public Builder namespaces(@Nullable Collection<String> namespaces) {
      this.namespaces = namespaces == null ? null : new TreeSet<>(namespaces);
      return this;
    }

    /** The label selector; {@code ""}: everything; null: unset. */
    public Builder labelSelector(@Nullable String selector) {
      this.labelSelector = selector;
      return this;
    }

    /** The field selector; {@code ""}: everything; null: unset. */
    public Builder fieldSelector(@Nullable String selector) {
      this.fieldSelector = selector;
      return this;
    }

    /** The transform; {@link UnaryOperator#identity()}: none; null: unset. */
    public Builder transform(@Nullable UnaryOperator<HasMetadata> transform) {
      this.transform = transform;
      return this;
    }

    /** The handlers' default resync period; zero: none; null: unset. */
    public Builder resyncPeriod(@Nullable Duration period) {
      this.resyncPeriod = period;
      return this;
    }

    /** The list page size; 0: no paging; null: unset. */
    public Builder pageSize(@Nullable Long pageSize) {
      this.pageSize = pageSize;
      return this;
    }

    /** As {@link #pageSize(Long)}. */
    public Builder pageSize(long pageSize) {
      return pageSize(Long.valueOf(pageSize));
    }

    /**
     * Builds the options.
     *
     * @throws IllegalArgumentException as {@link CacheOptions}
     */
    public CacheOptions build() {
      return new CacheOptions(
          namespaces, labelSelector, fieldSelector, transform, resyncPeriod, pageSize);
    }
  }
}

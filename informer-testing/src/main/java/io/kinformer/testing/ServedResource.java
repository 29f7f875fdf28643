package io.kinformer.testing;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A kind of object the embedded server serves: its group, version, kind, plural resource name and
 * scope, as a CustomResourceDefinition would declare it.
 *
 * <pre>{@code
 * server.register(ServedResource.namespaced("example.com", "v1", "Widget", "widgets")
 *     .withStatusSubresource());
 * }</pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param group the API group; empty for the core group ({@code /api/v1})
 * @param version the API version, for example {@code v1}
 * @param kind the kind, for example {@code Widget}
 * @param plural the resource name in URLs, for example {@code widgets}
 * @param singular the singular name shown by discovery
 * @param namespaced whether objects live in a namespace
 * @param statusSubresource whether {@code /status} is a subresource: then the main resource
 *     ignores changes to {@code status}, and {@code /status} ignores everything else
 * @param hasGeneration whether {@code metadata.generation} is maintained (bumped when anything but
 *     metadata and status changes)
 * @param shortNames discovery short names, for kubectl
 * @param bookmarkBody the JSON members (without braces) after {@code metadata} in a BOOKMARK
 *     object, mimicking the zero value of a typed kind, for example {@code
 *     "spec":{"containers":null},"status":{}} for pods; empty for custom resources
 * @param printerColumns a custom resource's additional printer columns, shown by {@code kubectl
 *     get} after NAME; empty for a CRD's default columns (NAME, AGE)
 * @param scale the {@code /scale} subresource of a custom resource; null for none (the built-in
 *     workloads have theirs)
 */
public record ServedResource(
    String group,
    String version,
    String kind,
    String plural,
    String singular,
    boolean namespaced,
    boolean statusSubresource,
    boolean hasGeneration,
    List<String> shortNames,
    String bookmarkBody,
    List<PrinterColumn> printerColumns,
    @Nullable ScaleSubresource scale) {

  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /** Validates every component. */
  public ServedResource {
    Objects.requireNonNull(group, "group");
    requireMatch(version, "version");
    Objects.requireNonNull(kind, "kind");
    if (kind.isEmpty() || !Character.isUpperCase(kind.charAt(0))) {
      throw new IllegalArgumentException("kind must start with an upper-case letter: " + kind);
    }
    requireMatch(plural, "plural");
    Objects.requireNonNull(singular, "singular");
    shortNames = List.copyOf(shortNames);
    Objects.requireNonNull(bookmarkBody, "bookmarkBody");
    printerColumns = List.copyOf(printerColumns);
    if (!group.isEmpty()) {
      requireMatch(group, "group");
    }
  }

  /** A type without printer columns or scale subresource. */
  public ServedResource(
      String group,
      String version,
      String kind,
      String plural,
      String singular,
      boolean namespaced,
      boolean statusSubresource,
      boolean hasGeneration,
      List<String> shortNames,
      String bookmarkBody) {
    this(group, version, kind, plural, singular, namespaced, statusSubresource, hasGeneration,
        shortNames, bookmarkBody, List.of(), null);
  }

  private static void requireMatch(@Nullable String value, String what) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new IllegalArgumentException("invalid " + what + ": " + value);
    }
  }

  /** A namespaced custom resource with generation tracking and no status subresource. */
  public static ServedResource namespaced(String group, String version, String kind, String plural) {
    return new ServedResource(
        group, version, kind, plural, kind.toLowerCase(Locale.ROOT), true, false, true, List.of(),
        "");
  }

  /** A cluster-scoped custom resource with generation tracking and no status subresource. */
  public static ServedResource clusterScoped(
      String group, String version, String kind, String plural) {
    return new ServedResource(
        group, version, kind, plural, kind.toLowerCase(Locale.ROOT), false, false, true, List.of(),
        "");
  }

  /** This type with a {@code /status} subresource. */
  public ServedResource withStatusSubresource() {
    return new ServedResource(
        group, version, kind, plural, singular, namespaced, true, hasGeneration, shortNames,
        bookmarkBody, printerColumns, scale);
  }

  /** This type with the given discovery short names. */
  public ServedResource withShortNames(String... names) {
    return new ServedResource(
        group, version, kind, plural, singular, namespaced, statusSubresource, hasGeneration,
        List.of(names), bookmarkBody, printerColumns, scale);
  }

  /**
   * This type with additional printer columns: {@code kubectl get} shows NAME and these columns,
   * as for a CustomResourceDefinition's {@code additionalPrinterColumns}. As there, declaring
   * columns replaces the default AGE column; add {@code PrinterColumn.of("Age", "date",
   * ".metadata.creationTimestamp")} to keep it.
   */
  public ServedResource withPrinterColumns(PrinterColumn... columns) {
    return new ServedResource(
        group, version, kind, plural, singular, namespaced, statusSubresource, hasGeneration,
        shortNames, bookmarkBody, List.of(columns), scale);
  }

  /** This type with a {@code /scale} subresource reading and writing the given fields. */
  public ServedResource withScaleSubresource(ScaleSubresource scale) {
    return new ServedResource(
        group, version, kind, plural, singular, namespaced, statusSubresource, hasGeneration,
        shortNames, bookmarkBody, printerColumns, Objects.requireNonNull(scale, "scale"));
  }

  /** {@code v1} for the core group, else {@code group/version}. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** {@code plural} for the core group, else {@code plural.group}, as kubectl names it. */
  public String qualifiedName() {
    return group.isEmpty() ? plural : plural + "." + group;
  }
}

package io.kinformer.testing;

import java.util.Objects;

/**
 * One of a custom resource's additional printer columns, as a CustomResourceDefinition's {@code
 * additionalPrinterColumns} declares it: the server fills the column of a {@code kubectl get}
 * table from the object's field at {@link #jsonPath}.
 *
 * <pre>{@code
 * ServedResource.namespaced("example.com", "v1", "Widget", "widgets")
 *     .withPrinterColumns(PrinterColumn.of("Size", "integer", ".spec.size"));
 * }</pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param name the column's header
 * @param type the column's type: {@code string}, {@code integer}, {@code number}, {@code boolean}
 *     or {@code date} (an age is printed for a date)
 * @param jsonPath the simple JSONPath of the field shown, such as {@code .spec.size} or {@code
 *     .spec.containers[0].image}
 * @param description the column's description
 * @param priority 0 to show the column always, more to show it only with {@code -o wide}
 * @param format an optional format hint, such as {@code name}; empty for none
 */
public record PrinterColumn(
    String name, String type, String jsonPath, String description, int priority, String format) {

  /** Validates every component. */
  public PrinterColumn {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(jsonPath, "jsonPath");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(format, "format");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("a printer column needs a name");
    }
    if (!java.util.Set.of("string", "integer", "number", "boolean", "date").contains(type)) {
      throw new IllegalArgumentException("printer column " + name + ": type must be string, "
          + "integer, number, boolean or date, not " + type);
    }
    if (!jsonPath.startsWith(".")) {
      throw new IllegalArgumentException("printer column " + name
          + ": jsonPath must start with '.', such as .spec.size: " + jsonPath);
    }
    if (priority < 0) {
      throw new IllegalArgumentException("printer column " + name
          + ": priority must not be negative: " + priority);
    }
  }

  /** A column shown always, without description or format. */
  public static PrinterColumn of(String name, String type, String jsonPath) {
    return new PrinterColumn(name, type, jsonPath, "", 0, "");
  }

  /** This column with {@code priority} (more than 0: shown only with {@code -o wide}). */
  public PrinterColumn withPriority(int priority) {
    return new PrinterColumn(name, type, jsonPath, description, priority, format);
  }
}

package io.kinformer.testing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A custom resource's {@code /scale} subresource, as a CustomResourceDefinition's {@code
 * subresources.scale} declares it: where the object keeps its desired and current replica counts
 * and its label selector. Reading {@code .../NAME/scale} answers an autoscaling/v1 Scale from
 * these fields; writing it sets the field at {@link #specReplicasPath}.
 *
 * <p>Thread safety: immutable.
 *
 * @param specReplicasPath the JSON path of the desired replicas, such as {@code .spec.replicas}
 * @param statusReplicasPath the JSON path of the current replicas, such as {@code
 *     .status.replicas}
 * @param labelSelectorPath the JSON path of the selector string, such as {@code
 *     .status.selector}; null for none
 */
public record ScaleSubresource(
    String specReplicasPath, String statusReplicasPath, @Nullable String labelSelectorPath) {

  /** Validates the paths. */
  public ScaleSubresource {
    check(Objects.requireNonNull(specReplicasPath, "specReplicasPath"), "specReplicasPath");
    check(Objects.requireNonNull(statusReplicasPath, "statusReplicasPath"),
        "statusReplicasPath");
    if (labelSelectorPath != null) {
      check(labelSelectorPath, "labelSelectorPath");
    }
    // The rules of a CustomResourceDefinition's validation.
    if (!specReplicasPath.startsWith(".spec.")) {
      throw new IllegalArgumentException(
          "specReplicasPath must be under .spec, such as .spec.replicas: " + specReplicasPath);
    }
    if (!statusReplicasPath.startsWith(".status.")) {
      throw new IllegalArgumentException("statusReplicasPath must be under .status, such as "
          + ".status.replicas: " + statusReplicasPath);
    }
    if (labelSelectorPath != null && !labelSelectorPath.startsWith(".spec.")
        && !labelSelectorPath.startsWith(".status.")) {
      throw new IllegalArgumentException("labelSelectorPath must be under .spec or .status, "
          + "such as .status.selector: " + labelSelectorPath);
    }
  }

  private static void check(String path, String what) {
    if (!path.matches("(\\.[A-Za-z0-9_-]+)+")) {
      throw new IllegalArgumentException(what
          + " must be a dotted field path such as .spec.replicas: " + path);
    }
  }
}

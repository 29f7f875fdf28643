package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one PEM item (certificate bundle or private key) comes from: inline bytes or a file, plus
 * the label that error messages use for it (for example {@code ~/.kube/config:
 * users[dev].user.client-key-data}).
 *
 * <p>{@link #toString()} names the label and file only, never the content: a key must not reach a
 * log through this object.
 *
 * <p>Thread safety: immutable.
 */
public final class PemSource {

  private final String label;
  private final @Nullable Path file;
  private final byte @Nullable [] data;

  private PemSource(String label, @Nullable Path file, byte @Nullable [] data) {
    this.label = Objects.requireNonNull(label, "label");
    this.file = file;
    this.data = data;
  }

  public static PemSource ofData(String label, byte[] data) {
    return new PemSource(label, null, data.clone());
  }

  public static PemSource ofFile(String label, Path file) {
    return new PemSource(label, Objects.requireNonNull(file, "file"), null);
  }

  /** The label errors use, e.g. {@code file: users[dev].user.client-key}. */
  public String label() {
    return label;
  }

  public @Nullable Path file() {
    return file;
  }

  /**
   * The bytes, read from the file now if this source is a file.
   *
   * @throws KubeConfigException naming the label and file when the file cannot be read
   */
  public byte[] read() {
    if (data != null) {
      return data.clone();
    }
    try {
      return Files.readAllBytes(Objects.requireNonNull(file));
    } catch (IOException | SecurityException e) {
      throw new KubeConfigException(
          label + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof PemSource other
        && label.equals(other.label)
        && Objects.equals(file, other.file)
        && Arrays.equals(data, other.data);
  }

  @Override
  public int hashCode() {
    return Objects.hash(label, file, Arrays.hashCode(data));
  }

  @Override
  public String toString() {
    return file != null ? label + " (file " + file + ")" : label + " (inline data)";
  }
}

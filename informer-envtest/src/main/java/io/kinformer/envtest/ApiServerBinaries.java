package io.kinformer.envtest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Where the API server and etcd binaries of an {@link ApiServer} are, and which kind of API
 * server it is.
 *
 * <p>{@link #locate()} looks, in this order, at
 * <ol>
 *   <li>the system property {@code kinformer.apiserver.dir} or the environment variable
 *       {@code KINFORMER_APISERVER_DIR}: a directory holding {@code kinformer-apiserver} (or
 *       {@code kube-apiserver}) and {@code etcd};
 *   <li>{@code KUBEBUILDER_ASSETS}, the envtest convention: a directory holding
 *       {@code kube-apiserver} and {@code etcd};
 *   <li>{@code ${KINFORMER_CACHE:-$HOME/.cache/kinformer}/apiserver/current}, where
 *       {@code informer-testing/apiserver/build.sh} leaves what it builds.
 * </ol>
 *
 * <p>The first of these that is set is the only place looked at: a directory named explicitly
 * that lacks a binary is an error ({@link #notFoundReason()} says which file is missing or not
 * executable), not a reason to fall back to another. A directory holding both
 * {@code kinformer-apiserver} and {@code kube-apiserver} runs {@code kinformer-apiserver}.
 *
 * <p>Thread safety: immutable.
 *
 * @param flavor which API server {@code apiServer} is; it decides the flags it is given
 * @param apiServer the API server executable
 * @param etcd the etcd executable
 */
public record ApiServerBinaries(Flavor flavor, Path apiServer, Path etcd) {

  /** The kinds of API server the launcher knows how to start. Thread safety: immutable. */
  public enum Flavor {
    /** {@code kinformer-apiserver}, built from k8s.io/apiserver by build.sh. */
    KINFORMER,
    /** A stock {@code kube-apiserver}. */
    KUBE_APISERVER
  }

  /** The system property naming a directory of binaries; wins over everything else. */
  public static final String DIR_PROPERTY = "kinformer.apiserver.dir";

  /** Validates that both files are given. */
  public ApiServerBinaries {
    Objects.requireNonNull(flavor, "flavor");
    Objects.requireNonNull(apiServer, "apiServer");
    Objects.requireNonNull(etcd, "etcd");
  }

  /**
   * Finds the binaries as the class description says, in this process's system properties and
   * environment.
   *
   * @return the binaries, or empty when none of the places holds them; {@link #notFoundReason()}
   *     then says where it looked
   */
  public static Optional<ApiServerBinaries> locate() {
    return locate(System.getenv(), System::getProperty);
  }

  static Optional<ApiServerBinaries> locate(
      Map<String, String> env, Function<String, @Nullable String> properties) {
    return inDirectory(searched(env, properties).dir());
  }

  /** The one directory {@link #locate()} looks in, and what named it. */
  private record Searched(Path dir, String namedBy) {}

  private static Searched searched(
      Map<String, String> env, Function<String, @Nullable String> properties) {
    String explicit = properties.apply(DIR_PROPERTY);
    if (explicit != null && !explicit.isBlank()) {
      return new Searched(Path.of(explicit), "-D" + DIR_PROPERTY);
    }
    explicit = env.get("KINFORMER_APISERVER_DIR");
    if (explicit != null && !explicit.isBlank()) {
      return new Searched(Path.of(explicit), "KINFORMER_APISERVER_DIR");
    }
    String assets = env.get("KUBEBUILDER_ASSETS");
    if (assets != null && !assets.isBlank()) {
      return new Searched(Path.of(assets), "KUBEBUILDER_ASSETS");
    }
    return new Searched(cacheDirectory(env).resolve("current"), "");
  }

  /**
   * The binaries in one directory: {@code kinformer-apiserver} or else {@code kube-apiserver},
   * and {@code etcd}.
   */
  public static Optional<ApiServerBinaries> inDirectory(Path dir) {
    Path etcd = dir.resolve("etcd");
    if (!Files.isRegularFile(etcd) || !Files.isExecutable(etcd)) {
      return Optional.empty();
    }
    Path ours = dir.resolve("kinformer-apiserver");
    if (Files.isRegularFile(ours) && Files.isExecutable(ours)) {
      return Optional.of(new ApiServerBinaries(Flavor.KINFORMER, ours, etcd));
    }
    Path kube = dir.resolve("kube-apiserver");
    if (Files.isRegularFile(kube) && Files.isExecutable(kube)) {
      return Optional.of(new ApiServerBinaries(Flavor.KUBE_APISERVER, kube, etcd));
    }
    return Optional.empty();
  }

  /** Where build.sh keeps its results on this machine. */
  static Path cacheDirectory(Map<String, String> env) {
    String cache = env.get("KINFORMER_CACHE");
    Path root = cache != null && !cache.isBlank()
        ? Path.of(cache)
        : Path.of(System.getProperty("user.home"), ".cache", "kinformer");
    return root.resolve("apiserver");
  }

  /** Why {@link #locate()} found nothing, naming the places it looked and how to fill one. */
  public static String notFoundReason() {
    return notFoundReason(System.getenv(), System::getProperty);
  }

  static String notFoundReason(
      Map<String, String> env, Function<String, @Nullable String> properties) {
    Searched searched = searched(env, properties);
    String missing = missing(searched.dir());
    if (!searched.namedBy().isEmpty()) {
      return "no API server binaries in " + searched.dir() + " (named by " + searched.namedBy()
          + "): " + missing + "; it needs etcd, and kinformer-apiserver or kube-apiserver, "
          + "executable";
    }
    return "no API server binaries in " + searched.dir() + " (" + missing + "): build them with "
        + "informer-testing/apiserver/build.sh, or point KUBEBUILDER_ASSETS (or -D" + DIR_PROPERTY
        + ") at a directory with kube-apiserver and etcd";
  }

  /** What of the binaries {@code dir} lacks, for a message. */
  private static String missing(Path dir) {
    if (!Files.isDirectory(dir)) {
      return "no such directory";
    }
    List<String> problems = new ArrayList<>();
    problems.add(problem(dir.resolve("etcd")));
    String ours = problem(dir.resolve("kinformer-apiserver"));
    String kube = problem(dir.resolve("kube-apiserver"));
    if (!ours.isEmpty() && !kube.isEmpty()) {
      problems.add(ours);
      problems.add(kube);
    }
    problems.removeIf(String::isEmpty);
    return String.join(", ", problems);
  }

  private static String problem(Path file) {
    if (!Files.exists(file)) {
      return file.getFileName() + " is missing";
    }
    if (!Files.isRegularFile(file) || !Files.isExecutable(file)) {
      return file.getFileName() + " is not an executable file";
    }
    return "";
  }
}

package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiServerBinariesTest {

  @TempDir Path tmp;

  private static Path executable(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    Path file = Files.writeString(dir.resolve(name), "#!/bin/sh\n");
    assertThat(file.toFile().setExecutable(true)).isTrue();
    return file;
  }

  @Test
  void locate_whenPropertyNamesDirectoryWithOurServer_findsKinformerFlavor() throws IOException {
    Path dir = tmp.resolve("ours");
    Path server = executable(dir, "kinformer-apiserver");
    executable(dir, "etcd");

    Optional<ApiServerBinaries> found = ApiServerBinaries.locate(
        Map.of(), p -> p.equals(ApiServerBinaries.DIR_PROPERTY) ? dir.toString() : null);

    assertThat(found).contains(new ApiServerBinaries(
        ApiServerBinaries.Flavor.KINFORMER, server, dir.resolve("etcd")));
  }

  @Test
  void locate_whenKubebuilderAssetsHoldKubeApiserver_findsKubeFlavor() throws IOException {
    Path assets = tmp.resolve("assets");
    executable(assets, "kube-apiserver");
    executable(assets, "etcd");

    Optional<ApiServerBinaries> found =
        ApiServerBinaries.locate(Map.of("KUBEBUILDER_ASSETS", assets.toString()), p -> null);

    assertThat(found).map(ApiServerBinaries::flavor)
        .contains(ApiServerBinaries.Flavor.KUBE_APISERVER);
  }

  @Test
  void locate_whenPropertyAndKubebuilderAssetsBothSet_prefersProperty() throws IOException {
    Path ours = tmp.resolve("ours");
    executable(ours, "kinformer-apiserver");
    executable(ours, "etcd");
    Path assets = tmp.resolve("assets");
    executable(assets, "kube-apiserver");
    executable(assets, "etcd");

    Optional<ApiServerBinaries> found = ApiServerBinaries.locate(
        Map.of("KUBEBUILDER_ASSETS", assets.toString()),
        p -> p.equals(ApiServerBinaries.DIR_PROPERTY) ? ours.toString() : null);

    assertThat(found).map(ApiServerBinaries::flavor).contains(ApiServerBinaries.Flavor.KINFORMER);
  }

  @Test
  void locate_whenCacheHoldsBuildOutput_findsIt() throws IOException {
    Path current = tmp.resolve("cache/apiserver/current");
    executable(current, "kinformer-apiserver");
    executable(current, "etcd");

    Optional<ApiServerBinaries> found = ApiServerBinaries.locate(
        Map.of("KINFORMER_CACHE", tmp.resolve("cache").toString()), p -> null);

    assertThat(found).map(ApiServerBinaries::apiServer)
        .contains(current.resolve("kinformer-apiserver"));
  }

  @Test
  void locate_whenEtcdIsMissing_findsNothing() throws IOException {
    Path dir = tmp.resolve("half");
    executable(dir, "kinformer-apiserver");

    assertThat(ApiServerBinaries.inDirectory(dir)).isEmpty();
  }

  @Test
  void locate_whenNothingAnywhere_isEmptyAndReasonSaysHowToBuildOrNameThem() {
    Map<String, String> env = Map.of("KINFORMER_CACHE", tmp.resolve("empty").toString());

    assertThat(ApiServerBinaries.locate(env, p -> null)).isEmpty();
    assertThat(ApiServerBinaries.notFoundReason(env, p -> null))
        .contains(tmp.resolve("empty/apiserver/current").toString())
        .contains("no such directory")
        .contains("informer-testing/apiserver/build.sh")
        .contains("KUBEBUILDER_ASSETS");
  }

  @Test
  void locate_whenKubebuilderAssetsLackEtcd_isEmptyAndReasonNamesTheMissingFile()
      throws IOException {
    Path assets = tmp.resolve("assets");
    executable(assets, "kube-apiserver");
    Map<String, String> env = Map.of("KUBEBUILDER_ASSETS", assets.toString());

    assertThat(ApiServerBinaries.locate(env, p -> null)).isEmpty();
    assertThat(ApiServerBinaries.notFoundReason(env, p -> null))
        .startsWith("no API server binaries in " + assets + " (named by KUBEBUILDER_ASSETS)")
        .contains("etcd is missing")
        .doesNotContain("kube-apiserver is");
  }

  @Test
  void locate_whenKubeApiserverIsNotExecutable_reasonSaysSo() throws IOException {
    Path assets = tmp.resolve("assets");
    executable(assets, "etcd");
    Files.writeString(assets.resolve("kube-apiserver"), "not a program");
    Map<String, String> env = Map.of("KUBEBUILDER_ASSETS", assets.toString());

    assertThat(ApiServerBinaries.locate(env, p -> null)).isEmpty();
    assertThat(ApiServerBinaries.notFoundReason(env, p -> null))
        .contains("kube-apiserver is not an executable file")
        .contains("kinformer-apiserver is missing")
        .doesNotContain("etcd is");
  }

  @Test
  void locate_whenKubebuilderAssetsNameAMissingDirectory_doesNotFallBackToTheCache()
      throws IOException {
    Path current = tmp.resolve("cache/apiserver/current");
    executable(current, "kinformer-apiserver");
    executable(current, "etcd");
    Map<String, String> env = Map.of("KINFORMER_CACHE", tmp.resolve("cache").toString(),
        "KUBEBUILDER_ASSETS", tmp.resolve("nowhere").toString());

    assertThat(ApiServerBinaries.locate(env, p -> null)).isEmpty();
    assertThat(ApiServerBinaries.notFoundReason(env, p -> null))
        .contains(tmp.resolve("nowhere") + " (named by KUBEBUILDER_ASSETS): no such directory");
  }

  @Test
  void locate_whenKubebuilderAssetsIsBlank_usesTheCache() throws IOException {
    Path current = tmp.resolve("cache/apiserver/current");
    executable(current, "kinformer-apiserver");
    executable(current, "etcd");

    Optional<ApiServerBinaries> found = ApiServerBinaries.locate(
        Map.of("KINFORMER_CACHE", tmp.resolve("cache").toString(), "KUBEBUILDER_ASSETS", " "),
        p -> null);

    assertThat(found).map(ApiServerBinaries::flavor).contains(ApiServerBinaries.Flavor.KINFORMER);
  }

  @Test
  void locate_whenKubebuilderAssetsHoldBothServers_runsOurs() throws IOException {
    Path assets = tmp.resolve("assets");
    Path ours = executable(assets, "kinformer-apiserver");
    executable(assets, "kube-apiserver");
    Path etcd = executable(assets, "etcd");

    Optional<ApiServerBinaries> found =
        ApiServerBinaries.locate(Map.of("KUBEBUILDER_ASSETS", assets.toString()), p -> null);

    assertThat(found).contains(
        new ApiServerBinaries(ApiServerBinaries.Flavor.KINFORMER, ours, etcd));
  }

  @Test
  void notFoundReason_forDirectoryProperty_namesTheProperty() {
    Path dir = tmp.resolve("named");

    assertThat(ApiServerBinaries.notFoundReason(Map.of(),
            p -> p.equals(ApiServerBinaries.DIR_PROPERTY) ? dir.toString() : null))
        .startsWith("no API server binaries in " + dir + " (named by -D"
            + ApiServerBinaries.DIR_PROPERTY + "): no such directory");
  }
}

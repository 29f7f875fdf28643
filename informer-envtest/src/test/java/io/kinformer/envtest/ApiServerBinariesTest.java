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
  void locate_whenNothingAnywhere_isEmpty() {
    Optional<ApiServerBinaries> found = ApiServerBinaries.locate(
        Map.of("KINFORMER_CACHE", tmp.resolve("empty").toString()), p -> null);

    assertThat(found).isEmpty();
    assertThat(ApiServerBinaries.notFoundReason())
        .contains("informer-testing/apiserver/build.sh")
        .contains("KUBEBUILDER_ASSETS");
  }
}

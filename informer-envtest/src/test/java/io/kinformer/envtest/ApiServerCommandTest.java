package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API server's command line for each flavor: a stock kube-apiserver (from
 * KUBEBUILDER_ASSETS) needs service-account keys, a service IP range and an authorization mode
 * that kinformer-apiserver neither needs nor accepts. No binary runs here.
 */
class ApiServerCommandTest {

  @TempDir Path tmp;

  private List<String> command(ApiServerBinaries.Flavor flavor, String... extra)
      throws IOException {
    Pki pki = Pki.generate(Files.createDirectories(tmp.resolve("pki")),
        Instant.parse("2026-01-01T00:00:00Z"));
    ApiServerBinaries binaries =
        new ApiServerBinaries(flavor, tmp.resolve("server"), tmp.resolve("etcd"));
    return ApiServer.apiServerCommand(binaries, 2379, 6443, pki, tmp, List.of(extra));
  }

  @Test
  void kubeApiserver_getsServiceAccountKeysIpRangeAndAuthorization() throws IOException {
    List<String> cmd = command(ApiServerBinaries.Flavor.KUBE_APISERVER, "--v=2");

    assertThat(cmd.get(0)).isEqualTo(tmp.resolve("server").toString());
    assertThat(cmd).contains(
        "--etcd-servers=http://127.0.0.1:2379",
        "--bind-address=127.0.0.1",
        "--secure-port=6443",
        "--advertise-address=127.0.0.1",
        "--authorization-mode=AlwaysAllow",
        "--service-account-issuer=https://127.0.0.1:6443",
        "--service-account-key-file=" + tmp.resolve("pki/sa.pub"),
        "--service-cluster-ip-range=10.0.0.0/24");
    assertThat(cmd).contains("--service-account-signing-key-file=" + tmp.resolve("pki/sa.key"));
    assertThat(cmd.get(cmd.size() - 1)).isEqualTo("--v=2"); // the user's flags come last
  }

  @Test
  void kinformerApiserver_getsOnlyTheCommonFlags() throws IOException {
    List<String> cmd = command(ApiServerBinaries.Flavor.KINFORMER);

    assertThat(cmd).contains("--etcd-servers=http://127.0.0.1:2379", "--secure-port=6443")
        .anyMatch(a -> a.startsWith("--token-auth-file="))
        .anyMatch(a -> a.startsWith("--client-ca-file="))
        .noneMatch(a -> a.startsWith("--service-account-"))
        .noneMatch(a -> a.startsWith("--authorization-mode="));
  }
}

package io.kinformer.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Validation as client-go's {@code NewLeaderElector} and {@code TestLeaderElectionConfigValidation}. */
class LeaderElectionConfigTest {

  @Test
  void defaults_areClientGosCoreComponentTimings() {
    LeaderElectionConfig c = LeaderElectionConfig.defaults();
    assertThat(c.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(c.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.releaseOnCancel()).isFalse();
    assertThat(c.leaseDurationSeconds()).isEqualTo(15);
    assertThat(c.toBuilder().build()).isEqualTo(c);
  }

  @Test
  void clientGosValidExample_isValid() {
    LeaderElectionConfig c = LeaderElectionConfig.builder()
        .leaseDuration(Duration.ofSeconds(15))
        .renewDeadline(Duration.ofSeconds(2))
        .retryPeriod(Duration.ofSeconds(1))
        .releaseOnCancel(true)
        .build();
    assertThat(c.releaseOnCancel()).isTrue();
  }

  record Invalid(String name, long leaseMillis, long renewMillis, long retryMillis,
      String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Invalid> invalid() {
    return Stream.of(
        new Invalid("lease not longer than renew deadline", 10_000, 10_000, 2_000,
            "leaseDuration (PT10S) must be greater than renewDeadline (PT10S)"),
        new Invalid("renew deadline not longer than 1.2 retry periods", 15_000, 2_400, 2_000,
            "renewDeadline (PT2.4S) must be greater than retryPeriod*1.2 (PT2.4S)"),
        new Invalid("zero lease", 0, 10_000, 2_000, "leaseDuration must be positive: PT0S"),
        new Invalid("negative renew deadline", 15_000, -1, 2_000,
            "renewDeadline must be positive: PT-0.001S"),
        new Invalid("zero retry period", 15_000, 10_000, 0, "retryPeriod must be positive: PT0S"),
        new Invalid("lease under a second", 900, 500, 100,
            "leaseDuration must be at least one second (the Lease holds whole seconds): "
                + "PT0.9S"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void build_refusesInvalidTimings(Invalid c) {
    LeaderElectionConfig.Builder b = LeaderElectionConfig.builder()
        .leaseDuration(Duration.ofMillis(c.leaseMillis()))
        .renewDeadline(Duration.ofMillis(c.renewMillis()))
        .retryPeriod(Duration.ofMillis(c.retryMillis()));
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(c.message());
  }

  @Test
  void leaseLock_refusesAnEmptyIdentity(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, String.join("\n",
        "apiVersion: v1", "kind: Config", "current-context: c",
        "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:1'}}]",
        "users: [{name: u, user: {}}]",
        "contexts: [{name: c, context: {cluster: k, user: u}}]", ""));
    try (KubeClient client = KubeClient.create(KubeConfig.load(kubeconfig))) {
      assertThatThrownBy(() -> LeaseLock.create(client, "default", "lease", ""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("identity must not be empty");
      assertThat(LeaseLock.create(client, "ns", "lease", "me").describe()).isEqualTo("ns/lease");
    }
  }
}

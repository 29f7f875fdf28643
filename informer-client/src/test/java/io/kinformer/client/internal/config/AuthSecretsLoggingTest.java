package io.kinformer.client.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeClientTest;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.client.LogCapture;
import io.kinformer.client.TlsFixtures;
import io.kinformer.client.internal.tls.PemReaderTest;
import io.kinformer.time.testing.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Drives every credential through failures with DEBUG logging on (see the surefire configuration)
 * and checks that neither the log (slf4j-simple writes to System.err, captured here) nor any
 * exception text carries a secret.
 */
@DisabledOnOs(OS.WINDOWS)
class AuthSecretsLoggingTest {

  static final String TOKEN = "log-secret-token-7f3a";
  static final String FILE_TOKEN = "log-secret-file-token-91c2";
  static final String PASSWORD = "log-secret-password-55de";
  static final String EXEC_TOKEN = "log-secret-exec-token-c0ff";

  private static final HeldCertificate CA = TlsFixtures.ca("logging-test-ca");

  @TempDir Path dir;
  // HTTPS: a kubeconfig user's credentials are never sent to a plain HTTP server.
  private final MockWebServer server =
      TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA);
  @RegisterExtension final LogCapture stderr = new LogCapture();
  private final List<Throwable> thrown = new ArrayList<>();

  @AfterEach
  void stop() {
    server.close();
  }

  private void unauthorized(int count) {
    for (int i = 0; i < count; i++) {
      server.enqueue(new MockResponse(401, Headers.of(), "{\"kind\":\"Status\",\"code\":401}"));
    }
  }

  private static KubeConfig.Builder builder(String url) {
    return KubeConfig.builder().server(url).caCertPem(CA.certificatePem());
  }

  private void call(KubeConfig config) {
    try (KubeClient client =
        KubeClient.create(config, ClientOptions.builder().clock(new FakeClock()).build())) {
      KubeClientTest.get(client, "/api/v1/pods").close();
    } catch (Exception e) {
      thrown.add(e);
    }
  }

  @Test
  void authFailures_atDebug_neverRevealSecrets() throws Exception {
    assertThat(LoggerFactory.getLogger(AuthInterceptor.class).isDebugEnabled())
        .as("surefire must enable DEBUG for the auth classes")
        .isTrue();
    String url = TlsFixtures.url(server, true);
    String caData = TlsFixtures.base64(CA.certificatePem());

    // Static token and basic auth, rejected.
    unauthorized(2);
    call(builder(url).token(TOKEN).build());
    call(builder(url).basicAuth("alice", PASSWORD).build());

    // A token file, rejected before and after an immediate re-read.
    Path tokenFile = Files.writeString(dir.resolve("token"), FILE_TOKEN);
    unauthorized(1);
    call(builder(url).tokenFile(tokenFile).build());

    // An exec plugin whose tokens are rejected, then one that fails.
    Path plugin = Files.writeString(dir.resolve("plugin.sh"),
        "#!/bin/sh\nif [ \"$MODE\" = fail ]; then exit 2; fi\n"
            + "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
            + "\"ExecCredential\",\"status\":{\"token\":\"" + EXEC_TOKEN + "\"}}'\n");
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
    unauthorized(1);
    for (String mode : List.of("ok", "fail")) {
      Path config = Files.writeString(dir.resolve("config-" + mode), """
          current-context: ctx
          clusters: [{name: c, cluster: {server: "%s", certificate-authority-data: %s}}]
          users:
          - name: u
            user:
              exec:
                apiVersion: client.authentication.k8s.io/v1
                command: ./plugin.sh
                interactiveMode: Never
                env: [{name: MODE, value: %s}]
          contexts: [{name: ctx, context: {cluster: c, user: u}}]
          """.formatted(url, caData, mode));
      call(KubeConfig.load(config));
    }

    // A client key that does not parse, and a kubeconfig whose key data is not base64.
    HeldCertificate held = new HeldCertificate.Builder().rsa2048().build();
    String keyPem = held.privateKeyPkcs8Pem();
    String keyBody = keyPem.lines().skip(2).findFirst().orElseThrow();
    String brokenKey = keyPem.replace(keyBody, keyBody.substring(0, 20) + "@@" + keyBody);
    call(builder(url).clientCertPem(held.certificatePem())
        .clientKeyPem(brokenKey).build());
    Path badData = Files.writeString(dir.resolve("bad-data"), """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "%s"}}]
        users: [{name: u, user: {client-certificate-data: Y2VydA==,
                 client-key-data: "%s!"}}]
        contexts: [{name: ctx, context: {cluster: c, user: u}}]
        """.formatted(url, Base64.getEncoder().encodeToString(keyBody.getBytes())));
    try {
      KubeConfig.load(badData);
    } catch (KubeConfigException e) {
      thrown.add(e);
    }

    String log = stderr.text();
    StringBuilder exceptions = new StringBuilder();
    for (Throwable t : thrown) {
      exceptions.append(PemReaderTest.throwableText(t));
    }
    // The scenarios did fail, and were logged at DEBUG.
    assertThat(thrown).hasSize(3);
    assertThat(log).contains("answered 401", "running credential plugin", "got a token");
    String basic = Base64.getEncoder().encodeToString(("alice:" + PASSWORD).getBytes());
    for (String secret :
        List.of(TOKEN, FILE_TOKEN, PASSWORD, basic, EXEC_TOKEN, keyBody.substring(0, 20),
            keyBody.substring(30, 50))) {
      assertThat(log).as("log").doesNotContain(secret);
      assertThat(exceptions).as("exceptions").doesNotContain(secret);
    }
    assertThat(server.getRequestCount()).isEqualTo(4);
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.internal.tls.RotatingClientKeyManager;
import io.kinformer.time.testing.FakeClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.Response;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificate and key files rotated on disk, over real mutual TLS: new connections present
 * the new certificate once the check interval has passed, a broken rewrite keeps the old one.
 */
class ClientCertificateRotationTest {

  private static final HeldCertificate CA = TlsFixtures.ca("rotation-ca");
  private static final HeldCertificate CLIENT_CA = TlsFixtures.ca("rotation-client-ca");
  private static final HeldCertificate CERT_A = client("alice-a");
  private static final HeldCertificate CERT_B = client("alice-b");

  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  @RegisterExtension final LogCapture stderr = new LogCapture();
  private Path certFile;
  private Path keyFile;
  private Instant mtime = Instant.parse("2026-01-01T00:00:00Z");

  private static HeldCertificate client(String name) {
    return new HeldCertificate.Builder().commonName(name).signedBy(CLIENT_CA).build();
  }

  @BeforeEach
  void setUp() throws Exception {
    certFile = tmp.resolve("client.crt");
    keyFile = tmp.resolve("client.key");
    write(CERT_A.certificatePem(), CERT_A.privateKeyPkcs8Pem());
  }

  /** Rewrites both files, with a modification time later than any before. */
  private void write(String certPem, String keyPem) throws Exception {
    mtime = mtime.plusSeconds(60);
    Files.writeString(certFile, certPem);
    Files.writeString(keyFile, keyPem);
    Files.setLastModifiedTime(certFile, FileTime.from(mtime));
    Files.setLastModifiedTime(keyFile, FileTime.from(mtime));
  }

  private KubeClient client(MockWebServer server) {
    KubeConfig config =
        KubeConfig.builder()
            .server(TlsFixtures.url(server, true))
            .caCertPem(CA.certificatePem())
            .clientCertFile(certFile)
            .clientKeyFile(keyFile)
            .build();
    return KubeClient.create(config, ClientOptions.builder().clock(clock).build());
  }

  private static MockWebServer server() {
    MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA, CLIENT_CA);
    for (int i = 0; i < 4; i++) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    }
    return server;
  }

  /** One request on a new connection; the common name of the client certificate it presented. */
  private static String presented(KubeClient client, MockWebServer server) throws Exception {
    client.httpClient().connectionPool().evictAll();
    return presentedReusing(client, server);
  }

  @Test
  void rotatedFiles_arePresentedOnNewConnections_afterTheCheckInterval() throws Exception {
    try (MockWebServer server = server();
        KubeClient client = client(server)) {
      assertThat(presented(client, server)).isEqualTo("CN=alice-a");

      write(CERT_B.certificatePem(), CERT_B.privateKeyPkcs8Pem());
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL.minusSeconds(1));
      assertThat(presented(client, server))
          .as("the files are not looked at again before the interval")
          .isEqualTo("CN=alice-a");

      clock.advance(Duration.ofSeconds(1));
      assertThat(presented(client, server)).isEqualTo("CN=alice-b");
    }
    String log = stderr.text();
    assertThat(log).contains("reloaded").doesNotContain("WARN");
  }

  /** One request, on a pooled connection if there is one; the certificate it was made with. */
  private static String presentedReusing(KubeClient client, MockWebServer server)
      throws Exception {
    try (Response r = KubeClientTest.get(client, "/version")) {
      assertThat(r.code()).isEqualTo(200);
    }
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(request).isNotNull();
    return request.getHandshake().peerPrincipal().getName();
  }

  @Test
  void rotatedFiles_closeTheConnectionsOfTheOldCertificate_soNoRequestReusesThem()
      throws Exception {
    try (MockWebServer server = server();
        KubeClient client = client(server)) {
      assertThat(presentedReusing(client, server)).isEqualTo("CN=alice-a");
      assertThat(client.httpClient().connectionPool().connectionCount()).isEqualTo(1);

      write(CERT_B.certificatePem(), CERT_B.privateKeyPkcs8Pem());
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL);
      // The pooled connection is open and healthy: without the check before each request and the
      // closing of old connections, this request would reuse it and present alice-a.
      assertThat(presentedReusing(client, server)).isEqualTo("CN=alice-b");
      assertThat(presentedReusing(client, server)).isEqualTo("CN=alice-b");
    }
    String log = stderr.text();
    assertThat(log).contains("closed 1 connection(s) made with the previous client certificate");
  }

  @Test
  void rotatedFiles_breakARequestInFlightOnAnOldConnection() throws Exception {
    try (MockWebServer server =
            TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA, CLIENT_CA);
        KubeClient client = client(server)) {
      // A body that would take over 15 minutes: a watch that stays open.
      server.enqueue(new MockResponse.Builder()
          .body("x".repeat(1000))
          .throttleBody(1, 1, TimeUnit.SECONDS)
          .build());
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
      Response streaming = KubeClientTest.get(client, "/api/v1/pods?watch=1");
      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHandshake().peerPrincipal().getName())
          .isEqualTo("CN=alice-a");
      CompletableFuture<byte[]> reading = CompletableFuture.supplyAsync(() -> {
        try (Response r = streaming) {
          return r.body().bytes();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });

      write(CERT_B.certificatePem(), CERT_B.privateKeyPkcs8Pem());
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL);
      assertThat(presentedReusing(client, server)).isEqualTo("CN=alice-b");

      assertThatThrownBy(() -> reading.get(30, TimeUnit.SECONDS))
          .as("the streaming read on the old connection fails instead of going on")
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(UncheckedIOException.class);
    }
  }

  @Test
  void brokenRewrite_keepsThePreviousCertificate_withOneWarning() throws Exception {
    try (MockWebServer server = server();
        KubeClient client = client(server)) {
      assertThat(presented(client, server)).isEqualTo("CN=alice-a");

      // The new certificate with a key that is not its own.
      write(CERT_B.certificatePem(), CERT_A.privateKeyPkcs8Pem());
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL);
      assertThat(presented(client, server)).isEqualTo("CN=alice-a");

      // Unchanged broken files are not tried (nor warned about) again.
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL);
      assertThat(presented(client, server)).isEqualTo("CN=alice-a");

      String log = stderr.text();
      assertThat(log.lines().filter(l -> l.contains("WARN"))).singleElement()
          .satisfies(
              l ->
                  assertThat(l)
                      .contains(certFile.toString())
                      .contains(keyFile.toString())
                      .contains("does not match"));
      assertThat(log)
          .doesNotContain(keyBody(CERT_A.privateKeyPkcs8Pem()))
          .doesNotContain("reloaded");

      // Fixed: the pair is picked up at the next check.
      write(CERT_B.certificatePem(), CERT_B.privateKeyPkcs8Pem());
      clock.advance(RotatingClientKeyManager.CHECK_INTERVAL);
      assertThat(presented(client, server)).isEqualTo("CN=alice-b");
    }
  }

  /** The base64 body of a PEM block, without its header lines. */
  private static String keyBody(String pem) {
    return pem.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
  }
}

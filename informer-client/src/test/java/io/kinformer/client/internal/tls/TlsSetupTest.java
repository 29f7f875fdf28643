package io.kinformer.client.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeClientTest;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.client.TlsFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.Protocol;
import okhttp3.Response;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TlsSetupTest {

  private static final HeldCertificate CA = TlsFixtures.ca("cluster-ca");
  private static final HeldCertificate OTHER_CA = TlsFixtures.ca("other-ca");
  private static final HeldCertificate CLIENT_CA = TlsFixtures.ca("client-ca");

  @TempDir Path tmp;

  private static MockResponse ok() {
    return new MockResponse(200, Headers.of(), "{}");
  }

  private static void assertOk(KubeConfig config) throws Exception {
    try (KubeClient client = KubeClient.create(config);
        Response r = KubeClientTest.get(client, "/version")) {
      assertThat(r.code()).isEqualTo(200);
    }
  }

  private static Throwable failure(KubeConfig config) {
    try (KubeClient client = KubeClient.create(config)) {
      Throwable[] t = new Throwable[1];
      assertThatThrownBy(() -> KubeClientTest.get(client, "/version").close())
          .satisfies(e -> t[0] = e);
      return t[0];
    }
  }

  @Test
  void connect_toServerWithUnknownCertificate_isRefusedByDefault() {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA)) {
      server.enqueue(ok());

      Throwable t = failure(KubeConfig.builder().server(TlsFixtures.url(server, true)).build());

      assertThat(t).isInstanceOf(SSLException.class);
      assertThat(server.getRequestCount()).isZero();
    }
  }

  @Test
  void connect_withTheServersCa_isAcceptedOverHttp2() throws Exception {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA)) {
      server.enqueue(ok());
      KubeConfig config =
          KubeConfig.builder()
              .server(TlsFixtures.url(server, true))
              .caCertPem(CA.certificatePem())
              .build();

      try (KubeClient client = KubeClient.create(config);
          Response r = KubeClientTest.get(client, "/version")) {
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.protocol()).isEqualTo(Protocol.HTTP_2);
      }
      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getVersion()).isEqualTo("HTTP/2");
    }
  }

  @Test
  void connect_withCaFileHoldingABundle_trustsEveryCaInIt() throws Exception {
    Path bundle =
        Files.writeString(tmp.resolve("ca.crt"), OTHER_CA.certificatePem() + CA.certificatePem());
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA)) {
      server.enqueue(ok());

      assertOk(
          KubeConfig.builder().server(TlsFixtures.url(server, true)).caCertFile(bundle).build());
    }
  }

  @Test
  void connect_withAnotherCa_isRefused() {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "localhost"), CA)) {
      server.enqueue(ok());

      Throwable t =
          failure(
              KubeConfig.builder()
                  .server(TlsFixtures.url(server, true))
                  .caCertPem(OTHER_CA.certificatePem())
                  .build());

      assertThat(t).isInstanceOf(SSLException.class);
    }
  }

  @Test
  void connect_withInsecureSkipTlsVerify_acceptsAnyCertificateAndName() throws Exception {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "elsewhere.example"), CA)) {
      server.enqueue(ok());

      assertOk(
          KubeConfig.builder()
              .server(TlsFixtures.url(server, true))
              .insecureSkipTlsVerify(true)
              .build());
    }
  }

  @Test
  void connect_toCertificateForAnotherName_isRefusedEvenWithTheCa() {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "kube.internal"), CA)) {
      server.enqueue(ok());

      Throwable t =
          failure(
              KubeConfig.builder()
                  .server(TlsFixtures.url(server, true))
                  .caCertPem(CA.certificatePem())
                  .build());

      assertThat(t).isInstanceOf(SSLPeerUnverifiedException.class);
    }
  }

  @Test
  void connect_withTlsServerName_sendsItAsSniAndVerifiesAgainstIt() throws Exception {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "kube.internal"), CA)) {
      server.enqueue(ok());

      assertOk(
          KubeConfig.builder()
              .server(TlsFixtures.url(server, true))
              .caCertPem(CA.certificatePem())
              .tlsServerName("kube.internal")
              .build());

      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(request.getHandshakeServerNames()).containsExactly("kube.internal");
      assertThat(request.getVersion()).isEqualTo("HTTP/2");
    }
  }

  @Test
  void connect_withWrongTlsServerName_isRefused() {
    try (MockWebServer server =
        TlsFixtures.httpsServer(TlsFixtures.serverCertificate(CA, "kube.internal"), CA)) {
      server.enqueue(ok());

      Throwable t =
          failure(
              KubeConfig.builder()
                  .server(TlsFixtures.url(server, true))
                  .caCertPem(CA.certificatePem())
                  .tlsServerName("other.internal")
                  .build());

      assertThat(t).isInstanceOf(SSLException.class);
    }
  }

  record ClientKey(String name, boolean ec, Function<HeldCertificate, String> keyPem) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ClientKey> clientKeys() {
    return Stream.of(
        new ClientKey("RSA PKCS#1", false, HeldCertificate::privateKeyPkcs1Pem),
        new ClientKey("RSA PKCS#8", false, HeldCertificate::privateKeyPkcs8Pem),
        new ClientKey("EC PKCS#8", true, HeldCertificate::privateKeyPkcs8Pem),
        new ClientKey("EC SEC1", true, h -> TlsFixtures.sec1Pem(h.keyPair())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clientKeys")
  void connect_toServerRequiringClientCertificates_presentsTheConfiguredOne(ClientKey c)
      throws Exception {
    HeldCertificate clientCert =
        new HeldCertificate.Builder()
            .commonName("alice")
            .keyPair(keyPair(c.ec()))
            .signedBy(CLIENT_CA)
            .build();
    Path certFile = Files.writeString(tmp.resolve("client.crt"), clientCert.certificatePem());
    Path keyFile = Files.writeString(tmp.resolve("client.key"), c.keyPem().apply(clientCert));
    try (MockWebServer server =
        TlsFixtures.httpsServer(
            TlsFixtures.serverCertificate(CA, "localhost"), CA, CLIENT_CA)) {
      server.enqueue(ok());

      assertOk(
          KubeConfig.builder()
              .server(TlsFixtures.url(server, true))
              .caCertPem(CA.certificatePem())
              .clientCertFile(certFile)
              .clientKeyFile(keyFile)
              .build());

      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(request.getHandshake().peerCertificates()).first()
          .isEqualTo(clientCert.certificate());
    }
  }

  @Test
  void connect_toServerRequiringClientCertificates_withoutOne_isRefused() {
    try (MockWebServer server =
        TlsFixtures.httpsServer(
            TlsFixtures.serverCertificate(CA, "localhost"), CA, CLIENT_CA)) {
      server.enqueue(ok());

      failure(
          KubeConfig.builder()
              .server(TlsFixtures.url(server, true))
              .caCertPem(CA.certificatePem())
              .build());

      assertThat(server.getRequestCount()).isZero();
    }
  }

  @Test
  void create_withKeyOfAnotherAlgorithmThanTheCertificate_failsNamingBoth() throws Exception {
    HeldCertificate rsa = new HeldCertificate.Builder().rsa2048().build();
    HeldCertificate ec = new HeldCertificate.Builder().ecdsa256().build();
    KubeConfig config =
        KubeConfig.builder()
            .server("https://h")
            .clientCertPem(rsa.certificatePem())
            .clientKeyPem(ec.privateKeyPkcs8Pem())
            .build();

    assertThatThrownBy(() -> KubeClient.create(config))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("KubeConfig.builder(): clientKeyPem: a EC key does not match the RSA"
            + " certificate of KubeConfig.builder(): clientCertPem");
  }

  record KeyPairs(String name, Supplier<KeyPair> generate) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static KeyPair generate(String algorithm, String curve) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
      if (curve != null) {
        g.initialize(new ECGenParameterSpec(curve));
      }
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<KeyPairs> keyAlgorithms() {
    return Stream.of(
        new KeyPairs("RSA", () -> generate("RSA", null)),
        new KeyPairs("EC P-256", () -> generate("EC", "secp256r1")),
        new KeyPairs("Ed25519", () -> generate("Ed25519", null)));
  }

  /** A certificate for {@code certKey}, signed by an EC CA (so any key algorithm will do). */
  private static HeldCertificate certificateFor(KeyPair certKey) {
    return new HeldCertificate.Builder().commonName("alice").keyPair(certKey).signedBy(CLIENT_CA)
        .build();
  }

  private static KubeConfig withClientKey(HeldCertificate cert, KeyPair key) {
    return KubeConfig.builder()
        .server("https://h")
        .clientCertPem(cert.certificatePem())
        .clientKeyPem(TlsFixtures.pem("PRIVATE KEY", key.getPrivate().getEncoded()))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keyAlgorithms")
  void create_withTheCertificatesOwnKey_succeeds(KeyPairs algorithm) {
    KeyPair pair = algorithm.generate().get();

    KubeClient.create(withClientKey(certificateFor(pair), pair)).close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keyAlgorithms")
  void create_withAnotherKeyOfTheSameAlgorithm_failsNamingBoth(KeyPairs algorithm) {
    HeldCertificate cert = certificateFor(algorithm.generate().get());
    KubeConfig config = withClientKey(cert, algorithm.generate().get());

    assertThatThrownBy(() -> KubeClient.create(config))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("KubeConfig.builder(): clientKeyPem: private key does not match the public"
            + " key of the certificate in KubeConfig.builder(): clientCertPem");
  }

  @Test
  void create_withAnEcKeyOnAnotherCurve_failsNamingBoth() {
    HeldCertificate cert = certificateFor(generate("EC", "secp256r1"));
    KubeConfig config = withClientKey(cert, generate("EC", "secp384r1"));

    assertThatThrownBy(() -> KubeClient.create(config))
        .isInstanceOf(KubeConfigException.class)
        .hasMessageEndingWith("private key does not match the public key of the certificate in"
            + " KubeConfig.builder(): clientCertPem");
  }

  @Test
  void create_withUnreadableCaFile_failsNamingIt() {
    Path missing = tmp.resolve("gone.crt");
    KubeConfig config = KubeConfig.builder().server("https://h").caCertFile(missing).build();

    assertThatThrownBy(() -> KubeClient.create(config))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("KubeConfig.builder(): caCertFile: cannot read " + missing
            + " (NoSuchFileException)");
  }

  @Test
  void request_throughHttpProxy_goesToTheProxy() throws Exception {
    try (MockWebServer proxy = TlsFixtures.httpServer()) {
      proxy.enqueue(ok());

      assertOk(
          KubeConfig.builder()
              .server("http://kube.example.invalid:8080")
              .proxyUrl("http://localhost:" + proxy.getPort())
              .build());

      RecordedRequest request = proxy.takeRequest(5, TimeUnit.SECONDS);
      assertThat(request.getTarget()).isEqualTo("http://kube.example.invalid:8080/version");
    }
  }

  private static KeyPair keyPair(boolean ec) throws Exception {
    if (ec) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    }
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }
}

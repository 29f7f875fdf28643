package io.kinformer.client.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.KubeConfigException;
import io.kinformer.client.TlsFixtures;
import io.kinformer.client.internal.config.PemSource;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

public class PemReaderTest {

  private static PemSource source(String pem) {
    return PemSource.ofData("test: key", pem.getBytes(StandardCharsets.US_ASCII));
  }

  record KeyCase(String name, Function<KeyPair, String> pem, String algorithm, boolean ec) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<KeyCase> keys() {
    return Stream.of(
        new KeyCase("PKCS#1 RSA",
            kp -> new HeldCertificate.Builder().keyPair(kp).build().privateKeyPkcs1Pem(), "RSA",
            false),
        new KeyCase("PKCS#8 RSA",
            kp -> TlsFixtures.pem("PRIVATE KEY", kp.getPrivate().getEncoded()), "RSA", false),
        new KeyCase("PKCS#8 EC",
            kp -> TlsFixtures.pem("PRIVATE KEY", kp.getPrivate().getEncoded()), "EC", true),
        new KeyCase("SEC1 EC after EC PARAMETERS", TlsFixtures::sec1Pem, "EC", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keys")
  void privateKey_eachPemFlavour_readsTheSameKey(KeyCase c) throws Exception {
    KeyPair kp = generate(c.ec());

    PrivateKey key = PemReader.privateKey(source(c.pem().apply(kp)));

    assertThat(key.getAlgorithm()).isEqualTo(c.algorithm());
    if (c.ec()) {
      assertThat(((ECPrivateKey) key).getS())
          .isEqualTo(((ECPrivateKey) kp.getPrivate()).getS());
    } else {
      assertThat(key.getEncoded()).isEqualTo(kp.getPrivate().getEncoded());
    }
  }

  @Test
  void privateKey_ed25519Pkcs8_isRead() throws Exception {
    KeyPair kp = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();

    PrivateKey key =
        PemReader.privateKey(source(TlsFixtures.pem("PRIVATE KEY", kp.getPrivate().getEncoded())));

    assertThat(key.getAlgorithm()).isIn("Ed25519", "EdDSA");
  }

  @Test
  void privateKey_afterACertificateBlock_isFound() throws Exception {
    HeldCertificate held = new HeldCertificate.Builder().rsa2048().build();

    PrivateKey key =
        PemReader.privateKey(source(held.certificatePem() + held.privateKeyPkcs8Pem()));

    assertThat(key.getEncoded()).isEqualTo(held.keyPair().getPrivate().getEncoded());
  }

  record BadKey(String name, String pem, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final String SECRETISH = Base64.getEncoder()
      .encodeToString("0123456789-super-secret-key-bytes-0123456789".getBytes());

  static Stream<BadKey> badKeys() {
    return Stream.of(
        new BadKey("no key block", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
            "test: key: no PEM private key found"),
        new BadKey("PKCS#8 encrypted",
            TlsFixtures.pem("ENCRYPTED PRIVATE KEY", SECRETISH.getBytes()),
            "test: key: encrypted private keys are not supported"),
        new BadKey("legacy encrypted", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
            + "DEK-Info: AES-128-CBC,00\n\n" + SECRETISH + "\n-----END RSA PRIVATE KEY-----\n",
            "test: key: encrypted private keys are not supported"),
        new BadKey("garbage PKCS#8", TlsFixtures.pem("PRIVATE KEY", SECRETISH.getBytes()),
            "test: key: not a valid private key"),
        new BadKey("garbage PKCS#1", TlsFixtures.pem("RSA PRIVATE KEY", SECRETISH.getBytes()),
            "test: key: not a valid RSA private key"),
        new BadKey("garbage SEC1", TlsFixtures.pem("EC PRIVATE KEY", SECRETISH.getBytes()),
            "test: key: not a valid EC private key"),
        new BadKey("not base64", "-----BEGIN PRIVATE KEY-----\n" + SECRETISH + "*!\n"
            + "-----END PRIVATE KEY-----\n", "test: key: PEM block PRIVATE KEY is not base64"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badKeys")
  void privateKey_badInput_failsNamingTheSourceWithoutKeyMaterial(BadKey c) {
    assertThatThrownBy(() -> PemReader.privateKey(source(c.pem())))
        .isInstanceOf(KubeConfigException.class)
        .hasMessageStartingWith(c.expected())
        .satisfies(e -> assertThat(throwableText(e)).doesNotContain(SECRETISH.substring(0, 16),
            "super-secret"));
  }

  @Test
  void certificates_bundle_readsEveryCertificateInOrder() {
    HeldCertificate a = TlsFixtures.ca("a");
    HeldCertificate b = TlsFixtures.ca("b");

    var certs = PemReader.certificates(source(a.certificatePem() + "junk\n" + b.certificatePem()));

    assertThat(certs).containsExactly(a.certificate(), b.certificate());
  }

  @Test
  void certificates_withBlanksAfterTheMarkers_areRead() {
    // Go's pem.Decode ignores spaces, tabs and CRs at the end of the BEGIN and END lines.
    HeldCertificate a = TlsFixtures.ca("a");
    String pem = a.certificatePem()
        .replace("-----BEGIN CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----  \t\r\n")
        .replace("-----END CERTIFICATE-----\n", "-----END CERTIFICATE----- \r\n");
    assertThat(pem).contains("CERTIFICATE-----  \t");

    assertThat(PemReader.certificates(source(pem))).containsExactly(a.certificate());
  }

  @Test
  void certificates_none_failsNamingTheSource() {
    assertThatThrownBy(() -> PemReader.certificates(source("not pem")))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("test: key: no PEM certificate (-----BEGIN CERTIFICATE-----) found");
  }

  @Test
  void certificates_corrupt_failsNamingTheSource() {
    assertThatThrownBy(() -> PemReader.certificates(source(TlsFixtures.pem("CERTIFICATE",
            new byte[] {1, 2, 3}))))
        .isInstanceOf(KubeConfigException.class)
        .hasMessageStartingWith("test: key: certificate #1 is not a valid X.509 certificate");
  }

  @Test
  void read_missingFile_failsNamingLabelAndFile() {
    PemSource missing = PemSource.ofFile("f: users[u].user.client-key", java.nio.file.Path.of(
        "/nonexistent/key.pem"));

    assertThatThrownBy(missing::read)
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("f: users[u].user.client-key: cannot read /nonexistent/key.pem"
            + " (NoSuchFileException)");
  }

  public static String throwableText(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append('\n');
      for (Throwable s : c.getSuppressed()) {
        b.append(s).append('\n');
      }
    }
    return b.toString();
  }

  private static KeyPair generate(boolean ec) throws Exception {
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

package io.kinformer.envtest;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The credentials of one {@link ApiServer}, generated fresh into its work directory: a CA, a
 * serving certificate for 127.0.0.1 and localhost, a client certificate of user
 * {@code kinformer-admin} in group {@code system:masters}, a bearer token for the same user, and
 * a service-account signing key (which kube-apiserver requires). EC P-256 throughout, since
 * generating it takes milliseconds. Private keys and the token file are readable by the owner
 * only; nothing here is ever logged.
 *
 * <p>Thread safety: immutable after {@link #generate}.
 */
final class Pki {

  static final String USER = "kinformer-admin";
  static final String GROUP = "system:masters";

  final Path caCert;
  final Path serverCert;
  final Path serverKey;
  final Path clientCert;
  final Path clientKey;
  final Path serviceAccountKey;
  final Path serviceAccountPublicKey;
  final Path tokenFile;
  final String caPem;
  final String clientCertPem;
  final String clientKeyPem;
  final String token;

  private Pki(Path dir, String caPem, String clientCertPem, String clientKeyPem, String token) {
    this.caCert = dir.resolve("ca.crt");
    this.serverCert = dir.resolve("apiserver.crt");
    this.serverKey = dir.resolve("apiserver.key");
    this.clientCert = dir.resolve("client.crt");
    this.clientKey = dir.resolve("client.key");
    this.serviceAccountKey = dir.resolve("sa.key");
    this.serviceAccountPublicKey = dir.resolve("sa.pub");
    this.tokenFile = dir.resolve("tokens.csv");
    this.caPem = caPem;
    this.clientCertPem = clientCertPem;
    this.clientKeyPem = clientKeyPem;
    this.token = token;
  }

  static Pki generate(Path dir, Instant now) throws IOException {
    try {
      SecureRandom random = new SecureRandom();
      KeyPair caKeys = ecKeyPair();
      X500Name caName = new X500Name("CN=kinformer-envtest-ca");
      X509Certificate ca = sign(caName, caKeys, caName, caKeys.getPublic(), now, random, true, null,
          null);
      KeyPair serverKeys = ecKeyPair();
      X509Certificate server = sign(caName, caKeys, new X500Name("CN=kinformer-envtest-apiserver"),
          serverKeys.getPublic(), now, random, false, KeyPurposeId.id_kp_serverAuth,
          new GeneralNames(new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")}));
      KeyPair clientKeys = ecKeyPair();
      X509Certificate client = sign(caName, caKeys, new X500Name("CN=" + USER + ",O=" + GROUP),
          clientKeys.getPublic(), now, random, false, KeyPurposeId.id_kp_clientAuth, null);
      KeyPair saKeys = ecKeyPair();
      byte[] tokenBytes = new byte[32];
      random.nextBytes(tokenBytes);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(tokenBytes);

      Pki pki = new Pki(dir, pem("CERTIFICATE", ca.getEncoded()),
          pem("CERTIFICATE", client.getEncoded()), keyPem(clientKeys.getPrivate()), token);
      Files.writeString(pki.caCert, pki.caPem);
      Files.writeString(pki.serverCert, pem("CERTIFICATE", server.getEncoded()) + pki.caPem);
      writePrivate(pki.serverKey, keyPem(serverKeys.getPrivate()));
      Files.writeString(pki.clientCert, pki.clientCertPem);
      writePrivate(pki.clientKey, pki.clientKeyPem);
      writePrivate(pki.serviceAccountKey, keyPem(saKeys.getPrivate()));
      Files.writeString(pki.serviceAccountPublicKey,
          pem("PUBLIC KEY", saKeys.getPublic().getEncoded()));
      writePrivate(pki.tokenFile, token + "," + USER + ",kinformer-admin-uid,\"" + GROUP + "\"\n");
      return pki;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot generate the test cluster's certificates", e);
    }
  }

  private static KeyPair ecKeyPair() throws GeneralSecurityException {
    KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
    kpg.initialize(new ECGenParameterSpec("secp256r1"));
    return kpg.generateKeyPair();
  }

  private static X509Certificate sign(X500Name issuer, KeyPair issuerKeys, X500Name subject,
      java.security.PublicKey subjectKey, Instant now, SecureRandom random, boolean isCa,
      @Nullable KeyPurposeId purpose, @Nullable GeneralNames altNames)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    // A day back allows for clock skew between this JVM and the server; a year ahead outlives
    // any test run.
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer,
        new BigInteger(64, random).add(BigInteger.ONE), Date.from(now.minus(Duration.ofDays(1))),
        Date.from(now.plus(Duration.ofDays(365))), subject, subjectKey);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(subjectKey));
    if (isCa) {
      b.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
    } else {
      b.addExtension(Extension.authorityKeyIdentifier, false,
          ext.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      if (purpose != null) {
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
    }
    if (altNames != null) {
      b.addExtension(Extension.subjectAlternativeName, false, altNames);
    }
    return new JcaX509CertificateConverter().getCertificate(
        b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
  }

  private static String keyPem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded()); // PKCS#8
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN " + label + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + label + "-----\n";
  }

  private static void writePrivate(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, content);
  }
}

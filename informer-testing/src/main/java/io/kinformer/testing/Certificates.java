package io.kinformer.testing;

import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
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
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed serving certificate for 127.0.0.1 and localhost, generated at start. EC P-256,
 * because generating it takes a millisecond where RSA-2048 takes hundreds.
 *
 * <p>The certificate is its own CA (basicConstraints CA:true), so it can be given to clients as
 * the cluster's {@code certificate-authority-data}. Its validity spans ten years either side of
 * the injected clock's "now", so it also verifies under a fake clock near real time.
 *
 * <p>Thread safety: immutable.
 */
final class Certificates {

  final X509Certificate certificate;
  final KeyStore keyStore;
  final String password;

  private Certificates(X509Certificate certificate, KeyStore keyStore, String password) {
    this.certificate = certificate;
    this.keyStore = keyStore;
    this.password = password;
  }

  static Certificates selfSigned(Instant now, long serial, String password) {
    try {
      KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
      kpg.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair kp = kpg.generateKeyPair();
      X500Name subject = new X500Name("CN=kinformer-embedded-apiserver");
      Duration span = Duration.ofDays(3650);
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject,
          BigInteger.valueOf(serial & Long.MAX_VALUE).add(BigInteger.ONE),
          Date.from(now.minus(span)), Date.from(now.plus(span)), subject, kp.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign));
      b.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
          new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
          new GeneralName(GeneralName.dNSName, "localhost")}));
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate());
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(signer));
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("server", kp.getPrivate(), password.toCharArray(),
          new Certificate[] {cert});
      return new Certificates(cert, ks, password);
    } catch (GeneralSecurityException | OperatorCreationException | java.io.IOException e) {
      throw new IllegalStateException("cannot generate the server certificate", e);
    }
  }

  /** The certificate in PEM form. */
  String pem() {
    try {
      StringWriter w = new StringWriter();
      w.write("-----BEGIN CERTIFICATE-----\n");
      w.write(Base64.getMimeEncoder(64, new byte[] {'\n'})
          .encodeToString(certificate.getEncoded()));
      w.write("\n-----END CERTIFICATE-----\n");
      return w.toString();
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }
}

package io.kinformer.client.internal.tls;

import io.kinformer.client.KubeConfigException;
import io.kinformer.client.internal.config.PemSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM certificates and private keys with the JDK only.
 *
 * <p>Keys come as PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY})
 * or SEC1 EC ({@code BEGIN EC PRIVATE KEY}, possibly after an {@code EC PARAMETERS} block, as
 * openssl writes it). The JDK reads only PKCS#8, so PKCS#1 and SEC1 keys are wrapped into a PKCS#8
 * {@code PrivateKeyInfo} here, the way Go's {@code tls.X509KeyPair} accepts all three. Encrypted
 * keys are refused.
 *
 * <p>Error messages name the source's label and never contain key material.
 *
 * <p>Thread safety: stateless.
 */
final class PemReader {

  private static final Pattern BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z0-9 ]+)-----[ \\t]*\\R(.*?)-----END \\1-----", Pattern.DOTALL);

  // DER tags used here.
  private static final int SEQUENCE = 0x30;
  private static final int INTEGER = 0x02;
  private static final int OCTET_STRING = 0x04;
  private static final int NULL = 0x05;
  private static final int OID = 0x06;
  private static final int CONTEXT_0 = 0xa0;

  private static final byte[] OID_RSA = {
    0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
  }; // 1.2.840.113549.1.1.1
  private static final byte[] OID_EC = {
    0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  }; // 1.2.840.10045.2.1
  private static final byte[] OID_ED25519 = {0x2b, 0x65, 0x70}; // 1.3.101.112
  private static final byte[] OID_ED448 = {0x2b, 0x65, 0x71}; // 1.3.101.113

  private PemReader() {}

  /**
   * Every {@code CERTIFICATE} block of the source, in order.
   *
   * @throws KubeConfigException naming the source if there is none or one does not parse
   */
  static List<X509Certificate> certificates(PemSource source) {
    String text = new String(source.read(), StandardCharsets.US_ASCII);
    List<X509Certificate> out = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
    }
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      if (!m.group(1).equals("CERTIFICATE")) {
        continue;
      }
      byte[] der = base64(source, m.group(2), "CERTIFICATE");
      try {
        out.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      } catch (CertificateException e) {
        throw new KubeConfigException(
            source.label() + ": certificate #" + (out.size() + 1) + " is not a valid X.509"
                + " certificate (" + e.getMessage() + ")",
            e);
      }
    }
    if (out.isEmpty()) {
      throw new KubeConfigException(
          source.label() + ": no PEM certificate (-----BEGIN CERTIFICATE-----) found");
    }
    return List.copyOf(out);
  }

  /**
   * The first private key block of the source.
   *
   * @throws KubeConfigException naming the source if there is none, it is encrypted, or it does not
   *     parse; the message never contains key material
   */
  static PrivateKey privateKey(PemSource source) {
    String text = new String(source.read(), StandardCharsets.US_ASCII);
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String type = m.group(1);
      String body = m.group(2);
      switch (type) {
        case "PRIVATE KEY":
          return pkcs8(source, base64(source, body, type));
        case "RSA PRIVATE KEY":
          refuseLegacyEncryption(source, body);
          return pkcs8(source, rsaPkcs1ToPkcs8(base64(source, body, type)));
        case "EC PRIVATE KEY":
          refuseLegacyEncryption(source, body);
          return pkcs8(source, sec1ToPkcs8(source, base64(source, body, type)));
        case "ENCRYPTED PRIVATE KEY":
          throw new KubeConfigException(
              source.label() + ": encrypted private keys are not supported; decrypt it first");
        default:
          // EC PARAMETERS, CERTIFICATE and others: keep looking.
      }
    }
    throw new KubeConfigException(
        source.label()
            + ": no PEM private key found (expected BEGIN PRIVATE KEY, BEGIN RSA PRIVATE KEY"
            + " or BEGIN EC PRIVATE KEY)");
  }

  private static void refuseLegacyEncryption(PemSource source, String body) {
    if (body.contains("Proc-Type:") || body.contains("DEK-Info:")) {
      throw new KubeConfigException(
          source.label() + ": encrypted private keys are not supported; decrypt it first");
    }
  }

  private static byte[] base64(PemSource source, String body, String type) {
    try {
      return Base64.getDecoder().decode(body.replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new KubeConfigException(source.label() + ": PEM block " + type + " is not base64");
    }
  }

  private static PrivateKey pkcs8(PemSource source, byte[] pkcs8) {
    String algorithm;
    try {
      algorithm = algorithmOf(pkcs8);
    } catch (IllegalArgumentException e) {
      throw new KubeConfigException(
          source.label() + ": not a valid private key (" + e.getMessage() + ")");
    }
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      // The JDK's messages describe the structure, not the key bytes.
      throw new KubeConfigException(
          source.label() + ": not a valid " + algorithm + " private key", e);
    } finally {
      Arrays.fill(pkcs8, (byte) 0);
    }
  }

  /** The JCA algorithm of a PKCS#8 PrivateKeyInfo, from its AlgorithmIdentifier. */
  private static String algorithmOf(byte[] pkcs8) {
    Der info = new Der(pkcs8).enter(SEQUENCE);
    info.skip(INTEGER);
    Der algorithm = info.enter(SEQUENCE);
    byte[] oid = algorithm.read(OID);
    if (Arrays.equals(oid, OID_RSA)) {
      return "RSA";
    } else if (Arrays.equals(oid, OID_EC)) {
      return "EC";
    } else if (Arrays.equals(oid, OID_ED25519)) {
      return "Ed25519";
    } else if (Arrays.equals(oid, OID_ED448)) {
      return "Ed448";
    }
    throw new IllegalArgumentException("unsupported key algorithm");
  }

  /** PrivateKeyInfo { version 0, AlgorithmIdentifier { rsaEncryption, NULL }, OCTET STRING }. */
  static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
    byte[] algorithm = tlv(SEQUENCE, concat(tlv(OID, OID_RSA), tlv(NULL, new byte[0])));
    return tlv(SEQUENCE, concat(tlv(INTEGER, new byte[] {0}), algorithm, tlv(OCTET_STRING, pkcs1)));
  }

  /**
   * PrivateKeyInfo { version 0, AlgorithmIdentifier { id-ecPublicKey, namedCurve }, OCTET STRING
   * ECPrivateKey }. The curve comes from the SEC1 structure's {@code [0] parameters}, which
   * openssl always writes; the inner key keeps only version and private value, as PKCS#8 requires
   * the parameters in the AlgorithmIdentifier.
   */
  private static byte[] sec1ToPkcs8(PemSource source, byte[] sec1) {
    try {
      Der key = new Der(sec1).enter(SEQUENCE);
      byte[] version = key.read(INTEGER);
      byte[] privateValue = key.read(OCTET_STRING);
      byte[] curve = null;
      while (key.hasMore()) {
        int tag = key.peekTag();
        if (tag == CONTEXT_0) {
          curve = key.enter(CONTEXT_0).read(OID);
        } else {
          key.skip(tag);
        }
      }
      if (curve == null) {
        throw new KubeConfigException(
            source.label() + ": EC private key names no curve (SEC1 [0] parameters missing)");
      }
      byte[] inner =
          tlv(SEQUENCE, concat(tlv(INTEGER, version), tlv(OCTET_STRING, privateValue)));
      byte[] algorithm = tlv(SEQUENCE, concat(tlv(OID, OID_EC), tlv(OID, curve)));
      return tlv(
          SEQUENCE, concat(tlv(INTEGER, new byte[] {0}), algorithm, tlv(OCTET_STRING, inner)));
    } catch (IllegalArgumentException e) {
      throw new KubeConfigException(
          source.label() + ": not a valid EC private key (" + e.getMessage() + ")");
    }
  }

  static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(n >>> (8 * i));
      }
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** A cursor over a run of DER TLVs; only what key wrapping needs. */
  private static final class Der {
    private final byte[] buf;
    private int pos;
    private final int end;

    Der(byte[] buf) {
      this(buf, 0, buf.length);
    }

    private Der(byte[] buf, int start, int end) {
      this.buf = buf;
      this.pos = start;
      this.end = end;
    }

    boolean hasMore() {
      return pos < end;
    }

    int peekTag() {
      if (pos >= end) {
        throw new IllegalArgumentException("truncated DER");
      }
      return buf[pos] & 0xff;
    }

    /** Reads one TLV with the tag, returning [valueStart, valueEnd). */
    private int[] next(int tag) {
      if (peekTag() != tag) {
        throw new IllegalArgumentException(
            "unexpected DER tag 0x" + Integer.toHexString(peekTag()));
      }
      int p = pos + 1;
      if (p >= end) {
        throw new IllegalArgumentException("truncated DER");
      }
      int len = buf[p++] & 0xff;
      if (len >= 0x80) {
        int bytes = len & 0x7f;
        if (bytes == 0 || bytes > 3 || p + bytes > end) {
          throw new IllegalArgumentException("bad DER length");
        }
        len = 0;
        for (int i = 0; i < bytes; i++) {
          len = (len << 8) | (buf[p++] & 0xff);
        }
      }
      if (p + len > end) {
        throw new IllegalArgumentException("truncated DER");
      }
      pos = p + len;
      return new int[] {p, p + len};
    }

    Der enter(int tag) {
      int[] span = next(tag);
      return new Der(buf, span[0], span[1]);
    }

    byte[] read(int tag) {
      int[] span = next(tag);
      return Arrays.copyOfRange(buf, span[0], span[1]);
    }

    void skip(int tag) {
      next(tag);
    }
  }
}

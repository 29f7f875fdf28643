package io.kinformer.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.util.Arrays;
import java.util.Base64;
import mockwebserver3.MockWebServer;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;

/** Certificates, keys in every PEM flavour, and HTTPS MockWebServers for the client tests. */
public final class TlsFixtures {

  private TlsFixtures() {}

  public static HeldCertificate ca(String name) {
    return new HeldCertificate.Builder().commonName(name).certificateAuthority(0).build();
  }

  public static HeldCertificate serverCertificate(HeldCertificate ca, String... names) {
    HeldCertificate.Builder b = new HeldCertificate.Builder().commonName(names[0]).signedBy(ca);
    for (String n : names) {
      b.addSubjectAlternativeName(n);
    }
    return b.build();
  }

  /** A loopback HTTPS server presenting {@code serverCertificate} (chain up to its CA). */
  public static MockWebServer httpsServer(HeldCertificate serverCertificate, HeldCertificate ca) {
    return httpsServer(serverCertificate, ca, null);
  }

  /**
   * A loopback HTTPS server; when {@code clientCa} is given it requires a client certificate
   * signed by it.
   */
  public static MockWebServer httpsServer(
      HeldCertificate serverCertificate, HeldCertificate ca, HeldCertificate clientCa) {
    HandshakeCertificates.Builder hc =
        new HandshakeCertificates.Builder().heldCertificate(serverCertificate, ca.certificate());
    if (clientCa != null) {
      hc.addTrustedCertificate(clientCa.certificate());
    }
    MockWebServer server = new MockWebServer();
    server.useHttps(hc.build().sslSocketFactory());
    if (clientCa != null) {
      server.requireClientAuth();
    }
    start(server);
    return server;
  }

  public static MockWebServer httpServer() {
    MockWebServer server = new MockWebServer();
    start(server);
    return server;
  }

  private static void start(MockWebServer server) {
    try {
      server.start(InetAddress.getByName("localhost"), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The server's URL as a kubeconfig would name it: {@code https://localhost:PORT}. */
  public static String url(MockWebServer server, boolean https) {
    return (https ? "https" : "http") + "://localhost:" + server.getPort();
  }

  /** Text as a kubeconfig {@code -data} field holds it. */
  public static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  public static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  /** An EC P-256 key as openssl writes it: SEC1 with [0] curve and [1] public key. */
  public static String sec1Pem(KeyPair p256) {
    ECPrivateKey priv = (ECPrivateKey) p256.getPrivate();
    ECPublicKey pub = (ECPublicKey) p256.getPublic();
    byte[] point =
        concat(new byte[] {0x04}, fixed(pub.getW().getAffineX()), fixed(pub.getW().getAffineY()));
    byte[] p256Oid = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x03, 0x01, 0x07};
    byte[] der =
        tlv(0x30, concat(
            tlv(0x02, new byte[] {1}),
            tlv(0x04, fixed(priv.getS())),
            tlv(0xa0, tlv(0x06, p256Oid)),
            tlv(0xa1, tlv(0x03, concat(new byte[] {0}, point)))));
    return "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
        + pem("EC PRIVATE KEY", der);
  }

  private static byte[] fixed(BigInteger v) {
    byte[] b = v.toByteArray();
    if (b.length == 32) {
      return b;
    }
    byte[] out = new byte[32];
    if (b.length > 32) {
      System.arraycopy(b, b.length - 32, out, 0, 32);
    } else {
      System.arraycopy(b, 0, out, 32 - b.length, b.length);
    }
    return out;
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    if (value.length < 128) {
      out.write(value.length);
    } else if (value.length < 256) {
      out.write(0x81);
      out.write(value.length);
    } else {
      out.write(0x82);
      out.write(value.length >> 8);
      out.write(value.length);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    byte[] out = new byte[0];
    for (byte[] p : parts) {
      int n = out.length;
      out = Arrays.copyOf(out, n + p.length);
      System.arraycopy(p, 0, out, n, p.length);
    }
    return out;
  }
}

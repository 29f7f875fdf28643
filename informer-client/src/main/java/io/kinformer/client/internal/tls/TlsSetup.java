package io.kinformer.client.internal.tls;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.client.internal.config.AuthConfig;
import io.kinformer.client.internal.config.ExecCredentialPlugin;
import io.kinformer.client.internal.config.KubeConfigAccess;
import io.kinformer.client.internal.config.PemSource;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Enumeration;
import java.util.List;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * The TLS side of a {@link KubeConfig}, as client-go's {@code transport.TLSConfigFor} builds it:
 *
 * <ul>
 *   <li>the server is verified by default, against the system trust store, or, when a CA is
 *       configured, against that CA only (client-go puts the CA alone in {@code RootCAs});
 *   <li>{@code insecure-skip-tls-verify} trusts any certificate and any host name;
 *   <li>{@code tls-server-name} is sent as SNI and the certificate is verified against it instead
 *       of the URL's host (JDK endpoint identification during the handshake, see {@link
 *       TlsServerNameSocketFactory});
 *   <li>a client certificate and key (PEM) are offered for mutual TLS, once the key is known to
 *       match the certificate (as Go's {@code tls.X509KeyPair} checks); when either is a file,
 *       the files are re-read when they change on disk ({@link RotatingClientKeyManager}).
 * </ul>
 *
 * <p>Thread safety: immutable.
 *
 * @param hostnameVerifier null to keep OkHttp's verifier (the URL's host)
 * @param rotatingKeys the client certificate files' watcher, to be checked before each request;
 *     null without client certificate files
 */
public record TlsSetup(
    SSLSocketFactory socketFactory,
    X509TrustManager trustManager,
    @Nullable HostnameVerifier hostnameVerifier,
    @Nullable RotatingClientKeyManager rotatingKeys) {

  /**
   * @param clock paces the checks of client certificate and key files for rotation
   */
  public static TlsSetup create(KubeConfig config, Clock clock) {
    return create(config, clock, null);
  }

  /**
   * As above; {@code exec}, the kubeconfig's exec credential plugin if its credentials are used,
   * supplies the client certificate when the kubeconfig names none.
   */
  public static TlsSetup create(KubeConfig config, Clock clock, @Nullable ExecCredentialPlugin exec) {
    X509TrustManager trust;
    if (config.insecureSkipTlsVerify()) {
      trust = new TrustAll();
    } else {
      PemSource ca = KubeConfigAccess.certificateAuthority(config);
      trust = ca == null ? systemTrust() : trustOnly(ca);
    }
    SSLContext context;
    try {
      context = SSLContext.getInstance("TLS");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot create a TLS context", e);
    }
    KeyManager[] keys = keyManagers(KubeConfigAccess.auth(config), clock, context);
    if (keys == null && exec != null) {
      keys = new KeyManager[] {
        new ExecClientKeyManager(exec, () -> invalidateSessions(context.getClientSessionContext()))
      };
    }
    try {
      context.init(keys, new TrustManager[] {trust}, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot create a TLS context", e);
    }
    SSLSocketFactory factory = context.getSocketFactory();
    RotatingClientKeyManager rotatingKeys = null;
    if (keys != null && keys[0] instanceof RotatingClientKeyManager rotating) {
      rotatingKeys = rotating;
      factory = rotating.checkingOnConnect(factory);
    }
    HostnameVerifier verifier = null;
    String serverName = config.tlsServerName().orElse(null);
    if (config.insecureSkipTlsVerify()) {
      verifier = (host, session) -> true;
      if (serverName != null) {
        factory = new TlsServerNameSocketFactory(factory, serverName, /* verify= */ false);
      }
    } else if (serverName != null) {
      if (!(trust instanceof X509ExtendedTrustManager)) {
        throw new IllegalStateException(
            "tls-server-name needs an X509ExtendedTrustManager, got " + trust.getClass());
      }
      factory = new TlsServerNameSocketFactory(factory, serverName, /* verify= */ true);
      // The handshake has verified the certificate against tls-server-name (endpoint
      // identification on the socket); OkHttp's own check would use the URL's host instead.
      verifier = (host, session) -> true;
    }
    return new TlsSetup(factory, trust, verifier, rotatingKeys);
  }

  private static X509TrustManager systemTrust() {
    try {
      TrustManagerFactory f =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init((KeyStore) null);
      return onlyX509(f.getTrustManagers());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK's default trust store cannot be loaded", e);
    }
  }

  private static X509TrustManager trustOnly(PemSource ca) {
    List<X509Certificate> certs = PemReader.certificates(ca);
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < certs.size(); i++) {
        store.setCertificateEntry("ca-" + i, certs.get(i));
      }
      TrustManagerFactory f =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(store);
      return onlyX509(f.getTrustManagers());
    } catch (GeneralSecurityException | IOException e) {
      throw new KubeConfigException(ca.label() + ": cannot be used as a trust anchor", e);
    }
  }

  /**
   * The client certificate's key managers, or null without one. When the certificate or the key
   * comes from a file, a {@link RotatingClientKeyManager} re-reads the files when they change (as
   * client-go's {@code transport/cert_rotation.go} does); inline data has nothing to reload.
   */
  private static KeyManager @Nullable [] keyManagers(
      AuthConfig auth, Clock clock, SSLContext context) {
    PemSource certSource = auth.clientCertificate();
    PemSource keySource = auth.clientKey();
    if (certSource == null || keySource == null) {
      return null;
    }
    if (certSource.file() == null && keySource.file() == null) {
      return new KeyManager[] {loadKeyManager(certSource, keySource)};
    }
    return new KeyManager[] {
      new RotatingClientKeyManager(
          certSource,
          keySource,
          clock,
          // A resumed TLS session would present the identity of the session it resumes, not
          // the new certificate; forget them so the next handshake is a full one.
          () -> invalidateSessions(context.getClientSessionContext()))
    };
  }

  private static void invalidateSessions(@Nullable SSLSessionContext sessions) {
    if (sessions == null) {
      return;
    }
    for (Enumeration<byte[]> ids = sessions.getIds(); ids.hasMoreElements(); ) {
      SSLSession session = sessions.getSession(ids.nextElement());
      if (session != null) {
        session.invalidate();
      }
    }
  }

  /**
   * Reads the certificate chain and key (now, from files if they are files), checks that they
   * match, and builds the key manager presenting them.
   *
   * @throws KubeConfigException naming the sources (never key material) if they cannot be used
   */
  static X509ExtendedKeyManager loadKeyManager(PemSource certSource, PemSource keySource) {
    List<X509Certificate> chain = PemReader.certificates(certSource);
    PrivateKey key = PemReader.privateKey(keySource);
    if (!chain.get(0).getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
      throw new KubeConfigException(
          keySource.label() + ": a " + key.getAlgorithm() + " key does not match the "
              + chain.get(0).getPublicKey().getAlgorithm() + " certificate of "
              + certSource.label());
    }
    checkKeyMatches(key, chain.get(0), keySource, certSource);
    char[] password = new char[0];
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("client", key, password, chain.toArray(new X509Certificate[0]));
      KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      f.init(store, password);
      for (KeyManager m : f.getKeyManagers()) {
        if (m instanceof X509ExtendedKeyManager x) {
          return x;
        }
      }
      throw new IllegalStateException(
          "no X509ExtendedKeyManager among " + List.of(f.getKeyManagers()));
    } catch (GeneralSecurityException | IOException e) {
      // Messages of the JDK here describe structure, never key bytes.
      throw new KubeConfigException(
          keySource.label() + ": cannot be used with " + certSource.label() + " ("
              + e.getClass().getSimpleName() + ")", e);
    }
  }

  /**
   * Go's {@code tls.X509KeyPair} check: the key must be the one of the (leaf) certificate, shown by
   * a signature that the certificate's public key verifies. Without it a mismatch surfaces only as
   * the server failing the handshake, far from the kubeconfig fields at fault.
   */
  private static void checkKeyMatches(
      PrivateKey key, X509Certificate cert, PemSource keySource, PemSource certSource) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "EdDSA", "Ed25519", "Ed448" -> key.getAlgorithm();
          default -> null; // nothing to sign with here; the handshake will tell
        };
    if (algorithm == null) {
      return;
    }
    byte[] probe = "kinformer: does this key match its certificate?".getBytes(US_ASCII);
    byte[] signature;
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      signature = signer.sign();
    } catch (GeneralSecurityException e) {
      // Messages of the JDK here describe structure, never key bytes.
      throw new KubeConfigException(
          keySource.label() + ": cannot sign with this " + key.getAlgorithm() + " key ("
              + e.getClass().getSimpleName() + ")", e);
    }
    boolean matches;
    try {
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(probe);
      matches = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      matches = false; // e.g. an EC key on another curve than the certificate's
    }
    if (!matches) {
      throw new KubeConfigException(
          keySource.label() + ": private key does not match the public key of the certificate"
              + " in " + certSource.label());
    }
  }

  private static X509TrustManager onlyX509(TrustManager[] managers) {
    for (TrustManager m : managers) {
      if (m instanceof X509TrustManager x) {
        return x;
      }
    }
    throw new IllegalStateException("no X509TrustManager among " + List.of(managers));
  }

  /**
   * insecure-skip-tls-verify: accepts every chain; extended so the JDK adds no checks of its own.
   */
  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}

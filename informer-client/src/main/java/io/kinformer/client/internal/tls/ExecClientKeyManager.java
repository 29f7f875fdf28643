package io.kinformer.client.internal.tls;

import io.kinformer.client.KubeConfigException;
import io.kinformer.client.internal.config.ExecCredentialPlugin;
import io.kinformer.client.internal.config.PemSource;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presents the client certificate an exec credential plugin returned ({@link
 * ExecCredentialPlugin#clientCertificate()}) in each TLS handshake that asks for one, as
 * client-go's {@code GetClientCertificate} callback does: the plugin runs when the handshake needs
 * a certificate and none is cached or the cached one expired. A changed certificate is loaded
 * (key checked against it, as for kubeconfig certificates) and used from the next handshake on;
 * whenever a run of the plugin replaces it, {@code onChange} forgets the TLS sessions, so that no
 * new connection resumes the old identity. Connections already open keep the certificate they
 * were made with until they close. A handshake racing a replacement may, rarely, fail and be
 * retried by the caller.
 *
 * <p>A plugin that fails during a handshake is logged (by the plugin, at WARN for a timeout) and
 * the handshake goes on without a certificate, so the server answers 401 and the request fails
 * with it; the next handshake asks the plugin again.
 *
 * <p>Thread safety: thread-safe; handshakes may run concurrently.
 */
final class ExecClientKeyManager extends X509ExtendedKeyManager {

  private static final Logger log = LoggerFactory.getLogger(ExecClientKeyManager.class);

  private final ExecCredentialPlugin plugin;
  private final Runnable onChange;

  /** The pair loaded last and the certificate it was loaded from. */
  private record Loaded(ExecCredentialPlugin.ClientCertificate source, X509ExtendedKeyManager keys) {}

  private volatile @Nullable Loaded loaded;

  ExecClientKeyManager(ExecCredentialPlugin plugin, Runnable onChange) {
    this.plugin = plugin;
    this.onChange = onChange;
    // A run for a request (not a handshake) may replace the certificate, and a connection that
    // resumes earlier TLS state never asks this key manager: that state is dropped right away.
    plugin.onCertificateChange(onChange);
  }

  /** The key manager of the plugin's current certificate, or null without one. */
  private @Nullable X509ExtendedKeyManager current() {
    ExecCredentialPlugin.ClientCertificate now;
    try {
      now = plugin.clientCertificate();
    } catch (KubeConfigException e) {
      log.debug("no client certificate from the exec plugin: {}", e.getMessage());
      return null;
    }
    if (now == null) {
      return null;
    }
    Loaded l = loaded;
    if (l != null && l.source().equals(now)) {
      return l.keys();
    }
    try {
      X509ExtendedKeyManager keys = TlsSetup.loadKeyManager(
          PemSource.ofData("exec plugin status.clientCertificateData",
              now.certificatePem().getBytes(StandardCharsets.UTF_8)),
          PemSource.ofData("exec plugin status.clientKeyData",
              now.keyPem().getBytes(StandardCharsets.UTF_8)));
      Loaded before;
      synchronized (this) {
        before = loaded;
        loaded = new Loaded(now, keys);
      }
      if (before != null) {
        onChange.run();
      }
      return keys;
    } catch (KubeConfigException e) {
      log.warn("the exec plugin's client certificate cannot be used: {}", e.getMessage());
      return null;
    }
  }

  @Override
  public @Nullable String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    X509ExtendedKeyManager keys = current();
    return keys == null ? null : keys.chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public @Nullable String chooseEngineClientAlias(
      String[] keyType, Principal[] issuers, SSLEngine engine) {
    X509ExtendedKeyManager keys = current();
    return keys == null ? null : keys.chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public X509Certificate @Nullable [] getCertificateChain(String alias) {
    Loaded l = loaded;
    return l == null ? null : l.keys().getCertificateChain(alias);
  }

  @Override
  public @Nullable PrivateKey getPrivateKey(String alias) {
    Loaded l = loaded;
    return l == null ? null : l.keys().getPrivateKey(alias);
  }

  @Override
  public String @Nullable [] getClientAliases(String keyType, Principal[] issuers) {
    Loaded l = loaded;
    return l == null ? null : l.keys().getClientAliases(keyType, issuers);
  }

  @Override
  public String @Nullable [] getServerAliases(String keyType, Principal[] issuers) {
    return null; // a client only
  }

  @Override
  public @Nullable String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}

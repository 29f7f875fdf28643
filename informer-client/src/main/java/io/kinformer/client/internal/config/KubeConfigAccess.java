package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfig;
import java.net.URI;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The members of {@link KubeConfig} that the internal packages use and users must not: its
 * constructor, the certificate authority and credentials (which are internal types), and the URL
 * checks that {@link KubeConfigLoader} shares with {@code KubeConfig.builder()}.
 *
 * <p>{@link KubeConfig} installs the one implementation when it is initialized; the static methods
 * here initialize it first if need be. Keeping these members package-private in {@link KubeConfig}
 * keeps internal types out of its public signatures.
 *
 * <p>Thread safety: thread-safe (the implementation is installed once, during class
 * initialization of {@link KubeConfig}).
 */
public abstract class KubeConfigAccess {

  private static volatile @Nullable KubeConfigAccess instance;

  /** For {@link KubeConfig}'s implementation only. */
  protected KubeConfigAccess() {}

  /**
   * Installs the implementation; {@link KubeConfig} calls this once from its static initializer.
   *
   * @throws IllegalStateException if an implementation is already installed
   */
  public static void install(KubeConfigAccess access) {
    Objects.requireNonNull(access, "access");
    synchronized (KubeConfigAccess.class) {
      if (instance != null) {
        throw new IllegalStateException("KubeConfigAccess is already installed");
      }
      instance = access;
    }
  }

  private static KubeConfigAccess instance() {
    KubeConfigAccess access = instance;
    if (access == null) {
      try {
        // Runs KubeConfig's static initializer, which installs the implementation.
        Class.forName(KubeConfig.class.getName(), true, KubeConfig.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      access = Objects.requireNonNull(instance, "KubeConfig did not install KubeConfigAccess");
    }
    return access;
  }

  /** A configuration from resolved parts (see {@link KubeConfig}'s constructor). */
  public static KubeConfig create(
      URI server,
      String namespace,
      @Nullable String context,
      String source,
      @Nullable PemSource certificateAuthority,
      boolean insecureSkipTlsVerify,
      @Nullable String tlsServerName,
      @Nullable URI proxyUrl,
      AuthConfig auth) {
    return instance().newConfig(server, namespace, context, source, certificateAuthority,
        insecureSkipTlsVerify, tlsServerName, proxyUrl, auth);
  }

  /** The CA bundle {@code config} trusts, or null for the system trust store. */
  public static @Nullable PemSource certificateAuthority(KubeConfig config) {
    return instance().certificateAuthorityOf(config);
  }

  /** How {@code config} authenticates. */
  public static AuthConfig auth(KubeConfig config) {
    return instance().authOf(config);
  }

  /** Validates an API server URL: http or https, with a host; {@code label} names the field. */
  public static URI parseServer(String label, String server) {
    return instance().server(label, server);
  }

  /** Validates a proxy URL: http or socks5, with a host; {@code label} names the field. */
  public static URI parseProxy(String label, String proxy) {
    return instance().proxy(label, proxy);
  }

  protected abstract KubeConfig newConfig(
      URI server,
      String namespace,
      @Nullable String context,
      String source,
      @Nullable PemSource certificateAuthority,
      boolean insecureSkipTlsVerify,
      @Nullable String tlsServerName,
      @Nullable URI proxyUrl,
      AuthConfig auth);

  protected abstract @Nullable PemSource certificateAuthorityOf(KubeConfig config);

  protected abstract AuthConfig authOf(KubeConfig config);

  protected abstract URI server(String label, String server);

  protected abstract URI proxy(String label, String proxy);
}

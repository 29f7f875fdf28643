package io.kinformer.client.internal.tls;

import io.kinformer.client.KubeConfigException;
import io.kinformer.client.internal.config.PemSource;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client certificate of a kubeconfig whose {@code client-certificate} or {@code client-key}
 * is a file, re-read when the files change on disk: client-go's dynamic client certificate
 * ({@code transport/cert_rotation.go}), so a long-running controller keeps working when its
 * certificate is rotated (kubelet-style rotation, cert-manager secrets mounted as files).
 *
 * <p>On each new connection and each handshake that asks for a client certificate, at most once
 * every {@link #CHECK_INTERVAL} (by the client's {@link Clock}), the files' last-modified time and size are
 * compared with those of the last load. When they changed, both are read again and, if the pair
 * loads and the key matches the certificate, it replaces the previous pair for this and later
 * handshakes (and the TLS client sessions are forgotten, so no new connection resumes a session
 * made with the old certificate). A pair that does not load, or whose key does not match, is not
 * used: the previous pair stays, with one WARN naming the files (never their content); the files
 * are tried again once they change again.
 *
 * <p>The files are also checked before each request ({@code KubeClient} calls {@link
 * #maybeReload()}), at most as often: connections are reused as long as they stay open, and one
 * HTTP/2 connection may carry every request of a client, so a check on new connections alone could
 * wait forever.
 *
 * <p>When a new pair replaces the previous one, the connections made before are closed, as
 * client-go's {@code connrotation.Dialer.CloseAll} does: requests in flight on them fail with an
 * I/O error (a reflector's watch then reconnects at once), and the next requests open new
 * connections, which present the new certificate. Otherwise a connection kept busy (a watch
 * after another) would go on presenting the old certificate until it expired and the server
 * refused every request on it. The sockets are those made through {@link #checkingOnConnect},
 * each tagged with the generation of the pair it presents; a socket whose own handshake caused
 * the reload is kept.
 *
 * <p>Aliases returned by this key manager carry the generation of the pair they belong to, so a
 * handshake that chose an alias before a reload still gets the chain and key of the same pair.
 *
 * <p>Thread safety: thread-safe; handshakes may run concurrently.
 */
public final class RotatingClientKeyManager extends X509ExtendedKeyManager {

  private static final Logger log = LoggerFactory.getLogger(RotatingClientKeyManager.class);

  /** How often at most the files are looked at (on new connections and handshakes). */
  public static final Duration CHECK_INTERVAL = Duration.ofSeconds(5);

  private static final String SEPARATOR = "@kinformer-generation-";

  /** One loaded pair. */
  private record Pair(long generation, X509ExtendedKeyManager delegate) {}

  /** What one file looked like; null for a file that could not be looked at. */
  private record FileStamp(FileTime lastModified, long size) {}

  /** What both files looked like (null entries: inline data, or a file not there). */
  private record Stamp(@Nullable FileStamp cert, @Nullable FileStamp key) {}

  /** A pair of ours and the alias its delegate knows. */
  private record Resolved(Pair pair, String alias) {}

  private final PemSource certSource;
  private final PemSource keySource;
  private final Clock clock;
  private final Runnable onReload;
  private final ReentrantLock lock = new ReentrantLock();

  private volatile Pair current;
  /** The pair before {@link #current}, for handshakes that chose an alias just before a reload. */
  private volatile @Nullable Pair previous;

  /**
   * The sockets made through {@link #checkingOnConnect}, each with the generation of the pair it
   * presents (or will: the current one when it was made); identity keys, dropped once collected.
   */
  // @GuardedBy("sockets")
  private final Map<Socket, Long> sockets = new WeakHashMap<>();

  // @GuardedBy("lock")
  private long checkedAtNanos;
  // @GuardedBy("lock"): the files as last tried, whether or not the pair loaded.
  private Stamp triedStamp;

  /**
   * Loads the pair now.
   *
   * @param onReload run after a changed pair has replaced the previous one
   * @throws KubeConfigException naming the sources if the pair cannot be used now
   */
  RotatingClientKeyManager(
      PemSource certSource, PemSource keySource, Clock clock, Runnable onReload) {
    this.certSource = Objects.requireNonNull(certSource, "certSource");
    this.keySource = Objects.requireNonNull(keySource, "keySource");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.onReload = Objects.requireNonNull(onReload, "onReload");
    // Stamped before reading: a change while reading shows as a change at the next check.
    this.triedStamp = stamp();
    this.current = new Pair(0, TlsSetup.loadKeyManager(certSource, keySource));
    this.checkedAtNanos = clock.nanoTime();
  }

  /**
   * {@code delegate}, checking the files before each connection it makes: a connection that
   * resumes a TLS session never asks the key manager, so the check must not wait for that.
   */
  SSLSocketFactory checkingOnConnect(SSLSocketFactory delegate) {
    return new CheckingSocketFactory(delegate);
  }

  /**
   * Re-reads the files if the check interval has passed and they changed; after a reload, closes
   * the connections made with an earlier pair.
   */
  public void maybeReload() {
    maybeReload(null);
  }

  /** As {@link #maybeReload()}; {@code handshaking} (may be null) is not closed. */
  private void maybeReload(@Nullable Socket handshaking) {
    if (!lock.tryLock()) {
      return; // another thread is checking; this one uses the pair in place
    }
    List<Socket> stale;
    try {
      stale = reloadLocked();
    } finally {
      lock.unlock();
    }
    if (!stale.isEmpty()) {
      closeStale(stale, handshaking);
    }
  }

  /** The sockets to close: those of earlier pairs if a new pair was loaded, else none. */
  private List<Socket> reloadLocked() {
    long now = clock.nanoTime();
    if (now - checkedAtNanos < CHECK_INTERVAL.toNanos()) {
      return List.of();
    }
    checkedAtNanos = now;
    Stamp stamp = stamp();
    if (stamp.equals(triedStamp)) {
      return List.of();
    }
    triedStamp = stamp;
    X509ExtendedKeyManager loaded;
    try {
      loaded = TlsSetup.loadKeyManager(certSource, keySource);
    } catch (RuntimeException e) {
      // KubeConfigException messages name labels and files, never key material; of anything
      // else only the type is logged.
      String why =
          e instanceof KubeConfigException ? e.getMessage() : e.getClass().getSimpleName();
      log.warn(
          "client certificate {} or key {} changed but cannot be used ({}); keeping the"
              + " previous certificate",
          describe(certSource),
          describe(keySource),
          why);
      return List.of();
    }
    Pair old = current;
    previous = old;
    current = new Pair(old.generation() + 1, loaded);
    log.info(
        "client certificate {} and key {} reloaded; connections made with the previous one are"
            + " closed, new ones present the new certificate",
        describe(certSource),
        describe(keySource));
    try {
      onReload.run();
    } catch (RuntimeException e) {
      log.debug("after reloading the client certificate: {}", e.getClass().getSimpleName());
    }
    return socketsBefore(current.generation());
  }

  /** Removes and returns the sockets tagged with a generation before {@code generation}. */
  private List<Socket> socketsBefore(long generation) {
    List<Socket> out = new ArrayList<>();
    synchronized (sockets) {
      for (var it = sockets.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Socket, Long> e = it.next();
        if (e.getValue() < generation) {
          out.add(e.getKey());
          it.remove();
        }
      }
    }
    return out;
  }

  private void closeStale(List<Socket> stale, @Nullable Socket handshaking) {
    int closed = 0;
    for (Socket socket : stale) {
      if (socket == handshaking) {
        continue; // presents the new pair: its alias is chosen after this reload
      }
      if (!socket.isClosed()) {
        closed++;
      }
      try {
        socket.close();
      } catch (IOException | RuntimeException e) {
        log.debug("closing a connection of the previous client certificate: {}",
            e.getClass().getSimpleName());
      }
    }
    if (closed > 0) {
      log.info("closed {} connection(s) made with the previous client certificate", closed);
    }
  }

  /** Tags {@code socket} with the generation of the pair it presents. */
  private void track(Socket socket, long generation) {
    synchronized (sockets) {
      sockets.put(socket, generation);
    }
  }

  private static String describe(PemSource source) {
    Path file = source.file();
    return file != null ? file.toString() : source.label();
  }

  private Stamp stamp() {
    return new Stamp(stamp(certSource), stamp(keySource));
  }

  private static @Nullable FileStamp stamp(PemSource source) {
    Path file = source.file();
    if (file == null) {
      return null;
    }
    try {
      // Follows symbolic links, as Kubernetes' atomically swapped ..data directories need.
      return new FileStamp(Files.getLastModifiedTime(file), Files.size(file));
    } catch (IOException | SecurityException e) {
      return null; // missing for now; loading will say why if it is tried
    }
  }

  private static @Nullable String tag(@Nullable String alias, Pair pair) {
    return alias == null ? null : alias + SEPARATOR + pair.generation();
  }

  /** The pair an alias of ours belongs to and the delegate's alias, or null if unknown. */
  private @Nullable Resolved resolve(@Nullable String alias) {
    if (alias == null) {
      return null;
    }
    int at = alias.lastIndexOf(SEPARATOR);
    if (at < 0) {
      return null;
    }
    long generation;
    try {
      generation = Long.parseLong(alias.substring(at + SEPARATOR.length()));
    } catch (NumberFormatException e) {
      return null;
    }
    Pair c = current;
    Pair p = previous;
    Pair pair =
        c.generation() == generation ? c : p != null && p.generation() == generation ? p : null;
    return pair == null ? null : new Resolved(pair, alias.substring(0, at));
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    maybeReload(socket);
    Pair pair = current;
    if (socket != null) {
      track(socket, pair.generation());
    }
    return tag(pair.delegate().chooseClientAlias(keyType, issuers, socket), pair);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    maybeReload();
    Pair pair = current;
    return tag(pair.delegate().chooseEngineClientAlias(keyType, issuers, engine), pair);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    Pair pair = current;
    String[] aliases = pair.delegate().getClientAliases(keyType, issuers);
    if (aliases == null) {
      return null;
    }
    String[] out = new String[aliases.length];
    for (int i = 0; i < aliases.length; i++) {
      out[i] = tag(aliases[i], pair);
    }
    return out;
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Resolved r = resolve(alias);
    return r == null ? null : r.pair().delegate().getCertificateChain(r.alias());
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Resolved r = resolve(alias);
    return r == null ? null : r.pair().delegate().getPrivateKey(r.alias());
  }

  // A client's key manager serves no server side.

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return null;
  }

  @Override
  public String toString() {
    return "RotatingClientKeyManager[" + certSource + ", " + keySource + "]";
  }

  private final class CheckingSocketFactory extends ForwardingSslSocketFactory {

    CheckingSocketFactory(SSLSocketFactory delegate) {
      super(delegate);
    }

    @Override
    void beforeCreate() {
      maybeReload();
    }

    @Override
    Socket created(Socket socket) {
      track(socket, current.generation());
      return socket;
    }
  }
}

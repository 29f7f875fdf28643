package io.kinformer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of a server, for tests of what a client notices when the network
 * goes wrong without telling it: {@link #blackHole(Direction)} makes the connections open now stop
 * forwarding bytes in one or both directions while they stay open (no FIN, no RST reaches either
 * side, even when the other side closes), as a lost NAT entry, a crashed peer or a stalled
 * middlebox does; connections made afterwards work, so a client that notices reconnects. {@link
 * #heal()} makes every connection forward again, and {@link #closeConnections()} closes them.
 *
 * <pre>{@code
 * try (EmbeddedApiServer server = EmbeddedApiServer.start();
 *      TcpProxy proxy = TcpProxy.start(server.url())) {
 *   KubeConfig config = KubeConfig.load(proxy.kubeConfig(server)); // the server, via the proxy
 *   ...
 *   proxy.blackHole(TcpProxy.Direction.BOTH);
 * }
 * }</pre>
 *
 * <p>Bytes that arrive on a black-holed direction are read and dropped, so the sender's writes
 * never block: from the receiving side, the peer simply went silent. TLS passes through untouched
 * (the proxy never looks at the bytes).
 *
 * <p>Thread safety: thread-safe. Each connection uses two daemon threads ({@code
 * kinformer-tcp-proxy-*}), and one accepts; {@link #close()} ends them all.
 */
public final class TcpProxy implements AutoCloseable {

  /** Which bytes {@link #blackHole} drops. */
  public enum Direction {
    /** From the client to the server. */
    TO_SERVER,
    /** From the server to the client: the server seems to stop sending. */
    TO_CLIENT,
    /** Both: the connection seems dead. */
    BOTH
  }

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final Thread acceptor;
  // @GuardedBy("pairs")
  private final List<Pair> pairs = new ArrayList<>();
  private final AtomicLong accepted = new AtomicLong();
  private volatile boolean closed;

  /** One proxied connection: the client's socket, the server's, and what each way drops. */
  private static final class Pair {
    final Socket client;
    final Socket server;
    volatile boolean dropToServer;
    volatile boolean dropToClient;

    Pair(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void close() {
      closeQuietly(client);
      closeQuietly(server);
    }
  }

  private TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "kinformer-tcp-proxy-accept-" + port());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy on a free loopback port, forwarding to {@code server}'s host and port. */
  public static TcpProxy start(URI server) {
    Objects.requireNonNull(server, "server");
    int port = server.getPort() != -1 ? server.getPort()
        : "https".equals(server.getScheme()) ? 443 : 80;
    try {
      return new TcpProxy(new InetSocketAddress(server.getHost(), port));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on a loopback port", e);
    }
  }

  /** The port the proxy listens on, on the loopback address. */
  public int port() {
    return listener.getLocalPort();
  }

  /** {@code url} with its port replaced by the proxy's. */
  public URI via(URI url) {
    return URI.create(url.getScheme() + "://" + url.getHost() + ":" + port()
        + (url.getRawPath() == null ? "" : url.getRawPath()));
  }

  /**
   * {@code server}'s kubeconfig with its server URL pointing at this proxy (same host name, so its
   * certificate still verifies).
   */
  public String kubeConfigYaml(EmbeddedApiServer server) {
    String url = server.url().toString().replaceAll("/$", "");
    return server.kubeConfigYaml().replace(url, via(server.url()).toString().replaceAll("/$", ""));
  }

  /** How many connections the proxy has accepted. */
  public long connectionsAccepted() {
    return accepted.get();
  }

  /**
   * Makes the connections open now stop forwarding in {@code direction}, keeping them open;
   * connections made later forward as usual.
   *
   * @return how many connections went silent
   */
  public int blackHole(Direction direction) {
    Objects.requireNonNull(direction, "direction");
    synchronized (pairs) {
      for (Pair p : pairs) {
        p.dropToServer |= direction != Direction.TO_CLIENT;
        p.dropToClient |= direction != Direction.TO_SERVER;
      }
      return pairs.size();
    }
  }

  /** Makes every connection still open forward both ways again (what was dropped is lost). */
  public void heal() {
    synchronized (pairs) {
      for (Pair p : pairs) {
        p.dropToServer = false;
        p.dropToClient = false;
      }
    }
  }

  /** Closes every connection made so far (both sides); new ones are accepted. */
  public void closeConnections() {
    List<Pair> all;
    synchronized (pairs) {
      all = new ArrayList<>(pairs);
      pairs.clear();
    }
    all.forEach(Pair::close);
  }

  /** Stops listening, closes every connection, and ends the proxy's threads. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    closeConnections();
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      accepted.incrementAndGet();
      Socket server = new Socket();
      try {
        server.connect(target, 5_000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(server);
        continue;
      }
      Pair pair = new Pair(client, server);
      synchronized (pairs) {
        if (closed) {
          pair.close();
          return;
        }
        pairs.add(pair);
      }
      pump(pair, true);
      pump(pair, false);
    }
  }

  private void pump(Pair pair, boolean toServer) {
    Socket from = toServer ? pair.client : pair.server;
    Socket to = toServer ? pair.server : pair.client;
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        for (int n; (n = in.read(buffer)) != -1; ) {
          if (!dropping(pair, toServer)) {
            out.write(buffer, 0, n);
            out.flush();
          } // else read and dropped: the sender never blocks, the receiver hears nothing
        }
      } catch (IOException e) {
        // a side closed or failed
      }
      // A black-holed direction passes on no close either: the receiver keeps waiting.
      if (!dropping(pair, toServer)) {
        pair.close();
        synchronized (pairs) {
          pairs.remove(pair);
        }
      }
    }, "kinformer-tcp-proxy-" + port() + (toServer ? "-up" : "-down"));
    t.setDaemon(true);
    t.start();
  }

  private static boolean dropping(Pair pair, boolean toServer) {
    return toServer ? pair.dropToServer : pair.dropToClient;
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing anyway
    }
  }
}

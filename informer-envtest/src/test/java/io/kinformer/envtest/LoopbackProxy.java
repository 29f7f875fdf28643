package io.kinformer.envtest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on loopback in front of one port, which a test can cut off as if the server were
 * gone: {@link #cut()} closes every connection through it and stops listening, so that new
 * connections are refused; {@link #resume()} listens again on the same port. TLS passes through
 * untouched (the server's certificate names 127.0.0.1, where the proxy listens too).
 *
 * <p>Thread safety: thread-safe; {@link #cut()}, {@link #resume()} and {@link #close()} are
 * serialised on this object.
 */
final class LoopbackProxy implements AutoCloseable {
  private final int targetPort;
  private final int port;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  // Guarded by this; null while cut or closed.
  private @Nullable ServerSocket listener;
  private boolean closed;

  private LoopbackProxy(int targetPort, ServerSocket listener) {
    this.targetPort = targetPort;
    this.port = listener.getLocalPort();
    this.listener = listener;
    acceptOn(listener);
  }

  /** A proxy on a free loopback port that forwards to {@code targetPort} on loopback. */
  static LoopbackProxy start(int targetPort) throws IOException {
    return new LoopbackProxy(targetPort, listen(0));
  }

  /** The port the proxy listens on. */
  int port() {
    return port;
  }

  /** Closes every connection and the listening socket: connecting is refused until resumed. */
  synchronized void cut() throws IOException {
    if (listener != null) {
      listener.close();
      listener = null;
    }
    for (Socket s : connections) {
      s.close();
    }
  }

  /** Listens again on the same port. */
  synchronized void resume() throws IOException {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    if (listener == null) {
      listener = listen(port);
      acceptOn(listener);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    cut();
  }

  private static ServerSocket listen(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return s;
  }

  private void acceptOn(ServerSocket l) {
    daemon("loopback-proxy-accept-" + port, () -> {
      while (true) {
        Socket client;
        try {
          client = l.accept();
        } catch (IOException e) {
          return; // cut or closed
        }
        forward(client);
      }
    });
  }

  private void forward(Socket client) {
    Socket upstream;
    try {
      upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
    } catch (IOException e) {
      closeQuietly(client); // the server is down: so is the connection through the proxy
      return;
    }
    connections.add(client);
    connections.add(upstream);
    daemon("loopback-proxy-up-" + port, () -> pump(client, upstream));
    daemon("loopback-proxy-down-" + port, () -> pump(upstream, client));
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // cut, or one side closed or reset the connection: so does the other
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      connections.remove(from);
      connections.remove(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  private static void daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }
}

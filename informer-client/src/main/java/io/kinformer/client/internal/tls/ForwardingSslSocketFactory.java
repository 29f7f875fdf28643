package io.kinformer.client.internal.tls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.ssl.SSLSocketFactory;

/**
 * An {@link SSLSocketFactory} that makes its sockets with another one, with hooks before and after
 * each: the shared part of our factories that adjust TLS sockets ({@link
 * TlsServerNameSocketFactory}) or act when one is made ({@link RotatingClientKeyManager}).
 *
 * <p>OkHttp calls only {@link #createSocket(Socket, String, int, boolean)} (TLS over its own TCP
 * socket); the other methods forward the same way for completeness.
 *
 * <p>Thread safety: as thread-safe as the hooks of the subclass; this class adds no state.
 */
abstract class ForwardingSslSocketFactory extends SSLSocketFactory {

  private final SSLSocketFactory delegate;

  ForwardingSslSocketFactory(SSLSocketFactory delegate) {
    this.delegate = delegate;
  }

  /** Runs before each socket is made. */
  void beforeCreate() throws IOException {}

  /** The host a socket layered over an existing one is made for; the given one by default. */
  String layeredHost(String host) {
    return host;
  }

  /** Adjusts each socket made; returns it as it is by default. */
  Socket created(Socket socket) {
    return socket;
  }

  @Override
  public final Socket createSocket(Socket s, String host, int port, boolean autoClose)
      throws IOException {
    beforeCreate();
    return created(delegate.createSocket(s, layeredHost(host), port, autoClose));
  }

  @Override
  public final Socket createSocket(String host, int port) throws IOException {
    beforeCreate();
    return created(delegate.createSocket(host, port));
  }

  @Override
  public final Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    beforeCreate();
    return created(delegate.createSocket(host, port, localHost, localPort));
  }

  @Override
  public final Socket createSocket(InetAddress host, int port) throws IOException {
    beforeCreate();
    return created(delegate.createSocket(host, port));
  }

  @Override
  public final Socket createSocket(
      InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
    beforeCreate();
    return created(delegate.createSocket(address, port, localAddress, localPort));
  }

  @Override
  public final Socket createSocket() throws IOException {
    beforeCreate();
    return created(delegate.createSocket());
  }

  @Override
  public final String[] getDefaultCipherSuites() {
    return delegate.getDefaultCipherSuites();
  }

  @Override
  public final String[] getSupportedCipherSuites() {
    return delegate.getSupportedCipherSuites();
  }
}

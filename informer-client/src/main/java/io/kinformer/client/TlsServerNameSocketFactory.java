package io.kinformer.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Makes every TLS socket speak to {@code tls-server-name} instead of the URL's host: the name is
 * sent as SNI and, when verifying, the JDK checks the server certificate against it during the
 * handshake ({@code endpointIdentificationAlgorithm=HTTPS}), as Go does with {@code
 * tls.Config.ServerName}.
 *
 * <p>OkHttp layers TLS over its own TCP socket with {@link #createSocket(Socket, String, int,
 * boolean)}; the host it passes is replaced here. OkHttp later sets ALPN on the same {@link
 * SSLParameters}, which keeps what is set here.
 *
 * <p>Thread safety: thread-safe (stateless beyond its immutable fields).
 */
final class TlsServerNameSocketFactory extends SSLSocketFactory {

  private final SSLSocketFactory delegate;
  private final String serverName;
  private final boolean verify;

  TlsServerNameSocketFactory(SSLSocketFactory delegate, String serverName, boolean verify) {
    this.delegate = delegate;
    this.serverName = serverName;
    this.verify = verify;
  }

  @Override
  public Socket createSocket(Socket s, String host, int port, boolean autoClose)
      throws IOException {
    return configure(delegate.createSocket(s, serverName, port, autoClose));
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return configure(delegate.createSocket(host, port));
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return configure(delegate.createSocket(host, port, localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return configure(delegate.createSocket(host, port));
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return configure(delegate.createSocket(address, port, localAddress, localPort));
  }

  @Override
  public Socket createSocket() throws IOException {
    return configure(delegate.createSocket());
  }

  @Override
  public String[] getDefaultCipherSuites() {
    return delegate.getDefaultCipherSuites();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return delegate.getSupportedCipherSuites();
  }

  private Socket configure(Socket socket) {
    if (socket instanceof SSLSocket ssl) {
      SSLParameters p = ssl.getSSLParameters();
      if (!isIpLiteral(serverName)) {
        p.setServerNames(List.of(new SNIHostName(serverName)));
      }
      if (verify) {
        p.setEndpointIdentificationAlgorithm("HTTPS");
      }
      ssl.setSSLParameters(p);
    }
    return socket;
  }

  private static boolean isIpLiteral(String name) {
    return name.indexOf(':') >= 0 || name.matches("[0-9.]+");
  }

  @Override
  public String toString() {
    return "TlsServerNameSocketFactory{serverName=" + serverName + "}";
  }
}

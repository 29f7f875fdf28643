package io.kinformer.client.internal.tls;

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
 * boolean)}; the host it passes is replaced here ({@link #layeredHost}). OkHttp later sets ALPN on the same {@link
 * SSLParameters}, which keeps what is set here.
 *
 * <p>Thread safety: thread-safe (stateless beyond its immutable fields).
 */
final class TlsServerNameSocketFactory extends ForwardingSslSocketFactory {

  private final String serverName;
  private final boolean verify;

  TlsServerNameSocketFactory(SSLSocketFactory delegate, String serverName, boolean verify) {
    super(delegate);
    this.serverName = serverName;
    this.verify = verify;
  }

  @Override
  String layeredHost(String host) {
    return serverName;
  }

  @Override
  Socket created(Socket socket) {
    return configure(socket);
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

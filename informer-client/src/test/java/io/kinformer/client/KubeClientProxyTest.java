package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code proxy-url}: HTTP proxies (with credentials) and SOCKS5. */
class KubeClientProxyTest {

  private final MockWebServer server = TlsFixtures.httpServer();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void request_throughHttpProxyAskingForCredentials_sendsTheUrlsCredentials() throws Exception {
    server.enqueue(new MockResponse(407, Headers.of("Proxy-Authenticate", "Basic realm=\"p\""),
        ""));
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    KubeConfig config =
        KubeConfig.builder()
            .server("http://kube.example.invalid:8080")
            .proxyUrl("http://bob:proxy-pw@localhost:" + server.getPort())
            .token("t")
            .build();

    try (KubeClient client = KubeClient.create(config);
        Response r = KubeClientTest.get(client, "/api")) {
      assertThat(r.code()).isEqualTo(200);
    }

    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(first.getTarget()).isEqualTo("http://kube.example.invalid:8080/api");
    assertThat(first.getHeaders().get("Proxy-Authorization")).isNull();
    assertThat(second.getHeaders().get("Proxy-Authorization"))
        .isEqualTo("Basic Ym9iOnByb3h5LXB3");
    assertThat(second.getHeaders().get("Authorization")).isEqualTo("Bearer t");
  }

  @Test
  void request_throughSocks5Proxy_reachesTheServer() throws Exception {
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    try (Socks5Server socks = new Socks5Server()) {
      KubeConfig config =
          KubeConfig.builder()
              .server("http://localhost:" + server.getPort())
              .proxyUrl("socks5://localhost:" + socks.port())
              .build();

      try (KubeClient client = KubeClient.create(config);
          Response r = KubeClientTest.get(client, "/api")) {
        assertThat(r.code()).isEqualTo(200);
      }

      assertThat(socks.targets()).containsExactly("localhost:" + server.getPort());
      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/api");
    }
  }

  @Test
  void socks5ProxyUrl_withCredentials_warnsThatTheyAreNotSent_andNeverLogsThem() throws Exception {
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    try (Socks5Server socks = new Socks5Server()) {
      KubeConfig config =
          KubeConfig.builder()
              .server("http://localhost:" + server.getPort())
              .proxyUrl("socks5://sam:socks-pw-8d1e@localhost:" + socks.port())
              .build();

      String log = LogCapture.stderrOf(() -> {
        try (KubeClient client = KubeClient.create(config);
            Response r = KubeClientTest.get(client, "/api")) {
          assertThat(r.code()).isEqualTo(200);
        }
      });

      assertThat(log).contains("WARN").contains("SOCKS proxy credentials are not supported")
          .contains("localhost:" + socks.port()).doesNotContain("socks-pw-8d1e");
      assertThat(socks.targets()).containsExactly("localhost:" + server.getPort());
    }
  }

  /**
   * A SOCKS5 server just big enough for the test: no authentication, CONNECT only, one connection
   * at a time relayed by two daemon threads. Every thread ends when its sockets close.
   */
  static final class Socks5Server implements AutoCloseable {
    private final ServerSocket listener;
    private final List<String> targets = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    Socks5Server() throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      start("socks-accept", this::acceptLoop);
    }

    int port() {
      return listener.getLocalPort();
    }

    List<String> targets() {
      return targets;
    }

    private void acceptLoop() {
      try {
        while (true) {
          Socket client = listener.accept();
          sockets.add(client);
          start("socks-handshake", () -> handle(client));
        }
      } catch (IOException closed) {
        // close() was called
      }
    }

    private void handle(Socket client) {
      try {
        DataInputStream in = new DataInputStream(client.getInputStream());
        OutputStream out = client.getOutputStream();
        in.readUnsignedByte(); // version 5
        in.skipNBytes(in.readUnsignedByte()); // offered methods
        out.write(new byte[] {5, 0}); // no authentication
        in.readUnsignedByte(); // version
        int command = in.readUnsignedByte();
        in.readUnsignedByte(); // reserved
        int type = in.readUnsignedByte();
        String host;
        if (type == 3) {
          host = new String(in.readNBytes(in.readUnsignedByte()), StandardCharsets.US_ASCII);
        } else if (type == 1) {
          host = InetAddress.getByAddress(in.readNBytes(4)).getHostAddress();
        } else {
          host = InetAddress.getByAddress(in.readNBytes(16)).getHostAddress();
        }
        int port = in.readUnsignedShort();
        if (command != 1) {
          client.close();
          return;
        }
        targets.add(host + ":" + port);
        Socket upstream = new Socket();
        sockets.add(upstream);
        upstream.connect(new InetSocketAddress(host, port));
        out.write(new byte[] {5, 0, 0, 1, 0, 0, 0, 0, 0, 0});
        start("socks-up", () -> relay(in, upstream));
        relay(upstream.getInputStream(), client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }

    private void relay(InputStream from, Socket to) {
      try {
        from.transferTo(to.getOutputStream());
      } catch (IOException ignored) {
        // the other side closed
      } finally {
        closeQuietly(to);
      }
    }

    private static void start(String name, Runnable r) {
      Thread t = new Thread(r, "test-" + name);
      t.setDaemon(true);
      t.start();
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      for (Socket s : sockets) {
        closeQuietly(s);
      }
    }
  }
}

package io.kinformer.client.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeClientTest;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.client.TlsFixtures;
import io.kinformer.time.testing.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthTokenFileTest {

  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  private final MockWebServer server = TlsFixtures.httpServer();

  @AfterEach
  void stop() {
    server.close();
  }

  private String sentToken() throws InterruptedException {
    return server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization");
  }

  @Test
  void request_afterTokenFileRotates_usesTheNewTokenOnceTheRereadPeriodPassed() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "first\n");
    for (int i = 0; i < 4; i++) {
      server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    }
    KubeConfig config =
        KubeConfig.builder().server(TlsFixtures.url(server, false)).tokenFile(file).build();
    try (KubeClient client =
        KubeClient.create(config, ClientOptions.builder().clock(clock).build())) {
      KubeClientTest.get(client, "/a").close();
      assertThat(sentToken()).isEqualTo("Bearer first");

      Files.writeString(file, "second\n");
      clock.advance(Duration.ofSeconds(59));
      KubeClientTest.get(client, "/b").close();
      assertThat(sentToken()).isEqualTo("Bearer first"); // still cached

      clock.advance(Duration.ofSeconds(1));
      KubeClientTest.get(client, "/c").close();
      assertThat(sentToken()).isEqualTo("Bearer second");
    }
  }

  @Test
  void request_answered401_rereadsTheFileAtOnceAndRetries() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "old");
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    server.enqueue(new MockResponse(401, Headers.of(), "{}"));
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    KubeConfig config =
        KubeConfig.builder().server(TlsFixtures.url(server, false)).tokenFile(file).build();
    try (KubeClient client =
        KubeClient.create(config, ClientOptions.builder().clock(clock).build())) {
      KubeClientTest.get(client, "/a").close();
      Files.writeString(file, "new");

      assertThat(KubeClientTest.get(client, "/b").code()).isEqualTo(200);

      assertThat(sentToken()).isEqualTo("Bearer old");
      assertThat(sentToken()).isEqualTo("Bearer old");
      assertThat(sentToken()).isEqualTo("Bearer new");
    }
  }

  @Test
  void request_answered401WithUnchangedFile_isNotRetried() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "same");
    server.enqueue(new MockResponse(401, Headers.of(), "{}"));
    KubeConfig config =
        KubeConfig.builder().server(TlsFixtures.url(server, false)).tokenFile(file).build();
    try (KubeClient client =
        KubeClient.create(config, ClientOptions.builder().clock(clock).build())) {

      assertThat(KubeClientTest.get(client, "/a").code()).isEqualTo(401);
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }

  @Test
  void token_whenRereadFails_keepsThePreviousToken() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "kept");
    AuthTokenFile source = new AuthTokenFile(file, "test", clock);
    assertThat(source.token()).isEqualTo("kept");

    Files.delete(file);
    clock.advance(Duration.ofMinutes(2));

    assertThat(source.token()).isEqualTo("kept");
  }

  @Test
  void token_whenFirstReadFails_failsNamingTheFile() {
    Path file = tmp.resolve("absent");
    AuthTokenFile source = new AuthTokenFile(file, "f: users[u].user", clock);

    assertThatThrownBy(source::token)
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("f: users[u].user: cannot read token file " + file + " (NoSuchFileException)");
  }

  @Test
  void token_surroundedByWhitespace_isTrimmedAsClientGoDoes() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), " \t file-token \r\n\n");

    assertThat(new AuthTokenFile(file, "t", clock).token()).isEqualTo("file-token");
  }

  @Test
  void token_withALineBreakInside_failsNamingTheFileNotTheToken() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "file-secret\nsecond-line\n");

    assertThatThrownBy(() -> new AuthTokenFile(file, "t", clock).token())
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("t: token file " + file + " contains a line break (character 12), which"
            + " cannot be sent in an HTTP header");
  }

  @Test
  void token_whenTheRereadTokenHasALineBreak_keepsThePreviousToken() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "kept");
    AuthTokenFile source = new AuthTokenFile(file, "t", clock);
    assertThat(source.token()).isEqualTo("kept");

    Files.writeString(file, "half\nwritten");
    clock.advance(Duration.ofMinutes(2));

    assertThat(source.token()).isEqualTo("kept");
  }

  @Test
  void token_emptyFile_fails() throws Exception {
    Path file = Files.writeString(tmp.resolve("token"), "\n");

    assertThatThrownBy(() -> new AuthTokenFile(file, "t", clock).token())
        .hasMessage("t: token file " + file + " is empty");
  }
}

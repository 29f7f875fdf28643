package io.kinformer.client.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.KubeConfigException;
import io.kinformer.client.LogCapture;
import io.kinformer.client.TlsFixtures;
import io.kinformer.client.internal.tls.PemReaderTest;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The interceptor alone, in an OkHttp client, against a real HTTP server. */
class AuthInterceptorTest {

  private static final String SECRET = "interceptor-secret-a41c";

  private final MockWebServer server = TlsFixtures.httpServer();

  @AfterEach
  void stop() {
    server.close();
  }

  private OkHttpClient client(AuthInterceptor auth) {
    return new OkHttpClient.Builder().addInterceptor(auth).authenticator(auth).build();
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  /** A token source that fails as ProcessBuilder does on a NUL in the environment. */
  private static final class Leaky implements AuthTokenSource {
    @Override
    public String token() {
      throw new IllegalArgumentException("Invalid environment variable value: \"" + SECRET + "\"");
    }

    @Override
    public boolean refreshAfterUnauthorized(String rejected) {
      return true;
    }

    @Override
    public String toString() {
      return "Leaky{plugin}";
    }
  }

  /** Hands out token-1, token-2, ...: each refresh yields a different one. */
  private static final class Rotating implements AuthTokenSource {
    final AtomicInteger refreshes = new AtomicInteger();

    @Override
    public String token() {
      return "token-" + (refreshes.get() + 1);
    }

    @Override
    public boolean refreshAfterUnauthorized(String rejected) {
      refreshes.incrementAndGet();
      return true;
    }
  }

  private String sentAuthorization() throws InterruptedException {
    return server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization");
  }

  @Test
  void request_withItsOwnAuthorizationAnswered401_isNotRetriedWithTheConfiguredToken()
      throws Exception {
    server.enqueue(new MockResponse(401, Headers.of(), "{}"));
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    Rotating tokens = new Rotating();
    Request own = get("/api").newBuilder().header("Authorization", "Bearer callers-own").build();

    try (Response r = client(new AuthInterceptor("test", null, tokens)).newCall(own).execute()) {
      assertThat(r.code()).isEqualTo(401);
    }

    assertThat(sentAuthorization()).isEqualTo("Bearer callers-own");
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(tokens.refreshes).hasValue(0);
  }

  @Test
  void request_withTheInterceptorsTokenAnswered401_isRetriedOnceWithTheRefreshedToken()
      throws Exception {
    server.enqueue(new MockResponse(401, Headers.of(), "{}"));
    server.enqueue(new MockResponse(200, Headers.of(), "{}"));
    Rotating tokens = new Rotating();

    try (Response r =
        client(new AuthInterceptor("test", null, tokens)).newCall(get("/api")).execute()) {
      assertThat(r.code()).isEqualTo(200);
    }

    assertThat(sentAuthorization()).isEqualTo("Bearer token-1");
    assertThat(sentAuthorization()).isEqualTo("Bearer token-2");
  }

  /** Hands out one token; refreshing fails as a plugin exiting with an error does. */
  private static final class FailingRefresh implements AuthTokenSource {
    final boolean unexpected;

    FailingRefresh(boolean unexpected) {
      this.unexpected = unexpected;
    }

    @Override
    public String token() {
      return "token-1";
    }

    @Override
    public boolean refreshAfterUnauthorized(String rejected) {
      if (unexpected) {
        throw new IllegalStateException("plugin said " + SECRET);
      }
      throw new KubeConfigException("users[u].user.exec: plugin exited with status 1");
    }

    @Override
    public String toString() {
      return "FailingRefresh{plugin}";
    }
  }

  @Test
  void request_answered401_whenTheRefreshFails_returnsThe401AndLogsWhy() throws Exception {
    for (boolean unexpected : new boolean[] {false, true}) {
      server.enqueue(new MockResponse(401, Headers.of(), "{\"kind\":\"Status\",\"code\":401}"));
      String log = LogCapture.stderrOf(() -> {
        try (Response r = client(new AuthInterceptor("test", null, new FailingRefresh(unexpected)))
            .newCall(get("/api")).execute()) {
          assertThat(r.code()).isEqualTo(401);
          assertThat(r.body().string()).contains("Status");
        }
      });
      assertThat(sentAuthorization()).isEqualTo("Bearer token-1");
      assertThat(log).contains("WARN").contains("server answered 401 to GET /api")
          .contains("cannot refresh credentials after 401").doesNotContain(SECRET);
      if (unexpected) {
        assertThat(log).contains("FailingRefresh{plugin}: unexpected java.lang.IllegalStateException");
      } else {
        assertThat(log).contains("plugin exited with status 1");
      }
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void request_whenTheTokenSourceThrowsUnexpectedly_failsNamingClassAndSourceOnly() {
    AuthInterceptor auth = new AuthInterceptor("test: users[u].user", null, new Leaky());

    assertThatThrownBy(() -> client(auth).newCall(get("/api")).execute())
        .isInstanceOf(IOException.class)
        .hasMessage("cannot get credentials from Leaky{plugin}: unexpected"
            + " java.lang.IllegalArgumentException")
        .satisfies(e -> assertThat(PemReaderTest.throwableText(e)).doesNotContain(SECRET))
        .cause()
        .hasMessageContaining("message withheld")
        .satisfies(c -> assertThat(c.getStackTrace()).isNotEmpty());
    assertThat(server.getRequestCount()).isZero();
  }
}

package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
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

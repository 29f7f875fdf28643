package io.kinformer.client.internal.config;

import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import okhttp3.Authenticator;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.Route;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds the {@code Authorization} header of the configured credentials to every request, and, as
 * OkHttp's {@link Authenticator}, retries once after a 401 when the token source can produce a
 * different token (an exec plugin re-run, a rotated token file).
 *
 * <p>A request that already carries {@code Authorization} is left alone (client-go does the same,
 * so an explicit header wins), and is not retried after a 401: only a header this interceptor set
 * is replaced by refreshed credentials. A token that cannot be obtained fails the call with an {@link
 * IOException} whose cause is the {@link KubeConfigException}; OkHttp only lets interceptors throw
 * IOExceptions without taking down an asynchronous call's thread. Any other exception from a token
 * source becomes an IOException naming its class and the source only: its message could quote a
 * secret.
 *
 * <p>When refreshing after a 401 fails (a plugin that exits with an error, an unreadable token
 * file), the failure is logged at WARN and the 401 response is returned as it is, as client-go's
 * exec round tripper does: the caller sees the server's Unauthorized, and the next request tries
 * the credentials again.
 *
 * <p>Neither the header value nor the token is ever logged.
 *
 * <p>Thread safety: thread-safe; the token sources are.
 */
public final class AuthInterceptor implements Interceptor, Authenticator {

  private static final Logger log = LoggerFactory.getLogger(AuthInterceptor.class);
  private static final String AUTHORIZATION = "Authorization";

  private final String origin;
  private final @Nullable String fixedHeader;
  private final @Nullable AuthTokenSource tokens;

  AuthInterceptor(String origin, @Nullable String fixedHeader, @Nullable AuthTokenSource tokens) {
    this.origin = origin;
    this.fixedHeader = fixedHeader;
    this.tokens = tokens;
  }

  /** The interceptor for a configuration, or null when it needs no header (none, client cert). */
  public static @Nullable AuthInterceptor create(KubeConfig config, Clock clock) {
    return create(config, clock, ClientOptions.defaults().execTimeout());
  }

  /** As above, giving an exec plugin at most {@code execTimeout} to answer. */
  public static @Nullable AuthInterceptor create(KubeConfig config, Clock clock, Duration execTimeout) {
    AuthConfig auth = KubeConfigAccess.auth(config);
    if (auth.tokenFile() != null) {
      // A token file wins over a static token, as in client-go's
      // NewBearerAuthWithRefreshRoundTripper.
      return new AuthInterceptor(
          auth.origin(), null, new AuthTokenFile(auth.tokenFile(), auth.origin(), clock));
    }
    if (auth.token() != null) {
      return new AuthInterceptor(auth.origin(), "Bearer " + auth.token(), null);
    }
    if (auth.username() != null || auth.password() != null) {
      String user = auth.username() == null ? "" : auth.username();
      String password = auth.password() == null ? "" : auth.password();
      String basic =
          Base64.getEncoder()
              .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
      return new AuthInterceptor(auth.origin(), "Basic " + basic, null);
    }
    if (auth.exec() != null) {
      return new AuthInterceptor(
          auth.origin(), null, new ExecCredentialPlugin(auth.exec(), config, clock, execTimeout));
    }
    return null;
  }

  /** The exec credential plugin these credentials come from, if they do (its certificates). */
  public @Nullable ExecCredentialPlugin execPlugin() {
    return tokens instanceof ExecCredentialPlugin plugin ? plugin : null;
  }

  /** Ends a credential plugin that is running; later requests fail to get credentials. */
  public void close() {
    if (tokens != null) {
      tokens.close();
    }
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (request.header(AUTHORIZATION) != null) {
      return chain.proceed(request);
    }
    String header = header();
    Request.Builder ours = ours(request.newBuilder());
    return chain.proceed(header == null ? ours.build() : ours.header(AUTHORIZATION, header).build());
  }

  /**
   * Marks a request whose Authorization header this interceptor set, so that {@link #authenticate}
   * retries only those: a caller's own header that got 401 is the caller's business, and must not
   * be replaced by the configured credentials.
   */
  private Request.Builder ours(Request.Builder builder) {
    return builder.tag(AuthInterceptor.class, this);
  }

  /** The Authorization header to send, or null (credentials presented by TLS instead). */
  private @Nullable String header() throws IOException {
    if (fixedHeader != null) {
      return fixedHeader;
    }
    AuthTokenSource source = Objects.requireNonNull(tokens);
    try {
      String token = source.token();
      return token == null ? null : "Bearer " + token;
    } catch (KubeConfigException e) {
      throw new IOException("cannot get credentials: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw unexpected("cannot get credentials", source, e);
    }
  }

  /**
   * An unexpected exception from a token source, made safe to log: its message may quote what the
   * source was handling (a plugin's environment, a token), so only its class and stack trace are
   * kept. KubeConfigExceptions are ours and never carry a secret.
   */
  private static IOException unexpected(String what, AuthTokenSource source, RuntimeException e) {
    String type = e.getClass().getName();
    IOException io = new IOException(what + " from " + source + ": unexpected " + type);
    RuntimeException withoutMessage =
        new RuntimeException(type + " (message withheld: it may contain a secret)");
    withoutMessage.setStackTrace(e.getStackTrace());
    io.initCause(withoutMessage);
    return io;
  }

  @Override
  public @Nullable Request authenticate(@Nullable Route route, Response response)
      throws IOException {
    Request request = response.request();
    if (tokens == null || response.priorResponse() != null) {
      // Fixed credentials cannot change; and one retry per call is enough.
      log.debug("{}: server answered 401 to {} {}; credentials not refreshed", origin,
          request.method(), request.url().encodedPath());
      return null;
    }
    if (request.tag(AuthInterceptor.class) != this) {
      log.debug("{}: server answered 401 to {} {}, which carried the caller's own Authorization;"
          + " not retried", origin, request.method(), request.url().encodedPath());
      return null;
    }
    String sent = request.header(AUTHORIZATION);
    if (sent == null || !sent.startsWith("Bearer ")) {
      return null; // OkHttp dropped our header (a redirect to another host): nothing to refresh
    }
    String rejected = sent.substring("Bearer ".length());
    String retryHeader;
    try {
      if (!refresh(tokens, rejected)) {
        log.debug("{}: server answered 401 to {} {}; refreshed credentials are unchanged", origin,
            request.method(), request.url().encodedPath());
        return null;
      }
      retryHeader = header();
      if (retryHeader == null) {
        return null; // the plugin now answers with a certificate: nothing to put in a header
      }
    } catch (IOException e) {
      // As client-go's exec round tripper: the refresh failure is logged and the caller gets the
      // server's 401 (an ApiException with its Status), not an I/O error that would hide it.
      log.warn("{}: server answered 401 to {} {} and {}", origin, request.method(),
          request.url().encodedPath(), e.getMessage());
      return null;
    }
    log.debug("{}: server answered 401 to {} {}; retrying with refreshed credentials", origin,
        request.method(), request.url().encodedPath());
    return ours(request.newBuilder()).header(AUTHORIZATION, retryHeader).build();
  }

  /** Whether refreshing gave other credentials; failures as IOExceptions safe to log. */
  private static boolean refresh(AuthTokenSource tokens, String rejected) throws IOException {
    try {
      return tokens.refreshAfterUnauthorized(rejected);
    } catch (KubeConfigException e) {
      throw new IOException("cannot refresh credentials after 401: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw unexpected("cannot refresh credentials after 401", tokens, e);
    }
  }

  @Override
  public String toString() {
    return "AuthInterceptor{" + origin + "}";
  }
}

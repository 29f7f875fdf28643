package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The credentials of one kubeconfig user (client-go's {@code AuthInfo}), already validated: at
 * most one of token (or token file), basic auth and exec plugin is set; a client certificate and
 * key come together and may accompany any of them.
 *
 * <p>{@link #toString()} says which methods are configured, never their values.
 *
 * <p>Thread safety: immutable.
 *
 * @param origin where the user came from, for error messages, e.g. {@code ~/.kube/config:
 *     users[dev].user}
 */
public record AuthConfig(
    String origin,
    @Nullable String token,
    @Nullable Path tokenFile,
    @Nullable String username,
    @Nullable String password,
    @Nullable PemSource clientCertificate,
    @Nullable PemSource clientKey,
    @Nullable ExecConfig exec) {

  static AuthConfig none(String origin) {
    return new AuthConfig(origin, null, null, null, null, null, null, null);
  }

  public AuthConfig {
    int methods =
        (token != null || tokenFile != null ? 1 : 0)
            + (username != null || password != null ? 1 : 0)
            + (exec != null ? 1 : 0);
    if (methods > 1) {
      throw new KubeConfigException(
          origin
              + ": more than one authentication method found ("
              + describeMethods(token, tokenFile, username, password, exec)
              + "); only one of token/tokenFile, username/password and exec is allowed");
    }
    if (token != null) {
      String problem = headerValueProblem(token);
      if (problem != null) {
        // Found now rather than as OkHttp's IllegalArgumentException on every request. client-go
        // sends the token as is and Go's HTTP client refuses it just the same.
        throw new KubeConfigException(
            origin + (origin.endsWith(":") ? " token: " : ".token: ") + problem);
      }
    }
    if ((clientCertificate == null) != (clientKey == null)) {
      throw new KubeConfigException(
          origin
              + ": "
              + (clientCertificate == null ? "client-key is set without client-certificate"
                  : "client-certificate is set without client-key"));
    }
  }

  /**
   * Why a bearer token cannot be sent in an {@code Authorization} header, or null if it can. OkHttp
   * sends header values of tab and printable ASCII only (Go's HTTP client refuses control
   * characters too). The answer says where the bad character is, never what the value holds.
   * Basic auth needs no such check: user and password travel base64-encoded.
   */
  static @Nullable String headerValueProblem(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
        continue;
      }
      String what =
          c == '\n' || c == '\r'
              ? "a line break"
              : c < 0x20 || c == 0x7f ? "a control character" : "a non-ASCII character";
      String where =
          value.substring(i).isBlank() ? "ends with " + what : "contains " + what
              + " (character " + (i + 1) + ")";
      return where + ", which cannot be sent in an HTTP header";
    }
    return null;
  }

  private static String describeMethods(
      @Nullable String token,
      @Nullable Path tokenFile,
      @Nullable String username,
      @Nullable String password,
      @Nullable ExecConfig exec) {
    StringBuilder b = new StringBuilder();
    if (token != null) {
      b.append("token");
    }
    if (tokenFile != null) {
      b.append(b.length() > 0 ? ", " : "").append("tokenFile");
    }
    if (username != null || password != null) {
      b.append(b.length() > 0 ? ", " : "").append("username/password");
    }
    if (exec != null) {
      b.append(b.length() > 0 ? ", " : "").append("exec");
    }
    return b.toString();
  }

  /** A secret-free description of the methods, e.g. {@code token, client-certificate}. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    if (tokenFile != null) {
      b.append("token-file ").append(tokenFile);
    } else if (token != null) {
      b.append("token");
    } else if (username != null) {
      b.append("basic");
    } else if (exec != null) {
      b.append("exec ").append(exec.command());
    }
    if (clientCertificate != null) {
      b.append(b.length() > 0 ? ", " : "").append("client-certificate");
    }
    return b.length() == 0 ? "none" : b.toString();
  }

  @Override
  public String toString() {
    return "AuthConfig{" + origin + ": " + describe() + "}";
  }
}

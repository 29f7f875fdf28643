package io.kinformer.client.internal.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import okhttp3.Authenticator;
import okhttp3.Credentials;
import okhttp3.Route;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxies that the {@code HTTPS_PROXY}, {@code HTTP_PROXY} and {@code NO_PROXY} environment
 * variables name, chosen per request URL as client-go's {@code http.ProxyFromEnvironment} does:
 *
 * <ul>
 *   <li>{@code https} URLs go through {@code HTTPS_PROXY} (else {@code https_proxy}), {@code http}
 *       URLs through {@code HTTP_PROXY} (else {@code http_proxy}); an empty variable counts as
 *       unset, and there is no fallback from one to the other;
 *   <li>hosts that {@code NO_PROXY} (else {@code no_proxy}) names, {@code localhost} and loopback
 *       addresses are reached directly (see {@link NoProxy});
 *   <li>a value without a scheme is an {@code http://} proxy; {@code socks5://} (and {@code
 *       socks5h://}) are SOCKS proxies; the port defaults to 80 (http) or 1080 (SOCKS);
 *   <li>an http proxy's {@code user:password@} becomes a basic {@code Proxy-Authorization}.
 * </ul>
 *
 * <p>Unlike Go, an {@code https://} proxy is not supported (OkHttp speaks plain HTTP to a proxy):
 * such a value, like one that does not parse, is ignored with a WARN that names the variable, never
 * its value. {@link #toString()} shows hosts and ports only, never credentials.
 *
 * <p>Thread safety: immutable.
 */
public final class EnvironmentProxySelector extends ProxySelector {

  private static final Logger log = LoggerFactory.getLogger(EnvironmentProxySelector.class);

  private final @Nullable Target https;
  private final @Nullable Target http;
  private final NoProxy noProxy;

  private EnvironmentProxySelector(@Nullable Target https, @Nullable Target http, NoProxy noProxy) {
    this.https = https;
    this.http = http;
    this.noProxy = noProxy;
  }

  /**
   * The selector for the environment, or null if it names no usable proxy (neither {@code
   * HTTPS_PROXY} nor {@code HTTP_PROXY}, in either case, is set to one); {@code NO_PROXY} alone
   * changes nothing.
   */
  public static @Nullable EnvironmentProxySelector fromEnvironment(
      Function<String, @Nullable String> env) {
    if (variable(env, "HTTPS_PROXY") == null && variable(env, "HTTP_PROXY") == null) {
      return null;
    }
    // A variable that is set but cannot be used is ignored (with a WARN): its scheme is then
    // reached directly, not through the JVM's default selector, which applies only when neither
    // variable is set.
    Target https = target(env, "HTTPS_PROXY");
    Target http = target(env, "HTTP_PROXY");
    String noProxyName = variable(env, "NO_PROXY");
    NoProxy noProxy = noProxyName == null ? NoProxy.EMPTY : NoProxy.parse(env.apply(noProxyName));
    return new EnvironmentProxySelector(https, http, noProxy);
  }

  /** The upper-case name if set and not empty, else the lower-case one if so, else null. */
  private static @Nullable String variable(Function<String, @Nullable String> env, String upper) {
    for (String name : List.of(upper, upper.toLowerCase(Locale.ROOT))) {
      String value = env.apply(name);
      if (value != null && !value.isEmpty()) {
        return name;
      }
    }
    return null;
  }

  private static @Nullable Target target(Function<String, @Nullable String> env, String upper) {
    String name = variable(env, upper);
    if (name == null) {
      return null;
    }
    String value = env.apply(name).trim();
    // As Go: a value without a scheme means http://.
    URI uri = parse(value.contains("://") ? value : "http://" + value);
    if (uri == null) {
      log.warn("ignoring {}: not a valid proxy URL", name);
      return null;
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    boolean socks = scheme.equals("socks5") || scheme.equals("socks5h");
    if (!socks && !scheme.equals("http")) {
      log.warn(
          "ignoring {}: {} proxies are not supported (OkHttp speaks plain HTTP to a proxy);"
              + " use an http:// or socks5:// proxy",
          name,
          scheme);
      return null;
    }
    String host = uri.getHost();
    int port = uri.getPort();
    String rawUserInfo = uri.getRawUserInfo();
    if (host == null) {
      // java.net.URI refuses some names Go accepts (an underscore, as in corp_proxy) and then
      // leaves the authority unparsed: take it apart here.
      String authority = uri.getRawAuthority();
      int at = authority.lastIndexOf('@');
      rawUserInfo = at < 0 ? null : authority.substring(0, at);
      String hostPort = authority.substring(at + 1);
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      try {
        port = colon < 0 ? -1 : Integer.parseInt(hostPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -2;
      }
      if (host.isEmpty() || port < -1 || port > 65535) {
        log.warn("ignoring {}: not a valid proxy URL", name);
        return null;
      }
    }
    if (port == -1) {
      port = socks ? 1080 : 80;
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    Proxy proxy =
        new Proxy(
            socks ? Proxy.Type.SOCKS : Proxy.Type.HTTP,
            InetSocketAddress.createUnresolved(host, port));
    String credential = null;
    if (rawUserInfo != null && socks) {
      // The JDK asks only the JVM-wide java.net.Authenticator for SOCKS credentials, which a
      // library must not set.
      log.warn("{}: SOCKS proxy credentials are not supported and are not sent; connecting to"
          + " {}:{} without them", name, host, port);
    }
    if (rawUserInfo != null && !socks) {
      // Split before decoding, so that an encoded colon (%3A) stays in the user name, as in Go.
      int colon = rawUserInfo.indexOf(':');
      String user = decode(colon < 0 ? rawUserInfo : rawUserInfo.substring(0, colon));
      String password = colon < 0 ? "" : decode(rawUserInfo.substring(colon + 1));
      credential = Credentials.basic(user, password, StandardCharsets.UTF_8);
    }
    return new Target(name, proxy, credential);
  }

  /** Percent-decoding of a URL's user info ({@code +} stays a plus, unlike form decoding). */
  private static String decode(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** A URI with a scheme and an authority (a host, or one java.net.URI left unparsed), or null. */
  private static @Nullable URI parse(String value) {
    try {
      URI uri = new URI(value);
      return uri.getScheme() == null || uri.getRawAuthority() == null ? null : uri;
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public List<Proxy> select(URI uri) {
    Target t = targetFor(uri);
    if (log.isTraceEnabled()) {
      log.trace("{}://{}:{} {}", uri.getScheme(), uri.getHost(), port(uri),
          t == null ? "direct" : "via " + t);
    }
    return List.of(t == null ? Proxy.NO_PROXY : t.proxy());
  }

  /** The proxy a request to this URL goes through, or null to go direct. */
  public @Nullable Target targetFor(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    Target t = scheme.equals("https") ? https : scheme.equals("http") ? http : null;
    if (t == null || uri.getHost() == null || !noProxy.useProxy(uri.getHost(), port(uri))) {
      return null;
    }
    return t;
  }

  private static int port(URI uri) {
    if (uri.getPort() != -1) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  @Override
  public void connectFailed(URI uri, SocketAddress address, IOException failure) {
    // OkHttp tracks failed routes itself.
  }

  /**
   * Answers a proxy's 407 (and OkHttp's preemptive CONNECT challenge) with the credential of the
   * variable whose proxy the route goes through, once; null when that proxy has none.
   */
  public @Nullable Authenticator authenticator() {
    if ((https == null || https.credential() == null)
        && (http == null || http.credential() == null)) {
      return null;
    }
    return (Route route, okhttp3.Response response) -> {
      if (route == null || response.request().header("Proxy-Authorization") != null) {
        return null;
      }
      String credential = credentialFor(route.proxy());
      return credential == null
          ? null
          : response.request().newBuilder().header("Proxy-Authorization", credential).build();
    };
  }

  private @Nullable String credentialFor(Proxy proxy) {
    for (Target t : new Target[] {https, http}) {
      if (t != null && t.credential() != null && t.proxy().equals(proxy)) {
        return t.credential();
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "EnvironmentProxySelector{"
        + (https != null ? "https=" + https + ", " : "")
        + (http != null ? "http=" + http + ", " : "")
        + noProxy
        + "}";
  }

  /**
   * A proxy named by one variable. {@link #toString()} shows the variable, type, host and port:
   * never the credential.
   */
  public record Target(String variable, Proxy proxy, @Nullable String credential) {
    /** {@code host:port}. */
    public String address() {
      InetSocketAddress a = (InetSocketAddress) proxy.address();
      String host = a.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    @Override
    public String toString() {
      return (proxy.type() == Proxy.Type.SOCKS ? "socks5://" : "http://") + address()
          + " (" + variable + ")";
    }
  }
}

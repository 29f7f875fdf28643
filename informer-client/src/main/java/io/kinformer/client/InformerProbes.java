package io.kinformer.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.kinformer.cache.InformerHealth;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Kubernetes liveness and readiness probes over informer health: plain methods a framework can
 * call ({@link #liveness()}, {@link #readiness()}), and a tiny handler for the JDK's own {@link
 * HttpServer} ({@link #registerWith}) answering {@code /livez} and {@code /readyz}.
 *
 * <ul>
 *   <li><b>Readiness</b> fails until every informer has synced, and again while one is stopped.
 *   <li><b>Liveness</b> fails when an informer is stuck ({@link InformerHealth#stuck}): it is
 *       stopped, or it is failing (its last list or watch attempt failed) or not yet synced, and
 *       has made no progress (no stored list, opened watch or event) for longer than the
 *       threshold. A synced informer without failures stays live however quiet its resource is:
 *       no event for hours is no reason to restart. Choose a threshold above the longest backoff
 *       (up to a minute by default, jitter included) and above the time your largest initial
 *       list takes; a few minutes suits most controllers.
 * </ul>
 *
 * <p>Each check takes a fresh health snapshot ({@link SharedInformerFactory#health()}); it never
 * waits for I/O and runs no user code.
 *
 * <p>Thread safety: thread-safe.
 */
public final class InformerProbes {

  private final Supplier<? extends Collection<InformerHealth>> health;
  private final Clock clock;
  private final Duration threshold;

  private InformerProbes(
      Supplier<? extends Collection<InformerHealth>> health, Clock clock, Duration threshold) {
    this.health = Objects.requireNonNull(health, "health");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.threshold = Objects.requireNonNull(threshold, "threshold");
    if (threshold.isNegative() || threshold.isZero()) {
      throw new IllegalArgumentException("threshold must be positive: " + threshold);
    }
  }

  /** Probes over every informer of {@code factory}, on its clock (see the class doc). */
  public static InformerProbes of(SharedInformerFactory factory, Duration threshold) {
    Objects.requireNonNull(factory, "factory");
    return new InformerProbes(factory::health, factory.clock(), threshold);
  }

  /**
   * Probes over any informers: {@code health} gives their snapshots at each check, {@code clock}
   * the time to measure the threshold against (the informers' clock).
   */
  public static InformerProbes of(
      Supplier<? extends Collection<InformerHealth>> health, Clock clock, Duration threshold) {
    return new InformerProbes(health, clock, threshold);
  }

  /**
   * The outcome of a probe: whether it passed, and why, one line per informer (Kubernetes' {@code
   * [+]name ok} / {@code [-]name: ...} style) after a first line "ok" or "failed".
   *
   * <p>Thread safety: immutable.
   */
  public record Result(boolean ok, String reason) {
    public Result {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Fails while an informer is stuck (see the class doc). */
  public Result liveness() {
    Instant now = clock.now();
    return check(h -> !h.stuck(now, threshold));
  }

  /** Fails until every informer has synced, and while one is stopped. */
  public Result readiness() {
    return check(h -> h.synced() && !h.terminal());
  }

  private Result check(Predicate<InformerHealth> passes) {
    List<InformerHealth> all = List.copyOf(health.get());
    StringBuilder lines = new StringBuilder();
    boolean ok = true;
    for (InformerHealth h : all) {
      if (passes.test(h)) {
        lines.append("[+]").append(h.name()).append(" ok\n");
      } else {
        ok = false;
        lines.append("[-]").append(h.describe()).append('\n');
      }
    }
    return new Result(ok, (ok ? "ok\n" : "failed\n") + lines);
  }

  /**
   * Adds the contexts {@code /livez} and {@code /readyz} to {@code server}: each answers 200 when
   * its probe passes and 503 when it fails, with the probe's reason as plain text. Start and stop
   * the server yourself.
   */
  public void registerWith(HttpServer server) {
    Objects.requireNonNull(server, "server");
    server.createContext("/livez", handler(this::liveness));
    server.createContext("/readyz", handler(this::readiness));
  }

  private static HttpHandler handler(Supplier<Result> probe) {
    return exchange -> {
      try (exchange) {
        if (!exchange.getRequestMethod().equals("GET")
            && !exchange.getRequestMethod().equals("HEAD")) {
          respond(exchange, 405, "use GET\n");
          return;
        }
        Result r = probe.get();
        respond(exchange, r.ok() ? 200 : 503, r.reason());
      }
    };
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}

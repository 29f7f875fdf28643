package io.kinformer.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ResourceEventHandlers;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.micrometer.MicrometerMetrics;
import io.kinformer.time.Clock;
import io.kinformer.workqueue.QueueOptions;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A controller's metrics in Prometheus's text format: a factory and a work queue publish
 * client-go's series through {@link MicrometerMetrics} into a {@link PrometheusMeterRegistry}, and
 * the JDK's own HTTP server answers {@code GET /metrics} with its scrape. The controller itself is
 * minimal: a ConfigMap informer whose handler queues keys, and workers that count them.
 *
 * <p>Run: {@code java -cp informer-examples/target/kinformer-demo.jar
 * io.kinformer.examples.MetricsEndpoint} (against the embedded server; {@code --kubeconfig} for a
 * cluster); it serves {@code http://127.0.0.1:9090/metrics} (or {@code -Dmetrics.port=N}) for
 * {@code --duration}.
 *
 * <p>Thread safety: thread-safe; {@link #close()} once.
 */
public final class MetricsEndpoint implements AutoCloseable {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final SharedInformerFactory factory;
  private final RateLimitingQueue<String> queue;
  private final Workers workers;
  private final HttpServer http;
  private final AtomicLong reconciled = new AtomicLong();

  private MetricsEndpoint(KubeClient client, InetSocketAddress address) throws IOException {
    // tag::prometheus-endpoint[]
    MicrometerMetrics metrics = new MicrometerMetrics(registry);
    factory = SharedInformerFactory.builder(client).metrics(metrics).build();
    queue = RateLimitingQueue.create(RateLimiters.defaultControllerRateLimiter(),
        QueueOptions.builder().name("configmaps").metricsProvider(metrics).build());

    http = HttpServer.create(address, 0);
    http.createContext("/metrics", exchange -> {
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    // end::prometheus-endpoint[]
    http.createContext("/", MetricsEndpoint::notFound);
    SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
    configMaps.addEventHandler(
        ResourceEventHandlers.onAnyChange(cm -> queue.add(Keys.metaNamespaceKey(cm))));
    workers = Workers.builder("configmaps", queue, key -> {
          reconciled.incrementAndGet();
          return Reconciler.Result.done();
        })
        .threads(1)
        .build();
  }

  /**
   * Starts the controller and serves its metrics on {@code address} (port 0: a free one).
   *
   * @throws UncheckedIOException if the address cannot be bound
   */
  public static MetricsEndpoint start(KubeClient client, InetSocketAddress address) {
    MetricsEndpoint endpoint;
    try {
      endpoint = new MetricsEndpoint(client, address);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on " + address, e);
    }
    endpoint.http.start();
    endpoint.factory.start();
    endpoint.workers.start();
    return endpoint;
  }

  /** Where the metrics are served. */
  public URI metricsUrl() {
    InetSocketAddress a = http.getAddress();
    return URI.create("http://" + a.getHostString() + ":" + a.getPort() + "/metrics");
  }

  /** How many keys the workers have handled. */
  public long reconciled() {
    return reconciled.get();
  }

  /** Waits until the factory's caches have synced. */
  public boolean awaitSynced(Duration timeout) {
    return factory.waitForCacheSync(timeout);
  }

  @Override
  public void close() {
    http.stop(0);
    workers.close();
    factory.close();
  }

  private static void notFound(HttpExchange exchange) throws IOException {
    exchange.sendResponseHeaders(404, -1);
    exchange.close();
  }

  public static void main(String[] args) {
    Main.run(
        "metrics-endpoint",
        "Runs a small ConfigMap controller and serves its metrics (client-go's names) in"
            + " Prometheus's text format at http://127.0.0.1:9090/metrics (-Dmetrics.port=N).",
        args,
        MetricsEndpoint::runMain);
  }

  private static void runMain(
      Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
      throws InterruptedException {
    int port = Integer.getInteger("metrics.port", 9090);
    try (MetricsEndpoint endpoint = start(cluster.client(),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
      if (!endpoint.awaitSynced(Duration.ofSeconds(60))) {
        throw new IllegalStateException("caches did not sync within 60 s");
      }
      console.line("metrics-endpoint: " + cluster.description() + "; serving "
          + endpoint.metricsUrl() + " (curl it)");
      Clock clock = Clock.system();
      long deadline = Main.deadline(clock, commandLine.duration());
      while (!Main.waitOrEnd(stop, clock, deadline, Duration.ofSeconds(60))) {
        // serve until the deadline or Ctrl-C
      }
      console.line("done: " + endpoint.reconciled() + " keys reconciled");
    }
  }
}

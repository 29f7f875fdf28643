package io.kinformer.envtest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A client-go 0.36.4 informer in a child process ({@code kinformer-clientgo-informer}, which
 * build.sh builds beside the API server), and what it reported: requests, handler events and,
 * after {@link #stopAndReadCache()}, its cache. It informs on configmaps or pods (client-go's
 * typed informers) or on a custom resource (its dynamic informer), in one namespace.
 *
 * <p>Thread safety: {@link #events()} and {@link #requests()} may be read from any thread; the
 * rest is for the test's thread.
 */
final class ClientGoInformer implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** One handler call: add, update or delete, of {@code name} at {@code rv}. */
  record Event(String kind, String name, String rv, boolean initial, boolean tombstone) {}

  private final Process process;
  private final Thread reader;
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, String> cache = new TreeMap<>();
  private volatile boolean synced;
  private volatile boolean ended;

  private ClientGoInformer(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "clientgo-informer-reader");
    reader.start();
  }

  /** The program beside the server's binary, when build.sh built it. */
  static Optional<Path> binary(ApiServer server) {
    Path p = server.binaries().apiServer().resolveSibling("kinformer-clientgo-informer");
    return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
  }

  /**
   * Starts the program.
   *
   * @param resource {@code configmaps}, {@code pods} or {@code GROUP/VERSION/RESOURCE} of a
   *     custom resource
   * @param streaming whether client-go starts with a streaming list (its WatchListClient
   *     feature) rather than list-then-watch
   */
  static ClientGoInformer start(Path binary, ApiServer server, String namespace, String resource,
      boolean streaming) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(binary.toString(),
        "--kubeconfig=" + server.kubeconfig(), "--namespace=" + namespace,
        "--resource=" + resource)
        .redirectError(ProcessBuilder.Redirect.appendTo(
            server.workDir().resolve("clientgo-informer.log").toFile()));
    pb.environment().put("KUBE_FEATURE_WatchListClient", Boolean.toString(streaming));
    return new ClientGoInformer(pb.start());
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        JsonNode n = JSON.readTree(line);
        String kind = n.path("kind").asString();
        switch (kind) {
          case "request" -> requests.add(n.path("method").asString() + " "
              + n.path("path").asString() + "?" + n.path("query").asString());
          case "synced" -> synced = true;
          case "cache" -> {
            synchronized (cache) {
              cache.put(n.path("name").asString(), n.path("rv").asString());
            }
          }
          case "end" -> ended = true;
          default -> events.add(new Event(kind, n.path("name").asString(),
              n.path("rv").asString(), n.path("initial").asBoolean(),
              n.path("tombstone").asBoolean()));
        }
      }
    } catch (IOException | RuntimeException e) {
      requests.add("read failed: " + e);
    }
  }

  boolean synced() {
    return synced;
  }

  List<Event> events() {
    return events;
  }

  List<String> requests() {
    return requests;
  }

  /** Ends the informer (its stdin closes), and returns the cache it wrote: name → rv. */
  Map<String, String> stopAndReadCache() throws IOException, InterruptedException {
    process.getOutputStream().close();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("kinformer-clientgo-informer did not end after its stdin closed");
    }
    reader.join(TimeUnit.SECONDS.toMillis(30));
    if (!ended) {
      throw new AssertionError("kinformer-clientgo-informer ended without writing its cache");
    }
    synchronized (cache) {
      return new TreeMap<>(cache);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
    reader.join(TimeUnit.SECONDS.toMillis(30));
  }
}

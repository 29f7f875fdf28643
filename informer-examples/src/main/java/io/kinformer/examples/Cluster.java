package io.kinformer.examples;

import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.testing.EmbeddedApiServer;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The cluster an example program talks to: a real one named by {@code --kubeconfig} / {@code
 * --context}, or else an embedded API server started for the occasion.
 *
 * <p>Thread safety: immutable; {@link #close()} may be called once from any thread.
 */
final class Cluster implements AutoCloseable {

  private final @Nullable EmbeddedApiServer server;
  private final KubeClient client;
  private final String description;

  private Cluster(@Nullable EmbeddedApiServer server, KubeClient client, String description) {
    this.server = server;
    this.client = Objects.requireNonNull(client, "client");
    this.description = description;
  }

  /**
   * Connects as the command line says: to the kubeconfig context it names, or to a new embedded
   * server if it names none.
   */
  static Cluster connect(CommandLine commandLine) {
    if (commandLine.realCluster()) {
      KubeConfig.Loader loader = KubeConfig.loader();
      if (commandLine.kubeconfig().isPresent()) {
        loader = loader.file(commandLine.kubeconfig().get());
      }
      if (commandLine.context().isPresent()) {
        loader = loader.context(commandLine.context().get());
      }
      KubeConfig config = loader.load();
      return new Cluster(
          null,
          KubeClient.create(config),
          "cluster " + config.server() + " (" + config.source() + "), read-only");
    }
    return embedded(EmbeddedApiServer.builder().start());
  }

  /** Talks to {@code server}, which the returned cluster closes. */
  static Cluster embedded(EmbeddedApiServer server) {
    try {
      KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
      return new Cluster(server, client, "embedded API server at " + server.url());
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** The client for the cluster. */
  KubeClient client() {
    return client;
  }

  /** The embedded server, if this is one; then the examples may write to it. */
  Optional<EmbeddedApiServer> server() {
    return Optional.ofNullable(server);
  }

  /** Whether the examples may write: only to an embedded server. */
  boolean writable() {
    return server != null;
  }

  /** Where this is, for the first line of output. */
  String description() {
    return description;
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }
}

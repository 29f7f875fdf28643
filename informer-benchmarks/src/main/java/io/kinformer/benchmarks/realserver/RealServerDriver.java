package io.kinformer.benchmarks.realserver;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The drivers {@link RealServerBenchmark} runs, each a child process with one pods informer: its
 * name in options and reports, and its command line.
 *
 * <p>Thread safety: immutable.
 */
enum RealServerDriver {
  /** kinformer's defaults: JSON, streaming list. */
  KINFORMER_JSON_STREAM("kinformer-json-stream", true, "encoding=json", "streaming=true"),
  /** kinformer, JSON, LIST then WATCH. */
  KINFORMER_JSON_LIST("kinformer-json-list", true, "encoding=json", "streaming=false"),
  /** kinformer with protobuf, once the client decodes it (refused until then). */
  KINFORMER_PROTOBUF_STREAM("kinformer-protobuf-stream", true, "encoding=protobuf",
      "streaming=true"),
  /** client-go's defaults: protobuf, streaming list. */
  CLIENTGO_DEFAULTS("clientgo-defaults", false),
  /** client-go, protobuf, LIST then WATCH (WatchListClient off). */
  CLIENTGO_PROTOBUF_LIST("clientgo-protobuf-list", false),
  /** client-go, JSON, streaming list. */
  CLIENTGO_JSON_STREAM("clientgo-json-stream", false, "--json");

  /** What runs by default: every driver that works today. */
  static final String DEFAULTS =
      "kinformer-json-stream,kinformer-json-list,clientgo-defaults,clientgo-protobuf-list,"
          + "clientgo-json-stream";

  private final String id;
  private final boolean kinformer;
  private final List<String> args;

  RealServerDriver(String id, boolean kinformer, String... args) {
    this.id = id;
    this.kinformer = kinformer;
    this.args = List.of(args);
  }

  /** The name in options, results and reports. */
  String id() {
    return id;
  }

  /** Whether this is kinformer (a JVM) rather than client-go. */
  boolean kinformer() {
    return kinformer;
  }

  /** The driver named {@code id}, or an error listing the names. */
  static RealServerDriver of(String id) {
    for (RealServerDriver d : values()) {
      if (d.id.equals(id)) {
        return d;
      }
    }
    List<String> ids = new ArrayList<>();
    for (RealServerDriver d : values()) {
      ids.add(d.id);
    }
    throw new IllegalArgumentException("unknown driver " + id + "; the drivers are " + ids);
  }

  /**
   * The command line of this driver.
   *
   * @param clientGo the client-go program, for the client-go drivers
   * @param heap the JVM's -Xms and -Xmx, for the kinformer drivers
   */
  List<String> command(Path kubeconfig, int pods, Path clientGo, String heap) {
    List<String> cmd = new ArrayList<>();
    if (kinformer) {
      cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
          "-cp", System.getProperty("java.class.path"), KinformerProcess.class.getName(),
          "kubeconfig=" + kubeconfig, "pods=" + pods));
    } else {
      cmd.addAll(List.of(clientGo.toString(), "--kubeconfig=" + kubeconfig, "--pods=" + pods));
    }
    cmd.addAll(args);
    return cmd;
  }

  /** The environment this driver adds: client-go's WatchListClient gate for LIST then WATCH. */
  Map<String, String> environment() {
    return this == CLIENTGO_PROTOBUF_LIST
        ? Map.of("KUBE_FEATURE_WatchListClient", "false")
        : Map.of("KUBE_FEATURE_WatchListClient", "true");
  }
}

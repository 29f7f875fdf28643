package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ReflectorException;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What closing leaves behind, against the embedded API server over real HTTP: after {@code close()}
 * of the informers, the factory and the client, no thread of ours (but the process-wide {@code
 * kinformer-scheduler}) is alive, no OkHttp task reads an HTTP/2 connection any more, the
 * connection pool is empty and the server sees no open watch; twenty open/close cycles leave no
 * more threads than one. And a refused credential (401) never shows up in an exception or in the
 * log (at the levels the surefire configuration sets: DEBUG for KubeClient and the credential
 * classes, INFO for the informer's).
 */
class ResourceHygieneTest {

  /** How long closing may take to be visible from outside (threads exiting, server noticing). */
  private static final Duration SETTLE = Duration.ofSeconds(10);

  private static final String HTTP2_READER =
      "okhttp3.internal.http2.Http2Connection$ReaderRunnable";

  private static EmbeddedApiServer.Builder server() {
    return EmbeddedApiServer.builder();
  }

  /**
   * The server's open watches. Over HTTP/1.1 the embedded server (Jetty) notices that a client
   * closed a watch only when it next writes to it (the real API server notices at once), so this
   * first writes a newline, which is whitespace between events, into every open watch.
   */
  private static int openWatches(EmbeddedApiServer server) {
    server.faults().writeToWatches(null, "\n");
    return server.faults().openWatches(null);
  }

  /** One client, factory and two informers, synced, then closed: what is left? */
  @ParameterizedTest(name = "tls={0}")
  @ValueSource(booleans = {false, true})
  void close_afterSyncedInformers_leavesNoThreadConnectionOrWatch(boolean tls) {
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    long readersBefore = http2Readers();
    try (EmbeddedApiServer server = server().tls(tls).start()) {
      KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
      SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
      SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
      SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
      factory.start();
      assertThat(factory.waitForCacheSync(SETTLE)).isTrue();
      await().atMost(SETTLE).until(() -> server.faults().openWatches(null) == 2);
      assertThat(newThreads(before, ResourceHygieneTest::isOurs)).isNotEmpty();
      if (tls) {
        // TLS negotiates HTTP/2: one connection, read by an OkHttp task.
        assertThat(http2Readers()).isGreaterThan(readersBefore);
      }

      pods.close();
      configMaps.close();
      factory.close();
      client.close();

      assertThat(client.httpClient().connectionPool().connectionCount()).isZero();
      await().atMost(SETTLE).untilAsserted(() -> {
        assertThat(newThreads(before, ResourceHygieneTest::isOurs)).isEmpty();
        assertThat(http2Readers()).as("threads reading an HTTP/2 connection")
            .isLessThanOrEqualTo(readersBefore);
        assertThat(openWatches(server)).isZero();
      });
    }
  }

  /** Over TLS, so HTTP/2 with its connection readers, the part most likely to leak. */
  @Test
  void openAndClose_twentyTimes_threadCountDoesNotGrow() {
    try (EmbeddedApiServer server = server().tls(true).start()) {
      cycle(server);
      int afterOne = countedThreads();
      for (int i = 1; i < 20; i++) {
        cycle(server);
      }
      await().atMost(SETTLE).untilAsserted(() ->
          assertThat(countedThreads()).as("threads after 20 cycles (after one: %d): %s",
              afterOne, countedThreadNames()).isLessThanOrEqualTo(afterOne));
      assertThat(openWatches(server)).isZero();
    }
  }

  private static void cycle(EmbeddedApiServer server) {
    KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
    try (SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      factory.informerFor(Pod.class);
      factory.informerFor(ConfigMap.class);
      factory.start();
      assertThat(factory.waitForCacheSync(SETTLE)).isTrue();
    } finally {
      client.close();
    }
    assertThat(client.httpClient().connectionPool().connectionCount()).isZero();
    await().atMost(SETTLE).until(() -> openWatches(server) == 0);
  }

  record Refusal(String name, String userYaml, String secret) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Refusal> refusals() {
    return Stream.of(
        new Refusal("token", "    token: hygiene-secret-token-4d1e\n",
            "hygiene-secret-token-4d1e"),
        new Refusal("password", "    username: alice\n    password: hygiene-secret-pass-88ab\n",
            "hygiene-secret-pass-88ab"));
  }

  /** The informer keeps retrying a refused list; nothing it reports or logs names the secret. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void informer_whenServerRefuses401_neverShowsTheCredential(Refusal refusal, @TempDir Path dir)
      throws IOException {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<ReflectorException> errors = new CopyOnWriteArrayList<>();
    // TLS: to a plain HTTP server the kubeconfig's credential would not be sent at all, and the
    // test would prove nothing.
    try (EmbeddedApiServer server =
        EmbeddedApiServer.builder().tls(true).bearerToken("the-right-token").start()) {
      Path config = dir.resolve("config");
      Files.writeString(config, server.kubeConfigYaml().replace(
          "    token: the-right-token\n", refusal.userYaml()));
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      KubeClient client = KubeClient.create(KubeConfig.load(config));
      try (SharedInformerFactory factory =
          SharedInformerFactory.builder(client).watchErrorHandler(errors::add).build()) {
        factory.informerFor(Pod.class);
        factory.start();
        await().atMost(SETTLE).until(() -> errors.size() >= 2);
      } finally {
        client.close();
        System.setErr(originalErr);
      }
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(errors).allSatisfy(e -> assertThat(allText(e)).contains("401")
        .doesNotContain(refusal.secret()));
    assertThat(log).contains("401").doesNotContain(refusal.secret());
  }

  /** Messages and toString of the exception and its causes and suppressed exceptions. */
  private static String allText(Throwable t) {
    StringBuilder sb = new StringBuilder();
    appendText(t, sb, 0);
    return sb.toString();
  }

  private static void appendText(Throwable t, StringBuilder sb, int depth) {
    if (t == null || depth > 10) {
      return;
    }
    sb.append(t).append('\n');
    for (Throwable s : t.getSuppressed()) {
      appendText(s, sb, depth + 1);
    }
    appendText(t.getCause(), sb, depth + 1);
  }

  /** Threads of the client side; the embedded server's own are {@code kinformer-apiserver-*}. */
  private static boolean isOurs(Thread t) {
    String name = t.getName();
    return name.startsWith("kinformer-") && !name.equals("kinformer-scheduler")
        && !name.startsWith("kinformer-apiserver");
  }

  /**
   * How many threads are reading an HTTP/2 connection now. OkHttp runs the reader as a task on its
   * shared {@code OkHttp TaskRunner} threads, so only the stack tells it apart.
   */
  private static long http2Readers() {
    return Thread.getAllStackTraces().values().stream()
        .filter(stack -> Stream.of(stack).anyMatch(f -> f.getClassName().equals(HTTP2_READER)))
        .count();
  }

  private static List<String> newThreads(
      Set<Thread> before, java.util.function.Predicate<Thread> filter) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive() && filter.test(t))
        .map(Thread::getName)
        .sorted()
        .collect(Collectors.toList());
  }

  /**
   * Threads a client, factory or informer may own: ours (but the process-wide scheduler) and
   * OkHttp tasks reading HTTP/2 connections. OkHttp's other threads are process-wide task runners
   * (named after the task they run, such as a connection pool's closer, which may belong to any
   * client of the JVM) and stop by themselves after a minute idle.
   */
  private static int countedThreads() {
    return countedThreadNames().size() + (int) http2Readers();
  }

  private static List<String> countedThreadNames() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && isOurs(t))
        .map(Thread::getName)
        .sorted()
        .collect(Collectors.toList());
  }
}

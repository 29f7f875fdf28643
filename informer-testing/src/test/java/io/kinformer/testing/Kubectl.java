package io.kinformer.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real kubectl for the kubectl tests, bound to one server's kubeconfig and a private cache
 * directory. The kubectl is {@code KINFORMER_KUBECTL} or the first on PATH; without one the test is
 * skipped, unless {@code KINFORMER_KUBECTL_REQUIRED=true} (as CI sets, with a kubectl from {@code
 * informer-testing/kubectl/kubectl.sh}), where it fails.
 */
final class Kubectl {

  /** What one kubectl run printed (stdout and stderr together) and its exit code. */
  record Run(int exit, String out) {}

  private final Path binary;
  private final Path kubeconfig;
  private final Path cacheDir;

  private Kubectl(Path binary, Path kubeconfig, Path cacheDir) {
    this.binary = binary;
    this.kubeconfig = kubeconfig;
    this.cacheDir = cacheDir;
  }

  /**
   * A kubectl for {@code server}, caching discovery under {@code dir}; skips the test when there is
   * no kubectl and CI does not require one.
   */
  static Kubectl forServer(EmbeddedApiServer server, Path dir) {
    Path binary = find();
    if (binary == null && Boolean.parseBoolean(System.getenv("KINFORMER_KUBECTL_REQUIRED"))) {
      throw new AssertionError("KINFORMER_KUBECTL_REQUIRED is true but no kubectl was found:"
          + " set KINFORMER_KUBECTL or run informer-testing/kubectl/kubectl.sh");
    }
    assumeTrue(binary != null, "kubectl is not installed");
    return new Kubectl(binary, server.kubeConfig(), dir.resolve("kubectl-cache"));
  }

  private static Path find() {
    String configured = System.getenv("KINFORMER_KUBECTL");
    if (configured != null && !configured.isBlank()) {
      Path p = Path.of(configured);
      if (!Files.isExecutable(p)) {
        throw new AssertionError("KINFORMER_KUBECTL=" + configured + " is not an executable");
      }
      return p;
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Path.of(dir, "kubectl");
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return null;
  }

  private List<String> command(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.add("--kubeconfig=" + kubeconfig);
    cmd.add("--cache-dir=" + cacheDir);
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Runs kubectl with {@code args} to its end (at most 60 s) and returns what it printed. */
  Run run(String... args) throws IOException, InterruptedException {
    List<String> cmd = command(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kubectl hung: " + cmd);
    }
    return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(),
        StandardCharsets.UTF_8));
  }

  /** Runs kubectl with {@code args} and fails the test, with its output, unless it exits 0. */
  String ok(String... args) throws IOException, InterruptedException {
    Run r = run(args);
    if (r.exit() != 0) {
      throw new AssertionError("kubectl " + String.join(" ", args) + " exited " + r.exit()
          + ":\n" + r.out());
    }
    return r.out();
  }

  /** A kubectl that keeps running (such as {@code get -w}); its output arrives line by line. */
  static final class Streaming implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private Streaming(Process process) {
      this.process = process;
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
          }
        } catch (IOException e) {
          lines.add("read failed: " + e);
        }
      }, "test-kubectl-reader");
      reader.setDaemon(true);
      reader.start();
    }

    /** The next line printed that contains {@code text}; fails after 30 s without one. */
    String nextContaining(String text) throws InterruptedException {
      while (true) {
        String line = lines.poll(30, TimeUnit.SECONDS);
        if (line == null) {
          throw new AssertionError("kubectl printed no line containing " + text);
        }
        if (line.contains(text)) {
          return line;
        }
      }
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  /** Starts kubectl with {@code args} without waiting for it to end. */
  Streaming start(String... args) throws IOException {
    return new Streaming(new ProcessBuilder(command(args)).redirectErrorStream(true).start());
  }
}

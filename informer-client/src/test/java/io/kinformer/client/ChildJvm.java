package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A JVM of its own for a test: this JVM's {@code java}, given arguments, stdin closed. */
final class ChildJvm {

  private ChildJvm() {}

  /**
   * Runs {@code java} with {@code arguments} to its end (at most 60 s) and returns its output
   * (stdout and stderr), asserting that it exited with status 0.
   */
  static String run(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(arguments));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try {
      p.getOutputStream().close();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child JVM ended").isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(p.exitValue()).as("child JVM's exit; its output:%n%s", out).isZero();
    return out;
  }
}

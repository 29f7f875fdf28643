package io.kinformer.envtest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One child process of an {@link ApiServer} (etcd or the API server), its output appended to a
 * log file so that a passing run prints nothing.
 *
 * <p>Thread safety: {@link #stop} and {@link #kill} may be called from any thread, also from a
 * shutdown hook while another thread stops the same process.
 */
final class ChildProcess {
  private static final Logger log = LoggerFactory.getLogger(ChildProcess.class);

  private final String name;
  private final Process process;
  private final Path logFile;

  private ChildProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  static ChildProcess start(String name, List<String> command, Path workDir, Path logFile)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command)
        .directory(workDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process p = pb.start();
    log.debug("started {} pid={} log={}", name, p.pid(), logFile);
    return new ChildProcess(name, p, logFile);
  }

  String name() {
    return name;
  }

  Path logFile() {
    return logFile;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Asks the process to end (SIGTERM), and kills it (SIGKILL) if it has not ended within
   * {@code graceSeconds}. Returns once it has ended. Restores the interrupt flag and kills at
   * once if interrupted.
   */
  void stop(long graceSeconds) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
  }

  /** Kills the process (SIGKILL) and waits, up to a bounded time, for it to end. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        log.warn("{} pid={} did not end 30 s after SIGKILL", name, process.pid());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + "(pid " + process.pid() + ")";
  }
}

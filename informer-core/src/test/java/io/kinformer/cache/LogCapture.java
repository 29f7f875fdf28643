package io.kinformer.cache;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what a piece of test code logs (slf4j-simple writes to {@code System.err}), so that a
 * test can assert on the WARN it provokes instead of printing it.
 *
 * <p>Thread safety: swaps the global {@code System.err}; for tests that do not run in parallel.
 */
final class LogCapture {

  private LogCapture() {}

  /** Code that may throw anything. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body} and returns what it wrote to {@code System.err}. */
  static String stderrOf(Body body) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}

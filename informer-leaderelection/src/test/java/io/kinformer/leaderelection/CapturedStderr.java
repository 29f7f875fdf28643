package io.kinformer.leaderelection;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the code under test logs while the test provokes failures (slf4j-simple writes to {@code
 * System.err}): kept out of the build output, and readable by the test.
 *
 * <pre>{@code
 * String log = CapturedStderr.during(() -> clock.advance(Duration.ofSeconds(20)));
 * }</pre>
 *
 * <p>Thread safety: swaps the global {@code System.err}; for tests that do not run in parallel.
 */
final class CapturedStderr implements AutoCloseable {

  /** Test code that may throw. */
  @FunctionalInterface
  interface Action {
    void run() throws Exception;
  }

  private final PrintStream before = System.err;
  private final ByteArrayOutputStream sink = new ByteArrayOutputStream();

  private CapturedStderr() {
    System.setErr(new PrintStream(sink, true, StandardCharsets.UTF_8));
  }

  /** Runs {@code action} with {@code System.err} captured; returns what was written. */
  static String during(Action action) throws Exception {
    try (CapturedStderr c = new CapturedStderr()) {
      action.run();
      return c.sink.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setErr(before);
  }
}

package io.kinformer.client;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Captures what is logged (slf4j-simple writes to {@code System.err}): around one piece of test
 * code ({@link #stderrOf}), or around every test of a class as a JUnit extension
 * ({@code @RegisterExtension final LogCapture log = new LogCapture();}, then {@link #text()}).
 *
 * <p>Thread safety: swaps the global {@code System.err}; for tests that do not run in parallel.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

  private ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private PrintStream original;

  /** Code that may throw anything. */
  @FunctionalInterface
  public interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body} and returns what it wrote to {@code System.err}. */
  public static String stderrOf(Body body) throws Exception {
    LogCapture capture = new LogCapture();
    capture.start();
    try {
      body.run();
    } finally {
      capture.stop();
    }
    return capture.text();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    stop();
  }

  /** What was written to {@code System.err} since the capture started. */
  public String text() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  private void start() {
    original = System.err;
    captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  private void stop() {
    System.setErr(original);
  }
}

package io.kinformer.cache;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps what a test logs (slf4j-simple writes WARN and above to {@code System.err}) out of the
 * build output and lets the test read it: {@code @RegisterExtension final StderrCapture stderr =
 * new StderrCapture();}, then {@link #text()}.
 *
 * <p>Thread safety: swaps the global {@code System.err}; for tests that do not run in parallel.
 */
final class StderrCapture implements BeforeEachCallback, AfterEachCallback {

  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private PrintStream original = System.err;

  @Override
  public void beforeEach(ExtensionContext context) {
    original = System.err;
    captured.reset();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    System.setErr(original);
  }

  /** What was logged to {@code System.err} during this test so far. */
  String text() {
    return captured.toString(StandardCharsets.UTF_8);
  }
}

package io.kinformer.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps a green test run quiet: what is written to {@code System.err} while a test runs (the log
 * lines of slf4j-simple among it, from any thread) is held, and printed only if the test fails.
 * Output between tests (threads of a test that has ended, class setup) is held too, and printed if
 * the class fails outside its tests. Every test of every module gets this through JUnit's extension
 * auto-detection: this class's {@code META-INF/services} entry, enabled by the parent POM's
 * surefire system property
 * {@code junit.jupiter.extensions.autodetection.enabled}.
 *
 * <p>Tests that assert on what they log swap {@code System.err} themselves and restore it after;
 * they see their lines as before.
 *
 * <p>Thread safety: the held output is written from any thread under one lock; the callbacks run
 * on JUnit's thread. Tests must not run in parallel within a JVM (they do not).
 */
public final class QuietOutput implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {

  private static final PrintStream REAL_ERR = System.err;
  private static final Held HELD = install();

  private static Held install() {
    Held held = new Held();
    System.setErr(new PrintStream(held, /* autoFlush= */ true, StandardCharsets.UTF_8));
    return held;
  }

  /** Needed by auto-detection; the state is static (one System.err per JVM). */
  public QuietOutput() {}

  @Override
  public void beforeEach(ExtensionContext context) {
    HELD.take(); // between tests: dropped once a test starts, unless a class failure prints it
  }

  @Override
  public void afterEach(ExtensionContext context) {
    printIfFailed(context, "test " + context.getDisplayName(), HELD.take());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    printIfFailed(context, "class " + context.getDisplayName(), HELD.take());
  }

  private static void printIfFailed(ExtensionContext context, String what, byte[] output) {
    Optional<Throwable> failure = context.getExecutionException();
    if (failure.isEmpty() || output.length == 0) {
      return;
    }
    synchronized (REAL_ERR) {
      REAL_ERR.println("---- " + what + " failed; what it wrote to stderr:");
      REAL_ERR.write(output, 0, output.length);
      REAL_ERR.println("---- end of " + what);
      REAL_ERR.flush();
    }
  }

  /** The held bytes. */
  private static final class Held extends OutputStream {
    private ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      buffer.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      buffer.write(b, off, len);
    }

    /** Returns what was held so far and starts holding afresh. */
    synchronized byte[] take() {
      byte[] bytes = buffer.toByteArray();
      buffer = new ByteArrayOutputStream();
      return bytes;
    }
  }
}

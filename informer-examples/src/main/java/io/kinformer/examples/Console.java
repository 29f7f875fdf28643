package io.kinformer.examples;

import io.kinformer.time.Clock;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;

/**
 * Prints the examples' output: one aligned row per event, each stamped with the time since start,
 * and a progress line that rewrites itself on a terminal.
 *
 * <p>Thread safety: thread-safe; rows printed by different threads never interleave.
 */
final class Console {

  /** Time, event, key, then free text: {@code  +1.25s  UPDATED   shop/web-3  node-2 Running}. */
  private static final String ROW = "%8s  %-10s %-34s %s%n";

  private final PrintStream out;
  private final Clock clock;
  private final long startNanos;
  private final boolean terminal;
  private boolean progressShown; // guarded by this

  Console(PrintStream out, Clock clock, boolean terminal) {
    this.out = Objects.requireNonNull(out, "out");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.startNanos = clock.nanoTime();
    this.terminal = terminal;
  }

  /** A console on standard output, rewriting progress lines only if that is a terminal. */
  static Console stdout() {
    return new Console(System.out, Clock.system(), System.console() != null);
  }

  /** The column headers of {@link #row}. */
  synchronized void header(String time, String event, String key, String detail) {
    endProgress();
    out.printf(Locale.ROOT, ROW, time, event, key, detail);
  }

  /** One event row. */
  synchronized void row(String event, String key, String detail) {
    endProgress();
    out.printf(Locale.ROOT, ROW, elapsed(), event, key, detail);
  }

  /** A free line of text. */
  synchronized void line(String text) {
    endProgress();
    out.println(text);
  }

  /**
   * A progress line: on a terminal it replaces the previous one, elsewhere (a pipe, a CI log) it is
   * not printed, to keep logs short.
   */
  synchronized void progress(String text) {
    if (terminal) {
      out.print("\r" + text + "\u001b[K");
      out.flush();
      progressShown = true;
    }
  }

  /** The time since this console was created, as {@code +1.25s}. */
  String elapsed() {
    long millis = (clock.nanoTime() - startNanos) / 1_000_000;
    return String.format(Locale.ROOT, "+%d.%02ds", millis / 1000, (millis % 1000) / 10);
  }

  private void endProgress() {
    if (progressShown) {
      out.print("\r\u001b[K");
      progressShown = false;
    }
  }
}

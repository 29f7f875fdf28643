package io.kinformer.examples;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What every example's {@code main} does around the program itself: parse the command line, set
 * the log level, connect to the cluster, stop cleanly on Ctrl-C, and report errors without a stack
 * trace unless {@code -v} asked for one.
 *
 * <p>Thread safety: stateless.
 */
final class Main {

  /** An example program, given its cluster and a latch that Ctrl-C counts down. */
  @FunctionalInterface
  interface Program {
    void run(Cluster cluster, Console console, CommandLine commandLine, CountDownLatch stop)
        throws Exception;
  }

  private Main() {}

  /** Runs {@code program} as the {@code main} of {@code name}, then exits the JVM. */
  static void run(String name, String what, String[] args, Program program) {
    CommandLine commandLine;
    try {
      commandLine = CommandLine.parse(List.of(args));
    } catch (IllegalArgumentException e) {
      System.err.println(name + ": " + e.getMessage());
      System.err.println(CommandLine.usage(name, what));
      System.exit(2);
      return;
    }
    if (commandLine.help()) {
      System.out.println(CommandLine.usage(name, what));
      return;
    }
    configureLogging(commandLine.verbose());

    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.countDown(); // Ctrl-C: let the program wind down and print its summary
                  try {
                    finished.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "kinformer-examples-shutdown"));
    int status = 0;
    try (Cluster cluster = Cluster.connect(commandLine)) {
      program.run(cluster, Console.stdout(), commandLine, stop);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 1;
    } catch (Exception e) {
      System.err.println(name + ": " + e);
      if (commandLine.verbose()) {
        e.printStackTrace();
      } else {
        System.err.println("(run with -v for details)");
      }
      status = 1;
    } finally {
      finished.countDown();
    }
    System.exit(status);
  }

  /**
   * Waits up to {@code step}, but not past {@code deadlineNanos} (on {@code clock}; {@link
   * Long#MAX_VALUE} for none), and returns whether the program should end: Ctrl-C was pressed or
   * the deadline has passed.
   */
  static boolean waitOrEnd(CountDownLatch stop, Clock clock, long deadlineNanos, Duration step)
      throws InterruptedException {
    long remaining = deadlineNanos - clock.nanoTime();
    if (remaining <= 0) {
      return true;
    }
    if (stop.await(Math.min(remaining, step.toNanos()), TimeUnit.NANOSECONDS)) {
      return true;
    }
    return deadlineNanos - clock.nanoTime() <= 0;
  }

  /** The deadline, in {@code clock}'s nanoseconds, of a run of {@code duration} (zero: none). */
  static long deadline(Clock clock, Duration duration) {
    return duration.isZero() ? Long.MAX_VALUE : clock.nanoTime() + duration.toNanos();
  }

  /**
   * Quiet by default: only warnings and errors, from every logger. {@code -v} shows kinformer's
   * debug logs. Explicit {@code -Dorg.slf4j.simpleLogger...} settings win.
   */
  static void configureLogging(boolean verbose) {
    setDefault("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    setDefault("org.slf4j.simpleLogger.showThreadName", "true");
    setDefault("org.slf4j.simpleLogger.showDateTime", "true");
    setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    setDefault("org.slf4j.simpleLogger.logFile", "System.err");
    if (verbose) {
      setDefault("org.slf4j.simpleLogger.log.io.kinformer", "debug");
    }
  }

  private static void setDefault(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}

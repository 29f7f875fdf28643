package io.kinformer.examples;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The options every example program takes.
 *
 * <p>Thread safety: immutable.
 *
 * @param kubeconfig {@code --kubeconfig FILE}: use this kubeconfig instead of the embedded server
 * @param context {@code --context NAME}: use this kubeconfig context (of {@code --kubeconfig}, or
 *     of {@code KUBECONFIG} / {@code ~/.kube/config}) instead of the embedded server
 * @param duration {@code --duration 20s}: how long to run before exiting; zero runs until Ctrl-C
 * @param verbose {@code -v}: kinformer's debug logs on standard error
 * @param help {@code -h} / {@code --help}
 */
record CommandLine(
    Optional<Path> kubeconfig,
    Optional<String> context,
    Duration duration,
    boolean verbose,
    boolean help) {

  static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);

  CommandLine {
    Objects.requireNonNull(kubeconfig, "kubeconfig");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException("--duration must not be negative: " + duration);
    }
  }

  /** Whether to talk to a real cluster (read-only) rather than start an embedded server. */
  boolean realCluster() {
    return kubeconfig.isPresent() || context.isPresent();
  }

  /**
   * Parses {@code args}.
   *
   * @throws IllegalArgumentException naming the bad argument
   */
  static CommandLine parse(List<String> args) {
    Path kubeconfig = null;
    String context = null;
    Duration duration = DEFAULT_DURATION;
    boolean verbose = false;
    boolean help = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      switch (name) {
        case "-h", "--help" -> help = true;
        case "-v", "--verbose" -> verbose = true;
        case "--kubeconfig", "--context", "--duration" -> {
          if (value == null) {
            if (i + 1 >= args.size()) {
              throw new IllegalArgumentException(name + " needs a value");
            }
            value = args.get(++i);
          }
          switch (name) {
            case "--kubeconfig" -> kubeconfig = Path.of(value);
            case "--context" -> context = value;
            default -> duration = parseDuration(value);
          }
        }
        default -> throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    return new CommandLine(
        Optional.ofNullable(kubeconfig), Optional.ofNullable(context), duration, verbose, help);
  }

  /** Parses {@code 20s}, {@code 5m}, {@code 1h}, {@code 1500ms}, {@code 0} or ISO {@code PT20S}. */
  static Duration parseDuration(String text) {
    String s = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (s.equals("0")) {
        return Duration.ZERO;
      }
      if (s.startsWith("pt")) {
        return Duration.parse(s);
      }
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      }
      long n = Long.parseLong(s.substring(0, s.length() - 1));
      switch (s.charAt(s.length() - 1)) {
        case 's':
          return Duration.ofSeconds(n);
        case 'm':
          return Duration.ofMinutes(n);
        case 'h':
          return Duration.ofHours(n);
        default:
          break;
      }
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      // fall through to the error below
    }
    throw new IllegalArgumentException(
        "bad --duration '" + text + "': use for example 20s, 5m, 1h, 1500ms or 0 (until Ctrl-C)");
  }

  /** The usage text of program {@code program}. */
  static String usage(String program, String what) {
    return String.join(
        "\n",
        "usage: " + program + " [--kubeconfig FILE] [--context NAME] [--duration 20s] [-v]",
        "",
        what,
        "",
        "  (no flag)          start an embedded API server and make changes to it",
        "  --kubeconfig FILE  use this kubeconfig's current context instead (read-only)",
        "  --context NAME     use this context of FILE, or of KUBECONFIG / ~/.kube/config",
        "  --duration D       stop after D (20s, 5m, ...); 0 runs until Ctrl-C (default 20s)",
        "  -v                 show kinformer's debug logs",
        "");
  }
}

package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CommandLineTest {

  record Case(String name, List<String> args, CommandLine expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> valid() {
    Duration d = CommandLine.DEFAULT_DURATION;
    return Stream.of(
        new Case(
            "no arguments: embedded server, 20s",
            List.of(),
            new CommandLine(Optional.empty(), Optional.empty(), d, false, false)),
        new Case(
            "kubeconfig as two words",
            List.of("--kubeconfig", "/tmp/kc"),
            new CommandLine(Optional.of(Path.of("/tmp/kc")), Optional.empty(), d, false, false)),
        new Case(
            "context with =, verbose",
            List.of("--context=staging", "-v"),
            new CommandLine(Optional.empty(), Optional.of("staging"), d, true, false)),
        new Case(
            "duration in minutes",
            List.of("--duration", "5m"),
            new CommandLine(
                Optional.empty(), Optional.empty(), Duration.ofMinutes(5), false, false)),
        new Case(
            "duration 0 runs until Ctrl-C",
            List.of("--duration=0"),
            new CommandLine(Optional.empty(), Optional.empty(), Duration.ZERO, false, false)),
        new Case(
            "ISO duration and help",
            List.of("--duration", "PT1.5S", "--help"),
            new CommandLine(
                Optional.empty(), Optional.empty(), Duration.ofMillis(1500), false, true)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void parse_validArguments_givesOptions(Case c) {
    assertThat(CommandLine.parse(c.args())).isEqualTo(c.expected());
  }

  record Bad(String name, List<String> args, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Bad> invalid() {
    return Stream.of(
        new Bad("unknown flag", List.of("--kubecfg", "x"), "unknown argument: --kubecfg"),
        new Bad("missing value", List.of("--context"), "--context needs a value"),
        new Bad("bad duration", List.of("--duration", "soon"), "bad --duration 'soon'"),
        new Bad("negative duration", List.of("--duration", "-5s"), "must not be negative"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void parse_invalidArguments_namesTheProblem(Bad c) {
    assertThatThrownBy(() -> CommandLine.parse(c.args()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(c.message());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void realCluster_onlyWithKubeconfigOrContext(Case c) {
    CommandLine parsed = CommandLine.parse(c.args());
    assertThat(parsed.realCluster())
        .isEqualTo(parsed.kubeconfig().isPresent() || parsed.context().isPresent());
  }
}

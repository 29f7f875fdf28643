package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kinformer.client.internal.config.KubeConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing of kubeconfig loading ({@link KubeConfig#load(Path)}: {@link
 * KubeConfigFile} parses the YAML, {@link KubeConfigLoader} resolves the current context).
 *
 * <p>Property: for any file content, loading returns a whole {@link KubeConfig} (a server, a
 * namespace, a printable form) or throws a {@link KubeConfigException}; never another exception,
 * a hang or unbounded memory (YAML alias bombs and deep nesting included in the corpus). Loading
 * runs no exec plugin and reads no referenced file, so fuzzed paths and commands are harmless.
 *
 * <p>A normal build replays the committed corpus in {@code KubeConfigFuzzTestInputs/<method>/}
 * (under {@code src/test/resources/io/kinformer/client/}; seeded from {@code
 * src/test/resources/kubeconfig/}); the {@code fuzz-kubeconfig} execution of {@code mvn verify}
 * then fuzzes {@code #load} for {@code kinformer.fuzz.seconds} (15 s by default; see
 * docs/reliability.md for long runs). Generated inputs and any crashing input go to {@code
 * informer-client/target/jazzer/}; a crashing input copied into the inputs directory stays a
 * regression test once committed.
 */
@Tag("slow")
class KubeConfigFuzzTest {

  /** One file, rewritten for every input (relative paths in it resolve inside its directory). */
  private static final Path FILE = createFile();

  private static Path createFile() {
    try {
      Path dir = Files.createTempDirectory("kinformer-kubeconfig-fuzz");
      dir.toFile().deleteOnExit();
      Path file = dir.resolve("config");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "30s")
  void load(byte[] content) throws IOException {
    Files.write(FILE, content);
    KubeConfig config;
    try {
      config = KubeConfig.loader()
          .environment(Map.of())
          .inClusterDirectory(FILE.resolveSibling("no-such-service-account"))
          .file(FILE)
          .load();
    } catch (KubeConfigException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertThat(config.server()).isNotNull();
    assertThat(config.server().getScheme()).isNotNull();
    // A blank context namespace is refused like KubeConfig.builder() refuses it (corpus input
    // blank-namespace.yaml).
    assertThat(config.namespace()).isNotBlank();
    assertThat(config.toString()).isNotBlank();
    assertThat(config.auth()).isNotNull();
  }
}

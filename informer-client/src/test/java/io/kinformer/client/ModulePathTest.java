package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module descriptors work for an application on the module path: a module that requires only
 * {@code io.kinformer.client} and {@code io.kinformer.testing} ({@code
 * src/test/resources/modulepath/}) is compiled against our modules and run in a JVM of its own,
 * where it starts an embedded API server over TLS and syncs an informer. Compiling it fails if an
 * API package is not exported or a type of our API is not readable through {@code requires
 * transitive}; running it fails if a module we need at run time is not required (our modules are
 * resolved from their descriptors only), or if Jackson or our reflection cannot reach what it
 * must.
 *
 * <p>The module path holds our modules (their classes directories, or jars in {@code mvn verify})
 * and the explicit modules of this test's class path; of the automatic modules only the fabric8
 * model jars that informer-client brings (so they are shown to split no package) and okio, since
 * every automatic module on a module path is resolved once one is.
 */
class ModulePathTest {

  private static final Set<String> OURS =
      Set.of("io.kinformer.core", "io.kinformer.proto", "io.kinformer.client",
          "io.kinformer.testing");

  private static final Set<String> AUTOMATIC = Set.of("okio");

  @Test
  void applicationModule_compilesAndSyncsAnInformer_onTheModulePath(@TempDir Path dir)
      throws Exception {
    List<Path> modulePath = modulePath();
    assertThat(modulePath.stream().map(ModulePathTest::moduleName))
        .as("our modules on the module path")
        .containsAll(OURS);
    String path = join(modulePath);

    Path sources = dir.resolve("src");
    copy("module-info.java", sources);
    copy("io/kinformer/modulepath/Main.java", sources);
    Path classes = dir.resolve("classes");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int compiled =
        javac.run(null, null, null, "--module-path", path, "-d", classes.toString(),
            "-Xlint:all,-requires-automatic,-requires-transitive-automatic", "-Werror",
            sources.resolve("module-info.java").toString(),
            sources.resolve("io/kinformer/modulepath/Main.java").toString());
    assertThat(compiled).as("javac's exit status (its messages are on stderr)").isZero();

    String out =
        ChildJvm.run(
            "--module-path",
            classes + File.pathSeparator + path,
            "--module",
            "io.kinformer.modulepath/io.kinformer.modulepath.Main");
    assertThat(out)
        .contains("module io.kinformer.client")
        .contains("internal exported false")
        .contains("synced 1 seed greeting=hello");
  }

  /** Our modules and the other modules of this JVM's class path that may go on a module path. */
  private static List<Path> modulePath() {
    List<Path> path = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      boolean classesDir = Files.isRegularFile(p.resolve("module-info.class"));
      if (!classesDir && !(Files.isRegularFile(p) && entry.endsWith(".jar"))) {
        continue;
      }
      Optional<ModuleDescriptor> module = descriptor(p);
      if (module.isEmpty()) {
        continue;
      }
      String name = module.get().name();
      boolean ours = OURS.contains(name);
      boolean dependency =
          name.startsWith("io.kinformer.")
              ? ours
              : !module.get().isAutomatic()
                  || name.startsWith("kubernetes.model.")
                  || AUTOMATIC.contains(name);
      if (ours || dependency) {
        path.add(p);
      }
    }
    return path;
  }

  private static Optional<ModuleDescriptor> descriptor(Path entry) {
    try {
      return ModuleFinder.of(entry).findAll().stream()
          .map(ModuleReference::descriptor)
          .findFirst();
    } catch (FindException e) {
      return Optional.empty(); // not a module at all (no derivable name, for example)
    }
  }

  private static String moduleName(Path entry) {
    return descriptor(entry).map(ModuleDescriptor::name).orElse("");
  }

  private static String join(List<Path> paths) {
    return String.join(File.pathSeparator, paths.stream().map(Path::toString).toList());
  }

  private static void copy(String resource, Path sources) throws IOException {
    Path target = sources.resolve(resource);
    Files.createDirectories(target.getParent());
    try (InputStream in = ModulePathTest.class.getResourceAsStream("/modulepath/" + resource)) {
      assertThat(in).as("test resource modulepath/%s", resource).isNotNull();
      Files.copy(in, target);
    }
  }
}

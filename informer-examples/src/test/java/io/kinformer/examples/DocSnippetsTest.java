package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the code shown in README.md and in the docs this module owns identical to compiled code.
 *
 * <p>In Java sources of this module, a region between {@code // tag::NAME[]} and {@code //
 * end::NAME[]} is a snippet. In Markdown, a fenced {@code java} block right after the line {@code
 * <!-- snippet: NAME -->} must equal that region, less its common indentation. Every {@code java}
 * block in those pages must carry such a marker, so nothing shown there escapes the compiler.
 *
 * <p>To rewrite the pages from the sources after changing a snippet, run this test with {@code
 * -Dkinformer.docs.update=true}.
 */
class DocSnippetsTest {

  /** The pages whose Java blocks must all be snippets, relative to the repository root. */
  static final List<String> PAGES =
      List.of(
          "README.md",
          "docs/README.md",
          "docs/user-guide.md",
          "docs/comparison.md",
          "docs/troubleshooting.md");

  private static final Path ROOT = Path.of("..");
  private static final List<Path> SOURCE_ROOTS =
      List.of(Path.of("src/main/java"), Path.of("src/test/java"));
  private static final Pattern TAG = Pattern.compile("//\\s*tag::([\\w.-]+)\\[\\]");
  private static final Pattern END = Pattern.compile("//\\s*end::([\\w.-]+)\\[\\]");
  private static final Pattern MARKER = Pattern.compile("<!--\\s*snippet:\\s*([\\w.-]+)\\s*-->");
  private static final String FENCE = "```";

  /** A fenced block of a page: the lines between the fences, and its marker's name if any. */
  record Block(String page, int line, String language, String name, int start, int end) {}

  @Test
  void pages_showTheirSnippetsExactlyAsCompiled() throws IOException {
    Map<String, String> snippets = snippets();
    boolean update = Boolean.getBoolean("kinformer.docs.update");
    List<String> problems = new ArrayList<>();
    for (String page : PAGES) {
      Path file = ROOT.resolve(page);
      if (!Files.exists(file)) {
        problems.add(page + ": missing");
        continue;
      }
      List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
      List<Block> blocks = blocks(page, lines);
      // Walk backwards so that replacing one block does not move the ones before it.
      boolean changed = false;
      for (int i = blocks.size() - 1; i >= 0; i--) {
        Block b = blocks.get(i);
        if (b.name().isEmpty()) {
          if (b.language().equals("java")) {
            problems.add(b.page() + ":" + b.line() + ": java block without a snippet marker");
          }
          continue;
        }
        String code = snippets.get(b.name());
        if (code == null) {
          problems.add(b.page() + ":" + b.line() + ": no source region tagged " + b.name());
          continue;
        }
        String shown = String.join("\n", lines.subList(b.start(), b.end()));
        if (!shown.equals(code)) {
          if (update) {
            lines.subList(b.start(), b.end()).clear();
            lines.addAll(b.start(), code.lines().toList());
            changed = true;
          } else {
            problems.add(b.page() + ":" + b.line() + ": " + b.name() + " differs from source");
          }
        }
      }
      if (changed) {
        Files.write(file, lines, StandardCharsets.UTF_8);
      }
    }
    assertThat(problems).as("documentation out of step with the code").isEmpty();
  }

  @Test
  void readme_givesTheTestCommandThatCiRunsFirst() throws IOException {
    // .ci/run runs the README's test command first, then fuzzes (mvn -B -Pfuzz ...).
    List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run"), StandardCharsets.UTF_8);
    String command =
        ci.stream()
            .map(String::strip)
            .filter(l -> l.startsWith("mvn ") && !l.equals("mvn -v"))
            .findFirst()
            .orElseThrow();
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(readme).contains(FENCE + "sh\n" + command + "\n" + FENCE);
  }

  @Test
  void readme_runsTheJarThatTheExamplesModuleBuilds() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"), StandardCharsets.UTF_8);
    Matcher name = Pattern.compile("<finalName>([^<]+)</finalName>").matcher(pom);
    assertThat(name.find()).as("the shade plugin's finalName in pom.xml").isTrue();
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(readme)
        .contains(
            "mvn -q -B -pl informer-examples -am package -DskipTests"
                + " && java -jar informer-examples/target/" + name.group(1) + ".jar");
  }

  @Test
  void blocks_findsMarkedAndUnmarkedFences() {
    List<String> page =
        List.of(
            "text",
            "<!-- snippet: one -->",
            "```java",
            "int a = 1;",
            "```",
            "```sh",
            "mvn -B verify",
            "```",
            "```java",
            "x();",
            "```");

    List<Block> blocks = blocks("p.md", page);

    assertThat(blocks)
        .containsExactly(
            new Block("p.md", 3, "java", "one", 3, 4),
            new Block("p.md", 6, "sh", "", 6, 7),
            new Block("p.md", 9, "java", "", 9, 10));
  }

  @Test
  void regions_dedentAndAllowNesting() {
    String source =
        String.join(
            "\n",
            "class A {",
            "  // tag::outer[]",
            "  void f() {",
            "    // tag::inner[]",
            "    g();",
            "    // end::inner[]",
            "  }",
            "  // end::outer[]",
            "}");

    Map<String, String> regions = regions("A.java", source);

    assertThat(regions).containsEntry("inner", "g();");
    assertThat(regions).containsEntry("outer", "void f() {\n  g();\n}");
  }

  static List<Block> blocks(String page, List<String> lines) {
    List<Block> out = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String line = lines.get(i).strip();
      if (!line.startsWith(FENCE)) {
        i++;
        continue;
      }
      String language = line.substring(FENCE.length()).strip();
      String name = "";
      if (i > 0) {
        Matcher m = MARKER.matcher(lines.get(i - 1).strip());
        if (m.matches()) {
          name = m.group(1);
        }
      }
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).strip().equals(FENCE)) {
        end++;
      }
      out.add(new Block(page, i + 1, language, name, i + 1, end));
      i = end + 1;
    }
    return out;
  }

  static Map<String, String> snippets() {
    Map<String, String> all = new TreeMap<>();
    for (Path root : SOURCE_ROOTS) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          if (f.getFileName().toString().equals("DocSnippetsTest.java")) {
            continue; // its own examples are not snippets
          }
          regions(f.toString(), Files.readString(f, StandardCharsets.UTF_8))
              .forEach(
                  (name, code) -> {
                    if (all.putIfAbsent(name, code) != null) {
                      throw new IllegalStateException("snippet " + name + " is tagged twice");
                    }
                  });
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return all;
  }

  static Map<String, String> regions(String file, String source) {
    Map<String, Integer> open = new LinkedHashMap<>();
    Map<String, String> out = new LinkedHashMap<>();
    List<String> lines = source.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      Matcher tag = TAG.matcher(lines.get(i));
      Matcher end = END.matcher(lines.get(i));
      if (tag.find()) {
        open.put(tag.group(1), i + 1);
      } else if (end.find()) {
        Integer start = open.remove(end.group(1));
        if (start == null) {
          throw new IllegalStateException(file + ":" + (i + 1) + ": end without tag");
        }
        List<String> body =
            lines.subList(start, i).stream()
                .filter(l -> !TAG.matcher(l).find() && !END.matcher(l).find())
                .toList();
        out.put(end.group(1), dedent(body));
      }
    }
    if (!open.isEmpty()) {
      throw new IllegalStateException(file + ": unclosed snippet tags " + open.keySet());
    }
    return out;
  }

  private static String dedent(List<String> body) {
    int indent =
        body.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return body.stream()
        .map(l -> l.isBlank() ? "" : l.substring(indent))
        .collect(Collectors.joining("\n"));
  }
}
